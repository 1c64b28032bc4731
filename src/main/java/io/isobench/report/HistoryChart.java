package io.isobench.report;

import io.isobench.analysis.MedianCi;
import io.isobench.store.TrackChange;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.fmt;

/**
 * A track's series as an inline SVG (no script): x = the range's commits in first-parent order, each labelled with
 * its short id and subject (cut to {@link #LABEL_CHARS} characters, the whole subject in the label's
 * {@code <title>}); y = the metric. Per measured commit its median (a dot) and its 95 % interval (a bar); a commit
 * that did not build, or whose runs all failed, a cross in the strip under the axis. Change points as vertical lines at the measured
 * commit after the change, one mark per status — confirmed: solid line and a filled triangle, coloured by direction;
 * rejected: dotted grey line and a hollow circle; candidate: dashed blue line and a hollow diamond — with a bisected
 * first commit as a star; a legend names every mark, so colour is never the only cue.
 */
final class HistoryChart {

    /** Characters of a subject written under the axis (the rest is in the tooltip). */
    static final int LABEL_CHARS = 28;
    private static final int LEFT = 70;
    private static final int RIGHT = 24;
    private static final int TOP = 84;
    private static final int PLOT = 260;
    /** The strip under the axis for the marks of commits without a point: not built (a cross), first commit (a star). */
    private static final int MARKS = 16;
    private static final int LABELS = 250;
    /** The narrowest space between two commits (the chart grows wider, and scrolls, beyond). */
    private static final int MIN_STEP = 18;
    private static final int MIN_WIDTH = Svg.WIDTH;

    private HistoryChart() {
    }

    /** The chart of a track; {@code unit} labels the value axis (null: none known). */
    static String svg(HistoryModel.Track t, String unit) {
        List<HistoryModel.Point> points = t.points();
        int n = Math.max(1, points.size());
        int width = Math.max(MIN_WIDTH, LEFT + RIGHT + MIN_STEP * n);
        double step = (width - LEFT - RIGHT) / (double) n;
        int height = TOP + PLOT + MARKS + LABELS;
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (HistoryModel.Point p : points) {
            if (p.ci() != null) {
                lo = Math.min(lo, p.ci().low());
                hi = Math.max(hi, p.ci().high());
            }
        }
        String metric = t.record().metric() == null ? "metric" : t.record().metric();
        String title = "History of task " + t.record().taskId() + ": " + metric + " over " + nz(t.record().range())
                + " (median and 95 % interval per measured commit)";
        StringBuilder b = new StringBuilder(8192);
        b.append(fmt("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                + "role=\"img\" aria-label=\"%s\" style=\"max-width:none\"><title>%s</title>\n", width, height, width,
                height, esc(title), esc(title)));
        legend(b);
        Svg.Scale y = lo > hi ? null : Svg.Scale.of(lo, hi, false);
        axes(b, y, width, metric + (unit == null || unit.isBlank() ? "" : " (" + unit + ")"));
        // change marks first: the series' dots and intervals are drawn over their lines
        for (TrackChange c : t.changes()) {
            change(b, t, c, step);
        }
        for (int i = 0; i < points.size(); i++) {
            point(b, points.get(i), x(i, step), y);
        }
        if (y == null) {
            b.append(fmt("<text x=\"%d\" y=\"%d\">%s</text>\n", LEFT + 8, TOP + PLOT / 2,
                    "no measured commit yet"));
        }
        return b.append("</svg>\n").toString();
    }

    private static double x(int i, double step) {
        return LEFT + step * (i + 0.5);
    }

    private static double py(Svg.Scale y, double v) {
        return TOP + PLOT - (v - y.lo()) / (y.hi() - y.lo()) * PLOT;
    }

