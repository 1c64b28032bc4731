package io.isobench.history;

import io.isobench.AdaptiveSessions;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.plan.Planner;
import io.isobench.session.ProgressMode;
import io.isobench.session.SessionRequest;
import io.isobench.task.AgentSpec;
import io.isobench.task.EngineSpec;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;
import io.isobench.track.Bisect;
import io.isobench.track.Confirmation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
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

    @Test
    void aCandidatesInconclusiveFirstSessionIsFollowedByTheSecondWhichDecides() {
        String db = dir.resolve("two.duckdb").toString();
        String c = "cccc000011112222333344445555666677778888";
        // the first session: the A/A arm 6 % slower than the parent in every round, so inconclusive (A/A unstable) at
        // the first look although the later commit is 2x faster; the second: the same change, a stable A/A arm
        AdaptiveSessions.Task open = task(c, 10.6, 5, 0.003, -5995756L);
        AdaptiveSessions.Task clear = task(c, 10, 5, 0.003, 3135580L);
        AdaptiveSessions.Task same = task(c, 10, 10, 0.002, 3522662L);
        String first = ConfirmSessions.sessionId("t1", E, L);
        String second = ConfirmSessions.sessionId("t1", E, L, 2);
        // the second session's id hashes a fourth line: the first 16 hex digits of sha256("t1\n" + E + "\n" + L + "\n2")
        assertThat(second).isEqualTo("track-" + sha16("t1\n" + E + "\n" + L + "\n2")).isNotEqualTo(first);
        assertThat(first).isEqualTo("track-" + sha16("t1\n" + E + "\n" + L));
        String decidedFirst = ConfirmSessions.sessionId("t1", E, E);
        try (Store store = Stores.open(db)) {
            AdaptiveSessions.session(store, first, Instant.parse("2026-11-29T00:00:00Z"), List.of(open));
            AdaptiveSessions.session(store, second, Instant.parse("2026-11-29T01:00:00Z"), List.of(clear));
            AdaptiveSessions.session(store, decidedFirst, Instant.parse("2026-11-29T02:00:00Z"), List.of(same));
            // a second session stored for the decided pair too: never read
            AdaptiveSessions.session(store, ConfirmSessions.sessionId("t1", E, E, 2), Instant.parse(
                    "2026-11-29T03:00:00Z"), List.of(clear));
            assertThat(ConfirmSessions.read(store, first, "kernel").analysis().humanVsBaseline().verdict().label())
                    .isEqualTo("inconclusive");
        }
        ConfirmSessions sessions = sessions(db, c, new StringWriter());

        ConfirmResult r = sessions.confirm(E, L);
        assertThat(r.sessionId()).isEqualTo(second);
        assertThat(r.analysis().humanVsBaseline().verdict().label()).isEqualTo("better");
        assertThat(r.answer(-50.0)).isEqualTo(Bisect.Answer.CARRIES);
        assertThat(r.evidence()).startsWith("better: -49.91 %").contains("; second session (the first, " + first
                + ": inconclusive: A/A unstable: ").endsWith(")");

        ConfirmResult decided = sessions.confirm(E, E);
        assertThat(decided.sessionId()).isEqualTo(decidedFirst);
        assertThat(decided.first()).isNull();
        assertThat(decided.evidence()).startsWith("equivalent").doesNotContain("second session");
        // a bisect step reads the first session's interval against the change's midpoint, not its verdict: this
        // inconclusive one (A/A unstable) lies wholly beyond the midpoint of a -50 % change, so it settles: carries
        ConfirmResult step = sessions.step(E, L, -50.0);
        assertThat(step.sessionId()).isEqualTo(first);
        assertThat(step.first()).isNull();
        assertThat(step.answer(-50.0)).isEqualTo(Bisect.Answer.CARRIES);
        // against a -90 % change the same interval holds no midpoint either (wholly short of -68 %): clean, settled
        assertThat(sessions.step(E, L, -90.0).first()).isNull();
        assertThat(sessions.step(E, L, -90.0).answer(-90.0)).isEqualTo(Bisect.Answer.CLEAN);
        assertThat(sessions.started()).as("every session was stored complete: read, none run").isZero();
    }

    @Test
    void aBisectStepWhoseFirstSessionDoesNotSettleItsSideIsReadWithItsSecond() {
        String db = dir.resolve("step.duckdb").toString();
        String m = "3333333333333333333333333333333333333333";
        // the first session: no change, but so noisy (5 % per run, 3 rounds) that its interval holds the midpoint of
        // a -50 % change (-29.3 %); the second: no change, quiet. Read together: clean
        AdaptiveSessions.Task noisy = task(m, 10, 10, 0.05, 8812L);
        AdaptiveSessions.Task quiet = task(m, 10, 10, 0.002, 3522662L);
        String first = ConfirmSessions.sessionId("t1", E, m);
        String second = ConfirmSessions.sessionId("t1", E, m, 2);
        try (Store store = Stores.open(db)) {
            AdaptiveSessions.session(store, first, Instant.parse("2026-11-29T00:00:00Z"), List.of(noisy));
            AdaptiveSessions.session(store, second, Instant.parse("2026-11-29T01:00:00Z"), List.of(quiet));
            ConfirmResult alone = ConfirmSessions.read(store, first, "kernel");
            assertThat(Confirmation.settles(-50.0, alone.analysis())).as(alone.evidence()).isFalse();
        }
        StringWriter notes = new StringWriter();
        ConfirmSessions sessions = sessions(db, m, notes);

        ConfirmResult step = sessions.step(E, m, -50.0);
        assertThat(step.sessionId()).isEqualTo(second);
        assertThat(step.first().sessionId()).isEqualTo(first);
        assertThat(step.analyses()).hasSize(2);
        assertThat(step.answer(-50.0)).isEqualTo(Bisect.Answer.CLEAN);
        assertThat(step.evidence()).contains("; second session (the first, " + first + ": ");
        assertThat(notes.toString()).contains("does not settle its side of the change: a second session");
        assertThat(sessions.started()).as("both sessions were stored complete: read, none run").isZero();
    }

    /** A stored task of 3 rounds: the parent at 10, its A/A arm at {@code aa}, the later commit at {@code later}. */
    private static AdaptiveSessions.Task task(String commit, double aa, double later, double noise, long seed) {
        return new AdaptiveSessions.Task("kernel", commit, 3, new double[] {10, aa, later, 10},
                new double[] {noise, noise, noise, noise}, seed);
    }

    /** Confirming sessions of track t1's task over the store {@code db}: every one it needs is stored complete. */
    private ConfirmSessions sessions(String db, String commit, StringWriter notes) {
        Suite suite = new Suite(null, new EngineSpec("/repo/e", Path.of("/repo/e"), "generic"), List.of(TaskSpec.of(
                "kernel", commit, null, new TaskSpec.Workload("./engine", "m", null, null))), List.of(),
                RunConfig.DEFAULT);
        return new ConfirmSessions(new SessionRequest(suite, new Planner.Options(null, null, dir.resolve("work"), null,
                null), db, null, false, new SessionRequest.ExecutorChoice("local", 1, false),
                new SessionRequest.Feedback(ProgressMode.PLAIN.listener(new PrintWriter(notes, true)),
                id -> "resume")), "t1", "kernel");
    }

    private static String sha16(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                    s.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
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
