package io.isobench.export;

import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.store.RunDetailsCodec;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The rows computed from legacy and native runs, done inside the store's own DuckDB database (no row crosses
 * JDBC): the same rules as {@link RowBuilder} written in SQL, checked against it by a test that exports one store
 * both ways. Used for DuckDB file stores; PostgreSQL stores stream runs through {@link RowBuilder} instead.
 */
final class SqlRows {

    private SqlRows() {
    }

    /**
     * A connection to the store's DuckDB instance (same file, same settings as {@code Stores.open}, so DuckDB shares
     * the open database), or null when the store is not a DuckDB file or cannot be shared.
     */
    static Connection connect(Store store) {
        String where = store.describe();
        if (where == null || where.startsWith("jdbc:") || !Files.isRegularFile(Path.of(where))) {
            return null;
        }
        Properties props = new Properties();
        props.setProperty("jdbc_stream_results", "true");
        try {
            return DriverManager.getConnection("jdbc:duckdb:" + where, props);
        } catch (SQLException e) {
            return null;
        }
    }

    /** The 3-way rows of legacy runs, as {@code isobench table} computes them, keyed by (commit, agent). */
    static final String LG_DDL = "CREATE OR REPLACE TEMP TABLE x_lg (commit_short VARCHAR, agent VARCHAR,"
            + " pipeline VARCHAR, mode VARCHAR, metric VARCHAR, status VARCHAR, comparability VARCHAR, bv DOUBLE,"
            + " hv DOUBLE, av DOUBLE, hd DOUBLE, ad DOUBLE, avh DOUBLE, issues VARCHAR)";

    /** Legacy 3-way rows with the agent each belongs to (computed in Java, appended to {@code x_lg} later). */
    private record LegacyRows(List<ThreeWayRow> rows, List<String> agents) {
    }

    /**
     * The legacy runs' fields that {@link ThreeWayTable#row} reads, one JSON object per run, in the order
     * {@code Store.forEachRun} streams them. Reading one text per run instead of 29 JDBC columns takes a fifth of the
     * time (DuckDB's JDBC spends about a microsecond per value), and reading it as UTF-8 bytes (encode: a BLOB) half
     * the time of a VARCHAR, which DuckDB's JDBC decodes byte by byte.
     */
    private static final String LEGACY_SQL = "SELECT commit_short, encode(CAST(to_json({'run_id': run_id, 'agent': agent,"
            + " 'arm': arm, 'round': round, 'status': status, 'mode': mode, 'model': model, 'pipeline': pipeline,"
            + " 'primary_value': CASE WHEN isfinite(primary_value) THEN primary_value END, 'primary_origin': primary_origin,"
            + " 'workload': workload, 'notes': notes, 'extra_json': extra_json}) AS VARCHAR))"
            + " FROM run WHERE kind = 'LEGACY' AND commit_short IS NOT NULL AND agent IS NOT NULL"
            + " ORDER BY commit_short, pipeline NULLS LAST, arm, round, started_at NULLS FIRST, run_id";

    /**
     * The legacy 3-way rows, as {@code isobench table} computes them: the legacy runs of each commit, per agent,
     * through {@link ThreeWayTable#row}. Runs on its own connection, so it overlaps the SQL steps.
     */
    private static LegacyRows computeLegacy(Connection c) {
        List<ThreeWayRow> rows = new ArrayList<>();
        List<String> agents = new ArrayList<>();
        Map<String, List<RunRecord>> byAgent = new TreeMap<>();
        String[] commit = {null};
        Runnable flush = () -> {
            for (Map.Entry<String, List<RunRecord>> e : byAgent.entrySet()) {
                ThreeWayTable.row(commit[0], e.getValue()).ifPresent(r -> {
                    rows.add(r);
                    agents.add(e.getKey());
                });
            }
            byAgent.clear();
        };
        try (Connection d = ((DuckDBConnection) c).duplicate(); Statement st = d.createStatement();
             ResultSet rs = st.executeQuery(LEGACY_SQL)) {
            while (rs.next()) {
                String commitShort = rs.getString(1);
                if (commit[0] != null && !commit[0].equals(commitShort)) {
                    flush.run();
                }
                commit[0] = commitShort;
                RunRecord r = legacyRun(commitShort, rs.getBytes(2));
                byAgent.computeIfAbsent(Arm.normalizeAgent(r.agent()), k -> new ArrayList<>()).add(r);
            }
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("reading the legacy runs: " + e.getMessage(), e);
        }
        flush.run();
        return new LegacyRows(rows, agents);
    }

    private static final com.fasterxml.jackson.core.JsonFactory JSON_FACTORY = new com.fasterxml.jackson.core.JsonFactory();

