package io.isobench.plan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seals the JSON of {@code isobench plan simulate --format json --schedule} on a small suite. To rewrite it after an
 * intended change: {@code mvn -o -q test -Dtest=SimReportGoldenTest -Disobench.golden.rewrite=true}, review the diff.
 */
class SimReportGoldenTest {

    static final Path GOLDEN = Path.of("src/test/resources/golden/plan-simulate.json");

    @TempDir
    Path dir;

    @Test
    void jsonMatchesTheGoldenFile() throws IOException {
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: big
                    human_commit: 310aca88
                    perf_command: python benchmarks/benchmark_latency.py --model meta-llama/Meta-Llama-3-70B -tp 4
                  - id: small
                    human_commit: 6d0734c5
                    perf_command: python benchmarks/benchmark_latency.py --model facebook/opt-125m
                  - id: pair
                    human_commit: a3223766
                    perf_command: python benchmarks/benchmark_latency.py --model facebook/opt-1.3b -tp 2
                  - id: broken
                    human_commit: b0b0b0b0
                    perf_command: python benchmarks/benchmark_latency.py --model MODEL
                run: {rounds: 2}
                """);
        Path durations = dir.resolve("d.txt");
        Files.writeString(durations, "big 100\nsmall 40\npair 30\n");
        SimInput.Jobs in = SimInput.load(suite, new SimInput.Options(null, null, durations));
        SimResult r = PackingSimulator.simulate(in.jobs(), 2);
        ObjectMapper m = new ObjectMapper();
        ObjectNode o = (ObjectNode) m.readTree(SimReport.json(in, r, true));
        assertThat(o.get("input").asText()).startsWith(suite.toString());
        o.put("input", "suite.yaml" + o.get("input").asText().substring(suite.toString().length()));
        String actual = "# " + SimReport.FORMAT_ID + " — golden output of `isobench plan simulate suite.yaml --gpus 2"
                + " --durations d.txt --format json --schedule` (pretty-printed here; the command prints one line)."
                + " The format is a contract.\n" + m.writerWithDefaultPrettyPrinter().writeValueAsString(o) + "\n";
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.writeString(GOLDEN, actual, StandardCharsets.UTF_8);
        }
        assertThat(GOLDEN).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
        assertThat(actual).isEqualTo(Files.readString(GOLDEN, StandardCharsets.UTF_8));
    }
}
