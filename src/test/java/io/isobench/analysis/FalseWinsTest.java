package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The false-win chance of a counted test (docs/statistics.md §10): the importance-sampled estimate agrees with plain
 * Monte Carlo through the same analysis, falls as the replay grows stronger, is the nominal one-sided rate's order
 * for a strong replay, and the rules without an estimate say what they are.
 */
class FalseWinsTest {

    private static final StatsConfig CFG = StatsConfig.defaults();
    private static final double[][] PLAIN = {{0, 0, 0}};
    private static final SequentialDesign FIXED5 = SequentialDesign.fixed(5);

    /** Log variance of a run at CV {@code pct}. */
    private static double var(double pct) {
        return Math.log1p(pct * pct / 1e4);
    }

    private static FalseWins.Model model(double theta, double cvAgent, SequentialDesign d) {
        FalseWins.Noise n = new FalseWins.Noise(var(2), var(2), var(cvAgent), var(2), false);
        return new FalseWins.Model("tpot_ms_mean", Better.LOWER, theta, n, d, d.plannedRounds());
    }

    /** Plain Monte Carlo over {@code chunks} seeded chunks run in parallel: {rate, standard error}. */
    private static double[] plain(FalseWins.Model m, int sessions, int chunks) {
        FalseWins.Estimate[] e = new FalseWins.Estimate[chunks];
        IntStream.range(0, chunks).parallel().forEach(i -> e[i] = FalseWins.simulate(m, sessions / chunks, 900 + i,
                CFG, PLAIN));
        double rate = 0;
        double var = 0;
        for (FalseWins.Estimate x : e) {
            rate += x.rate() / chunks;
            var += x.mcSe() * x.mcSe() / ((double) chunks * chunks);
        }
        return new double[] {rate, Math.sqrt(var)};
    }

    private static void agrees(FalseWins.Model m, int bruteSessions, int isSessions) {
        double[] brute = plain(m, bruteSessions, 8);
        FalseWins.Estimate is = FalseWins.simulate(m, isSessions, 77, CFG);
        double tolerance = 3 * Math.hypot(brute[1], is.mcSe());
        assertThat(is.rate()).as("importance-sampled %.4f ± %.4f vs plain %.4f ± %.4f (θ %s, agent var %.2e)",
                is.rate(), is.mcSe(), brute[0], brute[1], m.theta(), m.noise().agent())
                .isCloseTo(brute[0], within(tolerance));
        // the importance sampling earns its keep: a tighter error from far fewer sessions
        assertThat(is.mcSe() * Math.sqrt(isSessions)).isLessThan(brute[1] * Math.sqrt(bruteSessions));
    }

    @Test
    void agreesWithPlainMonteCarlo_chanceValidReplay() {
        // θ = 0: the human is better in ~1.6 % of sessions; 200,000 plain sessions see ~3,200 of them
        agrees(model(0, 2, SequentialDesign.fixed(5)), 200_000, 2_000);
    }

    @Test
    void agreesWithPlainMonteCarlo_moderateReplayUnderTheAdaptiveDesign() {
        // the weights stop at the look the analysis stopped at: exact only if that is a stopping time, checked here
        agrees(model(0.01, 2, SequentialDesign.defaultAdaptive()), 40_000, 1_000);
    }

    @Test
    void agreesWithPlainMonteCarlo_agentTwiceAsNoisy() {
        agrees(model(0, 4, SequentialDesign.fixed(5)), 200_000, 2_000);
    }

    @Test
    void fallsAsTheReplayGrowsStronger_andAStrongReplayGivesTheNominalRate() {
        SequentialDesign d = SequentialDesign.fixed(5);
        double previous = 1;
        double previousSe = 0;
        double first = Double.NaN;
        for (double theta : new double[] {0, 0.01, 0.02, 0.04}) {
            FalseWins.Estimate e = FalseWins.simulate(model(theta, 2, d), 1_500, 5, CFG);
            assertThat(e.rate()).as("θ %s", theta).isLessThanOrEqualTo(previous + 2 * Math.hypot(e.mcSe(),
                    previousSe));
            first = Double.isNaN(first) ? e.rate() : first;
            previous = e.rate();
            previousSe = e.mcSe();
        }
        assertThat(previous).isLessThan(first / 2);
        // a 22 % speedup at CV 4 %: the human is always better, so the condition is no condition and the agent's chance
        // is a single verdict's, about the nominal (1 − 0.95) / 2 (a little less: the A/A check, the margin)
        FalseWins.Noise n = new FalseWins.Noise(var(4), var(4), var(4), var(4), false);
        FalseWins.Estimate strong = FalseWins.simulate(new FalseWins.Model("tpot_ms_mean", Better.LOWER, 0.2, n, d, 5),
                4_000, 6, CFG);
        assertThat(strong.rate()).isBetween(0.01, 0.03);
        assertThat(first).as("chance-valid: well above nominal").isGreaterThan(0.05);
    }

