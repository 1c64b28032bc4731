package io.isobench.session;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.exec.JobResult;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.probe.LostRequests;
import io.isobench.store.NativeDetails;
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
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A measured run whose client lost requests is recorded {@code REQUESTS_FAILED} with the client's reasons, as typed
 * on the job's result ({@link JobResult#lostRequests}): the recorder never reads them back from the workload JSON,
 * whose stored bytes stay the client's. The run's model is the typed job's.
 */
class RunRecorderLostRequestsTest {

    @TempDir
    Path dir;

    private static final String WORKLOAD = "{\"requests\":4,\"input_tokens\":32,\"output_tokens\":8,\"seed\":0}";

    private static Job measured() {
        return new Job(new Job.Place(3, "t/human/r0", "t", 0), Arm.HUMAN, Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("vllm", "serve", "org/served", "--port", "{port}")),
                        ClientConfig.ofArgv(List.of("--model", "org/served", "--num-prompts", "4")), 0, null, 0),
                new Job.Where(Path.of("."), Map.of(), 1), Job.Limits.ofSeconds(30, 30));
    }

    /** A finished serving round: 2 of 4 requests lost, its workload JSON and typed reasons as given. */
    private static JobResult result(String workloadJson, LostRequests lost) {
        List<Metric> metrics = List.of(Metric.of("tpot_ms_mean", 9.5), Metric.of("completed_requests", 2),
                Metric.of("failed_requests", 2));
        return new JobResult(null, metrics, workloadJson, lost, "server log\n", 1200.0, Map.of("client_ms", 900.0),
                List.of(), List.of("vllm", "serve", "org/served", "--port", "18000"), null, null, null, null, null,
                Map.of(), null, null);
    }

    private RunRecord record(Store store, JobResult r) {
        Job job = measured();
        return new RunRecorder(store).record("s1", job, "c0ffee00", null, r,
                new NativeDetails(RunRecorder.place(job, 7L), null, null, new LinkedHashMap<>()));
    }

    @Test
    void theReasonsComeFromTheTypedResultNotFromTheWorkloadJson() throws Exception {
        LostRequests lost = LostRequests.of(new TreeMap<>(Map.of("http_500", 1, "timeout", 1)));
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            // the workload JSON names no reasons: only the typed field does
            RunRecord rec = record(store, result(WORKLOAD, lost));
            assertThat(rec.status()).isEqualTo(RunRecord.RunStatus.FAILED);
            assertThat(rec.failure().category()).isEqualTo(FailureCategory.REQUESTS_FAILED.name());
            assertThat(rec.failure().detail()).isEqualTo("2 of 4 requests failed: http_500 x1, timeout x1");
            // its metrics are kept (the analysis excludes the round), the workload stored as the client wrote it
            assertThat(rec.primaryValue()).isEqualTo(9.5);
            assertThat(rec.workload()).isEqualTo(WORKLOAD);
            assertThat(rec.model()).isEqualTo("org/served");
        }
    }

    @Test
    void aWorkloadThatNamesReasonsAddsNothingTheTypedResultDoesNotSay() throws Exception {
        String withReasons = WORKLOAD.replace("}", ",\"failures_by_reason\":{\"http_500\":2}}");
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            // the load generator's run: both say http_500 x2, the failure as it always read
            RunRecord typed = record(store, result(withReasons, LostRequests.of(Map.of("http_500", 2))));
            assertThat(typed.failure().detail()).isEqualTo("2 of 4 requests failed: http_500 x2");
            assertThat(typed.workload()).isEqualTo(withReasons);
            // a client that ran elsewhere sent its counts only: the failure without reasons, the JSON never parsed
            Failure untyped = RunRecorder.lostRequests(result(withReasons, LostRequests.NONE));
            assertThat(untyped.category()).isEqualTo(FailureCategory.REQUESTS_FAILED);
            assertThat(untyped.detail()).isEqualTo("2 of 4 requests failed");
        }
    }

    @Test
    void aRoundThatLostNoRequestIsNoFailure() {
        JobResult r = new JobResult(null, List.of(Metric.of("tpot_ms_mean", 9.5), Metric.of("completed_requests", 4),
                Metric.of("failed_requests", 0)), WORKLOAD, LostRequests.NONE, "", 1.0, Map.of(), List.of(), List.of(),
                null, null, null, null, null, Map.of(), null, null);
        assertThat(RunRecorder.lostRequests(r)).isNull();
    }
}