    /**
     * A legacy run with the fields {@link ThreeWayTable#row} reads (the others are null), from its JSON text (read
     * with the streaming parser: no tree per run).
     */
    private static RunRecord legacyRun(String commit, byte[] json) throws IOException {
        String runId = null;
        String agent = null;
        String arm = null;
        String status = null;
        String mode = null;
        String model = null;
        String pipeline = null;
        String origin = null;
        String workload = null;
        String extra = null;
        String notes = null;
        int round = 0;
        Double value = null;
        try (com.fasterxml.jackson.core.JsonParser p = JSON_FACTORY.createParser(json)) {
            if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                throw new IOException("a legacy run is not a JSON object: "
                        + new String(json, StandardCharsets.UTF_8));
            }
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String field = p.currentName();
                boolean none = p.nextToken() == com.fasterxml.jackson.core.JsonToken.VALUE_NULL;
                String text = none ? null : p.getText();
                switch (field) {
                    case "run_id" -> runId = text;
                    case "agent" -> agent = text;
                    case "arm" -> arm = text;
                    case "round" -> round = none ? 0 : p.getIntValue();
                    case "status" -> status = text;
                    case "mode" -> mode = text;
                    case "model" -> model = text;
                    case "pipeline" -> pipeline = text;
                    case "primary_value" -> value = none ? null : p.getDoubleValue();
                    case "primary_origin" -> origin = text;
                    case "workload" -> workload = text;
                    case "extra_json" -> extra = text;
                    case "notes" -> notes = text; // "no primary metric: …" of a success (the row's issues)
                    default -> p.skipChildren();
                }
            }
        }
        return RunRecord.builder(runId)
                .kind(RunRecord.RunKind.LEGACY)
                .commit(null, commit)
                .agent(agent)
                .armLabel(arm)
                .round(round)
                .status(RunRecord.RunStatus.valueOf(status))
                .mode(Mode.fromLabel(mode).orElse(null))
                .model(model)
                .pipelineLabel(pipeline)
                .primary(null, value, origin)
                .workload(workload)
                .notes(notes)
                .details(RunDetailsCodec.decode(extra))
                .build();
    }

    /** Appends the legacy rows to the temp table {@code x_lg} of {@code c} (created by {@link #LG_DDL}). */
    private static void appendLegacy(Connection c, LegacyRows lg, String catalog) throws SQLException {
        List<ThreeWayRow> rows = lg.rows();
        List<String> agents = lg.agents();
        String db = catalog == null ? "temp" : catalog;
        try (DuckDBAppender app = ((DuckDBConnection) c).createAppender(db, "main", "x_lg")) {
            for (int i = 0; i < rows.size(); i++) {
                ThreeWayRow r = rows.get(i);
                app.beginRow();
                for (String v : new String[] {r.commit(), agents.get(i), r.pipeline(), r.mode(), r.metric(), r.status(),
                        r.comparability()}) {
                    HfExporter.appendValue(app, v, HfSchema.Type.STRING);
                }
                for (String v : new String[] {r.baselineValue(), r.humanValue(), r.agentValue()}) {
                    HfExporter.appendValue(app, v == null ? null : Double.valueOf(v), HfSchema.Type.FLOAT64);
                }
                for (Double v : new Double[] {r.humanDeltaPct(), r.agentDeltaPct(), r.agentVsHumanPct()}) {
                    HfExporter.appendValue(app, v, HfSchema.Type.FLOAT64);
                }
                HfExporter.appendValue(app, r.issues(), HfSchema.Type.STRING);
                app.endRow();
            }
        }
    }

    /** Writes the computed rows (EXPORT columns + _commit, _agent) to a parquet file. */
    static void writeComputed(Connection c, Path parquet) throws SQLException {
        try (Statement st = c.createStatement()) {
            runSteps(c, st, null, "x_rows");
            st.execute("COPY (SELECT * FROM x_rows) TO '" + HfExporter.sqlString(parquet.toString()) + "' (FORMAT parquet)");
            dropSteps(st, null);
        }
    }

    /**
     * A store without imported HF rows: the computed rows are the export. Both files are written straight from the
     * store's database, nothing crosses JDBC. The working tables go to an in-memory database attached to the store's
     * instance, which every duplicate of the connection sees, so the rows are computed in two halves at once (split at
     * the median commit: the last step works on ~100k rows, which DuckDB runs on one thread) and then three
     * connections write at once: the parquet file (both halves, in order) and the two halves of the JSONL file
     * (DuckDB writes one ordered JSON file on one thread); the second half is then appended to the first.
     */
    static CompletableFuture<Void> writeFinal(Connection c, Path parquet, Path jsonl)
            throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("ATTACH IF NOT EXISTS ':memory:' AS " + ROWS_DB);
            String searchPath = searchPath(st, ROWS_DB);
            st.execute(searchPath);
            Path tail = jsonl.resolveSibling(jsonl.getFileName() + ".part2");
            try {
                runSteps(c, st, ROWS_DB, null);
                String split;
                try (ResultSet rs = st.executeQuery("SELECT quantile_disc(commit_short, 0.5) FROM x_grp")) {
                    rs.next();
                    split = rs.getString(1);
                }
                String half1 = split == null ? "TRUE" : "commit_short < '" + HfExporter.sqlString(split) + "'";
                String half2 = split == null ? "FALSE" : "commit_short >= '" + HfExporter.sqlString(split) + "'";
                String rows1 = ROWS_DB + ".x_rows_1";
                String rows2 = ROWS_DB + ".x_rows_2";
                // one thread per connection: each half is one DuckDB row group anyway, and DuckDB's ordered JSON
                // writer on several threads spends about three times the CPU of one thread (measured on 2 cores:
                // 5.6 s against 1.6 s for 420 MB); two or three connections at once keep both cores busy
                st.execute("SET threads = 1");
                parallel(c, searchPath, List.of(ExportSql.rowsStatement(rows1, half1), ExportSql.rowsStatement(rows2, half2)));
                HfExporter.Timing.mark("sql: the rows, two halves at once");
                dropSteps(st, ROWS_DB);
                String cols = HfExporter.columnList();
                parallel(c, searchPath, List.of(
                        "COPY (SELECT " + cols + " FROM " + rows1 + " UNION ALL SELECT " + cols + " FROM " + rows2
                                + ") TO '" + HfExporter.sqlString(parquet.toString())
                                + "' (FORMAT parquet, COMPRESSION zstd)",
                        "COPY (SELECT " + cols + " FROM " + rows1 + ") TO '" + HfExporter.sqlString(jsonl.toString())
                                + "' (FORMAT json)",
                        "COPY (SELECT " + cols + " FROM " + rows2 + ") TO '" + HfExporter.sqlString(tail.toString())
                                + "' (FORMAT json)"));
                HfExporter.Timing.mark("parquet + jsonl (3 writers)");
            } catch (SQLException | RuntimeException e) {
                deleteQuietly(tail);
                throw e;
            } finally {
                st.execute("RESET threads");
                st.execute("RESET search_path");
                st.execute("DETACH DATABASE IF EXISTS " + ROWS_DB);
            }
            // the caller writes the dataset card meanwhile; it joins this before it moves the JSONL file
            return CompletableFuture.runAsync(() -> {
                try {
                    appendAndDelete(jsonl, tail);
                } catch (IOException e) {
                    throw new UncheckedIOException("writing " + jsonl + ": " + e.getMessage(), e);
                } finally {
                    deleteQuietly(tail);
                }
            }, r -> new Thread(r, "export-jsonl-join").start());
        }
    }

    /**
     * The statement that makes unqualified names find the working tables in {@code catalog} first, then the store's
     * tables (a per-connection setting: every duplicate runs it too).
     */
    private static String searchPath(Statement st, String catalog) throws SQLException {
        String store;
        try (ResultSet rs = st.executeQuery("SELECT current_database()")) {
            rs.next();
            store = rs.getString(1);
        }
        String path = HfExporter.quote(catalog) + ".main," + HfExporter.quote(store) + ".main";
        return "SET search_path = '" + HfExporter.sqlString(path) + "'";
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a temporary file in the export's temporary folder, removed with it
        }
    }

    /** The in-memory database the final rows go to (visible to every connection of the store's instance). */
    private static final String ROWS_DB = "isobench_export_rows";

    /** Drops the working tables (of {@code catalog}, or the temp tables when it is null). */
    private static void dropSteps(Statement st, String catalog) throws SQLException {
        for (String t : List.of("x_rows", "x_choice", "x_g", "x_val", "x_arm", "x_grp", "x_modes", "x_mine", "x_lg")) {
            st.execute("DROP TABLE IF EXISTS " + (catalog == null ? "" : catalog + ".") + t);
        }
    }

    /**
     * A step's statement with its working table or macro created in {@code catalog} instead of as a temp object
     * (null: unchanged).
     */
    private static String placed(String sql, String catalog) {
        return catalog == null ? sql
                : sql.replace("TEMP TABLE x_", "TABLE " + catalog + ".x_")
                        .replace("TEMP MACRO ", "MACRO " + catalog + ".");
    }

    /**
     * Runs each statement on its own duplicate of {@code c} (after {@code searchPath}), all at once; the first failure
     * is thrown.
     */
    private static void parallel(Connection c, String searchPath, List<String> statements) throws SQLException {
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (String sql : statements) {
            Connection d = ((DuckDBConnection) c).duplicate();
            running.add(CompletableFuture.runAsync(() -> {
                try (d; Statement s = d.createStatement()) {
                    s.execute(searchPath);
                    s.execute("SET preserve_insertion_order = true");
                    s.execute(sql);
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            }, r -> new Thread(r, "export-writer").start()));
        }
        SQLException first = null;
        for (CompletableFuture<Void> f : running) {
            try {
                f.join();
            } catch (CompletionException e) {
                if (first == null) {
                    first = e.getCause() instanceof SQLException se ? se : new SQLException(e.getCause());
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static void appendAndDelete(Path head, Path tail) throws IOException {
        try (FileChannel out = FileChannel.open(head,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND);
             FileChannel in = FileChannel.open(tail)) {
            long size = in.size();
            long done = 0;
            while (done < size) {
                done += in.transferTo(done, size - done, out);
            }
        }
        Files.delete(tail);
    }

    /**
     * Runs the steps ({@link #ExportSql.statements(boolean, String)}, or only {@link #ExportSql.workSteps(boolean)} when {@code rowsTable}
     * is null): 1 GB of memory at most (DuckDB spills beyond it), insertion order kept only for the last (sorted)
     * table. The working tables are temp tables of {@code c}, or tables of {@code catalog} when it is not null. The
     * legacy 3-way rows are computed in Java meanwhile and land in x_lg before the first step that reads it.
     */
    private static void runSteps(Connection c, Statement st, String catalog, String rowsTable) throws SQLException {
        st.execute(placed(LG_DDL, catalog));
        // The legacy pass (Java, on its own connection and thread) overlaps the SQL steps that do not need x_lg.
        CompletableFuture<LegacyRows> legacy = new CompletableFuture<>();
        Thread.ofPlatform().name("export-legacy").daemon().start(() -> {
            try {
                legacy.complete(computeLegacy(c));
            } catch (RuntimeException | Error e) {
                legacy.completeExceptionally(e);
            }
        });
        boolean legacyIn = false;
        st.execute("SET memory_limit = '1GB'");
        st.execute("SET preserve_insertion_order = false");
        // runs without an agent (shared by every agent of their commit) are rare: skip that join when there are none
        boolean shared;
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM run WHERE kind IN ('LEGACY', 'MEASURED')"
                + " AND commit_short IS NOT NULL AND agent IS NULL AND arm NOT LIKE 'agent:%'")) {
            rs.next();
            shared = rs.getLong(1) > 0;
        }
        List<String> steps = rowsTable == null ? ExportSql.workSteps(shared) : ExportSql.statements(shared, rowsTable);
        for (int i = 0; i < steps.size(); i++) {
            if (!legacyIn && steps.get(i).contains("x_lg")) {
                appendLegacy(c, join(legacy), catalog);
                legacyIn = true;
                HfExporter.Timing.mark("sql: legacy 3-way rows (computed beside steps 1-" + i + ")");
            }
            if (rowsTable != null && i == steps.size() - 1) {
                st.execute("SET preserve_insertion_order = true");
            }
            try {
                if (steps.get(i).equals(ExportSql.UNIQUE_GID)) {
                    uniqueGid(st, catalog);
                } else {
                    st.execute(placed(steps.get(i), catalog));
                }
            } catch (SQLException e) {
                throw new SQLException("export SQL step " + (i + 1) + " failed: " + e.getMessage(), e);
            }
            HfExporter.Timing.mark("sql step " + (i + 1));
        }
        if (!legacyIn) {
            appendLegacy(c, join(legacy), catalog);
            HfExporter.Timing.mark("sql: legacy 3-way rows (computed beside the steps)");
        }
    }

    private static LegacyRows join(CompletableFuture<LegacyRows> f) throws SQLException {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new SQLException("legacy 3-way rows failed: " + e.getCause(), e.getCause());
        }
    }

    /** Makes the gid of x_arm unique (see {@link ExportSql#UNIQUE_GID}); returns true when it had to re-number. */
    static boolean uniqueGid(Statement st) throws SQLException {
        return uniqueGid(st, null);
    }

    private static boolean uniqueGid(Statement st, String catalog) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT count(*) - count(DISTINCT gid) FROM x_arm")) {
            rs.next();
            if (rs.getLong(1) == 0) {
                return false;
            }
        }
        for (String sql : ExportSql.RENUMBER) {
            st.execute(placed(sql, catalog));
        }
        return true;
    }
}
