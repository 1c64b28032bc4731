package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Random-effects pooling between sessions (docs/statistics.md §19) against values computed independently with
 * numpy 2.4 / scipy 1.17 from the formulas, not from this code:
 *
 * <pre>
 * import numpy as np; from scipy import stats
 * def dl_hksj(y, se, conf=0.95):
 *     y, se = np.asarray(y, float), np.asarray(se, float); k = len(y); w = 1/se**2
 *     fe = np.sum(w*y)/np.sum(w); Q = np.sum(w*(y-fe)**2)
 *     tau2 = max(0.0, (Q-(k-1))/(np.sum(w) - np.sum(w**2)/np.sum(w)))
 *     I2 = max(0.0, (Q-(k-1))/Q) if Q > 0 else 0.0
 *     ws = 1/(se**2+tau2); mu = np.sum(ws*y)/np.sum(ws); q = np.sum(ws*(y-mu)**2)/(k-1)
 *     var = max(1.0, q)/np.sum(ws); t = stats.t.ppf((1+conf)/2, k-1)
 *     return Q, tau2, np.expm1(np.sqrt(tau2))*100, I2, np.exp(mu), q, np.sqrt(var), np.exp(mu-t*np.sqrt(var)), np.exp(mu+t*np.sqrt(var))
 * t8 = stats.t.ppf(0.975, 8)
 * se1 = (np.log(4.35)-np.log(4.27))/(2*t8); se2 = (np.log(3.97)-np.log(3.66))/(2*t8)
 * dl_hksj([np.log(4.31), np.log(3.81)], [se1, se2])                 # ISSUE
 * dl_hksj([0.10, 0.11, 0.095], [0.02, 0.03, 0.025])                   # AGREEING
 * dl_hksj([0.05, 0.20, 0.12, -0.02], [0.01, 0.02, 0.015, 0.03])       # SPREAD
 * dl_hksj([0.3, 0.3], [0.01, 0.01])                                   # IDENTICAL
 * </pre>
 */
class SessionSpreadTest {

    private static final double TOL = 1e-9;

    private static SessionSpread.Estimate e(String id, double y, double se, int df) {
        return new SessionSpread.Estimate(id, y, se, df);
    }

    private static void assertRelative(double actual, double expected) {
        assertThat(actual).isCloseTo(expected, within(Math.abs(expected) * TOL + 1e-15));
    }

    @Test
    void twoSessionsOfTheIssue() {
        // llama2.c avx2: 4.31× [4.27, 4.35] in one session, 3.81× [3.66, 3.97] in another (df 8 each)
        SessionSpread s = SessionSpread.of(List.of(e("s1", 1.4609379041156563, 0.004024714781878785, 8),
                e("s2", 1.3376291891386096, 0.01762853458166629, 8)), 0.95);
        assertThat(s.k()).isEqualTo(2);
        assertThat(s.df()).isEqualTo(1);
        assertRelative(s.q(), 46.50377296683505);
        assertRelative(s.tau2(), 0.007439037814359032);
        assertRelative(s.tau(), 0.08624985689471625);
        assertRelative(s.tauPct(), 9.007865795046408);
        assertRelative(s.i2(), 0.9784963684406174);
        assertRelative(s.pooledSpeedup(), 4.057138715118921);
        // at k = 2 the DL τ² makes the generalised Q exactly k − 1: q = 1, truncation or not
        assertThat(s.hkScale()).isCloseTo(1.0, within(1e-9));
        assertRelative(s.pooledSe(), 0.06164278658311127);
        assertRelative(s.ciLowSpeedup(), 1.8537898447204813);
        assertRelative(s.ciHighSpeedup(), 8.879309917785609);
        assertThat(s.line()).isEqualTo("between sessions: speedups 4.310×, 3.810× (2 sessions); between-session"
                + " spread ±9.0 % (τ); pooled 4.057× [1.854, 8.879] (random effects, HKSJ)");
    }

    @Test
    void sessionsThatAgreeByChanceAreNotNarrowedBelowTheirOwnEvidence() {
        SessionSpread s = SessionSpread.of(List.of(e("a", 0.10, 0.02, 8), e("b", 0.11, 0.03, 8),
                e("c", 0.095, 0.025, 8)), 0.95);
        assertRelative(s.q(), 0.14925373134328357);
        assertThat(s.tau2()).isZero();
        assertThat(s.i2()).isZero();
        assertRelative(s.pooledSpeedup(), 1.1058309186043067);
        assertRelative(s.hkScale(), 0.07462686567164178);
        assertThat(s.truncated()).isTrue();
        assertRelative(s.pooledSe(), 0.013852712896188304);
        assertRelative(s.ciLowSpeedup(), 1.0418454397638524);
        assertRelative(s.ciHighSpeedup(), 1.173746098863208);
        // untruncated HKSJ would have said [1.0880, 1.1240]: narrower than the sessions' own evidence supports
        assertThat(s.ciLowSpeedup()).isLessThan(1.0879711192867314);
        assertThat(s.ciHighSpeedup()).isGreaterThan(1.1239838988951723);
    }