    @Test
    void theReplayBoundAllowsForTheSelection() {
        double[] b = {100, 102, 98, 101, 99};
        // a human far above the verdict's bar: the plain one-sided 99 % bound est − t(0.99, df) · se
        Comparison strong = task(b, new double[] {80, 81.8, 78.5, 80.6, 79.1}).humanVsBaseline();
        double plainBound = Math.log(strong.speedup()) - Distributions.tQuantile(0.99, strong.df()) * strong.logSe();
        assertThat(FalseWins.theta(strong, FIXED5, CFG)).isPositive().isCloseTo(plainBound, within(1e-12));
        // 8 rounds, t = 3.4: above t(0.99, 7) = 3.0, so the plain bound credits an effect; but among sessions of no
        // effect where the human cleared the bar t(0.975, 7) = 2.36, a t this large is common (P(Z ≥ 3.4 | Z ≥ 2.36)
        // = 0.04 > 0.01): given the selection, the bound is 0
        double[] b8 = {100, 102, 98, 101, 99, 100, 103, 97};
        double[] dev = {0, 0.03, -0.03, 0.02, -0.02, 0.01, -0.01, 0};
        double ss = 0;
        for (double x : dev) {
            ss += x * x;
        }
        double se = Math.sqrt(ss / 7 / 8);
        double[] h = new double[8];
        for (int i = 0; i < 8; i++) {
            h[i] = b8[i] * Math.exp(-(3.4 * se + dev[i]));
        }
        Comparison selected = task(b8, h).humanVsBaseline();
        assertThat(selected.verdict()).isEqualTo(Verdict.BETTER);
        assertThat(Math.log(selected.speedup()) - Distributions.tQuantile(0.99, 7) * selected.logSe()).isPositive();
        assertThat(FalseWins.theta(selected, SequentialDesign.fixed(8), CFG)).isZero();
    }

    @Test
    void noiseFromTheThreeComparisons_clampedAsStated() {
        // σ²_b = σ²_h = σ²_a = 1: v_h = v_a = v_ah = 2
        FalseWins.Noise n = FalseWins.noise(2, 2, 2, 2, true);
        assertThat(n.baseline()).isEqualTo(1);
        assertThat(n.human()).isEqualTo(1);
        assertThat(n.agent()).isEqualTo(1);
        assertThat(n.aa()).isEqualTo(1);
        assertThat(n.clamped()).isFalse();
        // a baseline estimated quieter than the quieter arm, or than half the A/A pairs' variance, is raised to it
        assertThat(FalseWins.noise(2, 4, 5.8, 1, true).baseline()).isEqualTo(1);
        assertThat(FalseWins.noise(2, 4, 5.8, 1, true).clamped()).isTrue();
        assertThat(FalseWins.noise(2, 4, 5.8, 3, true).baseline()).isEqualTo(1.5);
        // without an A/A arm, to half the noisier comparison's; never above 0.9 of the quieter one
        assertThat(FalseWins.noise(2, 3, 4.8, Double.NaN, false).baseline()).isCloseTo(1.5, within(1e-12));
        assertThat(FalseWins.noise(2, 4, 0.1, Double.NaN, false).baseline()).isCloseTo(1.8, within(1e-12));
        assertThat(FalseWins.noise(2, 4, 0.1, Double.NaN, false).hasAa()).isFalse();
        // an A/A arm without a variance of its own: as noisy as the baseline
        assertThat(FalseWins.noise(2, 2, 2, Double.NaN, true).aa()).isEqualTo(1);
    }

    @Test
    void testsWithoutAnEstimate_andDeterminism() {
        SplittableRandom rng = new SplittableRandom(3);
        SimulatedSession.Scenario s = SimulatedSession.Scenario.of(1.3, 2);
        TaskAnalysis t = SimulatedSession.analyse(s, SimulatedSession.values(s, 8, rng),
                SequentialDesign.defaultAdaptive(), CFG);
        assertThat(t.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        AgentOutcome a = t.agents().get(0);
        FalseWins.Estimate e = FalseWins.of(t, a, 11, CFG);
        assertThat(e.basis()).isEqualTo(FalseWins.Basis.SIMULATED);
        assertThat(e.model().theta()).isPositive();
        assertThat(e.model().rounds()).isEqualTo(8);
        assertThat(FalseWins.of(t, a, 11, CFG)).isEqualTo(e);
        assertThat(FalseWins.seed("t", "c", "hw", "agent:x")).isEqualTo(FalseWins.seed("t", "c", "hw", "agent:x"))
                .isNotEqualTo(FalseWins.seed("t", "c", "hw", "agent:y"));

        // the agent with two paired rounds cannot be better: 0, exactly
        double[] b = {100, 102, 98, 101, 99};
        TaskAnalysis few = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                ArmSamples.of(Arm.BASELINE, b), null, ArmSamples.of(Arm.HUMAN, 80, 81.8, 78.5, 80.6, 79.1),
                List.of(ArmSamples.ofRounds(Arm.agent("x"), new int[] {0, 1}, new double[] {99, 101})), List.of()),
                CFG);
        assertThat(FalseWins.of(few, few.agents().get(0), 1, CFG).basis()).isEqualTo(FalseWins.Basis.TOO_FEW_PAIRS);
        assertThat(FalseWins.of(few, few.agents().get(0), 1, CFG).rate()).isZero();

        // a sweep's capacity (ordinal, the sign test): the fallback, at least (2/3)^6
        SimulatedSession.Scenario cap = SimulatedSession.Scenario.of(4.0, 4).aa(0);
        TaskAnalysis c = SimulatedSession.analyseCapacity(cap, SimulatedSession.values(cap, 8, rng),
                SequentialDesign.defaultAdaptive(), CFG);
        assertThat(c.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
        FalseWins.Estimate f = FalseWins.of(c, c.agents().get(0), 1, CFG);
        assertThat(f.basis()).isEqualTo(FalseWins.Basis.FALLBACK);
        assertThat(f.rate()).isGreaterThanOrEqualTo(Math.pow(2.0 / 3, 6));
    }

    private static TaskAnalysis task(double[] b, double[] h) {
        return TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER, ArmSamples.of(Arm.BASELINE, b),
                null, ArmSamples.of(Arm.HUMAN, h), List.of(), List.of()), CFG);
    }
}
