package io.isobench.analysis;

import io.isobench.analysis.SimulatedSession.Noise;
import io.isobench.analysis.SimulatedSession.Outlier;
import io.isobench.analysis.SimulatedSession.Scenario;
import io.isobench.analysis.SimulatedSession.Shape;
import io.isobench.plan.RoundOrder;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The calibration of the verdicts (docs/statistics.md §12; {@code bench/stats-calibration}): simulated sessions go
 * through the real round order and the real analysis ({@link SimulatedSession}: noise model there), under the
 * session's real rounds design — the adaptive default unless a cell says otherwise — and the rate of a verdict (or
 * the mean rounds a task took) is counted per cell and checked against its target.
 */
public final class Calibration {

    /** One cell of the table: a scenario, the design it runs under, and what is counted. */
    public record Cell(String name, Scenario scenario, SequentialDesign design, Measure measure, Target target) {
    }

    /** What is counted. */
    public enum Measure {
        /** P(better or worse) for human vs baseline: false detections when there is no effect. */
        BETTER_OR_WORSE("P(better or worse)"),
        /** P(better) for human vs baseline. */
        BETTER("P(better)"),
        /** P(worse) for human vs baseline. */
        WORSE("P(worse)"),
        /** P(equivalent) for human vs baseline. */
        EQUIVALENT("P(equivalent)"),
        /** The mean number of rounds the task ran (its stopping look). */
        ROUNDS("E[rounds]"),
        /** P(better or worse) on a sweep's capacity (discrete, higher is better, decided by the sign rule). */
        CAPACITY_BETTER_OR_WORSE("P(better or worse)"),
        /** P(better) on a sweep's capacity. */
        CAPACITY_BETTER("P(better)"),
        /** P(equivalent) on a sweep's capacity. */
        CAPACITY_EQUIVALENT("P(equivalent)"),
        /** Largest |frequency − 1/k| of any arm at any position of a round, over the seeds (percentage points). */
        ORDER_IMBALANCE("max |pos freq - 1/k|"),
        /**
         * A leaderboard's false wins per counted test: boards of tasks whose agent has no effect, counted by the real
         * {@link Leaderboard}; the target is the figure the leaderboard states for the same boards.
         */
        BOARD_FALSE_WINS("false wins / test");

        private final String label;

        Measure(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        boolean capacity() {
            return this == CAPACITY_BETTER || this == CAPACITY_BETTER_OR_WORSE || this == CAPACITY_EQUIVALENT;
        }
    }

    /**
     * A target: the rate at most or at least {@code value}; {@code ROUNDS_FACTOR}: mean rounds at most value × the
     * fixed design of equal power; {@code STATED}: at most what the leaderboard states; {@code NONE}: informative.
     */
    public record Target(Kind kind, double value) {
        public enum Kind { AT_MOST, AT_LEAST, ROUNDS_FACTOR, STATED, NONE }

        public static final Target NONE = new Target(Kind.NONE, 0);

        static Target atMost(double v) {
            return new Target(Kind.AT_MOST, v);
        }

        static Target atLeast(double v) {
            return new Target(Kind.AT_LEAST, v);
        }
    }

    /**
     * One line of the table.
     *
     * @param rate  the rate (or mean rounds, or imbalance)
     * @param low   95 % interval of the rate (Wilson for rates, t for mean rounds; NaN for order rows)
     * @param bound the target's resolved bound (a ROUNDS_FACTOR or STATED target becomes a number); NaN for NONE
     */
    public record Row(Cell cell, int sessions, double rate, double low, double high, double bound, boolean met) {
    }

    /** The scenario of the design point: a true 5 % speedup at CV 2 %, drift 3 %. */
    static final Scenario DESIGN_POINT = Scenario.of(1.05, 2);

    private Calibration() {
    }

