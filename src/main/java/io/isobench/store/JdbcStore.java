package io.isobench.store;

import io.isobench.guard.Secrets;
import io.isobench.parse.Metric;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one store implementation: plain JDBC over DuckDB or PostgreSQL; the schema is shared, the few dialect
 * differences live in {@link Dialect}. Public methods are synchronized: one connection, used by one thread at a time.
 */
final class JdbcStore implements Store {

    enum Dialect {
        DUCKDB, POSTGRES;

        /** ORDER BY expression for a text column: byte order on both engines, whatever PostgreSQL's locale. */
        String textOrder(String column) {
            return this == POSTGRES ? column + " COLLATE \"C\"" : column;
        }
    }

    /** Opens a second connection for reading while the main one writes (streaming reads outside transactions). */
    @FunctionalInterface
    interface ConnectionSource {
        Connection open() throws SQLException;
    }

    private final Connection conn;
    private final Dialect dialect;
    private final String description;
    private final ConnectionSource readers;
    private Connection reader;
    private boolean readerBusy;
    private boolean inTx;
    private boolean closed;

    JdbcStore(Connection conn, Dialect dialect, String description, ConnectionSource readers) {
        this.conn = conn;
        this.dialect = dialect;
        this.description = description;
        this.readers = readers;
    }

    Dialect dialect() {
        return dialect;
    }

    // ---------------------------------------------------------------- transactions

    @Override
    public synchronized <T> T inTransaction(TxWork<T> work) {
        checkOpen();
        if (inTx) {
            return work.run(this);
        }
        try {
            conn.setAutoCommit(false);
        } catch (SQLException e) {
            throw failure("cannot start a transaction", e);
        }
        inTx = true;
        try {
            T result = work.run(this);
            conn.commit();
            return result;
        } catch (SQLException e) {
            rollbackQuietly(e);
            throw failure("cannot commit", e);
        } catch (RuntimeException | Error e) {
            rollbackQuietly(e);
            throw e;
        } finally {
            inTx = false;
            try {
                conn.setAutoCommit(true);
            } catch (SQLException e) {
                // the connection is unusable; the next call reports it
            }
        }
    }