    private static void legend(StringBuilder b) {
        double lx = LEFT;
        double ly = 16;
        String[][] items = {
                {"median and 95 % interval", "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#0072B2\"/>"},
                {"not built / no successful run", cross("%.1f", "%.1f")},
                {"confirmed change", "<path d=\"M%.1f %.1f l-5 -8 h10 z\" fill=\"" + Html.WIN + "\"/>"},
                {"rejected candidate", "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" stroke=\"#777\" "
                        + "stroke-width=\"1.5\"/>"},
                {"candidate (not yet confirmed)", "<path d=\"M%.1f %.1f m0 -5 l5 5 l-5 5 l-5 -5 z\" fill=\"#fff\" "
                        + "stroke=\"" + Html.INCONCLUSIVE + "\" stroke-width=\"1.5\"/>"},
                {"first commit (bisected)", star("%.1f", "%.1f")},
        };
        for (String[] item : items) {
            double cx = lx + 6;
            b.append(fmt(item[1], cx, item[1].startsWith("<path d=\"M%.1f %.1f l-5") ? ly + 4 : ly))
                    .append(fmt("<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\">%s</text>\n", lx + 14, ly,
                            esc(item[0])));
            lx += 30 + 6.2 * item[0].length();
            if (lx > MIN_WIDTH - 160) {
                lx = LEFT;
                ly += 18;
            }
        }
    }

    private static String cross(String cx, String cy) {
        return "<path d=\"M" + cx + " " + cy + " m-4 -4 l8 8 m0 -8 l-8 8\" stroke=\"#000\" stroke-width=\"2\"/>";
    }

    private static String star(String cx, String cy) {
        return "<path d=\"M" + cx + " " + cy + " m0 -6 l1.8 4 l4.2 0.4 l-3.2 2.8 l1 4.2 l-3.8 -2.2 l-3.8 2.2 l1 -4.2"
                + " l-3.2 -2.8 l4.2 -0.4 z\" fill=\"#000\"/>";
    }

