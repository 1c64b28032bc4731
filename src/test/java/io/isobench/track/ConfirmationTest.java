package io.isobench.track;

import io.isobench.Arm;
import io.isobench.analysis.ArmSamples;
import io.isobench.analysis.InconclusiveReason;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.analysis.Verdict;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ConfirmationTest {

    private static final double[] PARENT = {100.0, 101.2, 99.1, 100.6, 99.4, 100.3, 100.9, 99.7};
    private static final double[] JITTER = {1.004, 0.995, 1.003, 0.998, 1.002, 0.996, 1.001, 0.999};

    private static double[] times(double[] v, double f, double[] jitter) {
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i] * f * jitter[i];
        }
        return out;
    }

    private static Confirmation.Outcome decide(Direction candidate, double commitFactor, double aaFactor) {
        return Confirmation.decide(candidate, analyse(commitFactor, aaFactor));
    }

    private static TaskAnalysis analyse(double commitFactor, double aaFactor) {
        Confirmation.PairedSession s = new Confirmation.PairedSession("command_cpu_s", Better.LOWER,
                ArmSamples.of(Arm.BASELINE, PARENT), ArmSamples.of(Arm.BASELINE_AA, times(PARENT, aaFactor,
                JITTER)), ArmSamples.of(Arm.HUMAN, times(PARENT, commitFactor, new double[] {0.997, 1.003, 0.999,
                1.002, 0.998, 1.004, 0.996, 1.001})));
        return Confirmation.analyse(s, SequentialDesign.defaultAdaptive(), 8, StatsConfig.defaults());
    }

    @Test
    void onlyAnInconclusiveSessionReopensItsPairForOneMoreSession() {
        assertThat(Confirmation.SESSIONS_PER_PAIR).isEqualTo(2);
        // decided: worse, better, equivalent — final, whatever the candidate's direction
        assertThat(Confirmation.reopens(analyse(1.10, 1.0))).isFalse();
        assertThat(Confirmation.reopens(analyse(0.90, 1.0))).isFalse();
        assertThat(Confirmation.reopens(analyse(1.0, 1.0))).isFalse();
        // inconclusive: the A/A arm did not repeat the parent; and an effect between no change and the margin
        assertThat(analyse(1.10, 1.08).humanVsBaseline().verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(Confirmation.reopens(analyse(1.10, 1.08))).isTrue();
        assertThat(analyse(1.018, 1.0).humanVsBaseline().verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(Confirmation.reopens(analyse(1.018, 1.0))).isTrue();
    }

    @Test
    void aCandidateWhosePairedSessionShowsNoDifferenceIsRejected() {
        Confirmation.Outcome o = decide(Direction.SLOWER, 1.0, 1.0);
        assertThat(o.status()).isEqualTo(Confirmation.Status.REJECTED);
        assertThat(o.direction()).isEqualTo(Direction.NONE);
        assertThat(o.comparison().verdict()).isEqualTo(Verdict.EQUIVALENT);
        assertThat(o.changePct()).isCloseTo(0, within(0.5));
        assertThat(o.ciLowPct()).isLessThan(0);
        assertThat(o.ciHighPct()).isGreaterThan(0);
    }

    @Test
    void aRealSlowdownIsConfirmedWithItsNumbers() {
        Confirmation.Outcome o = decide(Direction.SLOWER, 1.10, 1.0);
        assertThat(o.status()).isEqualTo(Confirmation.Status.CONFIRMED);
        assertThat(o.direction()).isEqualTo(Direction.SLOWER);
        assertThat(o.changePct()).isCloseTo(10, within(0.5));
        assertThat(o.ciLowPct()).isGreaterThan(0).isLessThan(o.changePct());
        assertThat(o.ciHighPct()).isGreaterThan(o.changePct());
    }

    @Test
    void aChangeTheOtherWayIsRejectedButMeasured() {
        Confirmation.Outcome o = decide(Direction.FASTER, 1.10, 1.0);
        assertThat(o.status()).isEqualTo(Confirmation.Status.REJECTED);
        assertThat(o.direction()).isEqualTo(Direction.SLOWER);
    }

    @Test
    void anUnstableAaArmRejectsEvenAClearChange() {
        Confirmation.Outcome o = decide(Direction.SLOWER, 1.10, 1.08);
        assertThat(o.status()).isEqualTo(Confirmation.Status.REJECTED);
        assertThat(o.comparison().inconclusiveReason()).isEqualTo(InconclusiveReason.AA_UNSTABLE);
    }

    @Test
    void aHigherIsBetterMetricReportsTheValuesChange() {
        Confirmation.PairedSession s = new Confirmation.PairedSession("total_throughput_tok_s", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, PARENT), null, ArmSamples.of(Arm.HUMAN, times(PARENT, 1.2, JITTER)));
        Confirmation.Outcome o = Confirmation.decide(Direction.FASTER, Confirmation.analyse(s,
                SequentialDesign.fixed(8), 8, StatsConfig.defaults()));
        assertThat(o.status()).isEqualTo(Confirmation.Status.CONFIRMED);
        assertThat(o.changePct()).isCloseTo(20, within(0.5));
    }

    @Test
    void aBisectStepIsReadAgainstTheChangesMidpointNotByItsVerdict() {
        assertThat(Confirmation.midpointPct(10)).isCloseTo(4.881, within(0.001));
        assertThat(Confirmation.midpointPct(-15)).isCloseTo(-7.805, within(0.001));
        // a commit that carries a 10 % slowdown, in a session whose A/A arm did not repeat its parent: inconclusive,
        // so the verdict rule called it clean; its estimate lies wholly beyond the midpoint: carries, settled
        TaskAnalysis unstable = analyse(1.10, 1.08);
        assertThat(unstable.humanVsBaseline().verdict()).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(Confirmation.settles(10, unstable)).isTrue();
        assertThat(Confirmation.carries(10, List.of(unstable))).isEqualTo(Bisect.Answer.CARRIES);
        // a clean commit: equivalent, settled clean; for a faster change too (the sign is the change's)
        TaskAnalysis same = analyse(1.0, 1.0);
        assertThat(Confirmation.settles(10, same)).isTrue();
        assertThat(Confirmation.carries(10, List.of(same))).isEqualTo(Bisect.Answer.CLEAN);
        assertThat(Confirmation.carries(-15, List.of(same))).isEqualTo(Bisect.Answer.CLEAN);
        assertThat(Confirmation.carries(-15, List.of(analyse(0.85, 1.0)))).isEqualTo(Bisect.Answer.CARRIES);
        // 3 % slower against a 6 % change: its interval holds the midpoint (+2.96 %), so the step stays open
        TaskAnalysis between = analyse(1.03, 1.0);
        assertThat(Confirmation.settles(6, between)).isFalse();
        // two sessions pool their pairs: each session's mean log ratio weighted by its pairs (these stopped at
        // different looks)
        TaskAnalysis slower = analyse(1.06, 1.0);
        int n1 = slower.humanVsBaseline().pairs();
        int n2 = same.humanVsBaseline().pairs();
        assertThat(n1).isNotEqualTo(n2);
        double l1 = Math.log1p(Confirmation.decide(Direction.NONE, slower).changePct() / 100);
        double l2 = Math.log1p(Confirmation.decide(Direction.NONE, same).changePct() / 100);
        assertThat(Confirmation.pooledChangePct(List.of(slower, same))).isCloseTo(
                Math.expm1((n1 * l1 + n2 * l2) / (n1 + n2)) * 100, within(1e-9)).isBetween(1.0, 5.0);
        assertThat(Confirmation.carries(10, List.of(analyse(1.06, 1.0)))).isEqualTo(Bisect.Answer.CARRIES);
        assertThat(Confirmation.carries(10, List.of(analyse(1.06, 1.0), same)))
                .isEqualTo(Bisect.Answer.CLEAN);
        assertThat(Confirmation.carries(10, List.of())).isEqualTo(Bisect.Answer.SKIP);
        assertThatThrownBy(() -> Confirmation.carries(0, List.of(same)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0.0 %");
    }
}
