package io.isobench.track;

import io.isobench.Arm;
import io.isobench.analysis.ArmSamples;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.parse.Better;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One simulated range of commits through the real detector ({@link EDivisive}), the real confirmation rule
 * ({@link Confirmation}: simulated paired sessions read by the verdicts' analysis under the session's design) and the
 * real bisect rule ({@link Bisect}): what {@code bench/stats-calibration}'s track rows count (docs/statistics.md §21).
 *
 * <p>Model (a lower-is-better metric, 100 units at the first commit): commit i's true value is 100 × the product of
 * the factors of the planted steps at or before i. The series: K rounds, each holding every measured commit once (the
 * interleaved order), every run = true value × e^(drift of its round) × lognormal noise of the given CV; the round's
 * drift (normal in log space) is shared by the round's commits. Optionally one run of the series is 3× slower.
 * Optionally every run, of the series and of the sessions alike, independently falls into a <b>disturbance</b> with
 * a given probability and is then slower by a factor drawn uniformly from [1.05, 1.20] (a co-tenant on the host: the
 * heavy right tail of CPU times on a shared machine, where a 0.21 s command once took 0.24 s). A confirming or
 * bisecting session: the parent (baseline), the parent again (A/A arm) and the commit in rounds of their own up to the
 * design's maximum, with the same noise, drift and disturbance model; a candidate's session whose verdict is
 * inconclusive is followed by a second one of the same pair, which decides ({@link Confirmation#reopens}), unless the
 * scenario turns that rule off (to measure what it buys); a bisect step is one session read against the confirmed
 * change's midpoint, and a second one of the same commit when the first does not settle its side
 * ({@link Confirmation#settles}, {@link Confirmation#carries}). There is no position effect
 * in this model, so the order within a round does not change any value's law and is not drawn.
 */
final class TrackSimulation {

    /**
     * A scenario.
     *
     * @param commits       commits in the range
     * @param runs          runs per measured commit (K)
     * @param cvPct         per-run CV, percent
     * @param driftPct      sd of a round's drift, percent
     * @param factors       planted steps' factors on the value (1.10: 10 % slower), in commit order; their positions
     *                      are drawn per range, distinct, uniformly among commits 1 … commits − 1
     * @param every         every N-th commit measured (and the last); 1: all
     * @param outlier       one run of the series 3× slower
     * @param disturbedPct  the chance, percent, that a run is disturbed (slower by a factor uniform in [1.05, 1.20])
     * @param secondSession a candidate's second session when its first is inconclusive (the real rule: on)
     * @param at            the steps' positions (0-based, one per factor), or null: drawn per range
     */
    record Scenario(int commits, int runs, double cvPct, double driftPct, double[] factors, int every,
                    boolean outlier, double disturbedPct, boolean secondSession, int[] at) {
        static Scenario of(double cvPct, double... factors) {
            return new Scenario(30, 3, cvPct, 3, factors, 1, false, 0, true, null);
        }

        /**
         * TrackAcceptanceIT's history: K = 5 runs (track's default), commit 9 (position 8) 15 % faster, commit 21
         * (position 20) 10 % slower.
         */
        static Scenario acceptance(double cvPct) {
            return new Scenario(30, 5, cvPct, 3, new double[] {0.85, 1.10}, 1, false, 0, true, new int[] {8, 20});
        }

        Scenario every(int n) {
            return new Scenario(commits, runs, cvPct, driftPct, factors, n, outlier, disturbedPct, secondSession, at);
        }

        Scenario withOutlier() {
            return new Scenario(commits, runs, cvPct, driftPct, factors, every, true, disturbedPct, secondSession, at);
        }

        /** Every run disturbed with probability {@code pct} percent. */
        Scenario disturbed(double pct) {
            return new Scenario(commits, runs, cvPct, driftPct, factors, every, outlier, pct, secondSession, at);
        }

        /** One session per candidate: an inconclusive one rejects (the rule before the second session). */
        Scenario oneSession() {
            return new Scenario(commits, runs, cvPct, driftPct, factors, every, outlier, disturbedPct, false, at);
        }
    }

    /** A change the range reports as confirmed: its first commit (bisected where the gap is wider than one). */
    record Found(int first, Direction direction) {
    }

    /**
     * What one range gave.
     *
     * @param steps      the planted steps' first commits, ascending
     * @param directions their directions
     * @param candidates the detector's candidates
     * @param confirmed  the confirmed changes
     * @param sessions   paired sessions run (confirmations and bisect steps)
     */
    record Range(int[] steps, Direction[] directions, int candidates, List<Found> confirmed, int sessions) {

        /** Every planted step confirmed at its first commit in its direction. */
        boolean allFound() {
            for (int i = 0; i < steps.length; i++) {
                if (!confirmed.contains(new Found(steps[i], directions[i]))) {
                    return false;
                }
            }
            return true;
        }

        /** Every planted step found, and nothing else confirmed. */
        boolean exact() {
            return allFound() && confirmed.size() == steps.length;
        }
    }

    private static final String METRIC = "command_cpu_s";

    private TrackSimulation() {
    }

    /** One range: the series, its candidates, a confirming session per candidate, a bisect per confirmed gap. */
    static Range range(Scenario s, SequentialDesign design, StatsConfig config, SplittableRandom rng) {
        int n = s.commits();
        int[] steps = positions(s, rng);
        double[] level = new double[n];
        Direction[] dirs = new Direction[steps.length];
        for (int i = 0; i < n; i++) {
            double l = 1;
            for (int k = 0; k < steps.length; k++) {
                if (steps[k] <= i) {
                    l *= s.factors()[k];
                }
            }
            level[i] = l;
        }
        for (int k = 0; k < steps.length; k++) {
            dirs[k] = Direction.of(Math.log(s.factors()[k]), Better.LOWER);
        }
        List<double[]> series = series(s, level, rng);
        List<ChangePoint> candidates = EDivisive.detect(series, Better.LOWER);
        List<Found> confirmed = new ArrayList<>();
        int[] sessions = {0};
        for (ChangePoint c : candidates) {
            Confirmation.Outcome o = Confirmation.decide(c.direction(), pair(s, level[c.previous()],
                    level[c.commit()], design, config, rng, sessions));
            if (o.status() != Confirmation.Status.CONFIRMED) {
                continue;
            }
            int first = c.commit();
            if (c.commit() - c.previous() > 1) {
                int from = c.previous();
                Bisect.Result b = Bisect.first(c.commit() - from, j -> {
                    sessions[0]++;
                    TaskAnalysis step = session(s, level[from], level[from + 1 + j], design, config, rng);
                    if (Confirmation.settles(o.changePct(), step)) {
                        return Confirmation.carries(o.changePct(), List.of(step));
                    }
                    sessions[0]++;
                    TaskAnalysis again = session(s, level[from], level[from + 1 + j], design, config, rng);
                    return Confirmation.carries(o.changePct(), List.of(step, again));
                });
                first = from + 1 + b.firstLow();
            }
            confirmed.add(new Found(first, c.direction()));
        }
        return new Range(steps, dirs, candidates.size(), confirmed, sessions[0]);
    }

    /**
     * A candidate's answer: its session, and a second one when the first is inconclusive and the scenario has the rule
     * ({@link Confirmation#reopens}); counts the sessions in {@code sessions[0]}.
     */
    static TaskAnalysis pair(Scenario s, double parent, double commit, SequentialDesign design, StatsConfig config,
                             SplittableRandom rng, int[] sessions) {
        TaskAnalysis a = session(s, parent, commit, design, config, rng);
        sessions[0]++;
        if (s.secondSession() && Confirmation.reopens(a)) {
            a = session(s, parent, commit, design, config, rng);
            sessions[0]++;
        }
        return a;
    }

    private static int[] positions(Scenario s, SplittableRandom rng) {
        if (s.at() != null) {
            return s.at().clone();
        }
        int k = s.factors().length;
        int[] p = new int[k];
        for (int i = 0; i < k; i++) {
            boolean fresh;
            do {
                p[i] = 1 + rng.nextInt(s.commits() - 1);
                fresh = true;
                for (int j = 0; j < i; j++) {
                    fresh &= p[j] != p[i];
                }
            } while (!fresh);
        }
        Arrays.sort(p);
        return p;
    }

    /** The series: K interleaved rounds over the measured commits (every N-th and the last). */
    static List<double[]> series(Scenario s, double[] level, SplittableRandom rng) {
        int n = s.commits();
        double sigma = sigma(s.cvPct());
        double[][] v = new double[n][];
        for (int i = 0; i < n; i++) {
            v[i] = i % s.every() == 0 || i == n - 1 ? new double[s.runs()] : new double[0];
        }
        for (int r = 0; r < s.runs(); r++) {
            double d = s.driftPct() / 100 * rng.nextGaussian();
            for (int i = 0; i < n; i++) {
                if (v[i].length > 0) {
                    v[i][r] = run(s, 100 * level[i], d, sigma, rng);
                }
            }
        }
        if (s.outlier()) {
            int i;
            do {
                i = rng.nextInt(n);
            } while (v[i].length == 0);
            v[i][rng.nextInt(s.runs())] *= 3;
        }
        return Arrays.asList(v);
    }

    /** A paired session of a commit (true level {@code commit}) against its parent, read by the real analysis. */
    static TaskAnalysis session(Scenario s, double parent, double commit, SequentialDesign design,
                               StatsConfig config, SplittableRandom rng) {
        int rounds = design.plannedRounds();
        double sigma = sigma(s.cvPct());
        double[] p = new double[rounds];
        double[] aa = new double[rounds];
        double[] c = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            double d = s.driftPct() / 100 * rng.nextGaussian();
            p[r] = run(s, 100 * parent, d, sigma, rng);
            aa[r] = run(s, 100 * parent, d, sigma, rng);
            c[r] = run(s, 100 * commit, d, sigma, rng);
        }
        return Confirmation.analyse(new Confirmation.PairedSession(METRIC, Better.LOWER, ArmSamples.of(Arm.BASELINE,
                p), ArmSamples.of(Arm.BASELINE_AA, aa), ArmSamples.of(Arm.HUMAN, c)), design, rounds, config);
    }

    /** One run: the true value, its round's drift, lognormal noise, and a disturbance with the scenario's chance. */
    private static double run(Scenario s, double value, double drift, double sigma, SplittableRandom rng) {
        double v = value * Math.exp(drift + sigma * rng.nextGaussian());
        if (s.disturbedPct() > 0 && rng.nextDouble() * 100 < s.disturbedPct()) {
            v *= 1.05 + 0.15 * rng.nextDouble();
        }
        return v;
    }

    private static double sigma(double cvPct) {
        return Math.sqrt(Math.log1p(cvPct * cvPct / 1e4));
    }
}