    private void rollbackQuietly(Throwable cause) {
        try {
            conn.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs several statements atomically: joins the caller's transaction or opens its own. */
    private <T> T atomically(String what, SqlWork<T> work) {
        checkOpen();
        return inTransaction(tx -> {
            try {
                return work.run(conn);
            } catch (SQLException e) {
                throw failure(what, e);
            }
        });
    }

    /** Runs one read or single statement on the main connection. */
    private <T> T plain(String what, SqlWork<T> work) {
        checkOpen();
        try {
            return work.run(conn);
        } catch (SQLException e) {
            throw failure(what, e);
        }
    }

    @FunctionalInterface
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** The rows of one query on the main connection, {@code args} bound in order. */
    private <T> List<T> select(String what, String sql, RowReader<T> reader, Object... args) {
        return plain(what, c -> {
            List<T> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                StoreSql.bind(ps, List.of(args), 0);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(reader.read(rs));
                    }
                }
            }
            return out;
        });
    }

    // ---------------------------------------------------------------- artifacts

    @Override
    public synchronized String putArtifact(String kind, byte[] bytes) {
        return putArtifacts(List.of(new ArtifactInput(kind, bytes))).get(0);
    }

    @Override
    public synchronized List<String> putArtifacts(List<ArtifactInput> input) {
        List<String> shas = new ArrayList<>(input.size());
        Map<String, ArtifactInput> bySha = new LinkedHashMap<>();
        for (ArtifactInput a : input) {
            if (a == null || a.bytes() == null) {
                throw new IllegalArgumentException("artifact bytes must not be null");
            }
            // secrets never reach the store: the bytes are redacted before they are hashed (docs/security.md);
            // source and diffs are kept byte for byte, their writer masks the secret values it knows (docs/store.md)
            ArtifactInput clean = VERBATIM_KINDS.contains(a.kind()) ? a
                    : new ArtifactInput(a.kind(), Secrets.redact(a.bytes()));
            String sha = ArtifactBytes.sha256(clean.bytes());
            shas.add(sha);
            bySha.putIfAbsent(sha, clean);
        }
        if (bySha.isEmpty()) {
            return shas;
        }
        String what = bySha.size() == 1 ? "cannot store artifact " + bySha.keySet().iterator().next()
                : "cannot store " + bySha.size() + " artifacts";
        atomically(what, c -> {
            ArtifactBytes.insertMissing(c, bySha);
            return null;
        });
        return shas;
    }

    @Override
    public synchronized Optional<byte[]> artifact(String sha256) {
        return plain("cannot read artifact " + sha256, c -> ArtifactBytes.read(c, sha256, description));
    }

    // ---------------------------------------------------------------- sources

    @Override
    public synchronized Optional<SourceRecord> findSource(String path, String sha256) {
        return select("cannot read sources", "SELECT " + CatalogRows.SOURCE_COLUMNS + " FROM source WHERE path"
                + " = ? AND sha256 = ? ORDER BY " + dialect.textOrder("source_id") + " LIMIT 1", CatalogRows::readSource,
                path, sha256).stream().findFirst();
    }

    @Override
    public synchronized void putSource(SourceRecord s) {
        putSources(List.of(s));
    }

    @Override
    public synchronized void putSources(List<SourceRecord> input) {
        Instant now = Instant.now();
        upsert("source", CatalogRows.SOURCE_COLUMNS + ", imported_at", "source_id", input, SourceRecord::sourceId, (ps, i, s) -> CatalogRows.bindSource(ps, i, s, now));
    }

    /**
     * Inserts or replaces rows by their key in one transaction ({@link StoreSql#upsertRows}); for a repeated key
     * the last row wins.
     */
    private <T> void upsert(String table, String columns, String key, List<T> input,
                            Function<T, String> keyOf, StoreSql.RowBinder<T> binder) {
        Map<String, T> byKey = new LinkedHashMap<>();
        for (T row : input) {
            String k = row == null ? null : keyOf.apply(row);
            if (k == null || k.isBlank()) {
                throw new IllegalArgumentException(table + " needs a " + key);
            }
            byKey.put(k, row);
        }
        if (byKey.isEmpty()) {
            return;
        }
        List<T> all = List.copyOf(byKey.values());
        atomically(all.size() == 1 ? "cannot store " + table + " " + byKey.keySet().iterator().next()
                : "cannot store " + all.size() + " " + table + " rows", c -> {
            StoreSql.upsertRows(c, table, columns, key, all, binder);
            return null;
        });
    }

    @Override
    public synchronized List<SourceRecord> sources() {
        return select("cannot read sources", "SELECT " + CatalogRows.SOURCE_COLUMNS + " FROM source ORDER BY "
                + dialect.textOrder("path") + ", " + dialect.textOrder("source_id"), CatalogRows::readSource);
    }

    // ---------------------------------------------------------------- tasks

    @Override
    public synchronized void putTask(TaskRecord t) {
        putTasks(List.of(t));
    }

    @Override
    public synchronized void putTasks(List<TaskRecord> input) {
        upsert("task", CatalogRows.TASK_COLUMNS, "task_id", input, TaskRecord::taskId, CatalogRows::bindTask);
    }

    @Override
    public synchronized Optional<TaskRecord> task(String taskId) {
        return select("cannot read task " + taskId, "SELECT " + CatalogRows.TASK_COLUMNS
                + " FROM task WHERE task_id = ?", CatalogRows::readTask, taskId).stream().findFirst();
    }

    @Override
    public synchronized List<TaskRecord> tasks() {
        return select("cannot read tasks", "SELECT " + CatalogRows.TASK_COLUMNS + " FROM task ORDER BY "
                + dialect.textOrder("task_id"), CatalogRows::readTask);
    }

    // ---------------------------------------------------------------- sessions

    @Override
    public synchronized void putSession(SessionRecord s) {
        upsert("session", CatalogRows.SESSION_COLUMNS, "session_id", List.of(s), SessionRecord::sessionId,
                CatalogRows::bindSession);
    }

    @Override
    public synchronized Optional<SessionRecord> session(String sessionId) {
        return select("cannot read session " + sessionId, "SELECT " + CatalogRows.SESSION_COLUMNS
                + " FROM session WHERE session_id = ?", CatalogRows::readSession, sessionId).stream().findFirst();
    }

    @Override
    public synchronized List<SessionRecord> sessions() {
        return select("cannot read sessions", "SELECT " + CatalogRows.SESSION_COLUMNS + " FROM session ORDER BY "
                + "started_at NULLS LAST, " + dialect.textOrder("session_id"), CatalogRows::readSession);
    }

    // ---------------------------------------------------------------- tracks (schema V2, TrackRows)

    @Override
    public synchronized void putTrack(TrackRecord t) {
        upsert("track", TrackRows.TRACK_COLUMNS, "track_id", List.of(t), TrackRecord::trackId, TrackRows::bindTrack);
    }

    @Override
    public synchronized Optional<TrackRecord> track(String trackId) {
        return select("cannot read track " + trackId, "SELECT " + TrackRows.TRACK_COLUMNS
                + " FROM track WHERE track_id = ?", TrackRows::readTrack, trackId).stream().findFirst();
    }

    @Override
    public synchronized List<TrackRecord> tracks() {
        return select("cannot read tracks", "SELECT " + TrackRows.TRACK_COLUMNS + " FROM track ORDER BY "
                + dialect.textOrder("task_id") + ", " + dialect.textOrder("track_id"), TrackRows::readTrack);
    }

    @Override
    public synchronized void putTrackCommits(List<TrackCommit> commits) {
        upsert("track_commit", TrackRows.COMMIT_COLUMNS, TrackRows.COMMIT_KEY, commits,
                c -> c.trackId() + "\n" + c.position(), TrackRows::bindCommit);
    }

    @Override
    public synchronized List<TrackCommit> trackCommits(String trackId) {
        return select("cannot read the commits of track " + trackId, "SELECT " + TrackRows.COMMIT_COLUMNS
                + " FROM track_commit WHERE track_id = ? ORDER BY position", TrackRows::readCommit, trackId);
    }

    @Override
    public synchronized void putTrackChange(TrackChange c) {
        upsert("track_change", TrackRows.CHANGE_COLUMNS, TrackRows.CHANGE_KEY, List.of(c),
                x -> x.trackId() + "\n" + x.commitId() + "\n" + x.metric(), TrackRows::bindChange);
    }

    @Override
    public synchronized List<TrackChange> trackChanges(String taskIdOrNull) {
        String order = " ORDER BY " + dialect.textOrder("task_id") + ", " + dialect.textOrder("track_id")
                + ", position, " + dialect.textOrder("metric");
        String sql = "SELECT " + TrackRows.CHANGE_COLUMNS + " FROM track_change";
        return taskIdOrNull == null ? select("cannot read track changes", sql + order, TrackRows::readChange)
                : select("cannot read the track changes of task " + taskIdOrNull, sql + " WHERE task_id = ?" + order,
                TrackRows::readChange, taskIdOrNull);
    }

    // ---------------------------------------------------------------- runs

    @Override
    public synchronized void putRun(RunRecord run) {
        putRuns(List.of(run));
    }

    @Override
    public synchronized void putRuns(List<RunRecord> input) {
        if (input.isEmpty()) {
            return;
        }
        // the last record of a repeated runId wins, as with successive putRun calls
        Map<String, RunRecord> byId = new LinkedHashMap<>();
        input.forEach(r -> byId.put(r.runId(), r));
        List<RunRecord> runs = List.copyOf(byId.values());
        String what = runs.size() == 1 ? "cannot store run " + runs.get(0).runId() : "cannot store " + runs.size() + " runs";
        atomically(what, c -> {
            RunRows.upsert(c, runs);
            return null;
        });
    }

    @Override
    public synchronized Optional<RunRecord> run(String runId) {
        List<RunRecord> found = new ArrayList<>(1);
        streamRuns(" WHERE r.run_id = ?", List.of(runId), true, found::add);
        return found.stream().findFirst();
    }

    @Override
    public synchronized int deleteRunsOfSource(String sourceId) {
        return atomically("cannot delete runs of source " + sourceId, c -> {
            try (PreparedStatement m = c.prepareStatement(
                    "DELETE FROM metric WHERE run_id IN (SELECT run_id FROM run WHERE source_id = ?)");
                 PreparedStatement r = c.prepareStatement("DELETE FROM run WHERE source_id = ?")) {
                m.setString(1, sourceId);
                m.executeUpdate();
                r.setString(1, sourceId);
                return r.executeUpdate();
            }
        });
    }

    @Override
    public synchronized int setRunKinds(Map<String, RunRecord.RunKind> kindByRunId) {
        if (kindByRunId.isEmpty()) {
            return 0;
        }
        return atomically("cannot update the kinds of " + kindByRunId.size() + " runs",
                c -> RunRows.setKinds(c, kindByRunId));
    }

    @Override
    public synchronized void forEachRun(RunFilter filter, Consumer<RunRecord> sink) {
        List<Object> args = new ArrayList<>();
        StringBuilder where = RunRows.where(filter, args);
        if (where == null) {
            return;
        }
        streamRuns(where.toString(), args, filter.withMetrics(), sink);
    }

    @Override
    public synchronized List<FailureCount> failureCounts(RunFilter filter, int examples) {
        List<Object> args = new ArrayList<>();
        StringBuilder where = RunRows.where(filter, args);
        if (where == null) {
            return List.of();
        }
        String failed = (where.isEmpty() ? " WHERE " : where + " AND ")
                + "r.status = 'FAILED' AND r.failure_category IS NOT NULL";
        return plain("cannot count failures", c -> {
            return RunRows.failureCounts(c, dialect, new RunRows.Failed(failed, args), examples);
        });
    }

    @Override
    public synchronized long countRuns(RunFilter filter, String notesFragment) {
        return plain("cannot count runs", c -> RunRows.count(c, filter, notesFragment));
    }

    private void streamRuns(String where, List<Object> args, boolean withMetrics, Consumer<RunRecord> sink) {
        checkOpen();
        String cols = "r." + RunRows.RUN_COLUMNS.replace(", ", ", r.");
        String order = " ORDER BY " + dialect.textOrder("r.commit_short") + " NULLS LAST, "
                + dialect.textOrder("r.pipeline") + " NULLS LAST, " + dialect.textOrder("r.arm") + ", r.round, r.started_at NULLS FIRST, "
                + dialect.textOrder("r.run_id");
        String runsSql = "SELECT " + cols + " FROM run r" + where + order;
        if (!withMetrics) {
            read(runsSql, args, rs -> {
                while (rs.next()) {
                    sink.accept(RunRows.read(rs, List.of()));
                }
            });
        } else if (dialect == Dialect.DUCKDB && !inTx) {
            // Two aligned streams instead of a join: DuckDB's JDBC converts every column of every row, so a join
            // would convert each run's 29 columns once per metric. Both queries start before the sink runs and
            // nothing else can write to the file meanwhile (this store is synchronized and holds the file lock),
            // so they read the same snapshot.
            String metricsSql = "SELECT m.run_id, m.name, m.value, m.unit, m.better FROM metric m JOIN run r ON "
                    + "r.run_id = m.run_id" + where + order + ", m.seq";
            try (Connection second = readers.open()) {
                read(runsSql, args, runs -> {
                    try (PreparedStatement ps = StoreSql.prepare(second, metricsSql, args); ResultSet ms = ps.executeQuery()) {
                        boolean more = ms.next();
                        while (runs.next()) {
                            String runId = runs.getString(1);
                            List<Metric> metrics = new ArrayList<>();
                            while (more && runId.equals(ms.getString(1))) {
                                metrics.add(RunRows.readMetric(ms, 2));
                                more = ms.next();
                            }
                            sink.accept(RunRows.read(runs, metrics));
                        }
                    }
                });
            } catch (SQLException e) {
                throw failure("cannot read runs", e);
            }
        } else {
            String joinSql = "SELECT " + cols + ", m.name, m.value, m.unit, m.better FROM run r LEFT JOIN metric m ON "
                    + "m.run_id = r.run_id" + where + order + ", m.seq";
            read(joinSql, args, rs -> {
                RunRecord pending = null;
                List<Metric> metrics = new ArrayList<>();
                int nameCol = RunRows.RUN_COLUMN_COUNT + 1;
                while (rs.next()) {
                    String runId = rs.getString(1);
                    if (pending != null && !pending.runId().equals(runId)) {
                        sink.accept(pending.withMetrics(metrics));
                        metrics = new ArrayList<>();
                        pending = null;
                    }
                    if (pending == null) {
                        pending = RunRows.read(rs, List.of());
                    }
                    if (rs.getString(nameCol) != null) {
                        metrics.add(RunRows.readMetric(rs, nameCol));
                    }
                }
                if (pending != null) {
                    sink.accept(pending.withMetrics(metrics));
                }
            });
        }
    }

    @FunctionalInterface
    private interface RowsWork {
        void run(ResultSet rs) throws SQLException;
    }

    /** Streams one query: on the transaction's connection inside {@link #inTransaction}, else on the reader. */
    private void read(String sql, List<Object> args, RowsWork work) {
        Connection c;
        boolean ownTx = false;
        boolean usesReader = false;
        boolean temporary = false;
        try {
            if (inTx) {
                c = conn;
            } else {
                if (readerBusy) {
                    // a sink reading again (nested forEachRun, run(id)): a new query would end the outer stream
                    c = readers.open();
                    temporary = true;
                    if (dialect == Dialect.POSTGRES) {
                        c.setAutoCommit(false);
                    }
                } else {
                    c = reader();
                    usesReader = true;
                    readerBusy = true;
                }
                ownTx = dialect == Dialect.POSTGRES; // PostgreSQL streams (cursor + fetch size) only inside a transaction
            }
        } catch (SQLException e) {
            throw failure("cannot open a reading connection", e);
        }
        try (PreparedStatement ps = StoreSql.prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
            work.run(rs);
        } catch (SQLException e) {
            throw failure("cannot read runs", e);
        } finally {
            if (usesReader) {
                readerBusy = false;
            }
            try {
                if (ownTx) {
                    c.commit();
                }
                if (temporary) {
                    c.close();
                }
            } catch (SQLException e) {
                // read-only work; nothing to lose
            }
        }
    }

    private Connection reader() throws SQLException {
        if (reader == null || reader.isClosed()) {
            reader = readers.open();
            if (dialect == Dialect.POSTGRES) {
                reader.setAutoCommit(false);
                reader.setReadOnly(true);
            }
        }
        return reader;
    }

    @Override
    public synchronized long countRuns() {
        return select("cannot count runs", "SELECT count(*) FROM run", rs -> rs.getLong(1)).get(0);
    }

    // ---------------------------------------------------------------- plumbing

    /** Runs SQL on the main connection in this store's transaction discipline (for the synthetic generator). */
    synchronized <T> T withConnection(String what, boolean atomic, SqlConnectionWork<T> work) {
        return atomic ? atomically(what, work::run) : plain(what, work::run);
    }

    @FunctionalInterface
    interface SqlConnectionWork<T> {
        T run(Connection c) throws SQLException;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        SQLException first = null;
        for (Connection c : new Connection[] {reader, conn}) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (SQLException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw failure("cannot close", first);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("store " + description + " is closed");
        }
    }

    private IllegalStateException failure(String what, SQLException e) {
        return new IllegalStateException("store " + description + ": " + what + ": " + Stores.firstLine(e.getMessage()), e);
    }

}
