package io.isobench.session;

import io.isobench.Arm;
import io.isobench.analysis.ArmSamples;
import io.isobench.analysis.RoundExclusion;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.analysis.Verdict;
import io.isobench.exec.JobResult;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.probe.LostRequests;
import io.isobench.store.RunDetails;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule that a run whose client was saturated is measured again (docs/statistics.md §3), checked by simulation
 * through the real {@link RetryPolicy} and the real adaptive analysis ({@link TaskAnalysis} under the default
 * group-sequential design), against the rule it replaced: excluding the run's round.
 *
 * <p>Model (tpot-like, lower is better, 100 units at baseline): arms baseline, baseline-aa and human; each round a
 * drift (3 % log-sd) shared by its runs, per-run lognormal noise of 2 % CV. The host has disturbance episodes: a run
 * falls into one with probability {@value #EPISODE}; in an episode the server is slowed too (+{@value #SLOW} of its
 * value, so saturation and the value are correlated — the case where choosing runs by the client's check could bias)
 * and the client is saturated with probability {@value #SAT_IN}; outside, with {@value #SAT_OUT}. Each attempt draws
 * anew. Both rules use the same random draws for the first attempt (common random numbers), and the same seed per
 * session. Counted over {@value #SESSIONS} sessions per cell: false better-or-worse with no effect, power at a 5 %
 * speedup, baseline-human pairs kept over all 8 rounds, rounds the adaptive design ran.
 */
class SaturatedRemeasureSimulationTest {

    static final int SESSIONS = 2000;
    static final int ROUNDS = 8;
    static final double EPISODE = 0.25;
    static final double SLOW = 0.05;
    static final double SAT_IN = 0.9;
    static final double SAT_OUT = 0.02;

    /** One cell's counts. */
    record Count(int betterOrWorse, int better, long pairs, long rounds) {
        double rate(int k) {
            return (double) k / SESSIONS;
        }

        String line(String name) {
            return String.format(Locale.ROOT, "%s: P(better or worse) %.4f, P(better) %.4f, pairs %.2f, rounds %.2f",
                    name, rate(betterOrWorse), rate(better), (double) pairs / SESSIONS, (double) rounds / SESSIONS);
        }
    }

    /** One attempt: its value and whether its client was saturated, as a run's result carries them. */
    private static JobResult attempt(double trueValue, double drift, SplittableRandom rng) {
        boolean episode = rng.nextDouble() < EPISODE;
        double v = trueValue * Math.exp(drift + Math.sqrt(Math.log1p(0.02 * 0.02)) * rng.nextGaussian())
                * (episode ? 1 + SLOW : 1);
        boolean saturated = rng.nextDouble() < (episode ? SAT_IN : SAT_OUT);
        RunDetails.ClientCheck check = new RunDetails.ClientCheck(saturated, saturated
                ? List.of("event-loop lag p99 15 ms > 10 ms") : List.of(), 5.0, saturated ? 15.0 : 1.0, 20.0, null);
        return new JobResult(null, List.of(Metric.of("tpot_ms_mean", v)), null, LostRequests.NONE, "", 1, Map.of(),
                List.of(), List.of(), null, null, null, null, null, Map.of(), null, check);
    }

    /** A cell: {@code humanFactor} (1: no effect), re-measured or excluded. */
    private static Count cell(double humanFactor, boolean remeasure, long seed) {
        RetryPolicy policy = new RetryPolicy(remeasure ? 3 : 1, 0);
        Arm[] arms = {Arm.BASELINE, Arm.BASELINE_AA, Arm.HUMAN};
        SequentialDesign design = SequentialDesign.defaultAdaptive();
        int betterOrWorse = 0;
        int better = 0;
        long pairs = 0;
        long rounds = 0;
        for (int s = 0; s < SESSIONS; s++) {
            SplittableRandom rng = new SplittableRandom(seed * 1_000_003L + s);
            List<List<Integer>> keptRounds = new ArrayList<>();
            List<List<Double>> keptValues = new ArrayList<>();
            List<RoundExclusion> excluded = new ArrayList<>();
            for (int a = 0; a < arms.length; a++) {
                keptRounds.add(new ArrayList<>());
                keptValues.add(new ArrayList<>());
            }
            for (int r = 0; r < ROUNDS; r++) {
                double drift = 0.03 * rng.nextGaussian();
                for (int a = 0; a < arms.length; a++) {
                    double truth = arms[a] == Arm.HUMAN ? 100 / humanFactor : 100;
                    // each arm's attempts draw from their own stream, split from the session's: the first attempt is
                    // the same draw under both rules
                    SplittableRandom own = rng.split();
                    JobResult last = policy.run("sim", n -> attempt(truth, drift, own), x -> { }).last();
                    if (RetryPolicy.clientSaturated(last)) {
                        excluded.add(new RoundExclusion(arms[a].label(), r, RoundExclusion.Cause.CLIENT_SATURATED,
                                "simulated"));
                    } else {
                        keptRounds.get(a).add(r);
                        keptValues.get(a).add(last.metrics().get(0).value());
                    }
                }
            }
            TaskAnalysis.Input input = TaskAnalysis.Input.of("tpot_ms_mean", Better.LOWER, samples(arms[0],
                    keptRounds.get(0), keptValues.get(0)), samples(arms[2], keptRounds.get(2), keptValues.get(2)))
                    .withBaselineAa(samples(arms[1], keptRounds.get(1), keptValues.get(1)))
                    .withExclusions(excluded);
            TaskAnalysis t = TaskAnalysis.analyse(input, design, ROUNDS, StatsConfig.defaults());
            Verdict v = t.humanVsBaseline().verdict();
            betterOrWorse += v == Verdict.BETTER || v == Verdict.WORSE ? 1 : 0;
            better += v == Verdict.BETTER ? 1 : 0;
            pairs += keptRounds.get(0).stream().filter(keptRounds.get(2)::contains).count(); // of all 8 rounds
            rounds += t.stopping().lookRounds();
        }
        return new Count(betterOrWorse, better, pairs, rounds);
    }

    private static ArmSamples samples(Arm arm, List<Integer> rounds, List<Double> values) {
        return ArmSamples.ofRounds(arm, rounds.stream().mapToInt(Integer::intValue).toArray(),
                values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    @Test
    void measuringASaturatedRunAgainKeepsTheErrorRateAndGainsPairsAndPower() {
        Count nullExcluded = cell(1.0, false, 1);
        Count nullRemeasured = cell(1.0, true, 1);
        Count effectExcluded = cell(1.05, false, 2);
        Count effectRemeasured = cell(1.05, true, 2);
        System.out.println(nullExcluded.line("no effect, excluded") + "\n" + nullRemeasured.line("no effect, re-measured")
                + "\n" + effectExcluded.line("5 % speedup, excluded") + "\n"
                + effectRemeasured.line("5 % speedup, re-measured"));
        double se = Math.sqrt(0.05 * 0.95 / SESSIONS);
        // no effect: neither rule raises a false better or worse above the design's 5 % (three standard errors)
        assertThat(nullRemeasured.rate(nullRemeasured.betterOrWorse())).isLessThanOrEqualTo(0.05 + 3 * se);
        assertThat(nullExcluded.rate(nullExcluded.betterOrWorse())).isLessThanOrEqualTo(0.05 + 3 * se);
        // measured again, a round keeps its pair: more pairs at every look, so more power and no more rounds
        assertThat(nullRemeasured.pairs()).isGreaterThan(nullExcluded.pairs());
        assertThat(effectRemeasured.pairs()).isGreaterThan(effectExcluded.pairs());
        assertThat(effectRemeasured.rate(effectRemeasured.better()))
                .isGreaterThan(effectExcluded.rate(effectExcluded.better()));
        assertThat(effectRemeasured.rounds()).isLessThanOrEqualTo(effectExcluded.rounds());
    }
}
