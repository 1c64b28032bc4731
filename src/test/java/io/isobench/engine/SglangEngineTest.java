package io.isobench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Mode;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.parse.ParsedOutput;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * SGLang's adapter on SGLang's real commands and numbers from the archive (../shared; skipped without it) and on
 * the formats {@code sglang.bench_serving} prints and writes, built from its print statements' layout
 * ({@code "{:<40} {:<10.2f}"} rows under a {@code =}-centred banner; JSON Lines with {@code <stat>_<family>_ms} keys),
 * never from sample values.
 */
class SglangEngineTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String THREE_WAY = SglangConsole.THREE_WAY;
    private static final String MICRO_FAILED =
            "isobench-data-more/archive/results/omniperf_results_v2/sglang/2f427491/benchmark_result.json";

    private final EngineAdapter sglang = Engines.named("sglang").orElseThrow();

    private static JsonNode read(String relative) throws Exception {
        return SglangConsole.read(relative);
    }

    private static Map<String, Double> canonical(JsonNode metrics) {
        return SglangConsole.canonical(metrics);
    }

    private static String console(Map<String, Double> v) {
        return SglangConsole.console(v);
    }

    private static String center(String s, char c) {
        return SglangConsole.center(s, c);
    }

    private static Map<String, Double> byName(ParsedOutput p) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Metric m : p.metrics()) {
            out.put(m.name(), m.value());
        }
        return out;
    }

    @Test
    void theArchivesSglangCommandIsOneOfSglangsToolsWithEveryFlagKnown() throws Exception {
        String command = read(THREE_WAY).path("perf_command").asText();
        List<String> words = List.of(command.strip().split("\\s+"));
        EntryPoint e = Engines.toolOf(words).orElseThrow();
        assertThat(e.engine()).isEqualTo("sglang");
        assertThat(e.mode()).isEqualTo(Mode.SERVING).isEqualTo(Mode.ofCommand(command).orElseThrow());
        for (String w : words.subList(e.argsStart(), words.size())) {
            if (w.startsWith("--")) {
                assertThat(sglang.dialect().accepted(e)).as(w).contains(sglang.dialect().canonical(e, w));
            }
        }
    }

    @Test
    void theArchivesNumbersReadBackFromBenchServingsConsoleBlock() throws Exception {
        Map<String, Double> archive = canonical(read(THREE_WAY).path("human_metrics"));
        assertThat(archive).hasSizeGreaterThan(15);
        ParsedOutput p = sglang.parseConsole("noise before\n" + console(archive) + "\nlogs after\n").orElseThrow();
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        Map<String, Double> read = byName(p);
        archive.forEach((name, v) -> assertThat(read.get(name)).as(name).isCloseTo(v, within(0.006)));
        // settings rows and numbers without a canonical name are not metrics
        assertThat(read).doesNotContainKeys("concurrency", "backend").containsEntry("completed_requests", 100.0)
                .containsEntry("duration_s", 12.31);
        assertThat(read.keySet()).allMatch(n -> MetricDictionary.lookup(n) != null);
    }

    @Test
    void theArchivesNumbersReadBackFromTheOutputFileItsLastLineTheRun() throws Exception {
        Map<String, Double> archive = canonical(read(THREE_WAY).path("human_metrics"));
        ObjectNode first = JSON.createObjectNode().put("backend", "sglang").put("mean_ttft_ms", 1.0);
        ObjectNode last = JSON.createObjectNode().put("backend", "sglang").put("dataset_name", "sharegpt")
                .put("request_rate", "Infinity").putNull("accept_length").put("completed", 100);
        archive.forEach((name, v) -> {
            Matcher m = Pattern.compile("(ttft|tpot|itl|e2el)_ms_(.+)").matcher(name);
            String key = m.matches() ? m.group(2) + "_" + (m.group(1).equals("e2el") ? "e2e_latency" : m.group(1))
                    + "_ms" : name.replace("_rps", "").replace("_tok_s", "");
            last.put(key, v);
        });
        String file = JSON.writeValueAsString(first) + "\n" + JSON.writeValueAsString(last) + "\n";
        Map<String, Double> read = byName(sglang.parseResult(file).orElseThrow());
        archive.forEach((name, v) -> assertThat(read.get(name)).as(name).isCloseTo(v, within(1e-9)));
        assertThat(read).containsEntry("completed_requests", 100.0).doesNotContainKey("accept_length");
    }

    @Test
    void theLastBlockOfAConsoleWithSeveralIsTheRunAndABannerWithoutRowsIsNone() {
        String a = console(Map.of("total_input_tokens", 1.0, "total_output_tokens", 2.0, "request_throughput_rps", 3.0,
                "input_throughput_tok_s", 4.0, "output_throughput_tok_s", 5.0, "total_throughput_tok_s", 6.0,
                "ttft_ms_mean", 7.0));
        String b = a.replace("7.00", "9.50");
        assertThat(byName(sglang.parseConsole(a + b).orElseThrow())).containsEntry("ttft_ms_mean", 9.5);
        assertThat(sglang.parseConsole(center(" Serving Benchmark Result ", '=') + "\n" + "=".repeat(50))).isEmpty();
        // vLLM's block is not SGLang's: its label spellings differ (E2EL), the banner is the same
        assertThat(sglang.parseConsole("Mean TTFT (ms): 3.0")).isEmpty();
    }

    @Test
    void sglangsOwnFailuresAndTheArchivesSglangFailureClassify() throws Exception {
        JsonNode failed = read(MICRO_FAILED).path("result");
        assertThat(failed.path("status").asText()).isEqualTo("baseline_failed");
        assertThat(FailureClassifier.classify(failed.path("error_message").asText()).map(Failure::category))
                .contains(FailureCategory.DEPENDENCY_CONFLICT);
        for (FailureSignature s : sglang.failureSignatures()) {
            String text = "Traceback (most recent call last):\n  File \"x.py\"\nRuntimeError: " + s.text() + ".\n";
            // SGLang's own lines are its adapter's: with them the classifier names the category ...
            Failure f = FailureClassifier.classify(text, sglang.failureSignatures()).orElseThrow();
            assertThat(f.category()).as(s.text()).isEqualTo(s.category());
            assertThat(f.detail()).startsWith(s.description());
            // ... the generic table alone does not know them
            assertThat(FailureClassifier.classify(text).map(Failure::category)).as(s.text())
                    .isNotEqualTo(Optional.of(s.category()));
        }
    }

    @Test
    void argparsesAbbreviationsAndServerAliasesResolveToTheFlagTheyName() {
        EntryPoint serving = Engines.toolOf(List.of("python3", "-m", "sglang.bench_serving")).orElseThrow();
        assertThat(sglang.dialect().canonical(serving, "--random-input")).isEqualTo("--random-input-len");
        assertThat(sglang.dialect().canonical(serving, "--num-prompt")).isEqualTo("--num-prompts");
        // ambiguous prefix: left as written (argparse refuses it)
        assertThat(sglang.dialect().canonical(serving, "--random")).isEqualTo("--random");
        EntryPoint batch = Engines.toolOf(List.of("python", "-m", "sglang.bench_one_batch")).orElseThrow();
        assertThat(batch.mode()).isEqualTo(Mode.LATENCY);
        assertThat(sglang.dialect().canonical(batch, "--tp-size")).isEqualTo("--tensor-parallel-size");
        assertThat(sglang.dialect().accepted(batch)).contains("--model-path", "--batch-size", "--tensor-parallel-size");
        assertThat(sglang.dialect().accepted(serving)).doesNotContain("--model-path");
    }

    @Test
    void itsServerMetricNamesAreSglangs() {
        var names = sglang.serverMetrics();
        assertThat(names.namespace()).isEqualTo("sglang:");
        assertThat(names.shown()).allMatch(n -> n.startsWith("sglang:"));
        assertThat(names.ttftMean()).isEqualTo("sglang:time_to_first_token_ms_mean");
    }
}
