package io.isobench.export;

import io.isobench.IsobenchException;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * {@code isobench export hf --out DIR}: writes {@code data/train-00000-of-00001.parquet}, its JSONL twin and a
 * dataset card {@code README.md}; with tracks in the store also the {@code changes} config ({@link HfChanges}). One row per (commit, agent): the 76 schema-v5 columns (verbatim for rows imported
 * with {@code import hf}, computed from runs otherwise) followed by the {@code isobench_} columns.
 *
 * <p>Runs are streamed from the store one commit at a time into a DuckDB in-memory table through an appender
 * (DuckDB spills to disk beyond its memory limit); DuckDB then writes parquet and JSON with {@code COPY}. Nothing
 * proportional to the number of runs is held in Java.
 */
public final class HfExporter {

    public static final String PARQUET = "data/train-00000-of-00001.parquet";
    public static final String JSONL = "data/train-00000-of-00001.jsonl";
    public static final String CARD = "README.md";

    /** What an export wrote. */
    /** @param staleRemoved staging folders of killed exports removed before this one ({@code ExportStaging}) */
    public record Summary(Path outDir, long rows, long importedRows, long computedRows, long runsRead,
                          long commits, Duration elapsed, int staleRemoved) {

        public String describe() {
            return String.format(Locale.ROOT, "%s: %d rows (%d imported verbatim, %d computed from runs) from %d runs"
                            + " of %d commits in %.1f s", outDir, rows, importedRows, computedRows, runsRead, commits,
                    elapsed.toMillis() / 1000.0) + (staleRemoved == 0 ? ""
                    : "; removed " + staleRemoved + " staging folder(s) of killed exports");
        }
    }

    /** Internal columns of the staging table (never exported). */
    private static final String HIDDEN = "_commit VARCHAR, _agent VARCHAR, _seq BIGINT, _hf_row VARCHAR";

    private HfExporter() {
    }

    static final class Timing {
        static long t = System.nanoTime();
        static final boolean ON = Boolean.getBoolean("isobench.exportTiming");

