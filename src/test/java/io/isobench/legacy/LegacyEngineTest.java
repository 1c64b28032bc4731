package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.engine.EngineAdapter;
import io.isobench.engine.Engines;
import io.isobench.engine.SglangConsole;
import io.isobench.parse.Metric;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import io.isobench.store.RunDetailsCodec;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A legacy run's output is read through the engine adapter its command picks (docs/engines.md, "Which adapter"):
 * the archive's SGLang 3-way result ({@code python -m sglang.bench_serving …}; ../shared, skipped without it) with
 * bench_serving's console block as its raw gets SGLang's reader, and with SGLang's failure line as its error gets
 * SGLang's signature; a vLLM command, a command no engine claims and no command read as vLLM's.
 */
class LegacyEngineTest {

    private static final String SGLANG_DIR = "archive/results/2026-01/omniperf_results_3way_sglang/sglang/09deb20d/";

    private final EngineAdapter sglang = Engines.named("sglang").orElseThrow();

    @Test
    void theRunsCommandPicksTheAdapterAsTheOneRuleSays() {
        assertThat(RunDraft.engineOf("python -m sglang.bench_serving --backend sglang --model m").name())
                .isEqualTo("sglang");
        assertThat(RunDraft.engineOf("CUDA_VISIBLE_DEVICES=0  python3 -m sglang.bench_serving --model m").name())
                .isEqualTo("sglang");
        assertThat(RunDraft.engineOf("python benchmarks/benchmark_serving.py --model m").name()).isEqualTo("vllm");
        assertThat(RunDraft.engineOf("python my_bench.py").name()).isEqualTo("vllm");
        assertThat(RunDraft.engineOf(null).name()).isEqualTo("vllm");
        assertThat(RunDraft.engineOf("  ").name()).isEqualTo("vllm");
    }

    /** The archive's SGLang result, edited by {@code edit}, alone in a tree under {@code dir}; its runs imported. */
    private static List<RunRecord> importEdited(Path dir, Consumer<ObjectNode> edit)
            throws Exception {
        ObjectNode root = (ObjectNode) SglangConsole.read("isobench-data/" + SGLANG_DIR + "benchmark_result.json");
        edit.accept(root);
        Path tree = dir.resolve("tree");
        Path file = tree.resolve(SGLANG_DIR + "benchmark_result.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, LenientJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        List<RunRecord> runs = new ArrayList<>();
        try (Store store = TestStores.open(dir)) {
            new LegacyImporter(store, null, null).importTree(tree);
            store.forEachRun(new RunFilter(null, null, null, true), runs::add);
        }
        return runs;
    }

    private static Map<String, Double> byName(List<Metric> metrics) {
        Map<String, Double> out = new LinkedHashMap<>();
        metrics.forEach(m -> out.put(m.name(), m.value()));
        return out;
    }

    @Test
    void anSglangRunsRawIsReadBySglangsReader(@TempDir Path dir) throws Exception {
        String console = SglangConsole.console(SglangConsole.archiveMetrics());
        Map<String, Double> sglangReads = byName(sglang.parseConsole(console).orElseThrow().metrics());
        // vLLM's reader does not read SGLang's end-to-end rows (E2E Latency, not E2EL): the adapter matters here
        ParsedOutput vllmReads = OutputParser.parse(console);
        assertThat(byName(vllmReads.metrics())).doesNotContainKey("e2el_ms_mean");
        assertThat(sglangReads).containsKey("e2el_ms_mean");

        List<RunRecord> runs = importEdited(dir, root -> root.put("human_raw", console));
        RunRecord human = runs.stream().filter(r -> r.arm().label().equals("human")).findFirst().orElseThrow();
        assertThat(human.status()).isEqualTo(RunRecord.RunStatus.SUCCESS);
        Map<String, Double> stored = byName(human.metrics());
        assertThat(stored).containsAllEntriesOf(sglangReads);
    }

    @Test
    void anSglangRunsFailureLineIsClassifiedBySglangsSignature(@TempDir Path dir) throws Exception {
        String line = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.";
        List<RunRecord> runs = importEdited(dir, root -> {
            root.put("status", "error");
            root.putNull("human_metrics");
            root.put("error", "Traceback (most recent call last):\n  File \"launch_server.py\", line 14\n" + line);
        });
        RunRecord failed = runs.stream().filter(r -> r.status() == RunRecord.RunStatus.FAILED).findFirst()
                .orElseThrow();
        assertThat(failed.failure().category()).isEqualTo("GPU_OOM");
        assertThat(failed.failure().detail()).contains("SGLang: --mem-fraction-static");
        // the same text under a vLLM command is not SGLang's: the generic table does not know the line
        List<RunRecord> asVllm = importEdited(dir.resolve("v"), root -> {
            root.put("status", "error");
            root.putNull("human_metrics");
            root.put("perf_command", "python benchmarks/benchmark_serving.py --model m");
            root.put("error", "Traceback (most recent call last):\n  File \"launch_server.py\", line 14\n" + line);
        });
        assertThat(asVllm).filteredOn(r -> r.status() == RunRecord.RunStatus.FAILED).isNotEmpty()
                .allSatisfy(r -> assertThat(r.failure().category()).isNotEqualTo("GPU_OOM"));
        assertThat(path(failed)).contains("sglang/09deb20d/");
    }

    private static String path(RunRecord r) throws Exception {
        JsonNode extra = LenientJson.MAPPER.readTree(RunDetailsCodec.encode(r.details()));
        return extra.path("path").asText("");
    }
}
