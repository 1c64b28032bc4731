package io.isobench.report;

import java.util.List;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.fmt;

/**
 * Inline SVG charts drawn by isobench (no library, no script): strip plots of the rounds, speedup intervals and
 * stacked counts. Every chart has a labelled value axis with its unit, a labelled category axis, a {@code <title>}
 * (accessible name) and per-mark tooltips; categories are written next to the marks, so colour is never the only
 * cue.
 */
final class Svg {

    private Svg() {
    }

    static final int WIDTH = 720;
    private static final int LEFT = 215;
    private static final int RIGHT = 24;
    private static final int TOP = 12;
    private static final int ROW = 28;
    private static final int BOTTOM = 48;

    /** One arm's samples in round order, with its median. */
    record Series(String label, String colour, double[] samples, Double median) {
    }

    /** One speedup with its CI. */
    record Interval(String label, String colour, Double point, Double low, Double high, String verdict) {
    }

    /**
     * Strip plot: one row per arm, a dot per round, a bar at the median; the A/A noise band (± noise floor around the
     * baseline median) shaded.
     */
    static String strip(String title, String axis, List<Series> arms, Double baselineMedian, Double noiseFloorPct) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (Series s : arms) {
            for (double v : s.samples()) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        Double bandLo = null;
        Double bandHi = null;
        if (baselineMedian != null && noiseFloorPct != null) {
            bandLo = baselineMedian * (1 - noiseFloorPct / 100.0);
            bandHi = baselineMedian * (1 + noiseFloorPct / 100.0);
            lo = Math.min(lo, bandLo);
            hi = Math.max(hi, bandHi);
        }
        if (lo > hi) {
            return "<p class=\"note\">No successful rounds to plot.</p>\n";
        }
        Scale x = Scale.of(lo, hi, false);
        int h = TOP + ROW * arms.size() + BOTTOM;
        StringBuilder b = open(title, h);
        if (bandLo != null) {
            b.append(fmt("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#0072B2\" fill-opacity=\"0.12\">"
                            + "<title>%s</title></rect>\n", x.px(bandLo), TOP, Math.max(1, x.px(bandHi) - x.px(bandLo)),
                    ROW * arms.size(), esc(fmt("A/A noise band: baseline median ± %.1f %% (%s to %s)", noiseFloorPct,
                            num(bandLo), num(bandHi)))));
        }
        axes(b, x, arms.size(), axis, "arm");
        for (int i = 0; i < arms.size(); i++) {
            Series s = arms.get(i);
            double cy = TOP + ROW * i + ROW / 2.0;
            b.append(fmt("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n",
                    LEFT - 8, cy, esc(s.label())));
            double[] v = s.samples();
            if (v.length == 0) {
                b.append(fmt("<text x=\"%d\" y=\"%.1f\" dominant-baseline=\"middle\" fill=\"#555\">%s</text>\n",
                        LEFT + 6, cy, "no successful round"));
            }
            for (int r = 0; r < v.length; r++) {
                double jitter = ((r % 5) - 2) * 2.5;
                b.append(fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" fill-opacity=\"0.75\" stroke=\"#fff\">"
                        + "<title>%s</title></circle>\n", x.px(v[r]), cy + jitter, s.colour(),
                        esc(s.label() + " round " + (r + 1) + ": " + num(v[r]))));
            }
            if (s.median() != null) {
                double mx = x.px(s.median());
                b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\">"
                                + "<title>%s</title></line>\n", mx, mx, cy - 10, cy + 10, s.colour(),
                        esc(s.label() + " median: " + num(s.median()))));
            }
        }
        return b.append("</svg>\n").toString();
    }

    /** Speedups with their CIs on a log axis; 1 = no change; the ± threshold band around 1 shaded. */
    static String intervals(String title, List<Interval> rows, Double thresholdPct) {
        double lo = 1;
        double hi = 1;
        for (Interval r : rows) {
            for (Double v : new Double[] {r.point(), r.low(), r.high()}) {
                if (v != null && v > 0) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        if (thresholdPct != null) {
            lo = Math.min(lo, 1 - thresholdPct / 100.0);
            hi = Math.max(hi, 1 + thresholdPct / 100.0);
        }
        Scale x = Scale.of(lo, hi, true);
        int h = TOP + ROW * Math.max(1, rows.size()) + BOTTOM;
        StringBuilder b = open(title, h);
        if (thresholdPct != null && thresholdPct > 0) {
            double a = x.px(1 - thresholdPct / 100.0);
            double z = x.px(1 + thresholdPct / 100.0);
            b.append(fmt("<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#888\" fill-opacity=\"0.15\">"
                    + "<title>%s</title></rect>\n", a, TOP, Math.max(1, z - a), ROW * Math.max(1, rows.size()),
                    esc(fmt("±margin: %.1f %% (the minimum effect; the A/A band never widens it)", thresholdPct))));
        }
        axes(b, x, Math.max(1, rows.size()), "speedup (× vs reference, > 1 = better, log scale)", "comparison");
        double one = x.px(1);
        b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n",
                one, one, TOP, TOP + ROW * Math.max(1, rows.size())));
        for (int i = 0; i < rows.size(); i++) {
            Interval r = rows.get(i);
            double cy = TOP + ROW * i + ROW / 2.0;
            b.append(fmt("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n",
                    LEFT - 8, cy, esc(r.label())));
            String tip = esc(r.label() + ": " + SessionReportText.speedup(r.point(), r.low(), r.high()) + ", "
                    + r.verdict());
            if (r.low() != null && r.high() != null) {
                b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\">"
                        + "<title>%s</title></line>\n", x.px(r.low()), x.px(r.high()), cy, cy, r.colour(), tip));
                for (double e : new double[] {r.low(), r.high()}) {
                    b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                            x.px(e), x.px(e), cy - 5, cy + 5, r.colour()));
                }
            }
            if (r.point() != null && r.point() > 0) {
                b.append(fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"%s\" stroke=\"#fff\">"
                        + "<title>%s</title></rect>\n", x.px(r.point()) - 4.5, cy - 4.5, r.colour(), tip));
            } else {
                b.append(fmt("<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\">%s</text>\n", one + 6, cy,
                        esc("no speedup (" + r.verdict() + ")")));
            }
        }
        return b.append("</svg>\n").toString();
    }

    /** One stacked segment kind of {@link #stacked}: its legend name and its fill colour. */
    record Stack(String name, String colour) {
    }

    /**
     * Horizontal stacked bars: one bar per category, one segment per series ({@code values[category][series]}); a
     * legend below.
     */
    static String stacked(String title, String axis, String categoryAxis, List<String> categories,
                          List<Stack> series, long[][] values) {
        long max = 1;
        for (long[] row : values) {
            long sum = 0;
            for (long v : row) {
                sum += v;
            }
            max = Math.max(max, sum);
        }
        Scale x = Scale.counts(max);
        int legendRows = 1;
        int h = TOP + ROW * Math.max(1, categories.size()) + BOTTOM + 22 * legendRows;
        StringBuilder b = open(title, h);
        axes(b, x, Math.max(1, categories.size()), axis, categoryAxis);
        for (int i = 0; i < categories.size(); i++) {
            double y = TOP + ROW * i + 5;
            b.append(fmt("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n",
                    LEFT - 8, y + (ROW - 10) / 2.0, esc(categories.get(i))));
            double acc = 0;
            for (int s = 0; s < series.size(); s++) {
                long v = values[i][s];
                if (v <= 0) {
                    continue;
                }
                double x0 = x.px(acc);
                double x1 = x.px(acc + v);
                b.append(fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"#fff\">"
                        + "<title>%s</title></rect>\n", x0, y, Math.max(0.5, x1 - x0), ROW - 10, series.get(s).colour(),
                        esc(categories.get(i) + " — " + series.get(s).name() + ": " + v)));
                acc += v;
            }
        }
        double ly = h - 14;
        double lx = LEFT;
        for (int s = 0; s < series.size(); s++) {
            b.append(fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\">%s</text>\n", lx, ly - 5,
                    series.get(s).colour(), lx + 14, ly, esc(series.get(s).name())));
            lx += 24 + 7.5 * series.get(s).name().length();
        }
        return b.append("</svg>\n").toString();
    }

    private static StringBuilder open(String title, int h) {
        StringBuilder b = new StringBuilder(4096);
        b.append(fmt("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                + "role=\"img\" aria-label=\"%s\"><title>%s</title>\n", WIDTH, h, WIDTH, h, esc(title), esc(title)));
        return b;
    }

    /** Value axis with ticks and its label (unit included); the category axis labelled too. */
    private static void axes(StringBuilder b, Scale x, int rows, String valueAxis, String categoryAxis) {
        int y = TOP + ROW * rows;
        b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, WIDTH - RIGHT, y, y));
        b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, LEFT, TOP, y));
        for (double t : x.ticks()) {
            double px = x.px(t);
            b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                    + "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#000\" stroke-opacity=\"0.07\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", px, px, y, y + 5, px, px, TOP, y, px,
                    y + 18, esc(num(t))));
        }
        b.append(fmt("<text class=\"axis-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                (LEFT + WIDTH - RIGHT) / 2.0, y + 36, esc(valueAxis)));
        b.append(fmt("<text class=\"axis-label\" x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
                + "transform=\"rotate(-90 14 %.1f)\">%s</text>\n", TOP + ROW * rows / 2.0, TOP + ROW * rows / 2.0,
                esc(categoryAxis)));
    }

    static String num(double v) {
        double a = Math.abs(v);
        if (v == Math.rint(v) && a < 1e6) {
            return fmt("%.0f", v);
        }
        if (a != 0 && (a >= 1e6 || a < 1e-3)) {
            return fmt("%.3g", v);
        }
        if (a >= 100) {
            return fmt("%.0f", v);
        }
        if (a >= 10) {
            return fmt("%.1f", v);
        }
        return fmt("%.3g", v);
    }

    /** Linear or log mapping from values to x pixels, with nice ticks. */
    record Scale(double lo, double hi, boolean log, boolean integer) {

        Scale(double lo, double hi, boolean log) {
            this(lo, hi, log, false);
        }

        /** 0..max for counts: whole-number ticks. */
        static Scale counts(long max) {
            return new Scale(0, Math.max(1, max) * 1.04, false, true);
        }

        static Scale of(double lo, double hi, boolean log) {
            if (log) {
                double l = Math.log10(lo);
                double h = Math.log10(hi);
                double pad = Math.max(0.01, (h - l) * 0.08);
                return new Scale(Math.pow(10, l - pad), Math.pow(10, h + pad), true);
            }
            if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) {
                double d = lo == 0 ? 1 : Math.abs(lo) * 0.05;
                lo -= d;
                hi += d;
            }
            double pad = (hi - lo) * 0.06;
            double l = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
            return new Scale(l, hi + pad, false);
        }

        double px(double v) {
            double f = log ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo);
            return LEFT + f * (WIDTH - RIGHT - LEFT);
        }

        double[] ticks() {
            double step = nice((hi - lo) / 5);
            if (integer) {
                step = Math.max(1, Math.round(step));
            }
            double first = Math.ceil(lo / step) * step;
            int n = (int) Math.floor((hi - first) / step) + 1;
            n = Math.max(0, Math.min(n, 12));
            double[] t = new double[n];
            for (int i = 0; i < n; i++) {
                t[i] = first + i * step;
                if (Math.abs(t[i]) < step * 1e-9) {
                    t[i] = 0;
                }
            }
            return t;
        }

        private static double nice(double raw) {
            double e = Math.pow(10, Math.floor(Math.log10(raw)));
            double f = raw / e;
            double n = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
            return n * e;
        }
    }

    /** The speedup text of the Markdown report, from numbers. */
    static final class SessionReportText {
        private SessionReportText() {
        }

        static String speedup(Double s, Double lo, Double hi) {
            if (s == null) {
                return "—";
            }
            return fmt("%.3f× [%s, %s]", s, lo == null ? "—" : fmt("%.3f", lo), hi == null ? "—" : fmt("%.3f", hi));
        }
    }
}
