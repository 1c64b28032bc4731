package io.isobench.history;

import io.isobench.Arm;
import io.isobench.analysis.ArmSamples;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.parse.Better;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.track.Bisect;
import io.isobench.track.Confirmation;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** A confirming session's result read into a change row, a bisect answer and an evidence line. */
class ConfirmResultTest {

    private static final double[] PARENT = {100.0, 101.2, 99.1, 100.6, 99.4, 100.3, 100.9, 99.7};
    private static final double[] JITTER = {0.997, 1.003, 0.999, 1.002, 0.998, 1.004, 0.996, 1.001};

    /** A paired session of 8 rounds (lower is better): the commit's values are the parent's × factor. */
    private static TaskAnalysis session(double factor, double aaFactor) {
        double[] commit = new double[PARENT.length];
        double[] aa = new double[PARENT.length];
        for (int i = 0; i < PARENT.length; i++) {
            commit[i] = PARENT[i] * factor * JITTER[i];
            aa[i] = PARENT[i] * aaFactor * JITTER[PARENT.length - 1 - i];
        }
        return Confirmation.analyse(new Confirmation.PairedSession("command_cpu_s", Better.LOWER,
                ArmSamples.of(Arm.BASELINE, PARENT), ArmSamples.of(Arm.BASELINE_AA, aa), ArmSamples.of(Arm.HUMAN,
                commit)), SequentialDesign.fixed(8), 8, StatsConfig.defaults());
    }

    private static TrackChange candidate(String direction) {
        return new TrackChange("t1", "kernel", 8, "c8", "c7", "command_cpu_s", direction, -14.0, null, null,
                "candidate", null, "candidate: p = 0.002", 0.002, null, null, Instant.EPOCH);
    }

    @Test
    void aMeasuredSessionInTheCandidatesDirectionConfirmsItWithItsNumbers() {
        ConfirmResult r = new ConfirmResult("track-x", ConfirmResult.State.MEASURED, session(0.85, 1.0), null);
        TrackChange row = ChangeConfirmer.decided(candidate("faster"), r);
        assertThat(row.status()).isEqualTo("confirmed");
        assertThat(row.direction()).isEqualTo("faster");
        assertThat(row.changePct()).isCloseTo(-15.0, within(0.5));
        assertThat(row.ciLowPct()).isLessThan(row.changePct());
        assertThat(row.ciHighPct()).isGreaterThan(row.changePct()).isLessThan(0);
        assertThat(row.sessionId()).isEqualTo("track-x");
        assertThat(row.evidence()).isEqualTo(r.evidence());
        assertThat(row.firstCommit()).isNull();
        // the candidate's identity and test are kept
        assertThat(row).extracting(TrackChange::trackId, TrackChange::position, TrackChange::commitId,
                TrackChange::parentCommit, TrackChange::metric, TrackChange::candidatePValue)
                .containsExactly("t1", 8, "c8", "c7", "command_cpu_s", 0.002);
        assertThat(r.answer(-15.0)).isEqualTo(Bisect.Answer.CARRIES);
    }

    @Test
    void theOtherDirectionOrNoChangeRejectsWithTheMeasuredDirection() {
        ConfirmResult faster = new ConfirmResult("track-x", ConfirmResult.State.MEASURED, session(0.85, 1.0), null);
        TrackChange wrongWay = ChangeConfirmer.decided(candidate("slower"), faster);
        assertThat(wrongWay.status()).isEqualTo("rejected");
        assertThat(wrongWay.direction()).isEqualTo("faster");
        assertThat(faster.answer(10.0)).isEqualTo(Bisect.Answer.CLEAN);

        ConfirmResult same = new ConfirmResult("track-y", ConfirmResult.State.MEASURED, session(1.0, 1.0), null);
        TrackChange docs = ChangeConfirmer.decided(candidate("slower"), same);
        assertThat(docs.status()).isEqualTo("rejected");
        assertThat(docs.direction()).isEqualTo("none");
        assertThat(docs.changePct()).isCloseTo(0.0, within(0.5));
        assertThat(docs.ciLowPct()).isNegative();
        assertThat(docs.ciHighPct()).isPositive();
        assertThat(same.answer(10.0)).isEqualTo(Bisect.Answer.CLEAN);
    }