    private static void axes(StringBuilder b, Svg.Scale y, int width, String valueAxis) {
        int base = TOP + PLOT;
        b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, width - RIGHT, base,
                base));
        b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, LEFT, TOP, base));
        if (y != null) {
            for (double v : y.ticks()) {
                double p = py(y, v);
                b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
                        + "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-opacity=\"0.07\"/>"
                        + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n",
                        LEFT - 5, LEFT, p, p, LEFT, width - RIGHT, p, p, LEFT - 8, p, esc(Svg.num(v))));
            }
        }
        double mid = TOP + PLOT / 2.0;
        b.append(fmt("<text class=\"axis-label\" x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
                + "transform=\"rotate(-90 14 %.1f)\">%s</text>\n", mid, mid, esc(valueAxis)));
    }

    private static void point(StringBuilder b, HistoryModel.Point p, double cx, Svg.Scale y) {
        int base = TOP + PLOT;
        String id = HistoryModel.shortId(p.commit().commitId());
        String subject = p.commit().subject() == null ? "" : p.commit().subject().strip();
        String shown = subject.length() > LABEL_CHARS ? subject.substring(0, LABEL_CHARS - 1) + "…" : subject;
        b.append(fmt("<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" dominant-baseline=\"middle\" font-size=\"11\" "
                        + "transform=\"rotate(-90 %.1f %d)\"><title>%s</title>%s</text>\n", cx, base + MARKS + 6, cx, base + MARKS + 6,
                esc(p.commit().position() + ": " + p.commit().commitId() + " " + subject + " (" + state(p) + ")"),
                esc(id + " " + shown)));
        MedianCi ci = p.ci();
        if (ci != null && y != null) {
            String tip = esc(id + " " + subject + ": median " + value(ci.median()) + ", 95 % interval "
                    + value(ci.low()) + " to " + value(ci.high()) + ", " + ci.n() + " run(s)"
                    + (p.failedRuns() > 0 ? ", " + p.failedRuns() + " failed" : ""));
            b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#0072B2\" stroke-width=\"2\">"
                    + "<title>%s</title></line>\n", cx, cx, py(y, ci.low()), py(y, ci.high()), tip));
            b.append(fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#0072B2\" stroke=\"#fff\"><title>%s</title>"
                    + "</circle>\n", cx, py(y, ci.median()), tip));
        } else if (p.notBuilt() || "failed".equals(p.commit().state()) || p.failedRuns() > 0) {
            b.append(fmt("<g>" + cross("%.1f", "%.1f") + "<title>%s</title></g>\n", cx, base + MARKS / 2.0 + 1,
                    esc(id + " " + subject + ": " + state(p) + firstLine(p.commit().detail()))));
        }
    }

    /** What happened at the commit, in words. */
    static String state(HistoryModel.Point p) {
        String s = p.commit().state() == null ? "" : p.commit().state();
        return switch (s) {
            case "build_failed" -> "not built";
            case "failed" -> "measurement failed";
            case "measured" -> "measured";
            case "pending" -> p.commit().selected() ? "not measured yet" : "not measured (between measured commits)";
            case "not_selected" -> "not measured (between measured commits)";
            default -> s.isEmpty() ? "unknown" : s;
        };
    }

    private static String firstLine(String detail) {
        String f = Md.firstLine(detail);
        return f == null || f.isBlank() ? "" : ": " + f.strip();
    }

    private static void change(StringBuilder b, HistoryModel.Track t, TrackChange c, double step) {
        int at = index(t, c.commitId());
        if (at < 0) {
            return;
        }
        double cx = x(at, step);
        int top = TOP;
        int base = TOP + PLOT;
        String status = c.status() == null ? "candidate" : c.status();
        String colour = switch (status) {
            case "confirmed" -> "slower".equals(c.direction()) ? Html.LOSS : Html.WIN;
            case "rejected" -> "#777777";
            default -> Html.INCONCLUSIVE;
        };
        String dash = switch (status) {
            case "confirmed" -> "";
            case "rejected" -> " stroke-dasharray=\"2 3\"";
            default -> " stroke-dasharray=\"6 4\"";
        };
        String tip = esc(status + " " + nz(c.direction()) + " " + pctText(c.changePct()) + " at "
                + HistoryModel.shortId(c.commitId()) + " (vs " + HistoryModel.shortId(c.parentCommit()) + ")"
                + (c.firstCommit() == null ? "" : ", first commit " + HistoryModel.shortId(c.firstCommit())));
        b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s>"
                + "<title>%s</title></line>\n", cx, cx, top, base, colour, dash, tip));
        String mark = switch (status) {
            case "confirmed" -> fmt("<path d=\"M%.1f %.1f l-5 -8 h10 z\" fill=\"%s\">", cx, top + 0.0, colour);
            case "rejected" -> fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" stroke=\"%s\" "
                    + "stroke-width=\"1.5\">", cx, top - 4.0, colour);
            default -> fmt("<path d=\"M%.1f %.1f m0 -5 l5 5 l-5 5 l-5 -5 z\" fill=\"#fff\" stroke=\"%s\" "
                    + "stroke-width=\"1.5\">", cx, top - 5.0, colour);
        };
        b.append(mark).append("<title>").append(tip).append("</title>")
                .append(mark.startsWith("<circle") ? "</circle>\n" : "</path>\n");
        b.append(fmt("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>\n", cx, top - 14,
                esc(pctText(c.changePct()))));
        int first = c.firstCommit() == null ? -1 : index(t, c.firstCommit());
        if (first >= 0 && "confirmed".equals(status)) {
            b.append(fmt("<g>" + star("%.1f", "%.1f") + "<title>%s</title></g>\n", x(first, step), base + MARKS / 2.0 + 1,
                    esc("first commit carrying the change (bisected): " + t.points().get(first).commit().commitId()
                            + " " + nz(t.points().get(first).commit().subject()))));
        }
    }

    private static int index(HistoryModel.Track t, String id) {
        List<HistoryModel.Point> points = t.points();
        for (int i = 0; i < points.size(); i++) {
            if (HistoryModel.sameCommit(points.get(i).commit().commitId(), id)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A series value with four significant digits, never in exponent form ({@code 10.00}, {@code 9.900},
     * {@code 0.01234}, {@code 12345}): a 1 % step stays visible whatever the unit.
     */
    static String value(double v) {
        if (v == 0 || !Double.isFinite(v)) {
            return v == 0 ? "0" : String.valueOf(v);
        }
        int scale = Math.max(0, 3 - (int) Math.floor(Math.log10(Math.abs(v))));
        return new BigDecimal(v).setScale(scale, RoundingMode.HALF_EVEN).toPlainString();
    }

    /** A change in percent with its sign ({@code −14.5 %}), or a dash. */
    static String pctText(Double v) {
        return v == null || !Double.isFinite(v) ? "—" : fmt("%+.1f %%", v).replace('-', '−');
    }

    private static String nz(String s) {
        return s == null ? "—" : s;
    }
}
