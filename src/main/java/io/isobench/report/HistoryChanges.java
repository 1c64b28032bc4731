package io.isobench.report;

import io.isobench.guard.Secrets;
import io.isobench.legacy.TableFormat;
import io.isobench.store.Store;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code isobench changes}: the change rows of the store's tracks, one line each. The CSV columns are a contract
 * ({@link #COLUMNS}, golden-tested): direction {@code faster|slower|none}; {@code change_pct}, {@code ci_low_pct},
 * {@code ci_high_pct} plain decimals with two digits (empty when unknown); {@code status}
 * {@code candidate|confirmed|rejected}; {@code first_commit} the commit a bisect found (empty when none);
 * {@code evidence} on one line, secrets redacted. JSON: an array of objects with the same keys, then
 * {@link #JSON_EXTRA}. Only {@code confirmed} rows are changes; the others are listed with their numbers.
 */
public final class HistoryChanges {

    /** The CSV columns, in order (a contract). */
    public static final List<String> COLUMNS = List.of("task", "commit", "parent", "metric", "direction", "change_pct",
            "ci_low_pct", "ci_high_pct", "status", "first_commit", "evidence");
    /** The JSON objects' keys after {@link #COLUMNS}. */
    public static final List<String> JSON_EXTRA = List.of("track_id", "session_id", "commit_subject", "parent_subject",
            "first_commit_subject");
    /** The statuses a change row has (the names are a contract). */
    public static final List<String> STATUSES = List.of("confirmed", "rejected", "candidate");
    /** The table shows this much of the evidence; csv and json keep it whole. */
    private static final int TABLE_EVIDENCE_CHARS = 100;
    /** The table shows this much of a subject. */
    private static final int TABLE_SUBJECT_CHARS = 50;

    /** Output formats. */
    public enum Format {
        TABLE, CSV, JSON
    }

    /**
     * A change row with the subjects of its commits (null where the track's commit rows lack the commit).
     *
     * @param change        the stored row
     * @param commitSubject the subject of its commit (the measured commit after the change)
     * @param parentSubject the subject of its parent (the measured commit before it)
     * @param firstSubject  the subject of the bisected first commit, or null
     */
    public record Row(TrackChange change, String commitSubject, String parentSubject, String firstSubject) {
    }

    private HistoryChanges() {
    }

    /**
     * The change rows of the store, of one task ({@code task} null: every task) and one status ({@code status} null:
     * every status), ordered by task, track and position, each with its commits' subjects.
     */
    public static List<Row> read(Store store, String task, String status) {
        Map<String, List<TrackCommit>> commits = new HashMap<>();
        List<Row> rows = new ArrayList<>();
        for (TrackChange c : store.trackChanges(task)) {
            if (status != null && !status.equals(c.status())) {
                continue;
            }
            List<TrackCommit> of = commits.computeIfAbsent(c.trackId(), store::trackCommits);
            rows.add(new Row(c, subject(of, c.commitId()), subject(of, c.parentCommit()), subject(of, c.firstCommit())));
        }
        return rows;
    }

    /** Whether the store has a track (of {@code task}, or any when null). */
    public static boolean hasTracks(Store store, String task) {
        List<TrackRecord> tracks = store.tracks();
        return task == null ? !tracks.isEmpty() : tracks.stream().anyMatch(t -> task.equals(t.taskId()));
    }

    private static String subject(List<TrackCommit> commits, String id) {
        for (TrackCommit c : commits) {
            if (HistoryModel.sameCommit(c.commitId(), id)) {
                return c.subject();
            }
        }
        return null;
    }

    /** Writes the rows in {@code format}. */
    public static void write(List<Row> rows, Format format, PrintWriter out) {
        switch (format) {
            case CSV -> {
                TableFormat.Cells w = TableFormat.Cells.csv(out, COLUMNS);
                rows.forEach(r -> w.row(cells(r)));
                w.end();
            }
            case JSON -> {
                List<String> keys = new ArrayList<>(COLUMNS);
                keys.addAll(JSON_EXTRA);
                TableFormat.Cells w = TableFormat.Cells.json(out, keys, Set.of(COLUMNS.indexOf("change_pct"),
                        COLUMNS.indexOf("ci_low_pct"), COLUMNS.indexOf("ci_high_pct")));
                for (Row r : rows) {
                    List<String> c = cells(r);
                    c.add(r.change().trackId());
                    c.add(r.change().sessionId());
                    c.add(text(r.commitSubject()));
                    c.add(text(r.parentSubject()));
                    c.add(text(r.firstSubject()));
                    w.row(c);
                }
                w.end();
            }
            case TABLE -> table(rows, out);
        }
        out.flush();
    }

    /** The cells of one row, in {@link #COLUMNS} order; null = empty. */
    static List<String> cells(Row r) {
        TrackChange c = r.change();
        List<String> cells = new ArrayList<>(COLUMNS.size() + JSON_EXTRA.size());
        cells.add(c.taskId());
        cells.add(c.commitId());
        cells.add(c.parentCommit());
        cells.add(c.metric());
        cells.add(c.direction());
        cells.add(pct(c.changePct()));
        cells.add(pct(c.ciLowPct()));
        cells.add(pct(c.ciHighPct()));
        cells.add(c.status());
        cells.add(c.firstCommit() == null || c.firstCommit().isBlank() ? null : c.firstCommit());
        cells.add(text(c.evidence()));
        return cells;
    }

    /** A percentage as a plain decimal with two digits ({@code -14.53}); null (or not finite) when unknown. */
    static String pct(Double v) {
        if (v == null || !Double.isFinite(v)) {
            return null;
        }
        String s = String.format(Locale.ROOT, "%.2f", v);
        return s.equals("-0.00") ? "0.00" : s;
    }

    /** Free text (evidence, subjects) on one line, secrets redacted. */
    static String text(String s) {
        return RunListing.oneLine(Secrets.redact(s));
    }

    /** Aligned columns for a terminal, under a header line that says which rows are changes. */
    private static void table(List<Row> rows, PrintWriter out) {
        long confirmed = rows.stream().filter(r -> "confirmed".equals(r.change().status())).count();
        long rejected = rows.stream().filter(r -> "rejected".equals(r.change().status())).count();
        long candidates = rows.stream().filter(r -> "candidate".equals(r.change().status())).count();
        out.print(String.format(Locale.ROOT, "%d confirmed change(s): only confirmed rows are changes;"
                + " %d rejected and %d candidate row(s) are listed with their numbers%n", confirmed, rejected,
                candidates));
        List<String> header = List.of("status", "direction", "change_pct", "ci_pct", "task", "commit", "parent",
                "first_commit", "subject", "evidence");
        List<List<String>> lines = new ArrayList<>();
        lines.add(header);
        for (Row r : rows) {
            TrackChange c = r.change();
            String first = c.firstCommit() == null || c.firstCommit().isBlank() ? null : c.firstCommit();
            String subject = text(first != null && r.firstSubject() != null ? r.firstSubject() : r.commitSubject());
            lines.add(Arrays.asList(c.status(), c.direction(), pct(c.changePct()),
                    c.ciLowPct() == null && c.ciHighPct() == null ? null
                            : "[" + orDash(pct(c.ciLowPct())) + ", " + orDash(pct(c.ciHighPct())) + "]",
                    c.taskId(), HistoryModel.shortId(c.commitId()), HistoryModel.shortId(c.parentCommit()),
                    first == null ? null : HistoryModel.shortId(first), shorten(subject, TABLE_SUBJECT_CHARS),
                    shorten(text(c.evidence()), TABLE_EVIDENCE_CHARS)));
        }
        int[] widths = new int[header.size()];
        for (List<String> l : lines) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], l.get(i) == null ? 1 : l.get(i).length());
            }
        }
        for (List<String> l : lines) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < l.size(); i++) {
                String cell = l.get(i) == null ? "-" : l.get(i);
                sb.append(cell);
                if (i < l.size() - 1) {
                    sb.append(" ".repeat(Math.max(1, widths[i] - cell.length() + 2)));
                }
            }
            out.print(sb.toString().stripTrailing() + "\n");
        }
    }

    private static String orDash(String s) {
        return s == null ? "—" : s;
    }

    private static String shorten(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
