package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Formats come from a file's keys; the path adds only the arm, the agent, the commit and the pipeline context. */
class FormatDetectorTest {

    private static JsonNode json(String s) throws Exception {
        return LenientJson.MAPPER.readTree(s);
    }

    private static LegacyFormat format(String path, String content) throws Exception {
        FormatDetector.Schema schema = FormatDetector.schema(json(content));
        return schema == null ? null : FormatDetector.detect(FormatDetector.path(path), schema).format();
    }

    @Test
    void schemasByKeysWhateverTheFolder() throws Exception {
        String micro = "{\"instance\": {}, \"result\": {\"status\": \"success\", \"baseline_ms\": 1.0, \"patched_ms\": 0.9}}";
        String runner = "{\"result\": {\"status\": \"no_wheel\", \"baseline_metrics\": null, \"patched_metrics\": null,"
                + " \"error_message\": \"No wheel for human abc\"}}";
        String modal = "{\"instance\": {}, \"result\": {\"status\": \"success\", \"baseline_metrics\": {},"
                + " \"human_metrics\": {}, \"agent_metrics\": {}}}";
        String perVersion = "{\"human_commit\": \"21d93c14\", \"status\": \"error\", \"raw_output\": \"x\"}";
        // the SGLang micro-benchmarks live where the 2026-01 SGLang results do: the keys decide
        assertThat(format("omniperf_results_v2/sglang/1bf1cf19/benchmark_result.json", micro)).isEqualTo(LegacyFormat.R11);
        assertThat(format("anywhere/else/benchmark_result.json", micro)).isEqualTo(LegacyFormat.R11);
        assertThat(format("omniperf_results_full/vllm/0d243f2a/benchmark_result.json", runner)).isEqualTo(LegacyFormat.R12);
        assertThat(format("x/results/modal/abcdef12/benchmark_result.json", modal)).isEqualTo(LegacyFormat.R1);
        assertThat(format("x/elsewhere/abcdef12/benchmark_result.json", modal)).isEqualTo(LegacyFormat.R1);
        // TRAE's separate baseline folder: the per-version schema, arm from the file name
        assertThat(format("2026-01/omniperf_results_3way_trae_gpt5/baseline_benchmark_results/21d93c14_baseline_result.json",
                perVersion)).isEqualTo(LegacyFormat.R3);
        assertThat(format("r/results/separate_agent/abcdef12_agent_result.json", perVersion)).isEqualTo(LegacyFormat.R4);
        assertThat(format("r/results/separate_baseline/abcdef12_baseline_result.json", perVersion))
                .isEqualTo(LegacyFormat.R5);
        assertThat(format("r/results/docker/abcdef12_result.json", "{\"commit_hash\": \"abcdef12\", \"status\": \"success\","
                + " \"avg_latency_s\": 0.1}")).isEqualTo(LegacyFormat.R6);
        assertThat(format("r/x/benchmark_result.json", "{\"commit\": \"a\", \"results\": {\"baseline\": {}}}"))
                .isEqualTo(LegacyFormat.R7);
        assertThat(format("r/x/abcdef12_result.json", "{\"commit_short\": \"abcdef12\", \"benchmark_type\": \"serving\","
                + " \"baseline\": {}, \"human\": {}}")).isEqualTo(LegacyFormat.R8);
        assertThat(format("omniperf_results_3way_sglang/sglang/abcdef12/benchmark_result.json",
                "{\"status\": \"success\", \"human_metrics\": {}, \"human_raw\": \"\"}")).isEqualTo(LegacyFormat.R9);
        assertThat(format("logs/x.json", "{\"total_commits\": 1, \"results\": []}")).isEqualTo(LegacyFormat.R2);
        assertThat(format("x/some_report.json", "{\"summary\": {}, \"results\": []}")).isEqualTo(LegacyFormat.R13);
        assertThat(format("x/native_benchmark_report_1.json", "{\"generated\": \"x\", \"results\": [{\"commit\": \"a\"}]}"))
                .isEqualTo(LegacyFormat.R13);
        // the runner's record in a 3-way tree's modal folder is the older modal sub-schema (a modal source)
        assertThat(format("t/results/modal/3127e975/benchmark_result.json", runner)).isEqualTo(LegacyFormat.R1);
        assertThat(FormatDetector.schema(json("{\"name\": \"x\", \"version\": 2}"))).isNull();
    }

    @Test
    void pathContext() {
        FormatDetector.PathInfo p = FormatDetector.path(
                "x/omniperf_results_3way_claude-code/results/abcdef1234_human_result.json");
        assertThat(p.agent()).isEqualTo("claude_code");
        assertThat(p.commit()).isEqualTo("abcdef1234");
        assertThat(p.arm()).isEqualTo("human");
        assertThat(p.kind()).isEqualTo(FormatDetector.FileKind.JSON);
        assertThat(FormatDetector.path("omniperf_results_v2/sglang/1bf1cf19/stderr.txt"))
                .satisfies(q -> {
                    assertThat(q.kind()).isEqualTo(FormatDetector.FileKind.SIDECAR);
                    assertThat(q.commit()).isEqualTo("1bf1cf19");
                    assertThat(q.engine()).isEqualTo("sglang");
                });
        assertThat(FormatDetector.path("x/notes.txt").kind()).isEqualTo(FormatDetector.FileKind.OTHER);
    }

    @Test
    void refusalsNameTheKeys() throws Exception {
        assertThat(FormatDetector.keys(json("{\"name\": 1, \"result\": {\"foo\": 2}}"))).isEqualTo("name, result; result: foo");
        assertThat(FormatDetector.keys(json("[{\"a\": 1}]"))).contains("array").contains("a");
    }

    @Test
    void publishedTablesByHeader() {
        assertThat(FormatDetector.publishedTable("x.csv", "commit_hash,commit_short,agent_name\n".getBytes())).isTrue();
        assertThat(FormatDetector.publishedTable("expected.csv", "commit,recompute_status,pipeline\n".getBytes())).isFalse();
        assertThat(FormatDetector.publishedTable("t.parquet", new byte[] {'P', 'A', 'R', '1'})).isTrue();
    }
}