    /** The cells of the table (docs/statistics.md §12). */
    public static List<Cell> standardCells() {
        SequentialDesign d = SequentialDesign.defaultAdaptive();
        Target fp = Target.atMost(0.05);
        List<Cell> cells = new ArrayList<>();
        for (double cv : new double[] {1, 2, 4, 8}) {
            for (double drift : new double[] {0, 3}) {
                for (Outlier o : Outlier.values()) {
                    cells.add(new Cell(String.format(Locale.ROOT, "A/A  CV %s%%  drift %s%%  %s", f(cv), f(drift),
                            outlierText(o)), Scenario.of(1.0, cv).drift(drift).shape(new Shape(Noise.LOGNORMAL, o,
                            0)), d, Measure.BETTER_OR_WORSE, fp));
                }
            }
        }
        for (double factor : new double[] {1.5, 2, 3}) {
            for (double cv : new double[] {1, 2, 4, 6}) {
                cells.add(new Cell(String.format(Locale.ROOT, "A/A  CV %s%%  human %sx noisier", f(cv), f(factor)),
                        Scenario.of(1.0, cv).noisierHuman(factor), d, Measure.BETTER_OR_WORSE, fp));
            }
        }
        for (double off : new double[] {1.02, 1.03, 1.05}) {
            cells.add(new Cell(String.format(Locale.ROOT, "no effect  CV 2%%  A/A arm %s%% faster", pct(off)),
                    Scenario.of(1.0, 2).aa(off), d, Measure.BETTER_OR_WORSE, fp));
            cells.add(new Cell(String.format(Locale.ROOT, "no effect  CV 2%%  A/A arm %s%% faster", pct(off)),
                    Scenario.of(1.0, 2).aa(off), d, Measure.WORSE, Target.atMost(0.025)));
        }
        for (double off : new double[] {1.02, 1.03, 1.05}) {
            cells.add(new Cell(String.format(Locale.ROOT, "speedup 5%%  CV 2%%  A/A arm %s%% faster", pct(off)),
                    Scenario.of(1.05, 2).aa(off), d, Measure.EQUIVALENT, fp));
        }
        for (double cv : new double[] {2, 4}) {
            cells.add(new Cell("A/A  CV " + f(cv) + "%  heavy tails (t, 3 df)", Scenario.of(1.0, cv)
                    .shape(new Shape(Noise.T3, Outlier.NONE, 0)), d, Measure.BETTER_OR_WORSE, fp));
            cells.add(new Cell("A/A  CV " + f(cv) + "%  bimodal runs", Scenario.of(1.0, cv)
                    .shape(new Shape(Noise.BIMODAL, Outlier.NONE, 0)), d, Measure.BETTER_OR_WORSE, fp));
        }
        for (double ramp : new double[] {3, 10}) {
            cells.add(new Cell("A/A  CV 2%  position ramp " + f(ramp) + "% (last job slowest)", Scenario.of(1.0, 2)
                    .shape(new Shape(Noise.LOGNORMAL, Outlier.NONE, ramp)), d, Measure.BETTER_OR_WORSE, fp));
        }
        cells.add(new Cell("speedup 5%  CV 2%  drift 3%  (the design point)", DESIGN_POINT, d, Measure.BETTER,
                Target.atLeast(0.90)));
        cells.add(new Cell("speedup 3%  CV 0.5%  drift 3%", Scenario.of(1.03, 0.5), d, Measure.BETTER,
                Target.atLeast(0.90)));
        cells.add(new Cell("no effect  CV 1%  drift 3%  margin 2%", Scenario.of(1.0, 1), d, Measure.EQUIVALENT,
                Target.atLeast(0.80)));
        for (double effect : new double[] {1.03, 1.05, 1.10}) {
            for (double cv : new double[] {2, 4, 8}) {
                cells.add(new Cell(String.format(Locale.ROOT, "speedup %s%%  CV %s%%  false equivalence",
                        pct(effect), f(cv)), Scenario.of(effect, cv), d, Measure.EQUIVALENT, fp));
            }
        }
        // expected rounds: both the human and the agent differ from the baseline by the effect
        double[][] rounds = {{1.0, 0.80}, {1.05, 0.85}, {1.10, 0.65}, {1.5, 0}};
        for (double[] r : rounds) {
            cells.add(new Cell(String.format(Locale.ROOT, "rounds: human and agent %s  CV 2%%  drift 3%%",
                    r[0] == 1.0 ? "no effect" : pct(r[0]) + "% faster"), Scenario.of(r[0], 2).agent(r[0]), d,
                    Measure.ROUNDS, r[1] > 0 ? new Target(Target.Kind.ROUNDS_FACTOR, r[1]) : Target.NONE));
        }
        for (int n = 4; n <= 10; n++) {
            cells.add(new Cell("(ref) fixed " + n + " rounds  speedup 5%  CV 2%  drift 3%", DESIGN_POINT,
                    SequentialDesign.fixed(n), Measure.BETTER, Target.NONE));
        }
        // a sweep's capacity: discrete values on the grid 1, 2, 4, 8, 16 (the sign rule, §17)
        for (double cv : new double[] {2, 4, 8}) {
            for (boolean aa : new boolean[] {false, true}) {
                cells.add(new Cell(String.format(Locale.ROOT, "capacity A/A  CV %s%%%s", f(cv), aa ? ""
                        : "  no A/A arm"), Scenario.of(1.0, cv).aa(aa ? 1.0 : 0), d, Measure.CAPACITY_BETTER_OR_WORSE,
                        fp));
            }
        }
        cells.add(new Cell("capacity 4x  CV 4%", Scenario.of(4.0, 4).aa(0), d, Measure.CAPACITY_BETTER,
                Target.atLeast(0.90)));
        for (double g : new double[] {1.5, 2.0}) {
            cells.add(new Cell("capacity " + f(g) + "x  CV 4%  false equivalence", Scenario.of(g, 4).aa(0), d,
                    Measure.CAPACITY_EQUIVALENT, fp));
        }
        cells.addAll(BoardSimulation.cells(d));
        for (int k : new int[] {2, 3, 4, 6, 8}) {
            cells.add(new Cell("order: rounds of " + k + " jobs, 10,000 seeds x 5 rounds", Scenario.of(1.0, k), d,
                    Measure.ORDER_IMBALANCE, Target.atMost(0.01)));
        }
        // informative: the fixed design of the previous default, Pocock-type spending, no A/A arm
        SequentialDesign fixed5 = SequentialDesign.fixed(5);
        cells.add(new Cell("(info) fixed 5 rounds  A/A  CV 2%  drift 3%", Scenario.of(1.0, 2), fixed5,
                Measure.BETTER_OR_WORSE, Target.NONE));
        cells.add(new Cell("(info) fixed 5 rounds  A/A  CV 2%  human 3x noisier", Scenario.of(1.0, 2)
                .noisierHuman(3), fixed5, Measure.BETTER_OR_WORSE, Target.NONE));
        SequentialDesign pocock = SequentialDesign.adaptive(3, 8, SequentialDesign.Spending.POCOCK);
        cells.add(new Cell("(info) Pocock-type  speedup 5%  CV 2%  drift 3%", DESIGN_POINT, pocock, Measure.BETTER,
                Target.NONE));
        cells.add(new Cell("(info) Pocock-type  A/A  CV 2%  drift 3%", Scenario.of(1.0, 2), pocock,
                Measure.BETTER_OR_WORSE, Target.NONE));
        cells.add(new Cell("(info) speedup 5%  CV 2%  drift 3%  without the A/A arm", DESIGN_POINT.aa(0), d,
                Measure.BETTER, Target.NONE));
        cells.add(new Cell("(info) speedup 5%  CV 2%  one 3x outlier round", DESIGN_POINT.shape(new Shape(
                Noise.LOGNORMAL, Outlier.ROUND_3X, 0)), d, Measure.BETTER, Target.NONE));
        return List.copyOf(cells);
    }

