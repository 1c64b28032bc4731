package io.isobench.parse;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Classifies a failed run into exactly one {@link FailureCategory} (DESIGN.md §7), with a short detail and the
 * evidence line(s). Signatures live in one ordered table ({@link FailureSignatures#ALL}); docs/parsing.md lists them.
 *
 * <p>Rules, in order:
 * <ol>
 *   <li>Output that parses into metrics is not a failure, whatever a stored status says (ISO-Bench stored
 *       {@code error} for runs whose raw text holds a valid result): the result is empty.</li>
 *   <li>A stored status {@code success} with no failure signature anywhere is not a failure either.</li>
 *   <li>Every line of the status, the error text and the console text is matched against the table; a serving
 *       result header without metric rows counts as a {@code NO_METRICS} signature.</li>
 *   <li>The matched category with the lowest {@link FailureCategory#precedence()} wins: a specific root cause beats
 *       {@code SERVER_CRASHED}/{@code SERVER_START_TIMEOUT}, which beat {@code NO_METRICS}/{@code TIMEOUT}; ties go to
 *       the signature listed first in the table.</li>
 *   <li>Nothing matched: {@code UNKNOWN}, keeping the error and the last non-blank console lines as evidence.</li>
 * </ol>
 * Never throws; work is linear in the input size.
 */
public final class FailureClassifier {

    /** Evidence lines kept per failure (the first ones, in text order). */
    static final int MAX_EVIDENCE = 8;
    private static final int UNKNOWN_TAIL_LINES = 3;
    /** Lines longer than this are matched on their head and tail windows only. */
    private static final int MATCH_WINDOW = 16_384;

    private FailureClassifier() {
    }

    /** Classifies console text alone (for instance a stderr file). */
    public static Optional<Failure> classify(String text) {
        return classify(null, null, text);
    }

    /**
     * Classifies a run from its stored status (e.g. {@code version_bug}, {@code no_perf_command}, {@code timeout},
     * {@code exception}, {@code baseline_failed}), its error message and its console text; any may be null.
     */
    public static Optional<Failure> classify(String status, String error, String rawText) {
        try {
            return doClassify(status, error, rawText);
        } catch (RuntimeException | StackOverflowError e) {
            return Optional.of(new Failure(FailureCategory.UNKNOWN,
                    "classifier error (" + e.getClass().getSimpleName() + ")", List.of()));
        }
    }

    private static Optional<Failure> doClassify(String status, String error, String rawText) {
        ParsedOutput parsed = OutputParser.parse(rawText);
        if (parsed.hasMetrics()) {
            return Optional.empty();
        }
        Map<FailureCategory, Hit> hits = new EnumMap<>(FailureCategory.class);
        String st = status == null ? "" : status.strip();
        if (!st.isEmpty()) {
            match(st, "status: " + st, true, hits);
        }
        List<ConsoleText.Line> errorLines = ConsoleText.lines(error);
        for (ConsoleText.Line l : errorLines) {
            match(l.text(), l.evidence(), true, hits);
        }
        List<ConsoleText.Line> rawLines = ConsoleText.lines(rawText);
        for (ConsoleText.Line l : rawLines) {
            match(l.text(), l.evidence(), false, hits);
        }
        if (parsed.emptyResultBlock()) {
            Hit h = hits.computeIfAbsent(FailureCategory.NO_METRICS,
                    c -> new Hit(Integer.MAX_VALUE, "serving result block without metric rows: no metrics"));
            for (ConsoleText.Line l : rawLines) {
                if (l.text().contains("Serving Benchmark Result")) {
                    h.add(l.evidence());
                    break;
                }
            }
        }
        if (hits.isEmpty()) {
            if (st.equalsIgnoreCase("success")) {
                return Optional.empty();
            }
            return Optional.of(unknown(st, errorLines, rawLines));
        }
        FailureCategory best = null;
        for (Map.Entry<FailureCategory, Hit> e : hits.entrySet()) {
            if (best == null || e.getKey().precedence() < best.precedence()
                    || e.getKey().precedence() == best.precedence() && e.getValue().order < hits.get(best).order) {
                best = e.getKey();
            }
        }
        Hit win = hits.get(best);
        StringBuilder detail = new StringBuilder(win.description);
        String first = win.bestLine != null ? win.bestLine
                : win.evidence.isEmpty() ? "" : win.evidence.iterator().next();
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
        return Optional.of(new Failure(best, detail.toString(), new ArrayList<>(win.evidence)));
    }

    private static final class Hit {
        int order;
        String description;
        /** The line matched by the signature that gave {@code description}. */
        String bestLine;
        final Set<String> evidence = new LinkedHashSet<>();

        Hit(int order, String description) {
            this.order = order;
            this.description = description;
        }

        void add(String line) {
            if (evidence.size() < MAX_EVIDENCE) {
                evidence.add(line);
            }
        }
    }

    private static void match(String text, String evidence, boolean hint, Map<FailureCategory, Hit> hits) {
        if (text.isBlank()) {
            return;
        }
        if (text.length() <= 2 * MATCH_WINDOW) {
            matchWindow(text, evidence, hint, hits);
        } else {
            matchWindow(text.substring(0, MATCH_WINDOW), evidence, hint, hits);
            matchWindow(text.substring(text.length() - MATCH_WINDOW), evidence, hint, hits);
        }
    }

    private static void matchWindow(String text, String evidence, boolean hint, Map<FailureCategory, Hit> hits) {
        String lower = text.toLowerCase(Locale.ROOT);
        List<FailureSignatures.Signature> table = FailureSignatures.ALL;
        for (int i = 0; i < table.size(); i++) {
            FailureSignatures.Signature s = table.get(i);
            if (s.matches(text, lower, hint)) {
                final int order = i;
                Hit h = hits.computeIfAbsent(s.category(), c -> new Hit(order, s.description()));
                if (h.bestLine == null && h.order == order) {
                    h.bestLine = evidence;
                }
                if (order < h.order) {
                    h.order = order;
                    h.description = s.description();
                    h.bestLine = evidence;
                }
                h.add(evidence);
            }
        }
    }

    private static Failure unknown(String status, List<ConsoleText.Line> errorLines, List<ConsoleText.Line> rawLines) {
        List<String> evidence = new ArrayList<>();
        if (!status.isEmpty()) {
            evidence.add("status: " + status);
        }
        for (ConsoleText.Line l : errorLines) {
            if (!l.text().isBlank() && evidence.size() < MAX_EVIDENCE) {
                evidence.add(l.evidence());
            }
        }
        List<String> tail = new ArrayList<>();
        for (int i = rawLines.size() - 1; i >= 0 && tail.size() < UNKNOWN_TAIL_LINES; i--) {
            if (!rawLines.get(i).text().isBlank()) {
                tail.add(0, rawLines.get(i).evidence());
            }
        }
        evidence.addAll(tail);
        String detail = evidence.isEmpty() ? "no output and no error recorded"
                : "no known failure signature; kept the error and the last output lines";
        return new Failure(FailureCategory.UNKNOWN, detail, evidence);
    }
}
