package io.isobench.parse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Classifies a failed run into exactly one {@link FailureCategory} (DESIGN.md §7), with a short detail and the
 * evidence line(s). Signatures live in one ordered generic table ({@link FailureSignatures#ALL}); docs/parsing.md lists
 * them. Where the run's engine is known, its adapter's own lines ({@link FailureSignature}) are matched too, after the
 * table: a tie goes to the table (docs/engines.md, "Failure lines").
 *
 * <p>Rules, in order:
 * <ol>
 *   <li>Output that parses into metrics is not a failure, whatever a stored status says (ISO-Bench stored
 *       {@code error} for runs whose raw text holds a valid result): the result is empty.</li>
 *   <li>A stored status {@code success} with no failure signature anywhere is not a failure either.</li>
 *   <li>Every error line of the status, the error text and the console text is matched against the table, never an
 *       INFO/WARNING record, a Python warning or a traceback's code ({@link ErrorLines}); a serving result header
 *       without metric rows counts as a {@code NO_METRICS} signature.</li>
 *   <li>The matched category with the lowest {@link FailureCategory#precedence()} wins: a specific root cause beats
 *       {@code SERVER_CRASHED}/{@code SERVER_START_TIMEOUT}, which beat {@code NO_METRICS}/{@code TIMEOUT}; ties go to
 *       the signature listed first in the table (the generic table, then the engine's lines in their order).</li>
 *   <li>Nothing matched: {@code UNKNOWN}, keeping the error, the last exception and the last non-blank console lines
 *       as evidence.</li>
 * </ol>
 * The evidence is a summary: the deciding signature line(s), the exception line of the last traceback with its frame,
 * the first error marker.
 * Never throws; work is linear in the input size.
 */
public final class FailureClassifier {

    /** Evidence lines kept per failure. */
    static final int MAX_EVIDENCE = 8;
    /** Signature lines kept before the summary (last exception, first marker). */
    private static final int SIGNATURE_EVIDENCE = 3;
    private static final int UNKNOWN_TAIL_LINES = 3;

    private static final String DATASET_PATH_MISSING = "perf command's dataset is missing: the benchmark's dataset"
            + " sampler opened no path (the older wording of 'dataset_path must be provided') or a file that is not there";

    private FailureClassifier() {
    }

    /** Classifies console text alone (for instance a stderr file), with the generic table. */
    public static Optional<Failure> classify(String text) {
        return classify(null, null, text, List.of());
    }

    /** Classifies console text alone with the generic table and {@code engine}'s own lines (its adapter's). */
    public static Optional<Failure> classify(String text, List<FailureSignature> engine) {
        return classify(null, null, text, engine);
    }

    /**
     * Classifies a run from its stored status (e.g. {@code version_bug}, {@code no_perf_command}, {@code timeout},
     * {@code exception}, {@code baseline_failed}), its error message and its console text; any may be null.
     */
    public static Optional<Failure> classify(String status, String error, String rawText) {
        return classify(status, error, rawText, List.of());
    }

    /**
     * Like {@link #classify(String, String, String)}, with the run's engine's own lines ({@code engine}: its
     * adapter's {@code failureSignatures()}) matched after the generic table; none: the generic table alone.
     */
    public static Optional<Failure> classify(String status, String error, String rawText,
                                             List<FailureSignature> engine) {
        try {
            return doClassify(status, error, rawText, Table.of(engine));
        } catch (RuntimeException | StackOverflowError e) {
            return Optional.of(new Failure(FailureCategory.UNKNOWN,
                    "classifier error (" + e.getClass().getSimpleName() + ")", List.of()));
        }
    }

    private static Optional<Failure> doClassify(String status, String error, String rawText, Table table) {
        String stripped = rawText == null ? "" : ConsoleText.stripControls(rawText);
        ParsedOutput parsed = OutputParser.parseStripped(stripped, OutputParser.Truncation.NONE);
        if (parsed.hasMetrics()) {
            return Optional.empty();
        }
        String raw = ErrorLines.unescapeReprLines(stripped);
        Map<FailureCategory, Hit> hits = new EnumMap<>(FailureCategory.class);
        String st = status == null ? "" : ConsoleText.stripControls(status).strip();
        String err = error == null ? "" : ErrorLines.unescapeReprLines(ConsoleText.stripControls(error));
        if (!st.isEmpty()) {
            match(table, st, 0, true, "status: ", hits);
        }
        match(table, err, 1, true, "", hits);
        match(table, raw, 2, false, "", hits);
        for (int source = 1; source <= 2; source++) {
            String t = source == 1 ? err : raw;
            int noDataset = ErrorLines.datasetPathMissing(t);
            if (noDataset >= 0) {
                Hit h = hits.computeIfAbsent(FailureCategory.BAD_PERF_COMMAND, c -> new Hit(-1, DATASET_PATH_MISSING));
                h.add(key(source, noDataset), evidence(t, noDataset, ""));
                break;
            }
        }
        if (parsed.emptyResultBlock()) {
            Hit h = hits.computeIfAbsent(FailureCategory.NO_METRICS,
                    c -> new Hit(Integer.MAX_VALUE, "serving result block without metric rows: no metrics"));
            int at = raw.indexOf("Serving Benchmark Result");
            if (at >= 0) {
                h.add(key(2, lineStart(raw, at)), evidence(raw, at, ""));
            }
        }
        if (hits.isEmpty()) {
            if (st.equalsIgnoreCase("success")) {
                return Optional.empty();
            }
            return Optional.of(unknown(st, err, raw, summary(err, raw)));
        }
        FailureCategory best = null;
        for (Map.Entry<FailureCategory, Hit> e : hits.entrySet()) {
            if (best == null || e.getKey().precedence() < best.precedence()
                    || e.getKey().precedence() == best.precedence() && e.getValue().order < hits.get(best).order) {
                best = e.getKey();
            }
        }
        Hit win = hits.get(best);
        List<String> evidence = merge(win.evidence(), summary(err, raw));
        StringBuilder detail = new StringBuilder(win.description);
        String first = win.bestLine != null ? win.bestLine : evidence.isEmpty() ? "" : evidence.get(0);
        if (!first.isEmpty()) {
            detail.append(": ").append(first.length() > 200 ? first.substring(0, 200) + "…" : first);
        }
        List<String> also = new ArrayList<>();
        for (FailureCategory c : hits.keySet()) {
            if (c != best) {
                also.add(c.name());
            }
        }
        if (!also.isEmpty()) {
            detail.append(" (also seen: ").append(String.join(", ", also)).append(')');
        }
        return Optional.of(new Failure(best, detail.toString(), evidence));
    }

    private static final class Hit {
        int order;
        String description;
        /** The line matched by the signature that gave {@code description}. */
        String bestLine;
        /** Evidence by (source, line start): text order, one entry per line. */
        private final TreeMap<Long, String> lines = new TreeMap<>();

        Hit(int order, String description) {
            this.order = order;
            this.description = description;
        }

        void add(long key, String line) {
            lines.putIfAbsent(key, line);
        }

        List<String> evidence() {
            List<String> out = new ArrayList<>();
            for (String l : lines.values()) {
                if (out.size() == MAX_EVIDENCE) {
                    break;
                }
                if (!out.contains(l)) {
                    out.add(l);
                }
            }
            return out;
        }
    }

    private static long key(int source, int lineStart) {
        return ((long) source << 40) | lineStart;
    }

    /**
     * The signatures a classification matches, in order (the generic table, then an engine's own lines), and one
     * scanner over their needles: every occurrence of every needle in one pass, linear in the text length.
     */
    private record Table(List<FailureSignatures.Signature> signatures, NeedleScanner scanner) {

        private static final Table GENERIC = make(FailureSignatures.ALL);
        /** One table per engine's list of lines (a handful of adapters): made once. */
        private static final Map<List<FailureSignature>, Table> WITH_ENGINE = new ConcurrentHashMap<>();

        static Table of(List<FailureSignature> engine) {
            if (engine == null || engine.isEmpty()) {
                return GENERIC;
            }
            return WITH_ENGINE.computeIfAbsent(List.copyOf(engine), e -> {
                List<FailureSignatures.Signature> all = new ArrayList<>(FailureSignatures.ALL);
                e.forEach(s -> all.add(FailureSignatures.ofEngine(s)));
                return make(all);
            });
        }

        private static Table make(List<FailureSignatures.Signature> signatures) {
            return new Table(List.copyOf(signatures),
                    new NeedleScanner(signatures.stream().map(FailureSignatures.Signature::needle).toList()));
        }

        int size() {
            return signatures.size();
        }

        FailureSignatures.Signature get(int k) {
            return signatures.get(k);
        }
    }

    private static void match(Table table, String text, int source, boolean hint, String prefix,
                              Map<FailureCategory, Hit> hits) {
        if (text.isBlank()) {
            return;
        }
        if (hint) {
            String whole = asciiLower(text.strip());
            for (int i = 0; i < table.size(); i++) {
                if (table.get(i).whole() && whole.equals(table.get(i).needle())) {
                    record(hits, table.get(i), i, source, 0, evidence(text, 0, prefix));
                }
            }
        }
        table.scanner().scan(text, new Occurrences(table, text, source, hint, prefix, hits));
    }

    /** Handles the scanner's occurrences (in text order): context checks, evidence, at most MAX_EVIDENCE per signature. */
    private static final class Occurrences implements NeedleScanner.Sink {
        private final Table table;
        private final String text;
        private final int source;
        private final boolean hint;
        private final String prefix;
        private final Map<FailureCategory, Hit> hits;
        private final int[] found;
        private final int[] skipUntil;
        private final Follow[] follows;
        private String lower;
        private int ls;
        private int le = -1; // bounds of the line of the current occurrence, found once per line (linear overall)
        private boolean adviceOrCode; // the current line is advice (INFO/WARNING) or traceback code: never a signature

        Occurrences(Table table, String text, int source, boolean hint, String prefix, Map<FailureCategory, Hit> hits) {
            this.table = table;
            this.found = new int[table.size()];
            this.skipUntil = new int[table.size()];
            this.follows = new Follow[table.size()];
            this.text = text;
            this.source = source;
            this.hint = hint;
            this.prefix = prefix;
            this.hits = hits;
        }

        @Override
        public void occurrence(int k, int pos) {
            FailureSignatures.Signature s = table.get(k);
            if (s.whole() || s.scope() == FailureSignatures.Scope.HINT && !hint || found[k] >= MAX_EVIDENCE
                    || pos < skipUntil[k]) {
                return;
            }
            if (pos > le) {
                ls = lineStart(text, pos, le + 1);
                le = text.indexOf('\n', pos);
                if (le < 0) {
                    le = text.length();
                }
                adviceOrCode = ErrorLines.isAdvice(text, ls, le) || ErrorLines.isCode(text, ls, le);
            }
            if (adviceOrCode) {
                return;
            }
            if (!s.after().isEmpty() || !s.before().isEmpty()) {
                if (lower == null) {
                    lower = asciiLower(text);
                }
                int end = pos + s.needle().length();
                if (!s.after().isEmpty()) {
                    if (follows[k] == null) {
                        follows[k] = new Follow(lower, s.after());
                    }
                    if (!follows[k].within(end, Math.min(le, end + s.within()))) {
                        return;
                    }
                }
                if (!s.before().isEmpty() && !endsBefore(lower, s.before(), Math.max(ls, pos - s.within()), pos)) {
                    return;
                }
            }
            record(hits, s, k, source, ls, evidence(text, pos, ls, le, prefix));
            found[k]++;
            skipUntil[k] = le + 1;
        }
    }

    private static void record(Map<FailureCategory, Hit> hits, FailureSignatures.Signature s, int order, int source,
                               int lineStart, String line) {
        Hit h = hits.computeIfAbsent(s.category(), c -> new Hit(order, s.description()));
        if (order < h.order || h.bestLine == null && h.order == order) {
            h.order = order;
            h.description = s.description();
            h.bestLine = line;
        }
        h.add(key(source, lineStart), line);
    }

    /**
     * "One of these words starts in [from, limit)". Remembers the next occurrence of each word, so that a needle
     * repeated all over a huge line costs amortised linear time, not needle count × distance.
     */
    private static final class Follow {
        private final String lower;
        private final List<String> words;
        private final int[] next;

        Follow(String lower, List<String> words) {
            this.lower = lower;
            this.words = words;
            this.next = new int[words.size()];
            Arrays.fill(next, -2);
        }

        boolean within(int from, int limit) {
            for (int w = 0; w < words.size(); w++) {
                if (next[w] == -1) {
                    continue; // no occurrence anywhere after an earlier search point
                }
                if (next[w] < from) {
                    next[w] = lower.indexOf(words.get(w), from);
                }
                if (next[w] >= 0 && next[w] + words.get(w).length() <= limit) {
                    return true;
                }
            }
            return false;
        }
    }

    /** One of {@code words} lies entirely in [from, to). The span is short (a signature's {@code within}). */
    private static boolean endsBefore(String lower, List<String> words, int from, int to) {
        for (String w : words) {
            for (int i = to - w.length(); i >= from; i--) {
                if (lower.startsWith(w, i)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int lineStart(String text, int pos) {
        return text.lastIndexOf('\n', pos) + 1;
    }

    /** Start of the line holding {@code pos}, searching back no further than {@code floor}. */
    private static int lineStart(String text, int pos, int floor) {
        for (int i = pos - 1; i >= floor; i--) {
            if (text.charAt(i) == '\n') {
                return i + 1;
            }
        }
        return floor;
    }

    /** The evidence line around {@code pos}: its {@code \r}-segment (what the terminal showed), whole up to a cap. */
    private static String evidence(String text, int pos, String prefix) {
        int le = text.indexOf('\n', pos);
        return evidence(text, pos, lineStart(text, pos), le < 0 ? text.length() : le, prefix);
    }

    private static String evidence(String text, int pos, int ls, int le, String prefix) {
        int ss = ls;
        for (int i = Math.min(pos, le) - 1; i >= ls; i--) {
            if (text.charAt(i) == '\r') {
                ss = i + 1;
                break;
            }
        }
        int se = le;
        for (int i = ss; i < le; i++) {
            if (text.charAt(i) == '\r') {
                se = i;
                break;
            }
        }
        // A Python bytes/str repr (b'…\\n…') holds a whole log on one line with escaped newlines: the evidence is
        // the escaped line that holds the match.
        int escBefore = text.lastIndexOf("\\n", Math.min(pos, se) - 1);
        if (escBefore >= ss) {
            ss = escBefore + 2;
        }
        int escAfter = text.indexOf("\\n", Math.max(pos, ss));
        if (escAfter >= 0 && escAfter < se) {
            se = escAfter;
        }
        if (se - ss > ConsoleText.MAX_EVIDENCE_CHARS) {
            int from = Math.max(ss, pos - ConsoleText.MAX_EVIDENCE_CHARS / 4);
            int to = Math.min(se, from + ConsoleText.MAX_EVIDENCE_CHARS);
            return ConsoleText.redact(prefix + "…" + text.substring(from, to).strip() + " …[line of " + (se - ss)
                    + " chars cut]");
        }
        return ConsoleText.redact(prefix + text.substring(ss, se).strip());
    }

    /** Lower-cases ASCII letters only, so that indexes stay aligned with the original text (needles are ASCII). */
    static String asciiLower(String s) {
        char[] c = null;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch >= 'A' && ch <= 'Z') {
                if (c == null) {
                    c = s.toCharArray();
                }
                c[i] = (char) (ch + 32);
            }
        }
        return c == null ? s : new String(c);
    }

    /** What a terminal shows of a line: its last non-blank {@code \r}-segment, capped and redacted. */
    private static String lastSegment(String line) {
        int end = line.length();
        while (end > 0) {
            int cr = line.lastIndexOf('\r', end - 1);
            String seg = line.substring(cr + 1, end);
            if (!seg.isBlank()) {
                return evidence(seg, 0, 0, seg.length(), "");
            }
            end = cr < 0 ? 0 : cr;
        }
        return "";
    }

    private static Failure unknown(String status, String error, String raw, List<String> summary) {
        List<String> evidence = new ArrayList<>();
        if (!status.isEmpty()) {
            evidence.add("status: " + status);
        }
        for (String l : error.split("\n", MAX_EVIDENCE + 1)) {
            if (!l.isBlank() && evidence.size() < MAX_EVIDENCE) {
                evidence.add(lastSegment(l));
            }
        }
        for (String l : summary) {
            if (!evidence.contains(l)) {
                evidence.add(l);
            }
        }
        List<String> tail = new ArrayList<>();
        int end = raw.length();
        while (end > 0 && tail.size() < UNKNOWN_TAIL_LINES) {
            int ls = raw.lastIndexOf('\n', end - 1) + 1;
            String line = raw.substring(ls, end);
            if (!line.isBlank()) {
                tail.add(0, lastSegment(line));
            }
            end = ls - 1;
        }
        for (String t : tail) {
            if (!evidence.contains(t)) {
                evidence.add(t);
            }
        }
        String detail = evidence.isEmpty() ? "no output and no error recorded"
                : "no known failure signature; kept the error, the last exception and the last output lines";
        return new Failure(FailureCategory.UNKNOWN, detail, evidence.size() > MAX_EVIDENCE
                ? evidence.subList(0, MAX_EVIDENCE) : evidence);
    }

    /**
     * The summary of a failure's text beyond the signature lines: the exception line of the last traceback with the
     * lines around it (from the console text, else the error field), then the first error marker (from the error
     * field, else the console text); redacted (docs/parsing.md "Evidence").
     */
    private static List<String> summary(String error, String raw) {
        List<String> out = new ArrayList<>();
        List<String> exc = ErrorLines.lastException(raw);
        if (exc.isEmpty()) {
            exc = ErrorLines.lastException(error);
        }
        for (String l : exc) {
            out.add(ConsoleText.redact(l));
        }
        String marker = ErrorLines.firstMarker(error);
        if (marker == null) {
            marker = ErrorLines.firstMarker(raw);
        }
        if (marker != null && !out.contains(ConsoleText.redact(marker))) {
            out.add(ConsoleText.redact(marker));
        }
        return out;
    }

    /** The signature lines (at most {@link #SIGNATURE_EVIDENCE}) then the summary lines, without repeats, capped. */
    private static List<String> merge(List<String> signatureLines, List<String> summary) {
        List<String> out = new ArrayList<>();
        // a stored status says less than the line that explains it: status lines go after the others
        List<String> ordered = new ArrayList<>(signatureLines);
        ordered.sort(Comparator.comparing(l -> l.startsWith("status: ")));
        for (String l : ordered) {
            if (out.size() < SIGNATURE_EVIDENCE && !out.contains(l)) {
                out.add(l);
            }
        }
        for (String l : summary) {
            if (out.size() < MAX_EVIDENCE && !out.contains(l)) {
                out.add(l);
            }
        }
        return out;
    }

}
