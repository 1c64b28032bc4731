package io.isobench.track;

import io.isobench.analysis.Calibration;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.StatsConfig;
import io.isobench.track.TrackSimulation.Range;
import io.isobench.track.TrackSimulation.Scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The calibration of change points and their confirmation (docs/statistics.md §21; the track rows of
 * {@code bench/stats-calibration}): simulated ranges of commits ({@link TrackSimulation}: model there) through the real
 * detector, the real confirming sessions under the default adaptive design and the real bisect rule; per cell the rate
 * of each measure with its 95 % Wilson interval, checked against its target.
 */
public final class TrackCalibration {

    /** What is counted per range. */
    public enum Measure {
        /** The detector alone: at least one candidate. */
        ANY_CANDIDATE("P(>=1 candidate)"),
        /** At least one confirmed change (a false one where nothing was planted). */
        ANY_CONFIRMED("P(>=1 confirmed)"),
        /** Every planted step confirmed at its first commit (bisected where measured every N), right direction. */
        RIGHT_COMMIT("P(right commit)"),
        /** Every planted step found that way and nothing else confirmed. */
        EXACT("P(exactly these)"),
        /** Paired sessions per range (confirmations and bisect steps). */
        SESSIONS("E[sessions]");

        private final String label;

        Measure(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** A target: at most / at least a rate; NONE: informative. */
    public record Target(Kind kind, double value) {
        public enum Kind { AT_MOST, AT_LEAST, NONE }

        static final Target NONE = new Target(Kind.NONE, 0);
    }

    /** A cell: a scenario and what is counted on its ranges (one table line each). */
    record Cell(String name, Scenario scenario, List<Measure> measures, List<Target> targets) {
    }

    /** One line of the table; low/high: 95 % Wilson interval (t interval for sessions). */
    public record Row(String cell, Measure measure, int ranges, double rate, double low, double high, Target target,
                      boolean met) {
    }

    /** The CV of the targets' rows. */
    public static final double DESIGN_CV_PCT = 2;

    /** The share of disturbed runs, percent, in the disturbed cells. */
    static final double DISTURBED_PCT = 5;

    private TrackCalibration() {
    }

    /** The cells: the targets at CV 2 %, the same scenarios at {@code suiteCvPct} (the suite's measured per-run CV). */
    static List<Cell> cells(double suiteCvPct) {
        Target info = Target.NONE;
        Target fp = new Target(Target.Kind.AT_MOST, 0.05);
        Target power = new Target(Target.Kind.AT_LEAST, 0.90);
        List<Cell> c = new ArrayList<>();
        List<Measure> nullMeasures = List.of(Measure.ANY_CANDIDATE, Measure.ANY_CONFIRMED, Measure.SESSIONS);
        List<Target> nullTargets = List.of(info, fp, info);
        List<Measure> stepMeasures = List.of(Measure.RIGHT_COMMIT, Measure.EXACT, Measure.SESSIONS);
        for (double cv : cvs(suiteCvPct)) {
            String at = "CV " + fmt(cv) + "%";
            c.add(new Cell("null range  " + at, Scenario.of(cv), nullMeasures, nullTargets));
            c.add(new Cell("null range  " + at + "  one 3x outlier run", Scenario.of(cv).withOutlier(), nullMeasures,
                    nullTargets));
            boolean design = cv == DESIGN_CV_PCT;
            c.add(new Cell("step 10% slower  " + at, Scenario.of(cv, 1.10), stepMeasures,
                    List.of(design ? power : info, info, info)));
            c.add(new Cell("step 5% slower  " + at, Scenario.of(cv, 1.05), stepMeasures, List.of(info, info, info)));
            c.add(new Cell("steps -15% and +10%  " + at, Scenario.of(cv, 0.85, 1.10), stepMeasures,
                    List.of(info, info, info)));
            c.add(new Cell("--every 5  null range  " + at, Scenario.of(cv).every(5), nullMeasures, nullTargets));
            c.add(new Cell("--every 5  step 10% slower  " + at, Scenario.of(cv, 1.10).every(5), stepMeasures,
                    List.of(design ? power : info, info, info)));
            c.add(new Cell("--every 5  step 5% slower  " + at, Scenario.of(cv, 1.05).every(5), stepMeasures,
                    List.of(info, info, info)));
            c.add(new Cell("--every 5  steps -15% and +10%  " + at, Scenario.of(cv, 0.85, 1.10).every(5),
                    stepMeasures, List.of(info, info, info)));
            if (design) {
                disturbed(c, at, nullMeasures, nullTargets, stepMeasures);
            }
        }
        return c;
    }

    /**
     * The disturbed cells at the design CV: 5 % of all runs slower by 5–20 % (TrackSimulation's model); each step
     * cell with one session per candidate (the rule before the second session) and with the rule; the null cells with
     * the rule and their false-change target; last TrackAcceptanceIT's history (its steps at fixed commits, K = 5).
     */
    private static void disturbed(List<Cell> c, String at, List<Measure> nullMeasures, List<Target> nullTargets,
                                  List<Measure> stepMeasures) {
        double pct = DISTURBED_PCT;
        String d = "  " + fmt(pct) + "% runs disturbed";
        List<Target> info = List.of(Target.NONE, Target.NONE, Target.NONE);
        c.add(new Cell("null range  " + at + d, Scenario.of(DESIGN_CV_PCT).disturbed(pct), nullMeasures,
                nullTargets));
        c.add(new Cell("--every 5  null range  " + at + d, Scenario.of(DESIGN_CV_PCT).disturbed(pct).every(5),
                nullMeasures, nullTargets));
        for (int every : new int[] {1, 5}) {
            String e = every == 1 ? "" : "--every 5  ";
            for (double[] f : new double[][] {{1.10}, {0.85, 1.10}}) {
                String what = f.length == 1 ? "step 10% slower  " : "steps -15% and +10%  ";
                Scenario sc = Scenario.of(DESIGN_CV_PCT, f).disturbed(pct).every(every);
                c.add(new Cell(e + what + at + d + ", one session", sc.oneSession(), stepMeasures, info));
                c.add(new Cell(e + what + at + d, sc, stepMeasures, info));
            }
        }
        for (int every : new int[] {1, 5}) {
            String e = every == 1 ? "" : "--every 5  ";
            Scenario sc = Scenario.acceptance(DESIGN_CV_PCT).disturbed(pct).every(every);
            String what = e + "TrackAcceptanceIT history  " + at + d;
            c.add(new Cell(what + ", one session", sc.oneSession(), stepMeasures, info));
            c.add(new Cell(what, sc, stepMeasures, info));
        }
    }

    private static double[] cvs(double suiteCvPct) {
        return suiteCvPct == DESIGN_CV_PCT ? new double[] {DESIGN_CV_PCT} : new double[] {DESIGN_CV_PCT, suiteCvPct};
    }

    /**
     * Every cell with {@code ranges} simulated ranges, each cell from its own seeded stream (by its position), cells in
     * parallel.
     */
    public static List<Row> run(int ranges, long seed, double suiteCvPct, StatsConfig config) {
        List<Cell> cells = cells(suiteCvPct);
        SequentialDesign design = SequentialDesign.defaultAdaptive();
        List<List<Row>> out = new ArrayList<>();
        for (int i = 0; i < cells.size(); i++) {
            out.add(null);
        }
        IntStream.range(0, cells.size()).parallel().forEach(i -> out.set(i, simulate(cells.get(i), ranges,
                new SplittableRandom(seed + 7_000_003L * (i + 1)), design, config)));
        return out.stream().flatMap(List::stream).toList();
    }

    static List<Row> simulate(Cell c, int ranges, SplittableRandom rng, SequentialDesign design, StatsConfig config) {
        int[] hits = new int[Measure.values().length];
        double sum = 0;
        double sumSq = 0;
        for (int r = 0; r < ranges; r++) {
            Range range = TrackSimulation.range(c.scenario(), design, config, rng);
            hits[Measure.ANY_CANDIDATE.ordinal()] += range.candidates() > 0 ? 1 : 0;
            hits[Measure.ANY_CONFIRMED.ordinal()] += range.confirmed().isEmpty() ? 0 : 1;
            hits[Measure.RIGHT_COMMIT.ordinal()] += range.allFound() ? 1 : 0;
            hits[Measure.EXACT.ordinal()] += range.exact() ? 1 : 0;
            sum += range.sessions();
            sumSq += (double) range.sessions() * range.sessions();
        }
        List<Row> rows = new ArrayList<>();
        for (int k = 0; k < c.measures().size(); k++) {
            Measure m = c.measures().get(k);
            Target t = c.targets().get(k);
            if (m == Measure.SESSIONS) {
                double mean = sum / ranges;
                double sd = Math.sqrt(Math.max(0, (sumSq - ranges * mean * mean) / Math.max(1, ranges - 1)));
                double half = 1.959963984540054 * sd / Math.sqrt(ranges);
                rows.add(new Row(c.name(), m, ranges, mean, mean - half, mean + half, t, true));
                continue;
            }
            int h = hits[m.ordinal()];
            double rate = (double) h / ranges;
            double[] w = Calibration.wilson(h, ranges);
            boolean met = switch (t.kind()) {
                case AT_MOST -> rate <= t.value() + 1e-12;
                case AT_LEAST -> rate >= t.value() - 1e-12;
                case NONE -> true;
            };
            rows.add(new Row(c.name(), m, ranges, rate, w[0], w[1], t, met));
        }
        return rows;
    }

    /** The rows as text, after a line that states the model. */
    public static String table(List<Row> rows, int ranges, long seed) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "track rows (docs/statistics.md section 21): %,d simulated ranges per cell, "
                + "seed %d; 30 commits, K = 3 interleaved runs per measured commit, round drift 3%%, lognormal runs; "
                + "a step's first commit drawn at random among commits 2..30; real detector (E-divisive means, "
                + "t test p <= %s, |change| >= %s%%) + real confirming sessions (parent, parent A/A, commit; design: "
                + "%s) + real bisect%n", ranges, seed, fmt(EDivisive.Settings.DEFAULTS.maxPValue()),
                fmt(EDivisive.Settings.DEFAULTS.minMagnitudePct()), SequentialDesign.defaultAdaptive().describe()));
        b.append(String.format(Locale.ROOT, "%-72s %-20s %8s  %-17s %-14s %s%n", "cell", "measure", "rate",
                "95% CI", "target", "ok"));
        for (Row r : rows) {
            boolean sessions = r.measure() == Measure.SESSIONS;
            String rate = sessions ? String.format(Locale.ROOT, "%.2f", r.rate())
                    : String.format(Locale.ROOT, "%.2f %%", r.rate() * 100);
            String ci = sessions ? String.format(Locale.ROOT, "[%.2f, %.2f]", r.low(), r.high())
                    : String.format(Locale.ROOT, "[%.2f, %.2f]", r.low() * 100, r.high() * 100);
            String target = switch (r.target().kind()) {
                case AT_MOST -> "<= " + fmt(r.target().value() * 100) + " %";
                case AT_LEAST -> ">= " + fmt(r.target().value() * 100) + " %";
                case NONE -> "(info)";
            };
            b.append(String.format(Locale.ROOT, "%-72s %-20s %8s  %-17s %-14s %s%n", r.cell(), r.measure().label(),
                    rate, ci, target, r.target().kind() == Target.Kind.NONE ? "" : r.met() ? "ok" : "MISSED"));
        }
        long missed = rows.stream().filter(r -> !r.met()).count();
        b.append(missed == 0 ? "every track target met\n" : missed + " track target(s) missed\n");
        return b.toString();
    }

    private static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e9 ? String.valueOf((long) v)
                : String.format(Locale.ROOT, "%s", Double.toString(v));
    }
}
