package io.isobench.report;

import io.isobench.analysis.MedianCi;
import io.isobench.analysis.SweepAnalysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static io.isobench.report.Html.esc;
import static io.isobench.report.Html.fmt;

/**
 * The latency–throughput curve of a load sweep as inline SVG (no library, no script), in the style of {@link Svg}:
 * per arm a line through its points (x: achieved request throughput, y: a latency metric, both medians over rounds),
 * the latency's CI shaded as a band around the line, the throughput's CI as a horizontal whisker, each point labelled
 * with its load and carrying a tooltip; a legend names the arms, so colour is never the only cue.
 */
final class SweepChart {

    private static final int W = Svg.WIDTH;
    private static final int H = 340;
    private static final int LEFT = 70;
    private static final int RIGHT = 150;
    private static final int TOP = 14;
    private static final int BOTTOM = 52;
    private static final String X_METRIC = "request_throughput_rps";

    private SweepChart() {
    }

    /**
     * @param title   the chart's accessible name
     * @param sweep   the sweep
     * @param yMetric the latency drawn ({@code ttft_ms_p99}, {@code tpot_ms_median}, …)
     * @param colour  an arm's colour
     * @return the SVG, or a note when no arm has both metrics at any point
     */
    static String curve(String title, SweepAnalysis sweep, String yMetric, Function<String, String> colour) {
        double xHi = 0;
        double yHi = 0;
        int drawn = 0;
        for (List<SweepAnalysis.PointStats> c : sweep.curves().values()) {
            for (SweepAnalysis.PointStats p : c) {
                MedianCi x = p.metrics().get(X_METRIC);
                MedianCi y = p.metrics().get(yMetric);
                if (x != null && y != null) {
                    xHi = Math.max(xHi, x.high());
                    yHi = Math.max(yHi, y.high());
                    drawn++;
                }
            }
        }
        if (drawn == 0) {
            return "<p class=\"note\">No point has both " + esc(X_METRIC) + " and " + esc(yMetric) + ".</p>\n";
        }
        double xMax = niceMax(xHi);
        double yMax = niceMax(yHi);
        StringBuilder b = new StringBuilder(4096);
        b.append(fmt("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                + "role=\"img\" aria-label=\"%s\"><title>%s</title>\n", W, H, W, H, esc(title), esc(title)));
        axes(b, xMax, yMax, "achieved request throughput (req/s, median over rounds)", yMetric + " (ms)");
        int legend = 0;
        for (Map.Entry<String, List<SweepAnalysis.PointStats>> e : sweep.curves().entrySet()) {
            String arm = e.getKey();
            String col = colour.apply(arm);
            List<double[]> pts = new ArrayList<>(); // x, y, yLow, yHigh, xLow, xHigh, load
            for (SweepAnalysis.PointStats p : e.getValue()) {
                MedianCi x = p.metrics().get(X_METRIC);
                MedianCi y = p.metrics().get(yMetric);
                if (x != null && y != null) {
                    pts.add(new double[] {x.median(), y.median(), y.low(), y.high(), x.low(), x.high(), p.load()});
                }
            }
            if (pts.isEmpty()) {
                continue;
            }
            StringBuilder band = new StringBuilder();
            for (double[] p : pts) {
                band.append(fmt("%.1f,%.1f ", px(p[0], xMax), py(p[3], yMax)));
            }
            for (int i = pts.size() - 1; i >= 0; i--) {
                band.append(fmt("%.1f,%.1f ", px(pts.get(i)[0], xMax), py(pts.get(i)[2], yMax)));
            }
            b.append(fmt("<polygon points=\"%s\" fill=\"%s\" fill-opacity=\"0.15\" stroke=\"none\"><title>%s</title>"
                    + "</polygon>\n", band.toString().strip(), col, esc(arm + ": " + yMetric + " CI band")));
            StringBuilder line = new StringBuilder();
            for (double[] p : pts) {
                line.append(fmt("%.1f,%.1f ", px(p[0], xMax), py(p[1], yMax)));
            }
            b.append(fmt("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                    line.toString().strip(), col));
            for (double[] p : pts) {
                double cx = px(p[0], xMax);
                double cy = py(p[1], yMax);
                b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", px(p[4], xMax),
                        px(p[5], xMax), cy, cy, col));
                b.append(fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#fff\"><title>%s</title>"
                        + "</circle>", cx, cy, col, esc(fmt("%s at %s %s: %s req/s [%s, %s], %s %s ms [%s, %s]", arm,
                        sweep.axis().kind(), Svg.num(p[6]), Svg.num(p[0]), Svg.num(p[4]), Svg.num(p[5]), yMetric,
                        Svg.num(p[1]), Svg.num(p[2]), Svg.num(p[3])))));
                b.append(fmt("<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#333\">%s</text>\n", cx + 5, cy - 5,
                        esc(Svg.num(p[6]))));
            }
            double ly = TOP + 10 + 18 * legend++;
            b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" dominant-baseline=\"middle\">%s</text>\n", W - RIGHT + 12,
                    W - RIGHT + 32, ly, ly, col, W - RIGHT + 36, ly, esc(arm)));
        }
        return b.append("</svg>\n").toString();
    }

    private static void axes(StringBuilder b, double xMax, double yMax, String xLabel, String yLabel) {
        int y0 = H - BOTTOM;
        b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, W - RIGHT, y0, y0));
        b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT, LEFT, TOP, y0));
        for (int i = 0; i <= 5; i++) {
            double xv = xMax * i / 5;
            double yv = yMax * i / 5;
            b.append(fmt("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/><text x=\"%.1f\" y=\"%d\" "
                    + "text-anchor=\"middle\">%s</text>", px(xv, xMax), px(xv, xMax), y0, y0 + 5, px(xv, xMax), y0 + 18,
                    esc(Svg.num(xv))));
            b.append(fmt("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-opacity=\"0.07\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n", LEFT,
                    W - RIGHT, py(yv, yMax), py(yv, yMax), LEFT - 6, py(yv, yMax), esc(Svg.num(yv))));
        }
        b.append(fmt("<text class=\"axis-label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                (LEFT + W - RIGHT) / 2.0, y0 + 38, esc(xLabel)));
        b.append(fmt("<text class=\"axis-label\" x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
                + "transform=\"rotate(-90 14 %.1f)\">%s</text>\n", (TOP + y0) / 2.0, (TOP + y0) / 2.0, esc(yLabel)));
    }

    private static double px(double v, double max) {
        return LEFT + v / max * (W - RIGHT - LEFT);
    }

    private static double py(double v, double max) {
        return H - BOTTOM - v / max * (H - BOTTOM - TOP);
    }

    /** A round axis end (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k) at or above {@code v}, with 5 % headroom. */
    static double niceMax(double v) {
        if (!(v > 0)) {
            return 1;
        }
        double raw = v * 1.05;
        double e = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / e;
        for (double step : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8}) {
            if (f <= step) {
                return step * e;
            }
        }
        return 10 * e;
    }
}
