package io.isobench.legacy;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What {@code isobench import legacy} did with every file under the root: none is dropped silently. The summary
 * ({@link #print}) counts files per format and outcome, then per outcome, format and reason, with one example path
 * each: its size does not grow with the tree, and no line is longer than {@link #MAX_LINE} characters (long reasons and
 * paths are shortened there; {@link #printList} and the store keep them whole).
 *
 * @param root      the import root as given
 * @param files     one entry per regular file, in walk order
 * @param elapsedMs wall time of the walk
 */
public record ImportSummary(String root, List<FileOutcome> files, long elapsedMs) {

    /** The longest line {@link #print} writes (about a screen's width). */
    static final int MAX_LINE = 200;
    /** The longest reason shown in a summary line. */
    private static final int MAX_REASON = 120;
    private static final Pattern QUOTED = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'[^'\\n]*'");
    private static final Pattern DIGITS = Pattern.compile("\\d+");
    private static final Pattern KEYS = Pattern.compile(";\\s*keys:.*$", Pattern.DOTALL);
    private static final Pattern POSITION = Pattern.compile(" at line \\d+, column \\d+");

    /** Outcome of one file. */
    public enum Outcome {
        /** Read and stored. */
        IMPORTED,
        /** Invalid JSON repaired and stored; flagged, never used as a 3-way source. */
        RECOVERED,
        /** Not importable; the reason says why. */
        REFUSED,
        /** Deliberately not imported (not a result file, derived data, export table). */
        SKIPPED,
        /** Already in the store with the same relative path and SHA-256: nothing changed. */
        UNCHANGED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The outcome a source row stores ({@code imported}, {@code refused}, …), IMPORTED for anything else. */
        static Outcome ofStored(String label) {
            for (Outcome o : values()) {
                if (o != UNCHANGED && o.label().equals(label)) {
                    return o;
                }
            }
            return IMPORTED;
        }
    }

    /**
     * @param path     canonical relative path
     * @param formatId R1…R13, journal, export, other
     * @param outcome  what happened in this import
     * @param reason   why (refused/skipped/recovered; for an unchanged file, the reason stored when it was imported), or
     *                 null
     * @param runs     runs stored from this file
     * @param standing what the file is in the store: {@code outcome}, or for an UNCHANGED file the outcome stored when
     *                 it was imported (so a re-import still lists what was refused, recovered or skipped)
     */
    public record FileOutcome(String path, String formatId, Outcome outcome, String reason, int runs,
                              Outcome standing) {

        /** A file this import read (its standing is its outcome). */
        public FileOutcome(String path, String formatId, Outcome outcome, String reason, int runs) {
            this(path, formatId, outcome, reason, runs, outcome);
        }
    }

    public ImportSummary {
        files = List.copyOf(files);
    }

    public long count(Outcome outcome) {
        return files.stream().filter(f -> f.outcome() == outcome).count();
    }

    public long runs() {
        return files.stream().mapToLong(FileOutcome::runs).sum();
    }

    /**
     * Per-format counts, formats in contract order, then the totals; then, for the files that stand recovered, refused
     * or skipped (unchanged ones included, with their stored reasons), one line per outcome, format and reason class
     * ({@link #reasonClass}) with the count and one example path, most frequent first.
     */
    public void print(PrintWriter out) {
        print(out, false);
    }

    /** {@link #print(PrintWriter)}; {@code pathsFollow}: every path is listed next, so no hint at --list-skipped. */
    public void print(PrintWriter out, boolean pathsFollow) {
        Map<String, long[]> perFormat = new LinkedHashMap<>();
        for (LegacyFormat f : LegacyFormat.values()) {
            perFormat.put(f.id(), new long[Outcome.values().length + 1]);
        }
        for (FileOutcome f : files) {
            long[] c = perFormat.computeIfAbsent(f.formatId(), k -> new long[Outcome.values().length + 1]);
            c[f.outcome().ordinal()]++;
            c[Outcome.values().length] += f.runs();
        }
        out.println(shorten("legacy import of " + root + ": " + files.size() + " files", MAX_LINE));
        out.println(String.format(Locale.ROOT, "%-8s %9s %10s %8s %8s %10s %6s", "format", "imported", "recovered",
                "refused", "skipped", "unchanged", "runs"));
        long[] total = new long[Outcome.values().length + 1];
        for (Map.Entry<String, long[]> e : perFormat.entrySet()) {
            long[] c = e.getValue();
            long sum = 0;
            for (int i = 0; i < Outcome.values().length; i++) {
                sum += c[i];
            }
            if (sum == 0) {
                continue;
            }
            out.println(row(e.getKey(), c));
            for (int i = 0; i < c.length; i++) {
                total[i] += c[i];
            }
        }
        out.println(row("total", total));
        boolean any = false;
        for (Outcome o : List.of(Outcome.RECOVERED, Outcome.REFUSED, Outcome.SKIPPED)) {
            List<Group> groups = groups(o);
            if (groups.isEmpty()) {
                continue;
            }
            any = true;
            long n = groups.stream().mapToLong(Group::files).sum();
            long unchanged = groups.stream().mapToLong(Group::unchanged).sum();
            out.println(o.label() + ": " + n + (n == 1 ? " file" : " files")
                    + (unchanged == 0 ? "" : " (" + unchanged + " unchanged since an earlier import)"));
            for (Group g : groups) {
                out.println(shorten(String.format(Locale.ROOT, "  %6d  %-8s %s", g.files(), g.formatId(),
                        shorten(g.reason(), MAX_REASON)), MAX_LINE));
                out.println(shortenPath("          e.g. ", g.example()));
            }
        }
        if (any && !pathsFollow) {
            out.println("every path with its reason: --list-skipped");
        }
        out.flush();
    }

    /**
     * Every file that is not simply imported (standing recovered, refused or skipped; unchanged ones included), one
     * line each, tab-separated, whole: {@code outcome, format, path, reason} after a header line; an unchanged file's
     * outcome is its stored one followed by {@code (unchanged)}. Tabs and line breaks in a reason become spaces.
     */
    public void printList(PrintWriter out) {
        out.println("outcome\tformat\tpath\treason");
        for (FileOutcome f : files) {
            if (f.standing() == Outcome.IMPORTED || f.standing() == Outcome.UNCHANGED) {
                continue;
            }
            String outcome = f.standing().label() + (f.outcome() == Outcome.UNCHANGED ? " (unchanged)" : "");
            out.println(outcome + "\t" + f.formatId() + "\t" + oneLine(f.path()) + "\t"
                    + oneLine(f.reason() == null ? "" : f.reason()));
        }
        out.flush();
    }

    /** Files of one outcome, format and reason class. */
    private record Group(String formatId, String reason, String example, long files, long unchanged) {
    }

    private List<Group> groups(Outcome standing) {
        Map<String, Group> byKey = new LinkedHashMap<>();
        for (FileOutcome f : files) {
            if (f.standing() != standing) {
                continue;
            }
            String cls = reasonClass(f.reason());
            String key = f.formatId() + "\n" + cls;
            Group g = byKey.get(key);
            long unchanged = f.outcome() == Outcome.UNCHANGED ? 1 : 0;
            byKey.put(key, g == null ? new Group(f.formatId(), cls, f.path(), 1, unchanged)
                    : new Group(g.formatId(), cls, g.example(), g.files() + 1, g.unchanged() + unchanged));
        }
        List<Group> out = new ArrayList<>(byKey.values());
        out.sort(Comparator.comparingLong(Group::files).reversed());
        return out;
    }

    /**
     * The class of a reason, what the summary counts by: a refusal's key list dropped ({@code no known result schema;
     * keys: …} → {@code no known result schema}), a parser's position dropped, quoted text shown as {@code "…"}, numbers
     * as {@code N}; one line.
     */
    static String reasonClass(String reason) {
        if (reason == null || reason.isBlank()) {
            return "(no reason recorded)";
        }
        String r = KEYS.matcher(oneLine(reason)).replaceAll(" (keys: --list-skipped)");
        r = POSITION.matcher(r).replaceAll("");
        r = QUOTED.matcher(r).replaceAll(m -> m.group().startsWith("'") ? "'…'" : "\"…\"");
        return DIGITS.matcher(r).replaceAll("N");
    }

    private static String oneLine(String s) {
        return s.replace('\t', ' ').replace('\r', ' ').replace('\n', ' ');
    }

    /** {@code s} cut to {@code max} characters, ending in {@code …} when cut. */
    static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    /** {@code prefix + path}, the middle of the path replaced by {@code …} when the line would be too long. */
    private static String shortenPath(String prefix, String path) {
        int room = MAX_LINE - prefix.length();
        if (path.length() <= room) {
            return prefix + path;
        }
        int tail = room * 2 / 3;
        return prefix + path.substring(0, room - tail - 1) + "…" + path.substring(path.length() - tail);
    }

    private static String row(String name, long[] c) {
        return String.format(Locale.ROOT, "%-8s %9d %10d %8d %8d %10d %6d", name,
                c[Outcome.IMPORTED.ordinal()], c[Outcome.RECOVERED.ordinal()], c[Outcome.REFUSED.ordinal()],
                c[Outcome.SKIPPED.ordinal()], c[Outcome.UNCHANGED.ordinal()], c[Outcome.values().length]);
    }
}
