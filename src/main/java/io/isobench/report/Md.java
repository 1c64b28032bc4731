package io.isobench.report;

import java.util.Locale;

/**
 * Markdown text of the reports: escaping of untrusted text ({@link #text}), inline code ({@link #code}), deltas,
 * values, win/tie/loss counts. The row model's Markdown renderer ({@link Rows#markdown}) writes its spans with it.
 */
final class Md {

    private Md() {
    }

    static String wtl(int[] c) {
        return c[0] + " / " + c[1] + " / " + c[2];
    }

    static String fmt1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A delta with sign and two decimals, or an em dash when undefined. */
    static String pct(Double v) {
        return v == null ? "—" : String.format(Locale.ROOT, "%+.2f", v);
    }

    /** The first line of a (possibly multi-line) evidence text. */
    static String firstLine(String s) {
        if (s == null) {
            return null;
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** The text, or an em dash when there is none. */
    static String orDash(String v) {
        return v == null ? "—" : v;
    }

    /**
     * Untrusted text (agent and folder names, commits, metrics, reasons read from imported data) as Markdown that
     * renders as that text: no raw HTML ({@code & < >} as entities), no link or image ({@code [ ]} escaped), no
     * inline code ({@code `} escaped), no table cell break ({@code |} escaped, line breaks as spaces). Null is empty.
     */
    static String text(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '\\', '|', '`', '[', ']' -> b.append('\\').append(c);
                case '\r', '\n' -> b.append(' ');
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** Markdown-safe inline code for an evidence line (whole line, pipes escaped; HTML is not rendered in code). */
    static String code(String s) {
        if (s == null || s.isBlank()) {
            return "";
        }
        String t = s.replace("\r", " ").replace("\n", " ⏎ ").replace("|", "\\|").replace("`", "'");
        return "`" + t + "`";
    }
}
