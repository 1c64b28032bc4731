package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The link from a measured agent arm to the stored attempt it measured ({@link AgentAttempts#forArm}): by the attempt's
 * run id its runs recorded, else (runs recorded before that key) by arm label, task and patch sha256.
 */
class AgentAttemptsTest {

    static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
    static final String PATCH = "a".repeat(64);
    static final Arm A1 = Arm.agent("a@1");

    /** Attempt {@code name} at task tpot, stored by agents run {@code session}, started {@code at}. */
    private static RunRecord attempt(String session, String name, String patchSha, Instant at) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("task", "tpot");
        s.put("agent", Arm.agent(name).agentBase());
        s.put("attempt", Arm.agent(name).attempt());
        s.put("status", "OK");
        s.put("patch_sha256", patchSha);
        return RunRecord.builder(session + "/tpot/" + name).session(session).kind(RunRecord.RunKind.AGENT_ATTEMPT)
                .arm(Arm.agent(name)).agent(name).status(RunRecord.RunStatus.SUCCESS).startedAt(at)
                .details(RunDetails.of(Map.of(AgentAttempts.SECTION, s))).build();
    }

    /** A measured run of {@code arm} at task tpot that applied {@code patchSha}; {@code attemptRun}: its key or null. */
    private static RunRecord measured(Arm arm, String patchSha, String attemptRun) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("patch_sha256", patchSha);
        if (attemptRun != null) {
            x.put(AgentAttempts.ATTEMPT_RUN, attemptRun);
        }
        return RunRecord.builder("s/tpot/" + arm.label() + "/r0").session("s").kind(RunRecord.RunKind.MEASURED)
                .arm(arm).agent(arm.agentName()).status(RunRecord.RunStatus.SUCCESS).details(RunDetails.of(x)).build();
    }

    /** A deterministic agent run twice: two attempts a@1 at tpot with the same patch, the second run later. */
    private static AgentAttempts twice() {
        return AgentAttempts.of(List.of(
                attempt("agents-2", "a@1", PATCH, T0.plusSeconds(3600)),
                attempt("agents-1", "a@1", PATCH, T0)));
    }

    @Test
    void anArmFindsTheAttemptItMeasuredByIdentityWhenTwoAttemptsLeftTheSamePatch() {
        AgentAttempts all = twice();
        List<RunRecord> runs = List.of(measured(Arm.BASELINE, null, null), measured(A1, PATCH, "agents-1/tpot/a@1"));
        assertThat(all.forArm(A1, "tpot", runs)).get().extracting(AgentAttempts.Attempt::runId)
                .isEqualTo("agents-1/tpot/a@1");
        // the text join cannot tell the two apart: it takes the later one, not the one measured
        assertThat(all.byPatch(A1, "tpot", PATCH)).get().extracting(AgentAttempts.Attempt::runId)
                .isEqualTo("agents-2/tpot/a@1");
    }

    @Test
    void aRunRecordedBeforeTheKeyFallsBackToTheOldJoin() {
        AgentAttempts all = twice();
        List<RunRecord> old = List.of(measured(A1, PATCH, null));
        assertThat(all.forArm(A1, "tpot", old)).get().extracting(AgentAttempts.Attempt::runId)
                .isEqualTo("agents-2/tpot/a@1");
        // another patch, or another arm's runs only: no attempt
        assertThat(all.forArm(A1, "tpot", List.of(measured(A1, "b".repeat(64), null)))).isEmpty();
        assertThat(all.forArm(A1, "tpot", List.of(measured(Arm.agent("a@2"), PATCH, null)))).isEmpty();
    }

    @Test
    void aNamedAttemptThatIsNotInTheStoreIsNoneNotAGuess() {
        List<RunRecord> runs = List.of(measured(A1, PATCH, "agents-9/tpot/a@1"));
        assertThat(twice().forArm(A1, "tpot", runs)).isEmpty();
    }

    @Test
    void onlyAgentArmsHaveAnAttempt() {
        List<RunRecord> runs = List.of(measured(Arm.HUMAN, PATCH, "agents-1/tpot/a@1"));
        assertThat(twice().forArm(Arm.HUMAN, "tpot", runs)).isEmpty();
    }
}
