package io.isobench.session;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.exec.JobResult;
import io.isobench.loadgen.LoadFidelity;
import io.isobench.parse.Metric;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.probe.LostRequests;
import io.isobench.store.NativeDetails;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recorder stores the load's fidelity the client measured as the run's {@code client_check} and {@code schedule}
 * sections, after the other sections, and reads them back typed; a saturated run is stored as it ran (success, its
 * numbers kept); a result without fidelity adds no section (an older client: not checked).
 */
class RunRecorderFidelityTest {

    @TempDir
    Path dir;

    private static Job measured() {
        return new Job(new Job.Place(3, "t/human/r0", "t", 0), Arm.HUMAN, Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("vllm", "serve", "org/served", "--port", "{port}")),
                        ClientConfig.ofArgv(List.of("--model", "org/served", "--num-prompts", "4")), 0, null, 0),
                new Job.Where(Path.of("."), Map.of(), 1), Job.Limits.ofSeconds(30, 30));
    }

    private static JobResult result() {
        return new JobResult(null, List.of(Metric.of("tpot_ms_mean", 9.5), Metric.of("completed_requests", 4),
                Metric.of("failed_requests", 0)), "{\"requests\":4}",
                LostRequests.NONE, "log\n", 1200.0, Map.of(), List.of(), List.of("vllm"), null, null, null, null, null,
                Map.of(), null, null);
    }

    private RunRecord record(Store store, JobResult r) {
        Job job = measured();
        Map<String, Object> sections = new LinkedHashMap<>();
        sections.put("timings_ms", Map.of("client_ms", 900.0));
        RunRecord rec = new RunRecorder(store).record("s1", job, "c0ffee00", null, r,
                new NativeDetails(RunRecorder.place(job, 7L), null, null, sections));
        store.putRun(rec);
        return store.run(rec.runId()).orElseThrow();
    }

    @Test
    void aSaturatedRunKeepsItsNumbersAndCarriesBothSections() throws Exception {
        LoadFidelity f = new LoadFidelity(new LoadFidelity.Schedule(4, 0.12, 31.5, 40.25, 1.0, 75.0, 20.0, 12.5, null,
                2.75), new LoadFidelity.ClientCheck(true, List.of("event-loop lag p99 38.2 ms > 10 ms",
                "schedule lag p99 31.5 ms > 10 ms"), 97.5, 38.2, 51.0, 31.5));
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            RunRecord rec = record(store, result().withFidelity(f));
            assertThat(rec.status()).isEqualTo(RunRecord.RunStatus.SUCCESS);
            assertThat(rec.primaryValue()).isEqualTo(9.5);
            String text = rec.details().toString();
            assertThat(text).contains("\"timings_ms\":{\"client_ms\":900.0},\"client_check\":{\"saturated\":true,"
                    + "\"reasons\":[\"event-loop lag p99 38.2 ms > 10 ms\",\"schedule lag p99 31.5 ms > 10 ms\"],"
                    + "\"cpu_busy_pct\":97.5,\"loop_lag_ms_p99\":38.2,\"loop_lag_ms_max\":51.0,\"send_lag_ms_p99\":31.5},"
                    + "\"schedule\":{\"requests\":4,\"lag_ms_p50\":0.12,\"lag_ms_p99\":31.5,\"lag_ms_max\":40.25,"
                    + "\"late_threshold_ms\":1.0,\"late_pct\":75.0,\"configured_rate_rps\":20.0,"
                    + "\"delivered_rate_rps\":12.5,\"configured_max_concurrency\":null,"
                    + "\"delivered_concurrency_mean\":2.75}");
            RunDetails.ClientCheck c = rec.details().clientCheck();
            assertThat(c.saturated()).isTrue();
            assertThat(c.reasons()).containsExactly("event-loop lag p99 38.2 ms > 10 ms",
                    "schedule lag p99 31.5 ms > 10 ms");
            assertThat(c.sendLagMsP99()).isEqualTo(31.5);
            RunDetails.Schedule s = rec.details().schedule();
            assertThat(s.configuredRateRps()).isEqualTo(20.0);
            assertThat(s.configuredMaxConcurrency()).isNull();
            assertThat(s.deliveredConcurrencyMean()).isEqualTo(2.75);
        }
    }

    @Test
    void withoutAnArrivalScheduleOnlyTheClientCheck_withoutFidelityNoSection() throws Exception {
        LoadFidelity f = new LoadFidelity(null, new LoadFidelity.ClientCheck(false, List.of(), 12.0, 0.4, 1.1, null));
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            RunRecord rec = record(store, result().withFidelity(f));
            assertThat(rec.details().has(RunDetails.CLIENT_CHECK)).isTrue();
            assertThat(rec.details().has(RunDetails.SCHEDULE)).isFalse();
            assertThat(rec.details().clientCheck().saturated()).isFalse();
            assertThat(rec.details().clientCheck().sendLagMsP99()).isNull();
        }
        try (Store store = Stores.open(dir.resolve("none.duckdb").toString())) {
            RunRecord none = record(store, result().withFidelity(null));
            assertThat(none.details().has(RunDetails.CLIENT_CHECK)).isFalse();
            assertThat(none.details().clientCheck()).isNull();
            assertThat(none.details().schedule()).isNull();
        }
    }
}
