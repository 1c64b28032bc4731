package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import io.isobench.plan.RoundOrder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * One simulated session of one task through isobench's real round order ({@link RoundOrder}) and real analysis
 * ({@link TaskAnalysis#analyse(TaskAnalysis.Input, SequentialDesign, int, StatsConfig)}): what
 * {@code bench/stats-calibration} (docs/statistics.md §12) and the leaderboard's expected false wins (§10) count.
 *
 * <p>Noise model (a lower-is-better metric, 100 units at baseline): every run's value is 100 × (its arm's true factor)
 * × e^(drift of its round) × (per-run noise) × (position ramp) × (outlier). Per-run noise: lognormal of the given CV
 * (σ = √ln(1 + CV²) in log space); or Student t with 3 degrees of freedom in log space scaled to the same standard
 * deviation (heavy tails); or bimodal — each run lands in a fast or a slow mode with probability ½, the modes ±0.8σ
 * apart from the centre and lognormal within a mode with 0.6σ, so the total log-sd is σ. Round drift: normal in log
 * space, shared by every arm of the round. Position ramp: the run at position p of its round (0-based, k jobs) is
 * slower by ramp × p / (k − 1). Outliers: one random round 3× slower for every arm, or one run of the compared arm 3×
 * slower. The A/A arm's true factor is its offset (a server start that differs); the compared arm (human) and the
 * agent may each be noisier by a factor. Capacity: each run's latent capacity 4.2 × 100 / value, read off the grid 1,
 * 2, 4, 8, 16.
 */
final class SimulatedSession {

    /** Per-run noise shapes. */
    enum Noise { LOGNORMAL, T3, BIMODAL }

    /** Extreme values planted in a session. */
    enum Outlier { NONE, ROUND_3X, RUN_3X }

    /**
     * A scenario.
     *
     * @param humanFactor      the human's true speedup (1 = no effect)
     * @param agentFactor      the agent's true speedup
     * @param cvPct            per-run CV of the baselines (percent; the human and the agent: times their factors)
     * @param driftPct         sd of the round drift (percent)
     * @param shape            noise shape, outliers, position ramp
     * @param aaOffset         the A/A arm's true factor (1: the baseline repeats itself); 0: no A/A arm
     * @param humanNoiseFactor the human's per-run CV as a multiple of {@code cvPct}
     * @param agentNoiseFactor the agent's per-run CV as a multiple of {@code cvPct}
     */
    record Scenario(double humanFactor, double agentFactor, double cvPct, double driftPct, Shape shape,
                    double aaOffset, double humanNoiseFactor, double agentNoiseFactor) {

        static Scenario of(double humanFactor, double cvPct) {
            return new Scenario(humanFactor, 1.0, cvPct, 3, Shape.PLAIN, 1.0, 1.0, 1.0);
        }

        Scenario agent(double factor) {
            return new Scenario(humanFactor, factor, cvPct, driftPct, shape, aaOffset,
                    humanNoiseFactor, agentNoiseFactor);
        }

        Scenario drift(double pct) {
            return new Scenario(humanFactor, agentFactor, cvPct, pct, shape, aaOffset,
                    humanNoiseFactor, agentNoiseFactor);
        }

        Scenario shape(Shape s) {
            return new Scenario(humanFactor, agentFactor, cvPct, driftPct, s, aaOffset,
                    humanNoiseFactor, agentNoiseFactor);
        }

        Scenario aa(double offset) {
            return new Scenario(humanFactor, agentFactor, cvPct, driftPct, shape, offset,
                    humanNoiseFactor, agentNoiseFactor);
        }

        Scenario noisierHuman(double factor) {
            return new Scenario(humanFactor, agentFactor, cvPct, driftPct, shape, aaOffset, factor, agentNoiseFactor);
        }

        Scenario noisierAgent(double factor) {
            return new Scenario(humanFactor, agentFactor, cvPct, driftPct, shape, aaOffset, humanNoiseFactor, factor);
        }

        boolean hasAa() {
            return aaOffset > 0;
        }
    }

    /** Noise shape, outliers and the position ramp. */
    record Shape(Noise noise, Outlier outlier, double rampPct) {
        static final Shape PLAIN = new Shape(Noise.LOGNORMAL, Outlier.NONE, 0);
    }

    /** The latent capacity of a baseline run: just above a grid point, so noise moves runs across it. */
    static final double CAPACITY_LATENT = 4.2;
    private static final double[] GRID = {1, 2, 4, 8, 16};

    private SimulatedSession() {
    }

    /** The arms of a simulated task: baseline, (baseline-aa), human, one agent. */
    static List<Arm> arms(Scenario s) {
        List<Arm> arms = new ArrayList<>(List.of(Arm.BASELINE));
        if (s.hasAa()) {
            arms.add(Arm.BASELINE_AA);
        }
        arms.add(Arm.HUMAN);
        arms.add(Arm.agent("sim"));
        return arms;
    }

    /** Values [arm][round] of one session of {@code rounds} rounds, in the real round order. */
    static double[][] values(Scenario s, int rounds, SplittableRandom rng) {
        List<Arm> arms = arms(s);
        int k = arms.size();
        int human = arms.indexOf(Arm.HUMAN);
        int aa = arms.indexOf(Arm.BASELINE_AA);
        double sigma = Math.sqrt(Math.log1p(s.cvPct() * s.cvPct() / 1e4));
        double humanSigma = Math.sqrt(Math.log1p(Math.pow(s.cvPct() * s.humanNoiseFactor(), 2) / 1e4));
        double agentSigma = Math.sqrt(Math.log1p(Math.pow(s.cvPct() * s.agentNoiseFactor(), 2) / 1e4));
        double drift = s.driftPct() / 100.0;
        double[][] v = new double[k][rounds];
        List<List<int[]>> order = RoundOrder.of(rng.nextLong(), rounds, new int[] {k});
        int outlierRound = rng.nextInt(rounds);
        for (int r = 0; r < rounds; r++) {
            double d = drift * rng.nextGaussian();
            List<int[]> round = order.get(r);
            for (int pos = 0; pos < k; pos++) {
                int a = round.get(pos)[1];
                double x = 100.0 * Math.exp(d + noise(s.shape().noise(), a == human ? humanSigma : a == k - 1
                        ? agentSigma : sigma, rng));
                if (a == human) {
                    x /= s.humanFactor(); // lower is better: a speedup divides the value
                } else if (a == aa) {
                    x /= s.aaOffset();
                } else if (a == k - 1) {
                    x /= s.agentFactor();
                }
                x *= 1 + s.shape().rampPct() / 100.0 * pos / (k - 1);
                Outlier o = s.shape().outlier();
                if (o == Outlier.ROUND_3X && r == outlierRound || o == Outlier.RUN_3X && r == outlierRound
                        && a == human) {
                    x *= 3;
                }
                v[a][r] = x;
            }
        }
        return v;
    }

    /** One draw of per-run log noise with log-sd {@code sigma}. */
    static double noise(Noise n, double sigma, SplittableRandom rng) {
        return switch (n) {
            case LOGNORMAL -> sigma * rng.nextGaussian();
            case T3 -> {
                double z = rng.nextGaussian();
                double chi = 0;
                for (int i = 0; i < 3; i++) {
                    double g = rng.nextGaussian();
                    chi += g * g;
                }
                yield sigma * z / Math.sqrt(chi / 3) / Math.sqrt(3.0); // t(3) has variance 3
            }
            case BIMODAL -> (rng.nextBoolean() ? 0.8 : -0.8) * sigma + 0.6 * sigma * rng.nextGaussian();
        };
    }

    /** The task's analysis of one simulated session of a timing metric (tpot_ms_mean, lower is better). */
    static TaskAnalysis analyse(Scenario s, double[][] v, SequentialDesign design, StatsConfig config) {
        List<Arm> arms = arms(s);
        TaskAnalysis.Input input = TaskAnalysis.Input.of("tpot_ms_mean", Better.LOWER, ArmSamples.of(Arm.BASELINE,
                v[0]), ArmSamples.of(Arm.HUMAN, v[arms.indexOf(Arm.HUMAN)]))
                .withBaselineAa(s.hasAa() ? ArmSamples.of(Arm.BASELINE_AA, v[1]) : null)
                .withAgents(List.of(ArmSamples.of(arms.get(arms.size() - 1), v[arms.size() - 1])));
        return TaskAnalysis.analyse(input, design, v[0].length, config);
    }

    /**
     * The task's analysis of one simulated session of a sweep's capacity (higher is better, discrete: the grid 1, 2,
     * 4, 8, 16), decided as {@link SweepAnalysis} decides a capacity.
     */
    static TaskAnalysis analyseCapacity(Scenario s, double[][] v, SequentialDesign design, StatsConfig config) {
        List<Arm> arms = arms(s);
        int rounds = v[0].length;
        double[][] c = new double[v.length][rounds];
        Map<String, Map<Integer, Double>> perRound = new LinkedHashMap<>();
        for (int a = 0; a < v.length; a++) {
            Map<Integer, Double> byRound = new TreeMap<>();
            for (int r = 0; r < rounds; r++) {
                c[a][r] = onGrid(CAPACITY_LATENT * 100.0 / v[a][r]);
                byRound.put(r, c[a][r]);
            }
            perRound.put(arms.get(a).label(), byRound);
        }
        TaskAnalysis.Input input = TaskAnalysis.Input.of("capacity_max_concurrency", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, c[0]), ArmSamples.of(Arm.HUMAN, c[arms.indexOf(Arm.HUMAN)]))
                .withBaselineAa(s.hasAa() ? ArmSamples.of(Arm.BASELINE_AA, c[1]) : null)
                .withAgents(List.of(ArmSamples.of(arms.get(arms.size() - 1), c[arms.size() - 1])));
        return SweepAnalysis.ordinalReplay(input, perRound, 2.0, design, rounds, config);
    }

    /** The highest point of the grid 1, 2, 4, 8, 16 at or below {@code latent}; half the lowest below it. */
    static double onGrid(double latent) {
        double out = 0.5;
        for (double p : GRID) {
            if (latent >= p) {
                out = p;
            }
        }
        return out;
    }
}
