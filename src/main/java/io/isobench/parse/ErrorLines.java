package io.isobench.parse;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The error-line grammar of console text (docs/parsing.md "Error lines"): which lines may carry a failure signature,
 * where the last traceback ends, and which line is the first error marker.
 *
 * <ul>
 *   <li><b>Advice</b>, never a signature: log records at DEBUG/INFO/WARNING level (vLLM's {@code INFO 12-26 07:52:19
 *       [file.py:1] …}, Python logging's {@code WARNING:name:…}, {@code [INFO]}, glog/c10d's {@code [W1226 …]},
 *       {@code … - INFO - …}), and Python warnings ({@code file.py:110: FutureWarning: …}, {@code warnings.warn(}).
 *       vLLM prints "If you are running out of memory, consider decreasing …" at INFO on healthy runs.</li>
 *   <li><b>Code</b>, never a signature: a traceback frame ({@code File "…", line N, in f}) and the source line under
 *       it ({@code raise ValueError("…")} would otherwise match twice, or match code that merely mentions an error).</li>
 *   <li>Everything else is an error line for the classifier: exception lines, ERROR/CRITICAL records, explicit markers
 *       ({@code BASELINE_SERVER_CRASHED}, {@code error:}, {@code fatal:}) and the harness's own plain statements
 *       ({@code Benchmark timed out}).</li>
 * </ul>
 * All scans are linear in the text length: each line is looked at through a bounded prefix.
 */
final class ErrorLines {

    /** How much of a line the grammar looks at (log prefixes and markers sit at the start of a line). */
    private static final int PREFIX_CHARS = 512;
    /** A frame line is short; a longer previous line is not one (keeps the look-back bounded). */
    private static final int MAX_FRAME_LINE = 4_096;
    /** Lines kept after an exception line when they continue its message. */
    private static final int CONTINUATION_LINES = 2;

    /** Process/rank prefixes vLLM and torch put before a record: {@code (VllmWorker rank=0 pid=12) }, {@code [rank0]: }. */
    private static final Pattern PROCESS_PREFIX =
            Pattern.compile("^(?:\\([^()\\n]{1,80}\\) ?|\\[rank\\d+\\]: ?|\\[\\d+,\\d+\\]<std(?:out|err)>: ?)+");
    private static final Pattern ADVICE = Pattern.compile(
            "^(?:(?:DEBUG|INFO|WARNING|WARN|NOTICE|TRACE)(?:[\\s:\\]|-]|$)"
                    + "|\\[(?:DEBUG|INFO|WARNING|WARN|NOTICE)\\]"
                    + "|\\[?[IWD]\\d{4} \\d\\d:\\d\\d:\\d\\d"
                    + "|\\[?\\d{4}-\\d\\d-\\d\\d[ T]\\d\\d:\\d\\d:\\d\\d[^\\s\\]]*\\]?\\s*(?:[-|]\\s*)?(?:\\[?[\\w.]+\\]?\\s*[-|]\\s*)?"
                    + "\\[?(?:DEBUG|INFO|WARNING|WARN)\\b"
                    + "|[\\w.]*Warning: "
                    + "|warnings\\.warn\\()");
    private static final Pattern PY_WARNING = Pattern.compile("\\.py:\\d+: [A-Z]\\w*Warning: ");
    /** The log prefix of a record that may wrap a traceback line: {@code ERROR 12-01 10:00:00 [engine.py:12] }. */
    private static final Pattern LOG_PREFIX = Pattern.compile(
            "^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\\s+\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?\\s+(?:\\[[^\\]\\n]{0,200}\\] ?)?");
    private static final Pattern FRAME = Pattern.compile("^\\s*File \"[^\"\\n]{0,1000}\", line \\d+");
    private static final Pattern EXCEPTION = Pattern.compile(
            "^(?:[A-Za-z_]\\w*\\.){0,8}[A-Z]\\w{0,80}(?:Error|Exception|Exit|Interrupt|Expired|Fault|Failure|Warning)"
                    + "(?::\\s|:?$)");
    private static final Pattern MARKER = Pattern.compile(
            "^(?:ERROR|CRITICAL|FATAL)\\b|^\\[(?:ERROR|CRITICAL|FATAL)\\]|^E\\d{4} \\d\\d:"
                    + "|\\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:FAILED|CRASHED|TIMEOUT|ERROR|FAILURE)\\b"
                    + "|(?:^|: )(?:error|fatal|ERROR|Error)(?::| response)");

    private ErrorLines() {
    }

    /**
     * Turns a Python bytes/str repr or a JSON object printed on one line ({@code b'…\n…'}, {@code {"error": "…\n…"}})
     * into real lines, so that the grammar, the evidence and the last traceback see the log as it was printed.
     */
    static String unescapeReprLines(String text) {
        if (text.indexOf("\\n") < 0) {
            return text;
        }
        StringBuilder out = null;
        int start = 0;
        int n = text.length();
        while (start <= n) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = n;
            }
            int first = start;
            while (first < end && (text.charAt(first) == ' ' || text.charAt(first) == '\t')) {
                first++;
            }
            boolean repr = first + 1 < end && (text.startsWith("b'", first) || text.startsWith("b\"", first)
                    || text.startsWith("{\"", first)) && text.indexOf("\\n", first) >= 0
                    && text.indexOf("\\n", first) < end;
            if (repr) {
                if (out == null) {
                    out = new StringBuilder(n);
                    out.append(text, 0, start);
                }
                unescape(text, start, end, out);
            } else if (out != null) {
                out.append(text, start, end);
            }
            if (end < n && out != null) {
                out.append('\n');
            }
            start = end + 1;
        }
        return out == null ? text : out.toString();
    }

    private static void unescape(String s, int from, int to, StringBuilder out) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < to) {
                char d = s.charAt(i + 1);
                switch (d) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case '\\', '\'', '"' -> out.append(d);
                    default -> {
                        out.append(c);
                        continue;
                    }
                }
                i++;
            } else {
                out.append(c);
            }
        }
    }

    /** The line [ls, le) without leading blanks and process prefixes, at most {@link #PREFIX_CHARS} long. */
    private static String head(String text, int ls, int le) {
        String h = text.substring(ls, Math.min(le, ls + PREFIX_CHARS)).stripLeading();
        Matcher p = PROCESS_PREFIX.matcher(h);
        return p.lookingAt() ? h.substring(p.end()) : h;
    }

    /**
     * The line [ls, le) without process prefixes and without the log prefix of a record that wraps another line
     * ({@code ERROR 12-01 … [f.py:1] }), keeping the indentation of what it wraps (a traceback's source lines are
     * indented).
     */
    private static String body(String text, int ls, int le) {
        String raw = text.substring(ls, Math.min(le, ls + PREFIX_CHARS));
        String s = raw.stripLeading();
        boolean prefixed = false;
        Matcher p = PROCESS_PREFIX.matcher(s);
        if (p.lookingAt()) {
            s = s.substring(p.end());
            prefixed = true;
        }
        Matcher m = LOG_PREFIX.matcher(s);
        if (m.lookingAt()) {
            return s.substring(m.end());
        }
        return prefixed ? s : raw;
    }

    /** True for a log record at DEBUG/INFO/WARNING level or a Python warning: advice, never a failure signature. */
    static boolean isAdvice(String text, int ls, int le) {
        String h = head(text, ls, le);
        if (h.isEmpty()) {
            return false;
        }
        return ADVICE.matcher(h).lookingAt() || h.contains("Warning: ") && PY_WARNING.matcher(h).find();
    }

    /** True for a traceback frame line ({@code File "…", line N}) or the source line printed under one. */
    static boolean isCode(String text, int ls, int le) {
        if (isFrame(text, ls, le)) {
            return true;
        }
        if (ls == 0) {
            return false;
        }
        int prevEnd = ls - 1;
        int floor = Math.max(0, prevEnd - MAX_FRAME_LINE);
        int prevStart = text.lastIndexOf('\n', prevEnd - 1) + 1;
        if (prevStart < floor) {
            return false;
        }
        return isFrame(text, prevStart, prevEnd) && leadingBlanks(text, ls, le) > 0;
    }

    private static boolean isFrame(String text, int ls, int le) {
        return FRAME.matcher(body(text, ls, le)).lookingAt();
    }

    private static int leadingBlanks(String text, int ls, int le) {
        String b = body(text, ls, le);
        int i = 0;
        while (i < b.length() && (b.charAt(i) == ' ' || b.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** True for a Python exception line ({@code ValueError: …}, {@code torch.OutOfMemoryError: …}). */
    static boolean isException(String text, int ls, int le) {
        String b = body(text, ls, le);
        return mentionsAny(b, EXCEPTION_WORDS) && EXCEPTION.matcher(b).lookingAt() && !b.contains("Warning: ");
    }

    /** Words one of which an exception line / an error marker holds: most lines skip the regex (linear, cheap). */
    private static final String[] EXCEPTION_WORDS = {"Error", "Exception", "Exit", "Interrupt", "Expired", "Fault",
            "Failure"};
    private static final String[] MARKER_WORDS = {"ERROR", "CRITICAL", "FATAL", "_FAILED", "_CRASHED", "_TIMEOUT",
            "_FAILURE", "error", "Error", "fatal", "E0", "E1"};

    private static boolean mentionsAny(String s, String[] words) {
        for (String w : words) {
            if (s.contains(w)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The exception line of the last traceback in {@code text} and the lines around it: the last frame's location
     * and source line before it, and up to two lines continuing its message. Without a traceback header (a tail-kept
     * log), the last exception line. Empty when there is none. Lines are whole (stripped), not yet redacted.
     */
    static List<String> lastException(String text) {
        List<int[]> lines = new ArrayList<>();
        int tb = text.lastIndexOf("Traceback (most recent call last)");
        int from = tb < 0 ? 0 : text.lastIndexOf('\n', tb) + 1;
        int s = from;
        int n = text.length();
        while (s < n) {
            int e = text.indexOf('\n', s);
            if (e < 0) {
                e = n;
            }
            lines.add(new int[] {s, e});
            s = e + 1;
        }
        int exc = -1;
        if (tb >= 0) {
            for (int i = 1; i < lines.size(); i++) {
                int[] l = lines.get(i);
                String h = body(text, l[0], l[1]);
                if (h.isBlank()) {
                    continue;
                }
                if (isCode(text, l[0], l[1]) || h.strip().chars().allMatch(c -> c == '^' || c == '~' || c == ' ')
                        || leadingBlanks(text, l[0], l[1]) > 0 || isAdvice(text, l[0], l[1])) {
                    continue;
                }
                exc = i;
                break;
            }
        }
        if (exc < 0) {
            for (int i = lines.size() - 1; i >= 0; i--) {
                int[] l = lines.get(i);
                if (isException(text, l[0], l[1]) && !isAdvice(text, l[0], l[1])) {
                    exc = i;
                    break;
                }
            }
        }
        if (exc < 0) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        // the last frame before the exception line: its location and its source line
        for (int i = exc - 1; i >= Math.max(0, exc - 8); i--) {
            int[] l = lines.get(i);
            if (isFrame(text, l[0], l[1])) {
                out.add(line(text, l));
                if (i + 1 < exc && isCode(text, lines.get(i + 1)[0], lines.get(i + 1)[1])) {
                    out.add(line(text, lines.get(i + 1)));
                }
                break;
            }
        }
        out.add(line(text, lines.get(exc)));
        for (int i = exc + 1; i < lines.size() && i <= exc + CONTINUATION_LINES; i++) {
            int[] l = lines.get(i);
            String h = head(text, l[0], l[1]);
            if (h.isBlank() || isAdvice(text, l[0], l[1]) || isFrame(text, l[0], l[1])
                    || h.startsWith("Traceback") || h.startsWith("===") || mentionsAny(h, MARKER_WORDS)
                    && MARKER.matcher(h).find()) {
                break;
            }
            out.add(line(text, l));
        }
        return out;
    }

    /** The first error marker: an ERROR/CRITICAL record, a {@code *_FAILED}/{@code *_CRASHED} token, {@code error:}. */
    static String firstMarker(String text) {
        int s = 0;
        int n = text.length();
        while (s < n) {
            int e = text.indexOf('\n', s);
            if (e < 0) {
                e = n;
            }
            String h = head(text, s, e);
            if (!h.isEmpty() && mentionsAny(h, MARKER_WORDS) && MARKER.matcher(h).find() && !isAdvice(text, s, e)
                    && !isCode(text, s, e)) {
                return line(text, new int[] {s, e});
            }
            s = e + 1;
        }
        return null;
    }

    private static String line(String text, int[] l) {
        int end = Math.min(l[1], l[0] + ConsoleText.MAX_EVIDENCE_CHARS);
        String t = text.substring(l[0], end);
        int cr = t.lastIndexOf('\r', t.length() - 2);
        if (cr >= 0 && !t.substring(cr + 1).isBlank()) {
            t = t.substring(cr + 1);
        }
        t = t.strip();
        if (l[1] - l[0] > ConsoleText.MAX_EVIDENCE_CHARS) {
            t += " …[line of " + (l[1] - l[0]) + " chars cut]";
        }
        return t;
    }

    private static final String NONE_PATH = "expected str, bytes or os.PathLike object, not NoneType";
    private static final String NO_FILE = "FileNotFoundError: [Errno 2] No such file or directory";

    /**
     * Start of the line of a {@code TypeError: expected str, bytes or os.PathLike object, not NoneType} raised inside a
     * benchmark's dataset sampler ({@code sample_sharegpt_requests}, any {@code sample_*_requests} frame within the
     * three lines above): the older wording of "dataset_path must be provided" (a command without a dataset path).
     * Else the line of a {@code FileNotFoundError: [Errno 2] No such file or directory} raised there (the command names
     * a dataset file that is not there). -1 when there is none.
     */
    static int datasetPathMissing(String text) {
        int found = sampledLine(text, NONE_PATH);
        return found >= 0 ? found : sampledLine(text, NO_FILE);
    }

    private static int sampledLine(String text, String needle) {
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length())) {
            int ls = text.lastIndexOf('\n', at) + 1;
            int from = ls;
            for (int k = 0; k < 3 && from > 0; k++) {
                from = text.lastIndexOf('\n', from - 2) + 1;
            }
            String above = text.substring(from, ls);
            int s = above.indexOf(" in sample_");
            if (s >= 0 && above.indexOf("_requests", s) >= 0) {
                return ls;
            }
        }
        return -1;
    }
}
