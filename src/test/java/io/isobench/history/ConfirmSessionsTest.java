package io.isobench.history;

import io.isobench.AdaptiveSessions;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.AgentSpec;
import io.isobench.task.EngineSpec;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfirmSessionsTest {

    private static final String E = "1111111111111111111111111111111111111111";
    private static final String L = "2222222222222222222222222222222222222222";

    @TempDir
    Path dir;

    @Test
    void theSessionIdIsDeterministicPerTrackAndOrderedPair() {
        String id = ConfirmSessions.sessionId("t1", E, L);
        assertThat(id).matches("track-[0-9a-f]{16}").isEqualTo(ConfirmSessions.sessionId("t1", E, L));
        // the first 16 hex digits of sha256("t1\n" + E + "\n" + L) (python3 hashlib)
        assertThat(id).isEqualTo("track-2071fce23b04a04a");
        assertThat(ConfirmSessions.sessionId("t1", L, E)).isNotEqualTo(id);
        assertThat(ConfirmSessions.sessionId("t2", E, L)).isNotEqualTo(id);
    }

    @Test
    void theDerivedSuiteIsTheTaskAloneGivenBothCommitsWithoutAgents() {
        TaskSpec track = TaskSpec.of("kernel", "ffffffffffffffffffffffffffffffffffffffff", null,
                new TaskSpec.Workload("vllm bench latency --model m", "m", null, null));
        TaskSpec other = TaskSpec.of("other", "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", null,
                new TaskSpec.Workload("vllm bench latency --model m", "m", null, null));
        Suite suite = new Suite(null, new EngineSpec("/repo/vllm", Path.of("/repo/vllm"), "vllm"), List.of(other, track), List.of(new AgentSpec("a", "m",
                Map.of())), RunConfig.DEFAULT);
        Suite derived = ConfirmSessions.derive(suite, "kernel", E, L);
        assertThat(derived.tasks()).hasSize(1);
        TaskSpec t = derived.tasks().get(0);
        assertThat(t.id()).isEqualTo("kernel");
        assertThat(t.parentCommit()).isEqualTo(E);
        assertThat(t.humanCommit()).isEqualTo(L);
        assertThat(t.workload()).isEqualTo(track.workload());
        assertThat(derived.agents()).isEmpty();
        assertThat(derived.engine()).isEqualTo(suite.engine());
        assertThat(derived.run()).isEqualTo(suite.run());
        assertThatThrownBy(() -> ConfirmSessions.derive(suite, "nope", E, L))
                .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("nope");
    }

    @Test
    void aStoredSessionIsReadByTheRules() {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            // measured: the task's analysis (human 2x faster, decided at the first look)
            AdaptiveSessions.session(store, Instant.parse("2026-11-29T00:00:00Z"), List.of(AdaptiveSessions.TASKS
                    .get(0)));
            ConfirmResult measured = ConfirmSessions.read(store, AdaptiveSessions.SESSION, "fast");
            assertThat(measured.state()).isEqualTo(ConfirmResult.State.MEASURED);
            assertThat(measured.analysis().humanVsBaseline().verdict().label()).isEqualTo("better");
            assertThat(measured.sessionId()).isEqualTo(AdaptiveSessions.SESSION);

            // the later commit does not build: its runs failed as BUILD_FAILED, none succeeded
            session(store, "s-broken", List.of(run("s-broken", Arm.BASELINE, null), run("s-broken", Arm.BASELINE_AA,
                    null), run("s-broken", Arm.HUMAN, "BUILD_FAILED")));
            ConfirmResult broken = ConfirmSessions.read(store, "s-broken", "kernel");
            assertThat(broken.state()).isEqualTo(ConfirmResult.State.LATER_NOT_BUILT);
            assertThat(broken.failure()).isEqualTo("later commit BUILD_FAILED: build exited with 2: make");
            assertThat(broken.evidence()).isEqualTo("not built: later commit BUILD_FAILED: build exited with 2: make");

            // the earlier commit failed: a failed session, the baseline's failure first
            session(store, "s-failed", List.of(run("s-failed", Arm.HUMAN, "SERVER_CRASHED"), run("s-failed",
                    Arm.BASELINE, "ENV_MISSING")));
            ConfirmResult failed = ConfirmSessions.read(store, "s-failed", "kernel");
            assertThat(failed.state()).isEqualTo(ConfirmResult.State.FAILED);
            assertThat(failed.failure()).startsWith("earlier commit ENV_MISSING");

            // nothing stored for the task
            ConfirmResult none = ConfirmSessions.read(store, "s-none", "kernel");
            assertThat(none.state()).isEqualTo(ConfirmResult.State.FAILED);
            assertThat(none.failure()).isEqualTo("no measured runs of task kernel");
        }
    }

    private static void session(Store store, String id, List<RunRecord> runs) {
        store.putSession(SessionRecord.builder(id).status("complete").build());
        store.putRuns(runs);
    }

    private static RunRecord run(String session, Arm arm, String failure) {
        RunRecord.Builder b = RunRecord.builder(session + "/kernel/" + arm.label() + "/r0").session(session)
                .kind(RunRecord.RunKind.MEASURED).commit(E, E.substring(0, 8)).arm(arm).round(0)
                .detailsJson("{\"task\":\"kernel\",\"job_index\":0}");
        if (failure == null) {
            return b.status(RunRecord.RunStatus.SUCCESS).primary("command_cpu_s", 0.05, "measured").build();
        }
        return b.status(RunRecord.RunStatus.FAILED).failure(new RunRecord.FailureInfo(failure,
                failure.equals("BUILD_FAILED") ? "build exited with 2: make" : "it failed", null, false)).build();
    }
}
