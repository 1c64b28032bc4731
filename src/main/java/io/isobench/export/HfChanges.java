package io.isobench.export;

import io.isobench.guard.Secrets;
import io.isobench.store.Store;
import io.isobench.store.TrackChange;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;

/**
 * The dataset's {@code changes} config: the confirmed changes of the store's tracks ({@code isobench track}), one row
 * each, in the order of {@code isobench changes} (task, track, position), with the columns of its CSV
 * ({@link #COLUMNS}: the {@code isobench changes} contract, then {@code track_id} and {@code session_id}). Written as
 * {@link #PARQUET} and its JSONL twin only when the store has a track (a store without one exports exactly what it
 * did before, and a previous export's changes files are removed); a track without a confirmed change gives an empty
 * table, which says that nothing was confirmed. Evidence is redacted ({@link Secrets}), as every export.
 */
final class HfChanges {

    static final String PARQUET = "data/changes-00000-of-00001.parquet";
    static final String JSONL = "data/changes-00000-of-00001.jsonl";

    /**
     * A column of the changes table: its name, DuckDB type and meaning (the dataset card's table).
     *
     * @param name        the column name
     * @param duckdbType  DOUBLE or VARCHAR
     * @param description what it holds
     */
    record Column(String name, String duckdbType, String description) {
    }

    static final List<Column> COLUMNS = List.of(
            new Column("task", "VARCHAR", "the suite's task id"),
            new Column("commit", "VARCHAR", "full id of the measured commit after the change"),
            new Column("parent", "VARCHAR", "full id of the measured commit before it (the git first parent with"
                    + " `--every 1`); the confirming session compared exactly these two"),
            new Column("metric", "VARCHAR", "the task's primary metric"),
            new Column("direction", "VARCHAR", "`faster` or `slower` (by the metric's direction; `none` never"
                    + " confirms)"),
            new Column("change_pct", "DOUBLE", "the metric's change from parent to commit, percent"),
            new Column("ci_low_pct", "DOUBLE", "low end of the confirming session's interval of the change, percent"),
            new Column("ci_high_pct", "DOUBLE", "high end of that interval, percent"),
            new Column("status", "VARCHAR", "`confirmed` (only confirmed rows are exported)"),
            new Column("first_commit", "VARCHAR", "the first commit carrying the change: bisected with paired sessions"
                    + " between two measured commits that are not neighbours, the commit itself when they are; null"
                    + " when not bisected (`--no-bisect`)"),
            new Column("evidence", "VARCHAR", "one line: the confirming session's verdict, speedup and CI, A/A band,"
                    + " rounds (secrets redacted)"),
            new Column("track_id", "VARCHAR", "the track (isobench track: suite, task, range, every N, runs)"),
            new Column("session_id", "VARCHAR", "the confirming session (its runs are in the store)"));

    /**
     * What was staged.
     *
     * @param tracks  whether the store has a track (false: nothing staged, nothing exported)
     * @param rows    confirmed changes staged
     * @param parquet the staged parquet file (null without tracks)
     * @param jsonl   the staged JSONL file (null without tracks)
     */
    record Staged(boolean tracks, long rows, Path parquet, Path jsonl) {

        static final Staged NONE = new Staged(false, 0, null, null);

        /** Moves the staged files into {@code outDir}; without tracks, removes a previous export's changes files. */
        void move(Path outDir) throws IOException {
            if (!tracks) {
                Files.deleteIfExists(outDir.resolve(PARQUET));
                Files.deleteIfExists(outDir.resolve(JSONL));
                return;
            }
            Files.move(parquet, outDir.resolve(PARQUET), StandardCopyOption.REPLACE_EXISTING);
            Files.move(jsonl, outDir.resolve(JSONL), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private HfChanges() {
    }

    /**
     * Writes the confirmed changes of {@code store} into {@code tmpDir} through the in-memory DuckDB {@code c} (table
     * {@code hf_changes}, dropped after); nothing when the store has no track.
     */
    static Staged stage(Store store, Connection c, Path tmpDir) throws SQLException {
        if (store.tracks().isEmpty()) {
            return Staged.NONE;
        }
        StringBuilder ddl = new StringBuilder();
        StringBuilder marks = new StringBuilder();
        StringBuilder names = new StringBuilder();
        for (Column col : COLUMNS) {
            ddl.append(ddl.isEmpty() ? "" : ", ").append(HfExporter.quote(col.name())).append(' ')
                    .append(col.duckdbType());
            names.append(names.isEmpty() ? "" : ", ").append(HfExporter.quote(col.name()));
            marks.append(marks.isEmpty() ? "" : ", ").append('?');
        }
        long rows = 0;
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE hf_changes (" + ddl + ", _seq BIGINT)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO hf_changes VALUES (" + marks + ", ?)")) {
                for (TrackChange ch : store.trackChanges(null)) {
                    if (!"confirmed".equals(ch.status())) {
                        continue;
                    }
                    Object[] v = {ch.taskId(), ch.commitId(), ch.parentCommit(), ch.metric(), ch.direction(),
                            ch.changePct(), ch.ciLowPct(), ch.ciHighPct(), ch.status(),
                            ch.firstCommit() == null || ch.firstCommit().isBlank() ? null : ch.firstCommit(),
                            Secrets.redact(ch.evidence()), ch.trackId(), ch.sessionId()};
                    for (int i = 0; i < v.length; i++) {
                        boolean number = "DOUBLE".equals(COLUMNS.get(i).duckdbType());
                        Object x = v[i] instanceof Double d && !Double.isFinite(d) ? null : v[i];
                        if (x == null) {
                            ps.setNull(i + 1, number ? Types.DOUBLE : Types.VARCHAR);
                        } else if (number) {
                            ps.setDouble(i + 1, (Double) x);
                        } else {
                            ps.setString(i + 1, x.toString());
                        }
                    }
                    ps.setLong(v.length + 1, rows++);
                    ps.addBatch();
                }
                if (rows > 0) {
                    ps.executeBatch();
                }
            }
            Path parquet = tmpDir.resolve("changes.parquet");
            Path jsonl = tmpDir.resolve("changes.jsonl");
            st.execute("SET preserve_insertion_order = true");
            String sorted = "(SELECT " + names + " FROM hf_changes ORDER BY _seq)";
            st.execute("COPY " + sorted + " TO '" + HfExporter.sqlString(parquet.toString())
                    + "' (FORMAT parquet, COMPRESSION zstd)");
            st.execute("COPY " + sorted + " TO '" + HfExporter.sqlString(jsonl.toString()) + "' (FORMAT json)");
            st.execute("DROP TABLE hf_changes");
            return new Staged(true, rows, parquet, jsonl);
        }
    }
}
