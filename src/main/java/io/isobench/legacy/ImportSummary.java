package io.isobench.legacy;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code isobench import legacy} did with every file under the root: none is dropped silently.
 *
 * @param root      the import root as given
 * @param files     one entry per regular file, in walk order
 * @param elapsedMs wall time of the walk
 */
public record ImportSummary(String root, List<FileOutcome> files, long elapsedMs) {

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
    }

    /**
     * @param path     canonical relative path
     * @param formatId R1…R13, export, other
     * @param outcome  what happened
     * @param reason   why (refused/skipped/recovered), or null
     * @param runs     runs stored from this file
     */
    public record FileOutcome(String path, String formatId, Outcome outcome, String reason, int runs) {
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

    /** Per-format counts, formats in first-seen order, then the totals; and the reason of every file not plainly imported. */
    public void print(PrintWriter out) {
        Map<String, long[]> perFormat = new LinkedHashMap<>();
        for (LegacyFormat f : LegacyFormat.values()) {
            perFormat.put(f.id(), new long[Outcome.values().length + 1]);
        }
        for (FileOutcome f : files) {
            long[] c = perFormat.computeIfAbsent(f.formatId(), k -> new long[Outcome.values().length + 1]);
            c[f.outcome().ordinal()]++;
            c[Outcome.values().length] += f.runs();
        }
        out.println("legacy import of " + root + ": " + files.size() + " files");
        String header = String.format(Locale.ROOT, "%-8s %9s %10s %8s %8s %10s %6s", "format", "imported", "recovered",
                "refused", "skipped", "unchanged", "runs");
        out.println(header);
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
        for (Outcome o : List.of(Outcome.RECOVERED, Outcome.REFUSED, Outcome.SKIPPED)) {
            List<FileOutcome> list = new ArrayList<>();
            for (FileOutcome f : files) {
                if (f.outcome() == o) {
                    list.add(f);
                }
            }
            if (!list.isEmpty()) {
                out.println(o.label() + ":");
                for (FileOutcome f : list) {
                    out.println("  " + f.path() + " [" + f.formatId() + "]: " + f.reason());
                }
            }
        }
        out.flush();
    }

    private static String row(String name, long[] c) {
        return String.format(Locale.ROOT, "%-8s %9d %10d %8d %8d %10d %6d", name,
                c[Outcome.IMPORTED.ordinal()], c[Outcome.RECOVERED.ordinal()], c[Outcome.REFUSED.ordinal()],
                c[Outcome.SKIPPED.ordinal()], c[Outcome.UNCHANGED.ordinal()], c[Outcome.values().length]);
    }
}