    @Test
    void aSessionThatComparedNothingRejectsWithoutNumbersAndIsASkipInABisect() {
        ConfirmResult broken = new ConfirmResult("track-b", ConfirmResult.State.LATER_NOT_BUILT, null,
                "later commit BUILD_FAILED: build exited with 2: make");
        TrackChange row = ChangeConfirmer.decided(candidate("faster"), broken);
        assertThat(row.status()).isEqualTo("rejected");
        assertThat(row.direction()).isEqualTo("none");
        assertThat(row.changePct()).isNull();
        assertThat(row.ciLowPct()).isNull();
        assertThat(row.evidence()).isEqualTo("not built: later commit BUILD_FAILED: build exited with 2: make");
        assertThat(row.sessionId()).isEqualTo("track-b");
        assertThat(broken.answer(-15.0)).isEqualTo(Bisect.Answer.SKIP);

        ConfirmResult failed = new ConfirmResult("track-f", ConfirmResult.State.FAILED, null,
                "earlier commit ENV_MISSING:\nno gcc");
        assertThat(failed.evidence()).isEqualTo("failed: earlier commit ENV_MISSING: no gcc");
        assertThat(failed.answer(-15.0)).isEqualTo(Bisect.Answer.SKIP);

        TrackChange orphan = ChangeConfirmer.decided(candidate("faster"), null);
        assertThat(orphan.status()).isEqualTo("rejected");
        assertThat(orphan.evidence()).isEqualTo("failed: no earlier measured commit to compare with");
    }

    @Test
    void theEvidenceLineNamesVerdictChangeIntervalAaBandRoundsAndReason() {
        TaskAnalysis a = session(0.85, 1.0);
        String line = ConfirmEvidence.of(a);
        assertThat(line).startsWith("better: -15.").contains(" (95 % CI), A/A ±").contains(", 8 rounds (fixed); ")
                .endsWith(a.humanVsBaseline().reason()).doesNotContain("\n");
        assertThat(line).matches("better: -15\\.\\d\\d % \\[-\\d+\\.\\d\\d, -\\d+\\.\\d\\d] \\(95 % CI\\), A/A ±0\\.\\d\\d %,"
                + " 8 rounds \\(fixed\\); .*");
        TaskAnalysis unstable = session(0.85, 1.08);
        assertThat(ConfirmEvidence.of(unstable)).startsWith("inconclusive: A/A unstable: -15.").contains("(unstable)");
    }

    @Test
    void aBisectStepSkipsACommitTheSeriesCouldNotBuildWithoutASession() {
        TrackCommit broken = new TrackCommit("t1", 9, "c9", "c8", "engine: break the build", true, "build_failed",
                "make: *** [Makefile:3: engine] Error 1");
        BisectSteps.Step skip = ChangeConfirmer.ask(broken, -15.0, m -> {
            throw new AssertionError("no session for " + m);
        });
        assertThat(skip).isEqualTo(new BisectSteps.Step(9, "c9", Bisect.Answer.SKIP, null, 0,
                "not built: the track's build of it failed: make: *** [Makefile:3: engine] Error 1"));

        TrackCommit plain = new TrackCommit("t1", 8, "c8", "c7", "engine: less work", false, "not_selected", null);
        BisectSteps.Step carries = ChangeConfirmer.ask(plain, -15.0, m -> new ConfirmResult("track-" + m,
                ConfirmResult.State.MEASURED, session(0.85, 1.0), null));
        assertThat(carries.answer()).isEqualTo(Bisect.Answer.CARRIES);
        assertThat(carries.sessionId()).isEqualTo("track-c8");
        assertThat(carries.evidence()).startsWith("better: -15.").matches(".*; carries: estimate -15\\.\\d\\d % \\(1"
                + " session\\) beyond the midpoint -7\\.80 % of the change -15\\.00 %");
    }

    @Test
    void aBisectStepWithTwoSessionsIsReadFromBothAndSaysSo() {
        // the first session 6 % slower (past the midpoint of a 10 % slowdown), the second one the same as its parent:
        // pooled over their 16 pairs about +3 %, so clean, although the first alone would say carries
        ConfirmResult first = new ConfirmResult("track-1", ConfirmResult.State.MEASURED, session(1.06, 1.0), null);
        ConfirmResult second = new ConfirmResult("track-2", ConfirmResult.State.MEASURED, session(1.0, 1.0), null)
                .after(first);
        assertThat(first.answer(10.0)).isEqualTo(Bisect.Answer.CARRIES);
        assertThat(second.analyses()).hasSize(2);
        assertThat(second.answer(10.0)).isEqualTo(Bisect.Answer.CLEAN);
        TrackCommit m = new TrackCommit("t1", 19, "c19", "c18", "docs: notes", false, "not_selected", null);
        BisectSteps.Step step = ChangeConfirmer.ask(m, 10.0, id -> second);
        assertThat(step.sessionId()).isEqualTo("track-2");
        assertThat(step.sessions()).isEqualTo(2);
        assertThat(step.evidence()).startsWith("equivalent within ±2 %: ").contains("; second session (the first, track-1: worse: +6.")
                .matches(".*\\); clean: estimate \\+2\\.\\d\\d % \\(2 sessions\\) short of the midpoint \\+4\\.88 % of the"
                + " change \\+10\\.00 %");
        // a second session follows a measured first one only
        ConfirmResult broken = new ConfirmResult("track-b", ConfirmResult.State.FAILED, null, "it failed");
        assertThatThrownBy(() -> second.after(broken))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