        static void mark(String what) {
            long now = System.nanoTime();
            if (ON) {
                long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory
                        .getOperatingSystemMXBean()).getProcessCpuTime();
                System.err.printf(Locale.ROOT, "[export timing] %s: %d ms wall, %d ms process CPU so far%n", what,
                        (now - t) / 1_000_000, cpu / 1_000_000);
            }
            t = now;
        }
    }

    public static Summary export(Store store, Path outDir) {
        return export(store, outDir, true);
    }

    /** {@code useSql = false} forces the streaming path even for DuckDB stores (tests compare both). */
    static Summary export(Store store, Path outDir, boolean useSql) {
        long t0 = System.nanoTime();
        Timing.t = t0;
        Timing.mark("start (store open)");
        Path dataDir = outDir.resolve("data");
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new IsobenchException.BadInput("--out " + outDir + ": cannot create the folder (" + e.getMessage() + ")", e);
        }
        // the staging folders of exports killed before they could remove theirs (kill -9)
        int staleRemoved = ExportStaging.removeStale(dataDir).size();
        Path tmpDir;
        try {
            tmpDir = ExportStaging.create(dataDir);
        } catch (IOException e) {
            throw new IsobenchException.BadInput("--out " + outDir + ": not writable (" + e.getMessage() + ")", e);
        }
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement()) {
            st.execute("SET preserve_insertion_order = false");
            st.execute("SET temp_directory = '" + sqlString(tmpDir.resolve("spill").toString()) + "'");
            st.execute("SET memory_limit = '1GB'");
            st.execute("CREATE TABLE hf (" + columnsDdl() + ", " + HIDDEN + ")");
            long[] counters = new long[4]; // runs, commits, seq, imported
            Connection sqlStore = useSql ? SqlRows.connect(store) : null;
            if (sqlStore != null && count(sqlStore, "SELECT count(*) FROM run WHERE kind = 'HF_IMPORT'") == 0) {
                // DuckDB store without imported HF rows: the store's database writes both files directly
                Path parquetTmp = tmpDir.resolve("train.parquet");
                Path jsonlTmp = tmpDir.resolve("train.jsonl");
                CompletableFuture<Void> jsonlJoined;
                try (sqlStore) {
                    jsonlJoined = SqlRows.writeFinal(sqlStore, parquetTmp, jsonlTmp);
                }
                SessionRows.Native natives = SessionRows.compute(store);
                List<SessionRows.Row> sessionRows = natives.rows();
                if (!sessionRows.isEmpty()) {
                    join(jsonlJoined);
                    // native sessions (a small pass): their rows replace the bulk rows of the same (commit, agent),
                    // and both files are written again, sorted as before
                    st.execute("CREATE TABLE hf_out AS SELECT * FROM read_parquet('" + sqlString(parquetTmp.toString()) + "')");
                    SessionRows.replaceInto(c, "hf_out", false, sessionRows);
                    st.execute("SET preserve_insertion_order = true");
                    String sorted = "(SELECT * FROM hf_out ORDER BY commit_short, isobench_agent NULLS FIRST)";
                    st.execute("COPY " + sorted + " TO '" + sqlString(parquetTmp.toString()) + "' (FORMAT parquet, COMPRESSION zstd)");
                    st.execute("COPY " + sorted + " TO '" + sqlString(jsonlTmp.toString()) + "' (FORMAT json)");
                    st.execute("DROP TABLE hf_out");
                    Timing.mark("native sessions");
                }
                st.execute("CREATE VIEW hf_out AS SELECT * FROM read_parquet('" + sqlString(parquetTmp.toString()) + "')");
                long rows = count(st, "SELECT count(*) FROM hf_out");
                long commits = count(st, "SELECT count(DISTINCT commit_short) FROM hf_out");
                DatasetCard.Stats stats = DatasetCard.stats(st, rows, Files.size(parquetTmp));
                HfChanges.Staged changes = HfChanges.stage(store, c, tmpDir);
                Files.writeString(tmpDir.resolve("README.md"), DatasetCard.render(stats, natives.between(),
                        natives.falseWins(), changes), StandardCharsets.UTF_8);
                st.execute("DROP VIEW hf_out");
                join(jsonlJoined);
                Timing.mark("jsonl halves joined (beside the card)");
                move(parquetTmp, outDir.resolve(PARQUET));
                move(jsonlTmp, outDir.resolve(JSONL));
                changes.move(outDir);
                move(tmpDir.resolve("README.md"), outDir.resolve(CARD));
                Timing.mark("card");
                return new Summary(outDir, rows, 0, rows, store.countRuns(), commits,
                        Duration.ofNanos(System.nanoTime() - t0), staleRemoved);
            }
            if (sqlStore != null) {
                // DuckDB store: rows from legacy/native runs are computed inside the store's database; only the
                // (few) imported HF rows travel through Java.
                Path computed = tmpDir.resolve("computed.parquet");
                long hfRuns;
                try (sqlStore; Statement ss = sqlStore.createStatement()) {
                    SqlRows.writeComputed(sqlStore, computed);
                    hfRuns = count(ss, "SELECT count(*) FROM run WHERE kind = 'HF_IMPORT'");
                }
                Timing.mark("sql rows");
                st.execute("INSERT INTO hf SELECT *, NULL, NULL FROM read_parquet('" + sqlString(computed.toString()) + "')");
                if (hfRuns > 0) {
                    try (DuckDBAppender app = ((DuckDBConnection) c).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "hf")) {
                        Streamer s = new Streamer(app, counters);
                        store.forEachRun(RunFilter.runs().ofKinds(EnumSet.of(RunRecord.RunKind.HF_IMPORT))
                                .loadingMetrics(), s::accept);
                        s.flush();
                    }
                }
                counters[0] = store.countRuns();
            } else {
                try (DuckDBAppender app = ((DuckDBConnection) c).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "hf")) {
                    Streamer s = new Streamer(app, counters);
                    store.forEachRun(RunFilter.runs().loadingMetrics(), s::accept);
                    s.flush();
                }
            }
            SessionRows.Native natives = SessionRows.compute(store);
            SessionRows.replaceInto(c, "hf", true, natives.rows());
            linkImportedRows(st);
            counters[1] = count(st, "SELECT count(DISTINCT _commit) FROM hf");
            Timing.mark("stream+build+append");
            fillImportedRows(store, c);
            Timing.mark("imported rows");
            if (sqlStore == null) {
                fillTasks(store, c);
            }
            Timing.mark("tasks");
            long rows = count(st, "SELECT count(*) FROM hf");
            long imported = count(st, "SELECT count(*) FROM hf WHERE _hf_row IS NOT NULL");

            Path parquetTmp = tmpDir.resolve("train.parquet");
            Path jsonlTmp = tmpDir.resolve("train.jsonl");
            // sort once; both files are written from the sorted table in its order
            st.execute("CREATE TABLE hf_out AS SELECT " + columnList() + " FROM hf ORDER BY _commit, _agent NULLS FIRST, _seq");
            st.execute("DROP TABLE hf");
            st.execute("SET preserve_insertion_order = true");
            st.execute("COPY hf_out TO '" + sqlString(parquetTmp.toString()) + "' (FORMAT parquet, COMPRESSION zstd)");
            st.execute("COPY hf_out TO '" + sqlString(jsonlTmp.toString()) + "' (FORMAT json)");
            Timing.mark("copy");
            DatasetCard.Stats stats = DatasetCard.stats(st, rows, Files.size(parquetTmp));
            HfChanges.Staged changes = HfChanges.stage(store, c, tmpDir);
            Files.writeString(tmpDir.resolve("README.md"), DatasetCard.render(stats, natives.between(),
                    natives.falseWins(), changes), StandardCharsets.UTF_8);

            move(parquetTmp, outDir.resolve(PARQUET));
            move(jsonlTmp, outDir.resolve(JSONL));
            changes.move(outDir);
            move(tmpDir.resolve("README.md"), outDir.resolve(CARD));
            return new Summary(outDir, rows, imported, rows - imported, counters[0], counters[1],
                    Duration.ofNanos(System.nanoTime() - t0), staleRemoved);
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("export to " + outDir + " failed: " + e.getMessage(), e);
        } finally {
            deleteTree(tmpDir);
        }
    }

    /** Groups the streamed runs by commit and appends one staging row per (commit, agent). */
    private static final class Streamer {
        private final DuckDBAppender app;
        private final long[] counters;
        private final List<RunRecord> current = new ArrayList<>();
        private String commit;

        Streamer(DuckDBAppender app, long[] counters) {
            this.app = app;
            this.counters = counters;
        }

        void accept(RunRecord r) {
            counters[0]++;
            if (r.commitShort() == null) {
                return; // a run without a commit cannot be a row
            }
            if (!current.isEmpty() && !Objects.equals(commit, r.commitShort())) {
                flush();
            }
            commit = r.commitShort();
            current.add(r);
        }

        void flush() {
            if (current.isEmpty()) {
                return;
            }
            counters[1]++;
            try {
                for (RowBuilder.Built b : RowBuilder.build(current)) {
                    append(b);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot stage export rows of commit " + commit + ": " + e.getMessage(), e);
            }
            current.clear();
        }

        private void append(RowBuilder.Built b) throws SQLException {
            app.beginRow();
            for (int i = 0; i < HfSchema.V5.size(); i++) {
                appendValue(app, b.v5() == null ? null : b.v5()[i], HfSchema.V5.get(i).type());
            }
            for (int i = 0; i < HfSchema.ISOBENCH.size(); i++) {
                appendValue(app, b.iso()[i], HfSchema.ISOBENCH.get(i).type());
            }
            appendValue(app, b.commitShort(), HfSchema.Type.STRING);
            appendValue(app, b.agent(), HfSchema.Type.STRING);
            app.append(counters[2]++);
            appendValue(app, b.hfRowSha(), HfSchema.Type.STRING);
            app.endRow();
        }
    }

    static void appendValue(DuckDBAppender app, Object v, HfSchema.Type type) throws SQLException {
        if (v == null) {
            app.appendNull();
            return;
        }
        switch (type) {
            case STRING -> app.append(v.toString());
            case LIST_STRING -> app.append((Collection<?>) v);
            case BOOL -> app.append(((Boolean) v).booleanValue());
            case FLOAT64 -> app.append(((Number) v).doubleValue());
            case INT32 -> app.append(((Number) v).intValue());
        }
    }

    /**
     * An imported row whose commit and agent also have legacy or native runs takes its isobench columns from the
     * row computed from those runs (keeping its own agent model), and the computed row is dropped: one row per
     * (commit, agent).
     */
    private static void linkImportedRows(Statement st) throws SQLException {
        if (count(st, "SELECT count(*) FROM hf WHERE _hf_row IS NOT NULL") == 0) {
            return;
        }
        StringBuilder set = new StringBuilder();
        for (HfSchema.Column col : HfSchema.ISOBENCH) {
            if (col.name().equals("isobench_agent_model")) {
                continue;
            }
            if (!set.isEmpty()) {
                set.append(", ");
            }
            set.append(quote(col.name())).append(" = c.").append(quote(col.name()));
        }
        st.execute("UPDATE hf SET " + set + " FROM (SELECT * FROM hf WHERE _hf_row IS NULL) c"
                + " WHERE hf._hf_row IS NOT NULL AND hf._commit = c._commit AND hf._agent = c._agent");
        st.execute("DELETE FROM hf WHERE _hf_row IS NULL AND EXISTS (SELECT 1 FROM hf h WHERE h._hf_row IS NOT NULL"
                + " AND h._commit = hf._commit AND h._agent = hf._agent)");
    }

    /**
     * Rows imported from an HF table were staged with only their isobench columns: fill the 76 columns from the
     * verbatim row kept in the store (read after the run stream so the store is not queried while it streams).
     */
    private static void fillImportedRows(Store store, Connection c) throws SQLException {
        List<String> shas = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT DISTINCT _hf_row FROM hf WHERE _hf_row IS NOT NULL")) {
            while (rs.next()) {
                shas.add(rs.getString(1));
            }
        }
        if (shas.isEmpty()) {
            return;
        }
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE hf_rows (" + v5Ddl() + ", _sha VARCHAR)");
        }
        try (DuckDBAppender app = ((DuckDBConnection) c).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "hf_rows")) {
            for (String sha : shas) {
                Optional<byte[]> bytes = store.artifact(sha);
                if (bytes.isEmpty()) {
                    throw new IllegalStateException("store " + store.describe() + " lacks the imported HF row artifact "
                            + sha + " (re-import the HF table)");
                }
                HfRow row = HfMapping.fromJson(bytes.get());
                app.beginRow();
                for (int i = 0; i < HfSchema.V5.size(); i++) {
                    appendValue(app, row.values().get(i), HfSchema.V5.get(i).type());
                }
                app.append(sha);
                app.endRow();
            }
        }
        StringBuilder set = new StringBuilder();
        for (HfSchema.Column col : HfSchema.V5) {
            if (!set.isEmpty()) {
                set.append(", ");
            }
            set.append(quote(col.name())).append(" = r.").append(quote(col.name()));
        }
        try (Statement st = c.createStatement()) {
            st.execute("UPDATE hf SET " + set + " FROM hf_rows r WHERE hf._hf_row = r._sha");
            st.execute("DROP TABLE hf_rows");
        }
    }

    /** Computed rows take repo, parent commit, GPU config and missing subject/command/model from the task. */
    private static void fillTasks(Store store, Connection c) throws SQLException {
        List<String> commits = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT DISTINCT _commit FROM hf WHERE _hf_row IS NULL AND _commit IS NOT NULL")) {
            while (rs.next()) {
                commits.add(rs.getString(1));
            }
        }
        if (commits.isEmpty()) {
            return;
        }
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE tasks (id VARCHAR, repo VARCHAR, parent VARCHAR, subject VARCHAR,"
                    + " cmd VARCHAR, model VARCHAR, gpu VARCHAR, commit_full VARCHAR)");
        }
        try (DuckDBAppender app = ((DuckDBConnection) c).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "tasks")) {
            // Many commits: one read of all tasks beats a point lookup per commit; few: look them up.
            if (commits.size() > 1000) {
                Set<String> wanted = new HashSet<>(commits);
                for (TaskRecord task : store.tasks()) {
                    if (wanted.contains(task.taskId())) {
                        appendTask(app, task.taskId(), task);
                    }
                }
            } else {
                for (String id : commits) {
                    Optional<TaskRecord> t = store.task(id);
                    if (t.isPresent()) {
                        appendTask(app, id, t.get());
                    }
                }
            }
        }
        try (Statement st = c.createStatement()) {
            st.execute("UPDATE hf SET repo = coalesce(hf.repo, t.repo), parent_commit = coalesce(hf.parent_commit, t.parent),"
                    + " commit_subject = coalesce(hf.commit_subject, t.subject), perf_command = coalesce(hf.perf_command, t.cmd),"
                    + " model = coalesce(hf.model, t.model), gpu_config = coalesce(hf.gpu_config, t.gpu),"
                    + " commit_hash = CASE WHEN length(t.commit_full) > length(hf.commit_hash) THEN t.commit_full ELSE hf.commit_hash END"
                    + " FROM tasks t WHERE hf._hf_row IS NULL AND hf._commit = t.id");
            st.execute("DROP TABLE tasks");
        }
    }

    private static void appendTask(DuckDBAppender app, String id, TaskRecord task) throws SQLException {
        app.beginRow();
        for (String v : new String[] {id, task.repo(), task.parentCommit(), task.subject(), task.perfCommand(),
                task.model(), task.gpuConfig(), task.commit()}) {
            appendValue(app, v, HfSchema.Type.STRING);
        }
        app.endRow();
    }

    static String columnsDdl() {
        StringBuilder sb = new StringBuilder();
        for (HfSchema.Column col : HfSchema.EXPORT) {
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(quote(col.name())).append(' ').append(col.type().duckdbType());
        }
        return sb.toString();
    }

    private static String v5Ddl() {
        StringBuilder sb = new StringBuilder();
        for (HfSchema.Column col : HfSchema.V5) {
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(quote(col.name())).append(' ').append(col.type().duckdbType());
        }
        return sb.toString();
    }

    static String columnList() {
        StringBuilder sb = new StringBuilder();
        for (HfSchema.Column col : HfSchema.EXPORT) {
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(quote(col.name()));
        }
        return sb.toString();
    }

    static String quote(String ident) {
        return '"' + ident.replace("\"", "\"\"") + '"';
    }

    static String sqlString(String s) {
        return s.replace("'", "''");
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            return count(st, sql);
        }
    }

    private static long count(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Waits for a background step; its I/O failure is this export's I/O failure. */
    private static void join(CompletableFuture<Void> step) throws IOException {
        try {
            step.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException u) {
                throw u.getCause();
            }
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort: a leftover temp file is harmless
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
