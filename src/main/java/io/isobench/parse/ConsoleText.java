package io.isobench.parse;

import java.util.ArrayList;
import java.util.List;

import io.isobench.guard.Secrets;

/**
 * Console text cut into lines the way the parsers need it. Lines are split on {@code \n} only (a {@code \r} is a
 * terminal overwrite, not a line break); ANSI escapes and other control characters are dropped.
 *
 * <p>Each line also yields <em>pieces</em>: the {@code \r}-separated segments of the line (what the terminal showed
 * in turn) and, inside a segment, whatever follows a tqdm bar ({@code …%|…| n/N […]}) because log lines and result
 * lines get glued to progress bars without a newline. Pieces are capped at {@link #MAX_PIECE_CHARS} characters and
 * {@link #MAX_PIECES_PER_SEGMENT} per segment so that regex work per line is bounded whatever the input.
 */
final class ConsoleText {

    /** Metric and signature lines are short; looking further into a line buys nothing and costs linear time. */
    static final int MAX_PIECE_CHARS = 16_384;
    static final int MAX_PIECES_PER_SEGMENT = 64;
    /** Evidence lines are kept whole up to this length (a pathological multi-megabyte line is cut, and says so). */
    static final int MAX_EVIDENCE_CHARS = 4_096;


    private ConsoleText() {
    }

    /** One {@code \n}-terminated line. {@code number} is 1-based; {@code terminated} is false for a last line without newline. */
    record Line(int number, String text, boolean terminated) {

        /** The line as evidence: control characters gone, secrets redacted, pathological lengths cut. */
        String evidence() {
            String t = text.strip();
            if (t.length() > MAX_EVIDENCE_CHARS) {
                t = t.substring(0, MAX_EVIDENCE_CHARS) + " …[line cut at " + MAX_EVIDENCE_CHARS + " of " + text.length()
                        + " chars]";
            }
            return redact(t);
        }

        /** Segments and de-glued remainders, each stripped of leading/trailing whitespace, never empty. */
        List<String> pieces() {
            int n = text.length();
            if (n <= MAX_PIECE_CHARS && text.indexOf('\r') < 0 && text.indexOf("%|") < 0) {
                String t = text.strip();
                return t.isEmpty() ? List.of() : List.of(t);
            }
            List<String> out = new ArrayList<>(2);
            int start = 0;
            while (start <= n) {
                int cr = text.indexOf('\r', start);
                int end = cr < 0 ? n : cr;
                addSegmentPieces(text, start, end, out);
                if (cr < 0) {
                    break;
                }
                start = cr + 1;
            }
            return out;
        }
    }

    private static void addSegmentPieces(String text, int from, int to, List<String> out) {
        if (to - from > MAX_PIECE_CHARS) {
            to = from + MAX_PIECE_CHARS;
        }
        if (from >= to) {
            return;
        }
        String seg = text.substring(from, to);
        addStripped(seg, out);
        int idx = 0;
        int count = 1;
        while (count < MAX_PIECES_PER_SEGMENT) {
            int bar = seg.indexOf("%|", idx);
            if (bar < 0) {
                break;
            }
            int close = seg.indexOf(']', bar);
            if (close < 0) {
                break;
            }
            if (close + 1 < seg.length()) {
                addStripped(seg.substring(close + 1), out);
                count++;
            }
            idx = close + 1;
        }
    }

    private static void addStripped(String s, List<String> out) {
        String t = s.strip();
        if (!t.isEmpty()) {
            out.add(t);
        }
    }

    /** Removes CSI/OSC escape sequences and C0/C1 control characters other than \n, \r, \t. Linear, no regex. */
    static String stripControls(String s) {
        StringBuilder b = null;
        int n = s.length();
        int i = 0;
        int copied = 0;
        while (i < n) {
            char c = s.charAt(i);
            int skipTo = -1;
            if (c == '\u001B') {
                skipTo = escapeEnd(s, i);
            } else if (c == '\u009B') { // 8-bit CSI
                skipTo = csiEnd(s, i + 1);
            } else if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7F || (c >= 0x80 && c < 0xA0)) {
                skipTo = i + 1;
            }
            if (skipTo >= 0) {
                if (b == null) {
                    b = new StringBuilder(n);
                }
                b.append(s, copied, i);
                i = skipTo;
                copied = i;
            } else {
                i++;
            }
        }
        if (b == null) {
            return s;
        }
        b.append(s, copied, n);
        return b.toString();
    }

    private static int escapeEnd(String s, int esc) {
        int n = s.length();
        if (esc + 1 >= n) {
            return n;
        }
        char k = s.charAt(esc + 1);
        if (k == '[') {
            return csiEnd(s, esc + 2);
        }
        if (k == ']' || k == 'P' || k == '_' || k == '^') { // OSC / DCS / APC / PM: up to BEL or ESC \
            int i = esc + 2;
            while (i < n) {
                char c = s.charAt(i);
                if (c == '\u0007') {
                    return i + 1;
                }
                if (c == '\u001B') {
                    return (i + 1 < n && s.charAt(i + 1) == '\\') ? i + 2 : i;
                }
                if (c == '\n') { // never swallow a line break
                    return i;
                }
                i++;
            }
            return n;
        }
        return k == '\n' ? esc + 1 : esc + 2;
    }

    private static int csiEnd(String s, int i) {
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c >= 0x40 && c <= 0x7E) {
                return i + 1;
            }
            if (c < 0x20 || c > 0x7E) {
                return i; // malformed: drop only the introducer
            }
            i++;
        }
        return n;
    }

    /** Redacts secrets: {@link io.isobench.guard.Secrets}, the one redactor. */
    static String redact(String s) {
        return Secrets.redact(s);
    }
}