    private static String f(double v) {
        return StatsConfig.fmt(v);
    }

    private static String pct(double factor) {
        return StatsConfig.fmt(Math.round((factor - 1) * 1000) / 10.0);
    }

    private static String outlierText(Outlier o) {
        return switch (o) {
            case NONE -> "no outlier";
            case ROUND_3X -> "one 3x outlier round";
            case RUN_3X -> "one 3x outlier run";
        };
    }

    /**
     * Runs every cell with {@code sessions} simulated sessions (order cells: 10,000 seeds each), each cell from its
     * own seeded stream (by its position), cells in parallel; then resolves the targets that depend on other rows.
     */
    public static List<Row> run(List<Cell> cells, int sessions, long seed, StatsConfig config) {
        Row[] rows = new Row[cells.size()];
        IntStream.range(0, cells.size()).parallel().forEach(i -> {
            Cell c = cells.get(i);
            SplittableRandom rng = new SplittableRandom(seed + 1_000_003L * i);
            rows[i] = switch (c.measure()) {
                case ORDER_IMBALANCE -> orderRow(c);
                case BOARD_FALSE_WINS -> BoardSimulation.row(c, sessions, rng, config);
                default -> simulate(c, sessionsOf(c, sessions), rng, config);
            };
        });
        return resolve(List.of(rows));
    }

