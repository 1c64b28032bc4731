package io.isobench.probe;

import java.util.List;

/**
 * Where an arm's output first differs from the reference's, shown as evidence of an output mismatch
 * (the correctness gate's evidence and the reports: docs/html-report.md, "Output mismatch evidence"). Rule: the first prompt (in probe order) whose two texts differ;
 * the position is the length of their common prefix, in characters (UTF-16 units, as the check's {@code
 * first_divergence_char}) from 0; each text is shown as a window of up to {@link #BEFORE} characters before that
 * position and {@link #AFTER} from it, {@code ▶} marking the position, {@code …} where the window cuts the text,
 * line breaks as {@code \n}. Two texts equal up to their common length differ at the shorter one's end.
 *
 * @param prompt    the prompt's index
 * @param at        the first differing character
 * @param reference the reference's window
 * @param arm       the arm's window
 */
public record Divergence(int prompt, int at, String reference, String arm) {

    public static final int BEFORE = 30;
    public static final int AFTER = 40;

    /** The first divergence of {@code outputs} from {@code reference}; null when every common prompt matches. */
    public static Divergence of(List<String> reference, List<String> outputs) {
        for (int i = 0; i < Math.min(reference.size(), outputs.size()); i++) {
            String a = reference.get(i) == null ? "" : reference.get(i);
            String b = outputs.get(i) == null ? "" : outputs.get(i);
            if (!a.equals(b)) {
                int p = 0;
                while (p < a.length() && p < b.length() && a.charAt(p) == b.charAt(p)) {
                    p++;
                }
                return new Divergence(i, p, window(a, p), window(b, p));
            }
        }
        return null;
    }

    /** {@code prompt 0, first difference at char 110: baseline "…same ▶x…" vs arm "…same ▶y…"}. */
    public String describe(String referenceName) {
        return "prompt " + prompt + ", first difference at char " + at + ": " + referenceName + " \"" + reference
                + "\" vs arm \"" + arm + "\"";
    }

    private static String window(String s, int p) {
        int from = Math.max(0, p - BEFORE);
        int to = Math.min(s.length(), p + AFTER);
        // never split a surrogate pair at a window's edge
        if (from > 0 && Character.isLowSurrogate(s.charAt(from))) {
            from--;
        }
        if (to < s.length() && to > 0 && Character.isHighSurrogate(s.charAt(to - 1))) {
            to++;
        }
        return (from > 0 ? "…" : "") + esc(s.substring(from, p)) + "▶" + esc(s.substring(p, to))
                + (to < s.length() ? "…" : "");
    }

    private static String esc(String s) {
        return s.replace("\r", "\\r").replace("\n", "\\n");
    }
}