    @Test
    void fourSessionsThatDisagree() {
        SessionSpread s = SessionSpread.of(List.of(e("a", 0.05, 0.01, 8), e("b", 0.20, 0.02, 8),
                e("c", 0.12, 0.015, 8), e("d", -0.02, 0.03, 4)), 0.95);
        assertRelative(s.q(), 62.976068376068376);
        assertRelative(s.tau2(), 0.005448136645962733);
        assertRelative(s.tauPct(), 7.660384007923708);
        assertRelative(s.i2(), 0.9523628565999838);
        assertRelative(s.pooledSpeedup(), 1.0934716227873944);
        assertRelative(s.hkScale(), 1.473950351047674);
        assertThat(s.truncated()).isFalse();
        assertRelative(s.pooledSe(), 0.04638592815983184);
        assertRelative(s.ciLowSpeedup(), 0.943401690978855);
        assertRelative(s.ciHighSpeedup(), 1.2674136598172552);
    }

    @Test
    void identicalSessionsHaveNoSpread() {
        SessionSpread s = SessionSpread.of(List.of(e("a", 0.3, 0.01, 8), e("b", 0.3, 0.01, 8)), 0.95);
        assertThat(s.q()).isZero();
        assertThat(s.tau2()).isZero();
        assertThat(s.tauPct()).isZero();
        assertThat(s.i2()).isZero();
        assertThat(s.hkScale()).isZero();
        assertThat(s.truncated()).isTrue();
        assertRelative(s.pooledSpeedup(), 1.3498588075760032);
        assertRelative(s.pooledSe(), 0.007071067811865475);
        // t with 1 df (12.7): two sessions that agree still say little about a third
        assertRelative(s.ciLowSpeedup(), 1.2338675238791978);
        assertRelative(s.ciHighSpeedup(), 1.4767539992153194);
        assertThat(s.line()).contains("spread ±0.0 % (τ)");
    }

    @Test
    void oneSessionIsRefused() {
        assertThatThrownBy(() -> SessionSpread.of(List.of(e("s1", 0.3, 0.01, 8)), 0.95))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a between-session spread needs k >= 2 sessions of the same comparison on the same hardware,"
                        + " got 1 (session s1): one session's interval describes that session only");
        assertThatThrownBy(() -> SessionSpread.of(List.of(), 0.95)).hasMessageContaining("got 0:");
        assertThatThrownBy(() -> SessionSpread.of(List.of(e("s1", 0.3, 0.01, 8), e("s1", 0.2, 0.01, 8)), 0.95))
                .hasMessage("session s1 appears twice: each session counts once");
        assertThatThrownBy(() -> e("s1", 0.3, 0.0, 8)).hasMessageContaining("se (0.0) of session s1 must be > 0");
        assertThatThrownBy(() -> e("s1", 0.3, 0.01, 0)).hasMessageContaining("df (0) of session s1 must be >= 1");
    }

    @Test
    void aStoredComparisonGivesItsLogEstimateStandardErrorAndDf() {
        // paired rounds, lower is better, no A/A arm: d_r = -(ln h_r - ln b_r), weights 1/2 (one reference run);
        // numpy: est = d.mean() = 0.2167317510162623, se = d.std(ddof=1)/sqrt(5) = 0.004016504170888765, df 4
        Comparison c = Comparison.compute(ArmSamples.of(Arm.HUMAN, 16.1, 16.5, 15.7, 16.4, 15.9),
                ArmSamples.of(Arm.BASELINE, 20.0, 20.4, 19.8, 20.3, 19.6), null, Better.LOWER, 0,
                StatsConfig.defaults());
        SessionSpread.Estimate est = SessionSpread.estimate("s1", c).orElseThrow();
        assertThat(est.sessionId()).isEqualTo("s1");
        assertRelative(est.logEstimate(), 0.2167317510162623);
        assertRelative(est.se(), 0.004016504170888765);
        assertThat(est.df()).isEqualTo(4);
        // one pair: an estimate, no interval, nothing to pool
        Comparison one = Comparison.compute(ArmSamples.of(Arm.HUMAN, 16.1), ArmSamples.of(Arm.BASELINE, 20.0), null,
                Better.LOWER, 0, StatsConfig.defaults());
        assertThat(one.speedup()).isNotNull();
        assertThat(SessionSpread.estimate("s1", one)).isEmpty();
    }
}