    /**
     * Sessions of a cell: the rows that decide "the fixed design of equal power" (the adaptive design and the fixed
     * designs at the design point) get four times as many, so that neighbouring fixed designs are told apart.
     */
    static int sessionsOf(Cell c, int sessions) {
        return c.scenario().equals(DESIGN_POINT) && c.measure() == Measure.BETTER ? 4 * sessions : sessions;
    }

    /** ROUNDS_FACTOR targets against the fixed design of equal power at the design point (the reference rows). */
    static List<Row> resolve(List<Row> rows) {
        Row point = rows.stream().filter(r -> r.cell().scenario().equals(DESIGN_POINT) && r.cell().design().adaptive()
                && r.cell().design().equals(SequentialDesign.defaultAdaptive()) && r.cell().measure() == Measure.BETTER)
                .findFirst().orElse(null);
        int fixedN = fixedOfEqualPower(rows, point == null ? Double.NaN : point.rate());
        List<Row> out = new ArrayList<>();
        for (Row r : rows) {
            if (r.cell().target().kind() == Target.Kind.ROUNDS_FACTOR) {
                double bound = fixedN > 0 ? r.cell().target().value() * fixedN : Double.NaN;
                out.add(new Row(r.cell(), r.sessions(), r.rate(), r.low(), r.high(), bound, fixedN > 0
                        && r.rate() <= bound));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    /** The fewest fixed rounds whose power at the design point reaches {@code power} (−1 when no reference row does). */
    static int fixedOfEqualPower(List<Row> rows, double power) {
        int best = -1;
        for (Row r : rows) {
            if (r.cell().scenario().equals(DESIGN_POINT) && !r.cell().design().adaptive()
                    && r.cell().measure() == Measure.BETTER && r.rate() >= power
                    && (best < 0 || r.cell().design().maxRounds() < best)) {
                best = r.cell().design().maxRounds();
            }
        }
        return best;
    }

    /** Order balance: 10,000 consecutive seeds, 5 rounds each, one task of k arms (k = the scenario's CV field). */
    static Row orderRow(Cell c) {
        int k = (int) c.scenario().cvPct();
        long[][] count = new long[k][k];
        int seeds = 10_000;
        long total = 0;
        for (int s = 0; s < seeds; s++) {
            for (List<int[]> round : RoundOrder.of(s, 5, new int[] {k})) {
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
        return new Row(c, seeds, worst, Double.NaN, Double.NaN, c.target().value(), worst <= c.target().value());
    }

    static Row simulate(Cell c, int sessions, SplittableRandom rng, StatsConfig config) {
        int hits = 0;
        double sum = 0;
        double sumSq = 0;
        for (int s = 0; s < sessions; s++) {
            double[][] v = SimulatedSession.values(c.scenario(), c.design().plannedRounds(), rng);
            TaskAnalysis t = c.measure().capacity()
                    ? SimulatedSession.analyseCapacity(c.scenario(), v, c.design(), config)
                    : SimulatedSession.analyse(c.scenario(), v, c.design(), config);
            Verdict verdict = t.humanVsBaseline().verdict();
            boolean hit = switch (c.measure()) {
                case BETTER_OR_WORSE, CAPACITY_BETTER_OR_WORSE -> verdict.significant();
                case BETTER, CAPACITY_BETTER -> verdict == Verdict.BETTER;
                case WORSE -> verdict == Verdict.WORSE;
                case EQUIVALENT, CAPACITY_EQUIVALENT -> verdict == Verdict.EQUIVALENT;
                case ROUNDS -> false;
                case ORDER_IMBALANCE, BOARD_FALSE_WINS -> throw new IllegalStateException();
            };
            hits += hit ? 1 : 0;
            int rounds = t.stopping().lookRounds();
            sum += rounds;
            sumSq += (double) rounds * rounds;
        }
        if (c.measure() == Measure.ROUNDS) {
            double mean = sum / sessions;
            double sd = Math.sqrt(Math.max(0, (sumSq - sessions * mean * mean) / (sessions - 1)));
            double half = 1.959963984540054 * sd / Math.sqrt(sessions);
            return new Row(c, sessions, mean, mean - half, mean + half, Double.NaN, true);
        }
        double rate = (double) hits / sessions;
        double[] w = wilson(hits, sessions);
        return new Row(c, sessions, rate, w[0], w[1], c.target().value(), met(c.target(), rate));
    }

    static boolean met(Target t, double rate) {
        return switch (t.kind()) {
            case AT_MOST, STATED -> rate <= t.value() + 1e-12;
            case AT_LEAST -> rate >= t.value() - 1e-12;
            case ROUNDS_FACTOR, NONE -> true;
        };
    }

    /** 95 % Wilson score interval of a binomial proportion: {low, high}. */
    public static double[] wilson(int hits, int n) {
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
                + "10,000 seeds x 5 rounds; board rows: boards of %d tasks until %,d counted tests, the stated figure "
                + "from the real leaderboard over the first %,d), seed %d; arms baseline, baseline-aa, human (the "
                + "compared arm), one agent; lower-is-better metric; real planner order + real analysis; design: %s "
                + "unless the row says otherwise%n", sessions, BoardSimulation.TASKS,
                BoardSimulation.observedTests(sessions), BoardSimulation.statedTests(sessions), seed,
                SequentialDesign.defaultAdaptive().describe()));
        int fixedN = -1;
        for (Row r : rows) {
            if (r.cell().target().kind() == Target.Kind.ROUNDS_FACTOR && !Double.isNaN(r.bound())) {
                fixedN = (int) Math.round(r.bound() / r.cell().target().value());
            }
        }
        if (fixedN > 0) {
            b.append(String.format(Locale.ROOT, "fixed design of equal power at the design point (speedup 5%%, CV 2%%,"
                    + " drift 3%%): %d rounds%n", fixedN));
        }
        b.append(String.format(Locale.ROOT, "%-62s %-20s %8s  %-17s %-14s %s%n", "cell", "measure", "rate",
                "95% CI", "target", "ok"));
        for (Row r : rows) {
            b.append(line(r));
        }
        long missed = rows.stream().filter(r -> !r.met()).count();
        b.append(missed == 0 ? "every target met\n" : missed + " target(s) missed\n");
        return b.toString();
    }

    private static String line(Row r) {
        Measure m = r.cell().measure();
        boolean order = m == Measure.ORDER_IMBALANCE;
        String rate = order ? String.format(Locale.ROOT, "%.2f pp", r.rate() * 100)
                : m == Measure.ROUNDS ? String.format(Locale.ROOT, "%.2f", r.rate())
                : String.format(Locale.ROOT, "%.2f %%", r.rate() * 100);
        String ci = order || Double.isNaN(r.low()) ? "" : m == Measure.ROUNDS
                ? String.format(Locale.ROOT, "[%.2f, %.2f]", r.low(), r.high())
                : String.format(Locale.ROOT, "[%.2f, %.2f]", r.low() * 100, r.high() * 100);
        Target t = r.cell().target();
        String target = switch (t.kind()) {
            case AT_MOST -> "<= " + f(t.value() * 100) + (order ? " pp" : " %");
            case AT_LEAST -> ">= " + f(t.value() * 100) + " %";
            case ROUNDS_FACTOR -> Double.isNaN(r.bound()) ? "<= " + f(t.value()) + "x fixed ?"
                    : String.format(Locale.ROOT, "<= %.2f (%sx)", r.bound(), f(t.value()));
            case STATED -> String.format(Locale.ROOT, "<= %.2f %% stated", r.bound() * 100);
            case NONE -> "(info)";
        };
        return String.format(Locale.ROOT, "%-62s %-20s %8s  %-17s %-14s %s%s%n", r.cell().name(), m.label(), rate, ci,
                target, t.kind() == Target.Kind.NONE ? "" : r.met() ? "ok" : "MISSED", m == Measure.BOARD_FALSE_WINS
                ? String.format(Locale.ROOT, "  (%,d counted tests)", r.sessions()) : "");
    }
}
