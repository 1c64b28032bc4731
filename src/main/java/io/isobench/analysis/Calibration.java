package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import io.isobench.plan.RoundOrder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The calibration of the verdicts (docs/statistics.md, "Calibration"; {@code bench/stats-calibration}): simulated
 * sessions go through the real round order ({@link RoundOrder}) and the real analysis ({@link TaskAnalysis}); the
 * rates of each verdict are counted per cell and checked against the targets of issue 13.
 *
 * <p>Noise model of one simulated session (a lower-is-better metric, 100 units at baseline): every run's value is
 * 100 × (its arm's true factor) × e^(drift of its round) × e^(per-run noise) × (position effect) × (outlier), with
 * per-run noise normal in log space, σ = √ln(1 + CV²) (a lognormal of that CV); round drift normal in log space with
 * the given standard deviation, shared by every arm of the round; an outlier round multiplies every run of one random
 * round by 3; an outlier run multiplies one random run of the compared arm by 3; a position effect slows the run at
 * the last position of its round by the given fraction (linearly less for earlier positions). Arms: baseline,
 * baseline-aa (unless off), human (the compared arm, with the true effect) and one agent (CV as given, or a multiple).
 */
public final class Calibration {

    /** One cell of the table: a scenario and the rate it is checked on. */
    public record Cell(String name, double trueSpeedup, double cvPct, double driftPct, Outlier outlier,
                       double positionEffectPct, int rounds, boolean aa, double minEffectPct, double comparedCvFactor,
                       Measure measure, Target target) {
    }

    /** Extreme values planted in a session. */
    public enum Outlier { NONE, ROUND_3X, RUN_3X }

    /** What is counted. */
    public enum Measure {
        /** P(better or worse) for human vs baseline: false detections when there is no effect. */
        BETTER_OR_WORSE("P(better or worse)"),
        /** P(better) for human vs baseline. */
        BETTER("P(better)"),
        /** P(equivalent) for human vs baseline. */
        EQUIVALENT("P(equivalent)"),
        /** Largest |frequency − 1/k| of any arm at any position of a round, over the seeds (percentage points). */
        ORDER_IMBALANCE("max |pos freq - 1/k|"),
        /**
         * P(better or worse) on a load sweep's capacity (section 17): each run's latent capacity, {@value
         * #CAPACITY_LATENT} concurrent requests over the run's (noisy, drifting) cost relative to 100, read off the
         * grid 1, 2, 4, 8, 16 as the highest point at or below it (half the lowest point below it) — a discrete
         * metric, higher is better, judged by the real verdict code.
         */
        CAPACITY_BETTER_OR_WORSE("P(better or worse)"),
        /** P(better) on a sweep's capacity, as {@link #CAPACITY_BETTER_OR_WORSE}. */
        CAPACITY_BETTER("P(better)");

        /** A latent capacity just above a grid point: the noise moves runs across the boundary (the hard case). */
        static final double CAPACITY_LATENT = 4.2;

        private final String label;

        Measure(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** A target: the rate must be at most or at least the value; {@code NONE} for informative rows. */
    public record Target(Kind kind, double value) {
        public enum Kind { AT_MOST, AT_LEAST, NONE }

        public static final Target NONE = new Target(Kind.NONE, 0);

        boolean met(double rate) {
            return switch (kind) {
                case AT_MOST -> rate <= value;
                case AT_LEAST -> rate >= value;
                case NONE -> true;
            };
        }

        String text(boolean points) {
            String unit = points ? " pp" : " %";
            return switch (kind) {
                case AT_MOST -> "<= " + StatsConfig.fmt(value * 100) + unit;
                case AT_LEAST -> ">= " + StatsConfig.fmt(value * 100) + unit;
                case NONE -> "(info)";
            };
        }
    }

    /** One line of the table: the rate and its 95 % Wilson interval (binomial rates only). */
    public record Row(Cell cell, int sessions, double rate, double low, double high, boolean met) {
    }

    private Calibration() {
    }

    /** The cells issue 13 asks for, plus informative rows (targets NONE). */
    public static List<Cell> standardCells() {
        List<Cell> cells = new ArrayList<>();
        Target fp = new Target(Target.Kind.AT_MOST, 0.05);
        for (double cv : new double[] {1, 2, 4, 8}) {
            for (double drift : new double[] {0, 3}) {
                for (Outlier o : new Outlier[] {Outlier.NONE, Outlier.ROUND_3X, Outlier.RUN_3X}) {
                    cells.add(new Cell(String.format(Locale.ROOT, "A/A  CV %s%%  drift %s%%  %s", StatsConfig.fmt(cv),
                            StatsConfig.fmt(drift), outlierText(o)), 1.0, cv, drift, o, 0, 5, true, 2.0, 1.0,
                            Measure.BETTER_OR_WORSE, fp));
                }
            }
        }
        cells.add(new Cell("A/A  CV 2%  drift 3%  last job of a round 3% slower", 1.0, 2, 3, Outlier.NONE, 3, 5,
                true, 2.0, 1.0, Measure.BETTER_OR_WORSE, fp));
        cells.add(new Cell("speedup 5%  CV 2%  drift 3%", 1.05, 2, 3, Outlier.NONE, 0, 5, true, 2.0, 1.0,
                Measure.BETTER, new Target(Target.Kind.AT_LEAST, 0.90)));
        cells.add(new Cell("speedup 3%  CV 0.5%  drift 3%", 1.03, 0.5, 3, Outlier.NONE, 0, 5, true, 2.0, 1.0,
                Measure.BETTER, new Target(Target.Kind.AT_LEAST, 0.90)));
        cells.add(new Cell("no effect  CV 1%  drift 3%  margin 2%", 1.0, 1, 3, Outlier.NONE, 0, 5, true, 2.0, 1.0,
                Measure.EQUIVALENT, new Target(Target.Kind.AT_LEAST, 0.80)));
        // a real effect called equivalent: the margin grows with the A/A estimate, so a noisy A/A must not hide it
        for (double effect : new double[] {1.05, 1.10}) {
            for (double cv : new double[] {2, 4, 8}) {
                cells.add(new Cell(String.format(Locale.ROOT, "speedup %s%%  CV %s%%  drift 3%%  false equivalence",
                        StatsConfig.fmt((effect - 1) * 100), StatsConfig.fmt(cv)), effect, cv, 3, Outlier.NONE, 0, 5,
                        true, 2.0, 1.0, Measure.EQUIVALENT, fp));
            }
        }
        // a sweep's capacity: discrete values, often the same point in every round (the sign-test rule, section 7)
        for (double cv : new double[] {2, 4, 8}) {
            for (boolean aa : new boolean[] {false, true}) {
                cells.add(new Cell(String.format(Locale.ROOT, "capacity A/A  CV %s%%  drift 3%%  6 rounds%s",
                        StatsConfig.fmt(cv), aa ? "" : "  no A/A arm"), 1.0, cv, 3, Outlier.NONE, 0, 6, aa, 2.0, 1.0,
                        Measure.CAPACITY_BETTER_OR_WORSE, fp));
            }
        }
        cells.add(new Cell("capacity 4x  CV 4%  drift 3%  6 rounds  no A/A arm", 4.0, 4, 3, Outlier.NONE, 0, 6,
                false, 2.0, 1.0, Measure.CAPACITY_BETTER, new Target(Target.Kind.AT_LEAST, 0.90)));
        cells.add(new Cell("(info) capacity 4x  CV 4%  drift 3%  5 rounds  no A/A arm", 4.0, 4, 3, Outlier.NONE, 0,
                5, false, 2.0, 1.0, Measure.CAPACITY_BETTER, Target.NONE));
        for (int k : new int[] {2, 3, 4, 6, 8}) {
            cells.add(new Cell("order: rounds of " + k + " jobs, 10,000 seeds x 5 rounds", 1.0, 0, 0, Outlier.NONE, 0,
                    5, true, 2.0, k, Measure.ORDER_IMBALANCE, new Target(Target.Kind.AT_MOST, 0.01)));
        }
        // informative: what the design choices buy, and where they stop
        cells.add(new Cell("(info) speedup 5%  CV 2%  drift 3%  without the A/A arm", 1.05, 2, 3, Outlier.NONE, 0,
                5, false, 2.0, 1.0, Measure.BETTER, Target.NONE));
        cells.add(new Cell("(info) no effect  CV 1%  drift 3%  without the A/A arm", 1.0, 1, 3, Outlier.NONE, 0, 5,
                false, 2.0, 1.0, Measure.EQUIVALENT, Target.NONE));
        cells.add(new Cell("(info) speedup 5%  CV 2%  drift 3%  one 3x outlier round", 1.05, 2, 3,
                Outlier.ROUND_3X, 0, 5, true, 2.0, 1.0, Measure.BETTER, Target.NONE));
        cells.add(new Cell("(info) speedup 10%  CV 2%  drift 3%  3 rounds", 1.10, 2, 3, Outlier.NONE, 0, 3, true,
                2.0, 1.0, Measure.BETTER, Target.NONE));
        for (double f : new double[] {1.5, 2, 3}) {
            cells.add(new Cell(String.format(Locale.ROOT, "(info) A/A  CV 2%%  drift 3%%  human %sx noisier",
                    StatsConfig.fmt(f)), 1.0, 2, 3, Outlier.NONE, 0, 5, true, 2.0, f, Measure.BETTER_OR_WORSE,
                    Target.NONE));
        }
        return List.copyOf(cells);
    }

    private static String outlierText(Outlier o) {
        return switch (o) {
            case NONE -> "no outlier";
            case ROUND_3X -> "one 3x outlier round";
            case RUN_3X -> "one 3x outlier run";
        };
    }

    /** Runs every cell with {@code sessions} simulated sessions (order cells: 10,000 seeds each), seeded. */
    public static List<Row> run(List<Cell> cells, int sessions, long seed, StatsConfig config) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            Cell c = cells.get(i);
            rows.add(c.measure() == Measure.ORDER_IMBALANCE ? orderRow(c)
                    : simulate(c, sessions, new SplittableRandom(seed + 1_000_003L * i), config));
        }
        return rows;
    }

    /** Order balance: 10,000 consecutive seeds, 5 rounds each, one task of k arms. */
    static Row orderRow(Cell c) {
        int k = (int) c.comparedCvFactor();
        long[][] count = new long[k][k];
        int seeds = 10_000;
        long total = 0;
        for (int s = 0; s < seeds; s++) {
            for (List<int[]> round : RoundOrder.of(s, c.rounds(), new int[] {k})) {
                for (int pos = 0; pos < round.size(); pos++) {
                    count[round.get(pos)[1]][pos]++;
                }
                total++;
            }
        }
        double worst = 0;
        for (int a = 0; a < k; a++) {
            for (int p = 0; p < k; p++) {
                worst = Math.max(worst, Math.abs((double) count[a][p] / total - 1.0 / k));
            }
        }
        return new Row(c, seeds, worst, Double.NaN, Double.NaN, c.target().met(worst));
    }

    static Row simulate(Cell c, int sessions, SplittableRandom rng, StatsConfig base) {
        StatsConfig config = base.withGates(base.minPairedRounds(), base.cvGatePct(), c.minEffectPct());
        double sigma = Math.sqrt(Math.log1p(c.cvPct() * c.cvPct() / 1e4));
        double comparedSigma = Math.sqrt(Math.log1p(Math.pow(c.cvPct() * c.comparedCvFactor(), 2) / 1e4));
        double drift = c.driftPct() / 100.0;
        List<Arm> arms = new ArrayList<>(List.of(Arm.BASELINE));
        if (c.aa()) {
            arms.add(Arm.BASELINE_AA);
        }
        arms.add(Arm.HUMAN);
        arms.add(Arm.agent("sim"));
        int k = arms.size();
        int human = arms.indexOf(Arm.HUMAN);
        int hits = 0;
        for (int s = 0; s < sessions; s++) {
            int n = c.rounds();
            double[][] v = new double[k][n];
            List<List<int[]>> order = RoundOrder.of(rng.nextLong(), n, new int[] {k});
            int outlierRound = rng.nextInt(n);
            for (int r = 0; r < n; r++) {
                double d = drift * rng.nextGaussian();
                List<int[]> round = order.get(r);
                for (int pos = 0; pos < k; pos++) {
                    int a = round.get(pos)[1];
                    double sd = a == human ? comparedSigma : sigma;
                    double x = 100.0 * Math.exp(d + sd * rng.nextGaussian());
                    if (a == human) {
                        x /= c.trueSpeedup(); // lower is better: a speedup divides the value
                    }
                    x *= 1 + c.positionEffectPct() / 100.0 * pos / (k - 1);
                    if (c.outlier() == Outlier.ROUND_3X && r == outlierRound
                            || c.outlier() == Outlier.RUN_3X && r == outlierRound && a == human) {
                        x *= 3;
                    }
                    v[a][r] = x;
                }
            }
            boolean capacity = c.measure() == Measure.CAPACITY_BETTER || c.measure() == Measure.CAPACITY_BETTER_OR_WORSE;
            if (capacity) {
                for (double[] arm : v) {
                    for (int r = 0; r < n; r++) {
                        arm[r] = onGrid(Measure.CAPACITY_LATENT * 100.0 / arm[r]);
                    }
                }
            }
            TaskAnalysis t = TaskAnalysis.analyse(new TaskAnalysis.Input(capacity ? "capacity_max_concurrency"
                    : "tpot_ms_mean", capacity ? Better.HIGHER : Better.LOWER,
                    ArmSamples.of(Arm.BASELINE, v[0]), c.aa() ? ArmSamples.of(Arm.BASELINE_AA, v[1]) : null,
                    ArmSamples.of(Arm.HUMAN, v[human]), List.of(ArmSamples.of(arms.get(k - 1), v[k - 1])),
                    List.of()), config);
            if (capacity) { // as SweepAnalysis decides a capacity: the sign test over the paired rounds
                Map<String, Map<Integer, Double>> perRound = new java.util.LinkedHashMap<>();
                for (int a = 0; a < k; a++) {
                    Map<Integer, Double> rounds = new java.util.TreeMap<>();
                    for (int r = 0; r < n; r++) {
                        rounds.put(r, v[a][r]);
                    }
                    perRound.put(arms.get(a).label(), rounds);
                }
                t = OrdinalVerdicts.apply(t, perRound, config);
            }
            Verdict verdict = t.humanVsBaseline().verdict();
            boolean hit = switch (c.measure()) {
                case BETTER_OR_WORSE, CAPACITY_BETTER_OR_WORSE -> verdict.significant();
                case BETTER, CAPACITY_BETTER -> verdict == Verdict.BETTER;
                case EQUIVALENT -> verdict == Verdict.EQUIVALENT;
                case ORDER_IMBALANCE -> throw new IllegalStateException();
            };
            hits += hit ? 1 : 0;
        }
        double rate = (double) hits / sessions;
        double[] w = wilson(hits, sessions);
        return new Row(c, sessions, rate, w[0], w[1], c.target().met(rate));
    }

    /** The highest point of the grid 1, 2, 4, 8, 16 at or below {@code latent}; half the lowest below it. */
    static double onGrid(double latent) {
        double out = 0.5;
        for (double p : new double[] {1, 2, 4, 8, 16}) {
            if (latent >= p) {
                out = p;
            }
        }
        return out;
    }

    /** 95 % Wilson score interval of a binomial proportion. */
    static double[] wilson(int hits, int n) {
        double z = 1.959963984540054;
        double p = (double) hits / n;
        double den = 1 + z * z / n;
        double centre = (p + z * z / (2.0 * n)) / den;
        double half = z * Math.sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / den;
        return new double[] {Math.max(0, centre - half), Math.min(1, centre + half)};
    }

    /** The table as text, one line per cell. */
    public static String table(List<Row> rows, int sessions, long seed) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "isobench stats-calibration: %,d simulated sessions per cell (order rows: "
                + "10,000 seeds x 5 rounds), seed %d; arms baseline, baseline-aa, human (the compared arm), one agent; "
                + "lower-is-better metric; %s%n", sessions, seed, "real planner order + real analysis"));
        b.append(String.format(Locale.ROOT, "%-62s %-20s %8s  %-17s %-10s %s%n", "cell", "measure", "rate",
                "95% CI", "target", "ok"));
        for (Row r : rows) {
            boolean order = r.cell().measure() == Measure.ORDER_IMBALANCE;
            String rate = order ? String.format(Locale.ROOT, "%.2f pp", r.rate() * 100)
                    : String.format(Locale.ROOT, "%.2f %%", r.rate() * 100);
            String ci = order ? "" : String.format(Locale.ROOT, "[%.2f, %.2f]", r.low() * 100, r.high() * 100);
            b.append(String.format(Locale.ROOT, "%-62s %-20s %8s  %-17s %-10s %s%n", r.cell().name(),
                    r.cell().measure().label(), rate, ci, r.cell().target().text(order),
                    r.cell().target().kind() == Target.Kind.NONE ? "" : r.met() ? "ok" : "MISSED"));
        }
        long missed = rows.stream().filter(r -> !r.met()).count();
        b.append(missed == 0 ? "every target met\n" : missed + " target(s) missed\n");
        return b.toString();
    }
}
