package io.isobench.parse;

import io.isobench.Mode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every prefix of real raw text parses without error, and a head-truncated prefix never reports a wrong value. */
class ParserTruncationTest {

    @Test
    void everyPrefixOfTheRealMetricTextsIsSafeAndNeverWrong() {
        List<String[]> files = List.of(
                new String[] {RealFiles.CODEX + "results/aea94362_agent_result.json", "/raw_output"},
                new String[] {RealFiles.CODEX + "results/98f47f2a_agent_result.json", "/raw_output"},
                new String[] {RealFiles.CODEX + "results/61b8cea3_agent_result.json", "/raw_output"},
                new String[] {RealFiles.CODEX_CLI + "results/9474e89b_agent_result.json", "/raw_output"},
                new String[] {RealFiles.CLAUDE + "results/separate_agent/cf2f084d_human_result.json", "/raw_output"},
                new String[] {RealFiles.CLAUDE + "results/separate_agent/8bc68e19_agent_result.json", "/raw_output"},
                new String[] {RealFiles.CLAUDE + "results/separate_agent/6ce01f30_human_result.json", "/raw_output"},
                new String[] {RealFiles.CODEX + "results/70b808fe_agent_result.json", "/raw_output"});
        long prefixes = 0;
        for (String[] f : files) {
            String raw = RealFiles.field(f[0], f[1]);
            ParsedOutput full = OutputParser.parse(raw);
            // every prefix near the result lines, a sample elsewhere (keeps the test fast on small machines)
            int first = firstResultIndex(raw);
            for (int end = 0; end <= raw.length(); end += (end >= first - 200 && end <= first + 2500 ? 1 : 41)) {
                String prefix = raw.substring(0, end);
                ParsedOutput p = OutputParser.parse(prefix, OutputParser.Truncation.HEAD_KEPT);
                prefixes++;
                for (Metric m : p.metrics()) {
                    assertThat(full.value(m.name())).as("%s prefix %d: %s", f[0], end, m.name()).hasValue(m.value());
                }
                if (p.mode() != null && p.mode() != Mode.SERVING) {
                    assertThat(p.mode()).isEqualTo(full.mode());
                }
                OutputParser.parse(prefix);
            }
        }
        assertThat(prefixes).isGreaterThan(10_000);
    }

    @Test
    void everyPrefixOfEveryRealRawTextParses() {
        for (String raw : RealFiles.allRawTexts()) {
            for (int end = 0; end <= raw.length(); end += 257) {
                OutputParser.parse(raw.substring(0, end));
                FailureClassifier.classify(raw.substring(0, end));
            }
        }
    }

    private static int firstResultIndex(String raw) {
        int best = raw.length();
        for (String marker : new String[] {"Serving Benchmark Result", "Avg latency", "Throughput: "}) {
            int i = raw.indexOf(marker);
            if (i >= 0) {
                best = Math.min(best, i);
            }
        }
        return best;
    }
}
