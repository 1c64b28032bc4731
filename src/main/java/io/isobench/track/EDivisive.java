package io.isobench.track;

import io.isobench.analysis.Distributions;
import io.isobench.parse.Better;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Change-point candidates of a commit series (docs/statistics.md §21): E-divisive means (Matteson &amp; James 2014,
 * moment α = 1) to place each split, a two-sided Student t test of the log values on either side to judge it, then the
 * bottom-up merge of Apache Otava (formerly hunter): the weakest change point (largest p-value) is
 * removed and its neighbours re-tested until every one left has p ≤ {@link Settings#maxPValue()} and a change of at
 * least {@link Settings#minMagnitudePct()}.
 *
 * <p>The series is interleaved (a run's index is its pass: every measured commit is measured once per pass), so a
 * pass's common drift is estimated and removed first: each run's log value less the mean, over the commits measured in
 * that pass, of their runs' deviation from their own commit's mean (a two-way additive model, exact when every commit
 * has every pass). Both E-divisive and the t test read these centred values.
 *
 * <p>Guarantees: deterministic (no permutation, no random draw: the same series gives the same candidates); a split
 * only between two measured commits, each side at least one measured commit; commits without values (not built, not
 * measured, {@code --every N}) are left out and never a candidate; a constant series has none.
 */
public final class EDivisive {

    /**
     * The detector's parameters.
     *
     * @param maxPValue       a candidate's t test must reach p ≤ this after the merge
     * @param splitPValue     the top-down split continues while the best split's p ≤ this (Otava: 10 × maxPValue, so
     *                        a change masked by a neighbouring one is not lost before the merge re-tests it)
     * @param minMagnitudePct a candidate whose |change| is below this (percent) is merged away
     */
    public record Settings(double maxPValue, double splitPValue, double minMagnitudePct) {

        /** p ≤ 0.001 (split at 0.01), |change| ≥ 1 %: docs/statistics.md §21 says why. */
        public static final Settings DEFAULTS = new Settings(0.01, 0.05, 1.0);

        public Settings {
            if (!(maxPValue > 0 && maxPValue < 1) || !(splitPValue >= maxPValue && splitPValue < 1)) {
                throw new IllegalArgumentException("need 0 < maxPValue <= splitPValue < 1: " + maxPValue + ", "
                        + splitPValue);
            }
            if (!(minMagnitudePct >= 0) || Double.isInfinite(minMagnitudePct)) {
                throw new IllegalArgumentException("minMagnitudePct (" + minMagnitudePct + ") must be >= 0");
            }
        }
    }

    /** One split between measured commits {@code tau − 1} and {@code tau} (indices among the measured commits). */
    private record Split(int tau, double pValue, double t, double logChange, double qHat) {
    }

    private final Settings settings;
    private final int[] commit;
    private final double[] z;
    private final int[] pass;
    private final int[] start;

    private EDivisive(Settings settings, List<double[]> runsByCommit) {
        this.settings = settings;
        List<Integer> measured = new ArrayList<>();
        int points = 0;
        int passes = 0;
        for (int i = 0; i < runsByCommit.size(); i++) {
            double[] runs = runsByCommit.get(i);
            int n = runs == null ? 0 : (int) Arrays.stream(runs).filter(v -> !Double.isNaN(v)).count();
            if (n > 0) {
                measured.add(i);
                points += n;
                passes = Math.max(passes, runs.length);
            }
        }
        commit = measured.stream().mapToInt(Integer::intValue).toArray();
        z = new double[points];
        pass = new int[points];
        start = new int[commit.length + 1];
        int p = 0;
        for (int g = 0; g < commit.length; g++) {
            start[g] = p;
            double[] runs = runsByCommit.get(commit[g]);
            for (int r = 0; r < runs.length; r++) {
                double v = runs[r];
                if (Double.isNaN(v)) {
                    continue;
                }
                if (!(v > 0) || Double.isInfinite(v)) {
                    throw new IllegalArgumentException("commit " + commit[g] + ": value " + v + " is not > 0");
                }
                z[p] = Math.log(v);
                pass[p++] = r;
            }
        }
        start[commit.length] = p;
        centrePasses(passes);
    }

    /**
     * Removes each pass's common drift: a pass's effect is the mean, over the commits measured in it, of their run's
     * deviation from its commit's mean log value; it is subtracted where at least two commits were measured in the
     * pass (one commit alone says nothing about the pass).
     */
    private void centrePasses(int passes) {
        double[] sum = new double[passes];
        int[] count = new int[passes];
        double[] commitMean = new double[commit.length];
        for (int g = 0; g < commit.length; g++) {
            for (int i = start[g]; i < start[g + 1]; i++) {
                commitMean[g] += z[i] / (start[g + 1] - start[g]);
            }
            for (int i = start[g]; i < start[g + 1]; i++) {
                sum[pass[i]] += z[i] - commitMean[g];
                count[pass[i]]++;
            }
        }
        for (int i = 0; i < z.length; i++) {
            if (count[pass[i]] >= 2) {
                z[i] -= sum[pass[i]] / count[pass[i]];
            }
        }
    }

    /** The candidates of a series with the default settings. */
    public static List<ChangePoint> detect(List<double[]> runsByCommit, Better better) {
        return detect(runsByCommit, better, Settings.DEFAULTS);
    }

    /**
     * The candidates of a series, in commit order.
     *
     * @param runsByCommit per commit of the range in order, its runs' values by pass (index r = pass r; NaN: no value in
     *                     that pass; empty, null or all NaN: not measured)
     * @param better       the metric's direction (names a change faster or slower)
     */
    public static List<ChangePoint> detect(List<double[]> runsByCommit, Better better, Settings settings) {
        EDivisive d = new EDivisive(settings, runsByCommit);
        List<ChangePoint> out = new ArrayList<>();
        for (Split s : d.merge(d.split())) {
            out.add(new ChangePoint(d.commit[s.tau()], d.commit[s.tau() - 1], Math.expm1(s.logChange()) * 100,
                    Direction.of(s.logChange(), better), s.pValue(), s.t(), s.qHat()));
        }
        return out;
    }

    /** Top-down: the segment whose best split has the largest q̂ is split while that split's p ≤ splitPValue. */
    private List<Split> split() {
        List<Integer> taus = new ArrayList<>();
        while (true) {
            List<Integer> bounds = bounds(taus);
            Split best = null;
            for (int i = 0; i + 1 < bounds.size(); i++) {
                Split s = bestSplit(bounds.get(i), bounds.get(i + 1));
                if (s != null && (best == null || s.qHat() > best.qHat())) {
                    best = s;
                }
            }
            if (best == null || best.pValue() > settings.splitPValue()) {
                break;
            }
            taus.add(best.tau());
            taus.sort(null);
        }
        List<Split> out = new ArrayList<>();
        for (int tau : taus) {
            out.add(tested(tau, taus, Double.NaN));
        }
        return out;
    }

    /** Bottom-up: remove the weakest (largest p, then smallest change) until every split passes; re-test the rest. */
    private List<Split> merge(List<Split> splits) {
        List<Split> cps = new ArrayList<>(splits);
        while (!cps.isEmpty()) {
            List<Integer> taus = cps.stream().map(Split::tau).toList();
            cps.replaceAll(s -> tested(s.tau(), taus, s.qHat()));
            Split weakest = cps.stream().max(Comparator.comparingDouble(Split::pValue)).orElseThrow();
            if (weakest.pValue() <= settings.maxPValue()) {
                weakest = cps.stream().min(Comparator.comparingDouble(s -> Math.abs(s.logChange()))).orElseThrow();
                if (Math.abs(Math.expm1(weakest.logChange())) * 100 >= settings.minMagnitudePct()) {
                    break;
                }
            }
            cps.remove(weakest);
        }
        return cps;
    }

    private List<Integer> bounds(List<Integer> taus) {
        List<Integer> b = new ArrayList<>();
        b.add(0);
        b.addAll(taus);
        b.add(commit.length);
        return b;
    }

    /** The split at tau tested within its window: the neighbouring splits (or the series' ends). */
    private Split tested(int tau, List<Integer> taus, double qHat) {
        int lo = 0;
        int hi = commit.length;
        for (int t : taus) {
            if (t < tau) {
                lo = Math.max(lo, t);
            } else if (t > tau) {
                hi = Math.min(hi, t);
            }
        }
        return tTest(lo, tau, hi, Double.isNaN(qHat) ? q(lo, tau, hi) : qHat);
    }

    /**
     * The best split of measured commits [a, b) by E-divisive's q̂ (α = 1) over the runs: q̂ = mk/(m+k) · (2/(mk) Σ|x−y|
     * − mean within X − mean within Y), m and k the runs on either side (a side of one run has no within term).
     * Null when the segment holds fewer than two commits.
     */
    private Split bestSplit(int a, int b) {
        if (b - a < 2) {
            return null;
        }
        int s = start[a];
        int e = start[b];
        double wY = 0;
        for (int i = s; i < e; i++) {
            for (int j = i + 1; j < e; j++) {
                wY += Math.abs(z[i] - z[j]);
            }
        }
        double wX = 0;
        double cross = 0;
        double bestQ = Double.NEGATIVE_INFINITY;
        int bestTau = -1;
        for (int g = a; g < b - 1; g++) {
            for (int p = start[g]; p < start[g + 1]; p++) { // run p leaves Y for X
                double dX = 0;
                for (int x = s; x < p; x++) {
                    dX += Math.abs(z[p] - z[x]);
                }
                double dY = 0;
                for (int y = p + 1; y < e; y++) {
                    dY += Math.abs(z[p] - z[y]);
                }
                wX += dX;
                wY -= dY;
                cross += dY - dX;
            }
            double q = qHat(start[g + 1] - s, e - start[g + 1], cross, wX, wY);
            if (q > bestQ) {
                bestQ = q;
                bestTau = g + 1;
            }
        }
        return tTest(a, bestTau, b, bestQ);
    }

    private static double qHat(int m, int k, double cross, double wX, double wY) {
        double e = 2 * cross / ((double) m * k) - (m >= 2 ? wX / (m * (m - 1) / 2.0) : 0)
                - (k >= 2 ? wY / (k * (k - 1) / 2.0) : 0);
        return (double) m * k / (m + k) * e;
    }

    /** q̂ of the split at tau within [a, b), computed directly. */
    private double q(int a, int tau, int b) {
        int s = start[a];
        int c = start[tau];
        int e = start[b];
        double wX = 0;
        double wY = 0;
        double cross = 0;
        for (int i = s; i < e; i++) {
            for (int j = i + 1; j < e; j++) {
                double d = Math.abs(z[i] - z[j]);
                if (j < c) {
                    wX += d;
                } else if (i >= c) {
                    wY += d;
                } else {
                    cross += d;
                }
            }
        }
        return qHat(c - s, e - c, cross, wX, wY);
    }

    /**
     * Two-sided Student t test (pooled variance, n_L + n_R − 2 degrees of freedom) of the centred runs in [a, tau)
     * against [tau, b) (n = runs); p = 1 with no degree of freedom; with no spread at all p = 0 when the means differ.
     */
    private Split tTest(int a, int tau, int b, double qHat) {
        int s0 = start[a];
        int c = start[tau];
        int e = start[b];
        int nL = c - s0;
        int nR = e - c;
        double mL = 0;
        double mR = 0;
        for (int i = s0; i < e; i++) {
            if (i < c) {
                mL += z[i] / nL;
            } else {
                mR += z[i] / nR;
            }
        }
        double ss = 0;
        for (int i = s0; i < e; i++) {
            double d = z[i] - (i < c ? mL : mR);
            ss += d * d;
        }
        double diff = mR - mL;
        int df = nL + nR - 2;
        double t;
        double p;
        if (df < 1) {
            t = Double.NaN;
            p = 1;
        } else if (ss <= 1e-24 * Math.max(1, diff * diff)) {
            t = diff == 0 ? 0 : Math.copySign(Double.POSITIVE_INFINITY, diff);
            p = Math.abs(diff) < 1e-12 ? 1 : 0;
        } else {
            t = diff / Math.sqrt(ss / df * (1.0 / nL + 1.0 / nR));
            p = Math.min(1, 2 * Distributions.tCdf(-Math.abs(t), df));
        }
        return new Split(tau, p, t, diff, qHat);
    }
}
