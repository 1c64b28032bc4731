package io.isobench.report;

import io.isobench.analysis.Comparison;
import io.isobench.parse.FailureCategory;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * XHTML building blocks of the HTML report: escaping, the page frame (inline CSS, no scripts, no network), header
 * and value cells (typed table rows are rendered by {@link Rows}).
 * Every page is well-formed XML (parsed back by the tests) served as HTML.
 */
final class Html {

    private Html() {
    }

    /** Okabe-Ito: distinguishable with the common colour-vision deficiencies. */
    static final String BASELINE = "#0072B2";
    static final String HUMAN = "#E69F00";
    /** Failures charged to no arm (the old harness's own, before any arm started). */
    static final String NO_ARM = "#999999";
    static final String[] AGENTS = {"#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000", "#8C6D1F"};
    static final String WIN = "#009E73";
    static final String TIE = "#BBBBBB";
    /** Equivalent (TOST): the same grey family as a legacy tie, a shade darker. */
    static final String EQUIVALENT = "#999999";
    /** The A/A arm: the baseline's blue, lighter. */
    static final String BASELINE_AA = "#7FB8D8";
    static final String LOSS = "#D55E00";
    static final String INCONCLUSIVE = "#56B4E9";
    static final String FAILED = "#000000";
    static final String INCORRECT = "#CC79A7";

    static final String CSS = """
            :root{--fg:#1a1a1a;--muted:#555;--line:#ddd;--bg:#fff;--head:#f3f5f8}
            *{box-sizing:border-box}
            body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0}
            header.top{background:#12263a;color:#fff;padding:.6em 1em;display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:baseline}
            header.top a{color:#fff}
            header.top .brand{font-weight:700;margin-right:1em}
            main{padding:0 1em 2em;max-width:1200px;margin:0 auto}
            h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid var(--line)}h3{font-size:1.05em}
            table{border-collapse:collapse;margin:.6em 0;font-size:.9em;display:block;overflow-x:auto;max-width:100%}
            th,td{border:1px solid var(--line);padding:.25em .5em;text-align:left;vertical-align:top}
            th{background:var(--head)}
            td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
            code{font-size:.9em;background:#f4f4f4;padding:0 .2em;word-break:break-word}
            .receipt{background:#f7f9fb;border:1px solid var(--line);padding:.5em 1em;margin:1em 0}
            .receipt dt{font-weight:600}.receipt dd{margin:0 0 .4em 0}
            .badge{display:inline-block;border-radius:3px;padding:0 .4em;font-size:.8em;font-weight:600;white-space:nowrap}
            .b-single{background:#fff3cd;color:#5c4400;border:1px solid #e0c36a}
            .b-nc{background:#fde2d6;color:#7a2a00;border:1px solid #D55E00}
            .b-low{background:#e6e6e6;color:#333;border:1px solid #999}
            .v-better{color:#00664a;font-weight:600}.v-worse{color:#a34000;font-weight:600}
            .v-tie,.v-equivalent{color:#444}.v-inconclusive{color:#1d5d80}.v-failed,.v-incorrect{color:#000;font-weight:600}
            tr.not-comparable td{background:#fff7f3}
            tr.single-run td:first-child{border-left:4px solid #e0c36a}
            .swatch{display:inline-block;width:.9em;height:.9em;border-radius:2px;vertical-align:-.1em;margin-right:.25em}
            svg{max-width:100%;height:auto;display:block;margin:.5em 0}
            svg text{font:12px system-ui,sans-serif;fill:#1a1a1a}
            .pager a,.pager span{margin-right:.4em}
            .note{color:var(--muted);font-size:.9em}
            pre.evidence{background:#f4f4f4;padding:.4em;overflow-x:auto;white-space:pre-wrap;font-size:.85em}
            @media (max-width:700px){
              body{font-size:14px}
              main{padding:0 .5em 1em}
              header.top{gap:.2em .8em}
              table{font-size:.85em}
              .receipt{padding:.4em .6em}
            }
            """;

    /** A whole page; {@code body} is already XHTML. */
    static String page(String title, String body) {
        return "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                + "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                + "<title>" + esc(title) + "</title>\n<style>" + CSS + "</style>\n</head>\n<body>\n"
                + "<header class=\"top\"><span class=\"brand\">isobench</span>"
                + "<a href=\"index.html\">Overview</a><a href=\"tasks.html\">Tasks</a>"
                + "<a href=\"failures.html\">Failures</a><a href=\"legacy.html\">Imported legacy data</a></header>\n"
                + "<main>\n" + body + "</main>\n</body>\n</html>\n";
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String r = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> c < 0x20 && c != '\n' && c != '\t' && c != '\r' ? " " : null;
            };
            if (r != null && b == null) {
                b = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (b != null) {
                if (r != null) {
                    b.append(r);
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }

    /** A swatch and the arm label. */
    static String armLabel(String arm, String colour) {
        return "<span class=\"swatch\" style=\"background:" + colour + "\"></span>" + esc(arm);
    }

    /** A verdict with its class (colour plus the word: never colour alone). */
    static String verdict(String label) {
        return label == null ? "—" : "<span class=\"v-" + esc(label) + "\">" + esc(label) + "</span>";
    }

    /**
     * A comparison's verdict as shown ({@code Comparison.verdictShown}), the label coloured: {@code inconclusive: wide
     * CI}, {@code equivalent within ±2 %}.
     */
    static String verdict(Comparison c) {
        if (c == null) {
            return "—";
        }
        String[] v = ReadingText.verdict(c);
        return "<span class=\"v-" + esc(c.verdict().label()) + "\">" + esc(v[0]) + "</span>" + esc(v[1]);
    }

    static String verdictColour(String label) {
        return switch (label) {
            case "better", "win" -> WIN;
            case "worse", "loss" -> LOSS;
            case "tie" -> TIE;
            case "equivalent" -> EQUIVALENT;
            case "inconclusive" -> INCONCLUSIVE;
            case "incorrect" -> INCORRECT;
            default -> FAILED;
        };
    }

    private static final Pattern NUMERIC_CELL =
            Pattern.compile("[+−-]?[0-9][0-9.,eE+-]*( %|×)?");

    static String th(String... headers) {
        StringBuilder b = new StringBuilder("<tr>");
        for (String h : headers) {
            b.append("<th scope=\"col\">").append(esc(h)).append("</th>");
        }
        return b.append("</tr>\n").toString();
    }

    static String td(Object v) {
        String s = v == null ? "—" : v.toString();
        boolean num = v instanceof Number || NUMERIC_CELL.matcher(s).matches();
        return (num ? "<td class=\"num\">" : "<td>") + esc(s) + "</td>";
    }

    static String fmt(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }

    /** A file-name-safe slug. */
    static String slug(String s) {
        String t = s == null ? "" : s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_-]+", "-");
        return t.length() > 40 ? t.substring(0, 40) : t;
    }

    /** The text, or a dash when there is none. */
    static String nz(String s) {
        return s == null ? "—" : s;
    }

    /** The failure category of that name; null for a name that is not one (an older store's). */
    static FailureCategory category(String name) {
        try {
            return FailureCategory.valueOf(name);
        } catch (IllegalArgumentException | NullPointerException e) {
            return null;
        }
    }
}
