package io.isobench.legacy;

import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.SharedData;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The failing files of the sample get the categories of DESIGN.md §7 once imported. */
class LegacyFailureTest {

    @Test
    void failuresOfTheSampleAreClassified(@TempDir Path dir) throws Exception {
        try (Store store = TestStores.open(dir)) {
            new LegacyImporter(store, null, null).importTree(SharedData.isobenchData());
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, null, false), runs::add);

            expect(runs, "modal/6dd94dbe/", "agent", "NO_METRICS");
            // a harness event no arm caused is one failed `attempt` run; the arms never started (issue 28)
            expect(runs, "modal/25ebed2f/", "attempt", "HARNESS_ERROR");
            expect(runs, "modal/015069b0/", "attempt", "INFRA_TRANSIENT");
            for (String arm : new String[] {"baseline", "human", "agent"}) {
                for (String c : new String[] {"modal/25ebed2f/", "modal/015069b0/"}) {
                    RunRecord r = find(runs, c, arm);
                    assertThat(r.status()).as(c + arm).isEqualTo(RunRecord.RunStatus.NOT_RUN);
                    assertThat(r.notes()).contains("not run: the harness failed before this arm started (");
                }
            }
            // no_perf_command: nothing ran; the first arm carries the failure, the others never ran (issue 14)
            expect(runs, "modal/3127e975/", "baseline", "NO_PERF_COMMAND");
            for (String arm : new String[] {"human", "agent"}) {
                RunRecord r = find(runs, "modal/3127e975/", arm);
                assertThat(r.status()).isEqualTo(RunRecord.RunStatus.NOT_RUN);
                assertThat(r.failure()).isNull();
                assertThat(r.notes()).contains("not run: the baseline arm failed first (status no_perf_command");
            }
            expect(runs, "modal/22d33bac/", "baseline", "BAD_PERF_COMMAND");
            expect(runs, "modal/6e36f4fa/", "baseline", "ENV_MISSING");
            // the baseline ran (a value); the git timeout came before the human arm left any record: the attempt's
            expect(runs, "modal/eefbf4a6/", "attempt", "GIT_ERROR");
            assertThat(find(runs, "modal/eefbf4a6/", "baseline").status()).isEqualTo(RunRecord.RunStatus.SUCCESS);
            assertThat(find(runs, "modal/eefbf4a6/", "human").notes())
                    .contains("not run: the harness failed before this arm started (GIT_ERROR: Command '['git'");
            assertThat(find(runs, "modal/eefbf4a6/", "agent").status()).isEqualTo(RunRecord.RunStatus.NOT_RUN);
            expect(runs, "claude_code/results/7c01f706_human_result.json", "human", "MODEL_UNSUPPORTED");
            expect(runs, "codex/results/3476ed08_human_result.json", "human", "DISK_FULL");
            expect(runs, "separate_agent/2a052011_agent_result.json", "agent", "GPU_OOM");
            expect(runs, "codex/results/67da5720_agent_result.json", "agent", "TIMEOUT");
            expect(runs, "codex/results/fe66b347_agent_result.json", "agent", "DEPENDENCY_CONFLICT");
            expect(runs, "codex/results/70b808fe_agent_result.json", "agent", "NO_METRICS");
            expect(runs, "e493e485/stderr.txt", "baseline", "DEPENDENCY_CONFLICT");
            expect(runs, "fc542144/stderr.txt", "baseline", "MODEL_ACCESS");
            expect(runs, "hero_3way_20251231_011435_progress.json", "baseline", "PORT_CONFLICT");

            RunRecord fixed = find(runs, "codex/results/61b8cea3_agent_result.json", "agent");
            assertThat(fixed.status()).isEqualTo(RunRecord.RunStatus.SUCCESS);
            assertThat(fixed.failure()).isNull();
            // Runs that never started are not failures.
            assertThat(find(runs, "modal/6e36f4fa/", "human").status()).isEqualTo(RunRecord.RunStatus.NOT_RUN);
            assertThat(find(runs, "modal/6e36f4fa/", "agent").status()).isEqualTo(RunRecord.RunStatus.NOT_RUN);
            // Kinds: the log's only attempt of b2e0ad3b, with no result file of that commit in the sample, is final
            assertThat(find(runs, "hero_3way_20251231_011435_progress.json", "baseline").kind())
                    .isEqualTo(RunRecord.RunKind.LEGACY_ATTEMPT);
            assertThat(find(runs, "0d243f2a/benchmark_result.json", "agent").kind()).isEqualTo(RunRecord.RunKind.MICRO);
            assertThat(find(runs, "0d243f2a/benchmark_result.json", "agent").arm().label()).isEqualTo("agent:claude_code");
            assertThat(find(runs, "22dd9c27_result.json", "human").kind())
                    .isEqualTo(RunRecord.RunKind.LEGACY_SINGLE_VERSION);
            RunRecord r6 = find(runs, "22dd9c27_result.json", "human");
            assertThat(r6.primaryMetric()).isEqualTo("latency_ms_avg");
            assertThat(r6.primaryValue()).isEqualTo(65.9);
            RunRecord sg = find(runs, "sglang/09deb20d/", "human");
            assertThat(sg.agent()).isNull();
            assertThat(sg.pipeline().label()).isEqualTo("sglang");
            assertThat(sg.primaryValue()).isEqualTo(25.7);
            assertThat(sg.mode().label()).isEqualTo("serving"); // python -m sglang.bench_serving (Mode.ofCommand)
            assertThat(runs.stream().filter(r -> path(r).contains("sglang/09deb20d/"))).hasSize(1);
            RunRecord native_ = find(runs, "ce6bf3a2/benchmark_result.json", "baseline");
            assertThat(native_.pipeline().label()).isEqualTo("native_runner");
            assertThat(native_.mode().label()).isEqualTo("throughput");
        }
    }

    private static String path(RunRecord r) {
        try {
            JsonNode extra = LenientJson.MAPPER.readTree(RunDetailsCodec.encode(r.details()));
            return extra.path("path").asText("");
        } catch (Exception e) {
            return "";
        }
    }

    private static RunRecord find(List<RunRecord> runs, String pathPart, String arm) {
        return runs.stream().filter(r -> path(r).contains(pathPart) && r.arm().label().split(":")[0].equals(arm)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + arm + " run from " + pathPart));
    }

    private static void expect(List<RunRecord> runs, String pathPart, String arm, String category) {
        RunRecord r = find(runs, pathPart, arm);
        assertThat(r.status()).as(pathPart + " " + arm + " status").isEqualTo(RunRecord.RunStatus.FAILED);
        assertThat(r.failure()).as(pathPart + " " + arm + " failure").isNotNull();
        assertThat(r.failure().category()).as(pathPart + " " + arm + ": " + r.failure().detail()).isEqualTo(category);
    }
}
