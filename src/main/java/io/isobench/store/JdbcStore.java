package io.isobench.store;

import io.isobench.Arm;
import io.isobench.guard.Secrets;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

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

    static final String RUN_COLUMNS = "run_id, session_id, kind, commit_id, commit_short, agent, arm, round, status, "
            + "failure_category, failure_detail, failure_evidence, failure_retryable, mode, model, pipeline, source_id, "
            + "primary_metric, primary_value, primary_origin, workload, started_at, duration_ms, engine_version, env_ref, "
            + "argv_json, log_artifact, notes, extra_json";
    private static final int RUN_COLUMN_COUNT = RUN_COLUMNS.split(",").length;
    private static final String SOURCE_COLUMNS = "source_id, format_id, path, sha256, pipeline, invocation_group, agent, "
            + "outcome, reason, content_artifact";
    private static final String TASK_COLUMNS = "task_id, repo, commit_id, parent_commit, subject, perf_command, model, "
            + "gpu_config, gpu_count";
    private static final String SESSION_COLUMNS = "session_id, started_at, ended_at, host, cpu, gpu, machine_json, "
            + "suite_json, stats_config_json, seed, status";
    private static final int FETCH_SIZE = 2000;
    private static final int RUN_CHUNK = 200;
    private static final int METRIC_CHUNK = 1000;
    /** Rows per multi-row statement for sources, tasks and artifacts (PostgreSQL allows 65,535 parameters). */
    private static final int ROW_CHUNK = 500;
    private static final int ARTIFACT_CHUNK = 200;

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

    // ---------------------------------------------------------------- artifacts

    @Override
    public synchronized String putArtifact(String kind, byte[] bytes) {
        return putArtifacts(List.of(new ArtifactInput(kind, bytes))).get(0);
    }

    @Override
    public synchronized List<String> putArtifacts(List<ArtifactInput> input) {
        List<String> shas = new ArrayList<>(input.size());
        java.util.Map<String, ArtifactInput> bySha = new java.util.LinkedHashMap<>();
        for (ArtifactInput a : input) {
            if (a == null || a.bytes() == null) {
                throw new IllegalArgumentException("artifact bytes must not be null");
            }
            // secrets never reach the store: the bytes are redacted before they are hashed (docs/security.md)
            ArtifactInput clean = new ArtifactInput(a.kind(), Secrets.redact(a.bytes()));
            String sha = sha256(clean.bytes());
            shas.add(sha);
            bySha.putIfAbsent(sha, clean);
        }
        if (bySha.isEmpty()) {
            return shas;
        }
        String what = bySha.size() == 1 ? "cannot store artifact " + bySha.keySet().iterator().next()
                : "cannot store " + bySha.size() + " artifacts";
        atomically(what, c -> {
            List<String> all = List.copyOf(bySha.keySet());
            for (int from = 0; from < all.size(); from += ARTIFACT_CHUNK) {
                List<String> chunk = all.subList(from, Math.min(all.size(), from + ARTIFACT_CHUNK));
                java.util.Set<String> present = new java.util.HashSet<>();
                try (PreparedStatement ps = c.prepareStatement("SELECT sha256 FROM artifact WHERE sha256 IN ("
                        + String.join(", ", java.util.Collections.nCopies(chunk.size(), "?")) + ")")) {
                    int i = 1;
                    for (String sha : chunk) {
                        ps.setString(i++, sha);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            present.add(rs.getString(1));
                        }
                    }
                }
                List<String> missing = chunk.stream().filter(sha -> !present.contains(sha)).toList();
                if (missing.isEmpty()) {
                    continue;
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO artifact (sha256, kind, size_bytes, "
                        + "compressed) VALUES " + String.join(", ", java.util.Collections.nCopies(missing.size(),
                        "(?, ?, ?, ?)")) + " ON CONFLICT (sha256) DO NOTHING")) {
                    int i = 1;
                    for (String sha : missing) {
                        ArtifactInput a = bySha.get(sha);
                        ps.setString(i++, sha);
                        ps.setString(i++, a.kind());
                        ps.setLong(i++, a.bytes().length);
                        ps.setBytes(i++, gzip(a.bytes()));
                    }
                    ps.executeUpdate();
                }
            }
            return null;
        });
        return shas;
    }

    @Override
    public synchronized Optional<byte[]> artifact(String sha256) {
        return plain("cannot read artifact " + sha256, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT compressed, size_bytes FROM artifact WHERE sha256 = ?")) {
                ps.setString(1, sha256 == null ? null : sha256.toLowerCase(Locale.ROOT));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    byte[] bytes = gunzip(rs.getBytes(1));
                    if (bytes.length != rs.getLong(2)) {
                        throw new IllegalStateException("store " + description + ": artifact " + sha256 + " has "
                                + bytes.length + " bytes, expected " + rs.getLong(2) + " (corrupt store)");
                    }
                    return Optional.of(bytes);
                }
            }
        });
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, bytes.length / 4));
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16)) {
            gz.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static byte[] gunzip(byte[] bytes) {
        try (GZIPInputStream gz = new GZIPInputStream(new ByteArrayInputStream(bytes), 1 << 16)) {
            return gz.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- sources

    @Override
    public synchronized Optional<SourceRecord> findSource(String path, String sha256) {
        return plain("cannot read sources", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + SOURCE_COLUMNS
                    + " FROM source WHERE path = ? AND sha256 = ? ORDER BY " + dialect.textOrder("source_id") + " LIMIT 1")) {
                ps.setString(1, path);
                ps.setString(2, sha256);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(readSource(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public synchronized void putSource(SourceRecord s) {
        putSources(List.of(s));
    }

    @Override
    public synchronized void putSources(List<SourceRecord> input) {
        Instant now = Instant.now();
        upsert("source", SOURCE_COLUMNS + ", imported_at", "source_id", input, SourceRecord::sourceId, (ps, i, s) -> {
            ps.setString(i++, s.sourceId());
            ps.setString(i++, s.formatId());
            ps.setString(i++, Secrets.redact(s.path()));
            ps.setString(i++, s.sha256());
            ps.setString(i++, s.pipeline());
            ps.setString(i++, s.invocationGroup());
            ps.setString(i++, Arm.normalizeAgent(s.agent()));
            ps.setString(i++, s.outcome());
            ps.setString(i++, Secrets.redact(s.reason()));
            ps.setString(i++, s.contentArtifact());
            setInstant(ps, i++, now);
            return i;
        });
    }

    /** Binds one row's columns from parameter {@code i}; returns the next free parameter index. */
    @FunctionalInterface
    private interface RowBinder<T> {
        int bind(PreparedStatement ps, int i, T row) throws SQLException;
    }

    /**
     * Inserts or replaces rows by their key in one transaction, with multi-row statements of {@link #ROW_CHUNK}
     * rows (DuckDB spends milliseconds per statement); for a repeated key the last row wins.
     */
    private <T> void upsert(String table, String columns, String key, List<T> input,
                            java.util.function.Function<T, String> keyOf, RowBinder<T> binder) {
        java.util.Map<String, T> byKey = new java.util.LinkedHashMap<>();
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
        int n = columns.split(",").length;
        String row = "(?" + ", ?".repeat(n - 1) + ")";
        atomically(all.size() == 1 ? "cannot store " + table + " " + byKey.keySet().iterator().next()
                : "cannot store " + all.size() + " " + table + " rows", c -> {
            for (int from = 0; from < all.size(); from += ROW_CHUNK) {
                List<T> chunk = all.subList(from, Math.min(all.size(), from + ROW_CHUNK));
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (" + columns + ") VALUES "
                        + String.join(", ", java.util.Collections.nCopies(chunk.size(), row))
                        + " ON CONFLICT (" + key + ") DO UPDATE SET " + updateSet(columns, key))) {
                    int i = 1;
                    for (T t : chunk) {
                        i = binder.bind(ps, i, t);
                    }
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    @Override
    public synchronized List<SourceRecord> sources() {
        return plain("cannot read sources", c -> {
            List<SourceRecord> out = new ArrayList<>();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT " + SOURCE_COLUMNS + " FROM source ORDER BY "
                         + dialect.textOrder("path") + ", " + dialect.textOrder("source_id"))) {
                while (rs.next()) {
                    out.add(readSource(rs));
                }
            }
            return out;
        });
    }

    private static SourceRecord readSource(ResultSet rs) throws SQLException {
        return new SourceRecord(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getString(10));
    }

    // ---------------------------------------------------------------- tasks

    @Override
    public synchronized void putTask(TaskRecord t) {
        putTasks(List.of(t));
    }

    @Override
    public synchronized void putTasks(List<TaskRecord> input) {
        upsert("task", TASK_COLUMNS, "task_id", input, TaskRecord::taskId, (ps, i, t) -> {
            ps.setString(i++, t.taskId());
            ps.setString(i++, Secrets.redact(t.repo()));
            ps.setString(i++, t.commit());
            ps.setString(i++, t.parentCommit());
            ps.setString(i++, Secrets.redact(t.subject()));
            ps.setString(i++, Secrets.redact(t.perfCommand()));
            ps.setString(i++, Secrets.redact(t.model()));
            ps.setString(i++, Secrets.redact(t.gpuConfig()));
            setInt(ps, i++, t.gpuCount());
            return i;
        });
    }

    @Override
    public synchronized Optional<TaskRecord> task(String taskId) {
        return plain("cannot read task " + taskId, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + TASK_COLUMNS + " FROM task WHERE task_id = ?")) {
                ps.setString(1, taskId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(readTask(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public synchronized List<TaskRecord> tasks() {
        return plain("cannot read tasks", c -> {
            List<TaskRecord> out = new ArrayList<>();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT " + TASK_COLUMNS + " FROM task ORDER BY " + dialect.textOrder("task_id"))) {
                while (rs.next()) {
                    out.add(readTask(rs));
                }
            }
            return out;
        });
    }

    private static TaskRecord readTask(ResultSet rs) throws SQLException {
        return new TaskRecord(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), getInt(rs, 9));
    }

    // ---------------------------------------------------------------- sessions

    @Override
    public synchronized void putSession(SessionRecord s) {
        plain("cannot store session " + s.sessionId(), c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO session (" + SESSION_COLUMNS + ") "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                    + updateSet(SESSION_COLUMNS, "session_id"))) {
                ps.setString(1, s.sessionId());
                setInstant(ps, 2, s.startedAt());
                setInstant(ps, 3, s.endedAt());
                ps.setString(4, Secrets.redact(s.host()));
                ps.setString(5, Secrets.redact(s.cpu()));
                ps.setString(6, Secrets.redact(s.gpu()));
                ps.setString(7, Secrets.redact(s.machineJson()));
                ps.setString(8, Secrets.redact(s.suiteJson()));
                ps.setString(9, Secrets.redact(s.statsConfigJson()));
                if (s.seed() == null) {
                    ps.setNull(10, Types.BIGINT);
                } else {
                    ps.setLong(10, s.seed());
                }
                ps.setString(11, Secrets.redact(s.status()));
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public synchronized Optional<SessionRecord> session(String sessionId) {
        return plain("cannot read session " + sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + SESSION_COLUMNS + " FROM session WHERE session_id = ?")) {
                ps.setString(1, sessionId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(readSession(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public synchronized List<SessionRecord> sessions() {
        return plain("cannot read sessions", c -> {
            List<SessionRecord> out = new ArrayList<>();
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT " + SESSION_COLUMNS + " FROM session ORDER BY started_at NULLS LAST, "
                         + dialect.textOrder("session_id"))) {
                while (rs.next()) {
                    out.add(readSession(rs));
                }
            }
            return out;
        });
    }

    private static SessionRecord readSession(ResultSet rs) throws SQLException {
        long seed = rs.getLong(10);
        Long seedOrNull = rs.wasNull() ? null : seed;
        return new SessionRecord(rs.getString(1), getInstant(rs, 2), getInstant(rs, 3), rs.getString(4),
                rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), seedOrNull,
                rs.getString(11));
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
        java.util.Map<String, RunRecord> byId = new java.util.LinkedHashMap<>();
        input.forEach(r -> byId.put(r.runId(), r));
        List<RunRecord> runs = List.copyOf(byId.values());
        String what = runs.size() == 1 ? "cannot store run " + runs.get(0).runId() : "cannot store " + runs.size() + " runs";
        atomically(what, c -> {
            // multi-row statements: DuckDB runs each element of a JDBC batch as its own statement (~10 ms a row)
            for (int from = 0; from < runs.size(); from += RUN_CHUNK) {
                List<RunRecord> chunk = runs.subList(from, Math.min(runs.size(), from + RUN_CHUNK));
                String row = "(?" + ", ?".repeat(RUN_COLUMN_COUNT - 1) + ")";
                try (PreparedStatement upsert = c.prepareStatement("INSERT INTO run (" + RUN_COLUMNS + ") VALUES "
                        + String.join(", ", java.util.Collections.nCopies(chunk.size(), row))
                        + " ON CONFLICT (run_id) DO UPDATE SET " + updateSet(RUN_COLUMNS, "run_id"));
                     PreparedStatement delete = c.prepareStatement("DELETE FROM metric WHERE run_id IN ("
                             + String.join(", ", java.util.Collections.nCopies(chunk.size(), "?")) + ")")) {
                    int i = 1;
                    int k = 1;
                    for (RunRecord r : chunk) {
                        i = bindRun(upsert, i, r);
                        delete.setString(k++, r.runId());
                    }
                    upsert.executeUpdate();
                    delete.executeUpdate();
                }
            }
            List<Object[]> rows = new ArrayList<>();
            for (RunRecord r : runs) {
                int seq = 0;
                for (Metric m : r.metrics()) {
                    rows.add(new Object[] {r.runId(), seq++, m.name(), m.value(), m.unit(),
                            m.better() == null ? null : m.better().label()});
                }
            }
            for (int from = 0; from < rows.size(); from += METRIC_CHUNK) {
                List<Object[]> chunk = rows.subList(from, Math.min(rows.size(), from + METRIC_CHUNK));
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO metric (run_id, seq, name, value, unit, better) "
                        + "VALUES " + String.join(", ", java.util.Collections.nCopies(chunk.size(), "(?, ?, ?, ?, ?, ?)")))) {
                    int i = 1;
                    for (Object[] m : chunk) {
                        insert.setString(i++, (String) m[0]);
                        insert.setInt(i++, (Integer) m[1]);
                        insert.setString(i++, (String) m[2]);
                        insert.setDouble(i++, (Double) m[3]);
                        insert.setString(i++, (String) m[4]);
                        insert.setString(i++, (String) m[5]);
                    }
                    insert.executeUpdate();
                }
            }
            return null;
        });
    }

    /** Binds a run's columns from parameter {@code i}; returns the next free parameter index. */
    private static int bindRun(PreparedStatement ps, int i, RunRecord r) throws SQLException {
        ps.setString(i++, r.runId());
        ps.setString(i++, r.sessionId());
        ps.setString(i++, r.kind().name());
        ps.setString(i++, r.commit());
        ps.setString(i++, r.commitShort());
        ps.setString(i++, Arm.normalizeAgent(r.agent()));
        ps.setString(i++, normalizeArm(r.arm()));
        ps.setInt(i++, r.round());
        ps.setString(i++, r.status().name());
        RunRecord.FailureInfo f = r.failure();
        ps.setString(i++, f == null ? null : f.category());
        ps.setString(i++, f == null ? null : Secrets.redact(f.detail()));
        ps.setString(i++, f == null ? null : Secrets.redact(f.evidence()));
        if (f == null) {
            ps.setNull(i++, Types.BOOLEAN);
        } else {
            ps.setBoolean(i++, f.retryable());
        }
        ps.setString(i++, r.mode());
        ps.setString(i++, Secrets.redact(r.model()));
        ps.setString(i++, r.pipeline());
        ps.setString(i++, r.sourceId());
        ps.setString(i++, r.primaryMetric());
        setDouble(ps, i++, r.primaryValue());
        ps.setString(i++, r.primaryOrigin());
        ps.setString(i++, Secrets.redact(r.workload()));
        setInstant(ps, i++, r.startedAt());
        setDouble(ps, i++, r.durationMs());
        ps.setString(i++, Secrets.redact(r.engineVersion()));
        ps.setString(i++, Secrets.redact(r.envRef()));
        ps.setString(i++, Secrets.redact(r.argvJson()));
        ps.setString(i++, r.logArtifact());
        ps.setString(i++, Secrets.redact(r.notes()));
        ps.setString(i++, Secrets.redact(RunDetailsCodec.encode(r.details())));
        return i;
    }

    /** {@code agent:Claude-Code} is stored as {@code agent:claude_code}, like {@link Arm#label()}. */
    static String normalizeArm(String arm) {
        return arm.startsWith("agent:") ? "agent:" + Arm.normalizeAgent(arm.substring("agent:".length())) : arm;
    }

    /** Reads the run columns starting at column 1; metrics are added by the caller. */
    private static RunRecord readRun(ResultSet rs, List<Metric> metrics) throws SQLException {
        String category = rs.getString(10);
        RunRecord.FailureInfo failure = null;
        if (category != null) {
            boolean retryable = rs.getBoolean(13);
            failure = new RunRecord.FailureInfo(category, rs.getString(11), rs.getString(12), retryable);
        }
        return RunRecord.builder(rs.getString(1))
                .session(rs.getString(2))
                .kind(RunRecord.RunKind.valueOf(rs.getString(3)))
                .commit(rs.getString(4), rs.getString(5))
                .agent(rs.getString(6))
                .arm(rs.getString(7))
                .round(rs.getInt(8))
                .status(RunRecord.RunStatus.valueOf(rs.getString(9)))
                .failure(failure)
                .mode(rs.getString(14))
                .model(rs.getString(15))
                .pipeline(rs.getString(16))
                .source(rs.getString(17))
                .primary(rs.getString(18), getDouble(rs, 19), rs.getString(20))
                .workload(rs.getString(21))
                .startedAt(getInstant(rs, 22))
                .durationMs(getDouble(rs, 23))
                .engineVersion(rs.getString(24))
                .envRef(rs.getString(25))
                .argvJson(rs.getString(26))
                .logArtifact(rs.getString(27))
                .notes(rs.getString(28))
                .details(RunDetailsCodec.decode(rs.getString(29)))
                .metrics(metrics)
                .build();
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
    public synchronized void forEachRun(RunFilter filter, Consumer<RunRecord> sink) {
        List<Object> args = new ArrayList<>();
        StringBuilder where = where(filter, args);
        if (where == null) {
            return;
        }
        streamRuns(where.toString(), args, filter.withMetrics(), sink);
    }

    /** WHERE clause for a filter (alias r), or null when the filter matches nothing. */
    private static StringBuilder where(RunFilter filter, List<Object> args) {
        StringBuilder where = new StringBuilder();
        if (filter.agent() != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.agent = ?");
            args.add(Arm.normalizeAgent(filter.agent()));
        }
        if (filter.kinds() != null) {
            if (filter.kinds().isEmpty()) {
                return null;
            }
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.kind IN (")
                    .append(String.join(", ", java.util.Collections.nCopies(filter.kinds().size(), "?"))).append(')');
            filter.kinds().stream().map(Enum::name).sorted().forEach(args::add);
        }
        if (filter.sessionId() != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.session_id = ?");
            args.add(filter.sessionId());
        }
        if (filter.commit() != null) {
            // hex only (RunFilter checks it): no LIKE metacharacter can occur
            String c = filter.commit();
            where.append(where.isEmpty() ? " WHERE " : " AND ");
            if (c.length() >= 8) {
                where.append("r.commit_short = ? AND (lower(r.commit_id) LIKE ? OR ? LIKE lower(r.commit_id) || '%')");
                args.add(c.substring(0, 8));
                args.add(c + "%");
                args.add(c);
            } else {
                where.append("r.commit_short LIKE ?");
                args.add(c + "%");
            }
        }
        if (filter.status() != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.status = ?");
            args.add(filter.status().name());
        }
        if (filter.category() != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.failure_category = ?");
            args.add(filter.category());
        }
        return where;
    }

    @Override
    public synchronized List<FailureCount> failureCounts(RunFilter filter, int examples) {
        List<Object> args = new ArrayList<>();
        StringBuilder where = where(filter, args);
        if (where == null) {
            return List.of();
        }
        String failed = (where.isEmpty() ? " WHERE " : where + " AND ")
                + "r.status = 'FAILED' AND r.failure_category IS NOT NULL";
        return plain("cannot count failures", c -> {
            java.util.Map<String, long[]> counts = new java.util.TreeMap<>();
            String armCase = "CASE WHEN r.arm = 'baseline' THEN 0 WHEN r.arm = 'human' THEN 1 ELSE 2 END";
            try (PreparedStatement ps = c.prepareStatement("SELECT r.failure_category, " + armCase
                    + ", count(*) FROM run r" + failed + " GROUP BY 1, 2")) {
                bind(ps, args, 0);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        counts.computeIfAbsent(rs.getString(1), k -> new long[3])[rs.getInt(2)] = rs.getLong(3);
                    }
                }
            }
            List<FailureCount> out = new ArrayList<>();
            int limit = Math.max(1, examples);
            String ofCategory = " FROM run r" + failed + " AND r.failure_category = ?";
            try (PreparedStatement commitsPs = c.prepareStatement("SELECT r.commit_short" + ofCategory
                    + " AND r.commit_short IS NOT NULL GROUP BY r.commit_short ORDER BY "
                    + dialect.textOrder("r.commit_short") + " LIMIT " + (limit + 1));
                 PreparedStatement evidencePs = c.prepareStatement("SELECT r.failure_evidence, r.failure_detail"
                    + ofCategory + " ORDER BY " + dialect.textOrder("r.commit_short") + " NULLS LAST, "
                    + dialect.textOrder("r.run_id") + " LIMIT 1")) {
                for (java.util.Map.Entry<String, long[]> e : counts.entrySet()) {
                    List<String> commits = new ArrayList<>();
                    bind(commitsPs, args, 0);
                    commitsPs.setString(args.size() + 1, e.getKey());
                    try (ResultSet rs = commitsPs.executeQuery()) {
                        while (rs.next()) {
                            commits.add(rs.getString(1));
                        }
                    }
                    boolean more = commits.size() > limit;
                    if (more) {
                        commits = commits.subList(0, limit);
                    }
                    String evidence = null;
                    bind(evidencePs, args, 0);
                    evidencePs.setString(args.size() + 1, e.getKey());
                    try (ResultSet rs = evidencePs.executeQuery()) {
                        if (rs.next()) {
                            String ev = rs.getString(1);
                            evidence = ev == null || ev.isBlank() ? rs.getString(2) : ev;
                        }
                    }
                    long[] n = e.getValue();
                    out.add(new FailureCount(e.getKey(), n[0], n[1], n[2], evidence, List.copyOf(commits), more));
                }
            }
            return out;
        });
    }

    @Override
    public synchronized long countRuns(RunFilter filter, String notesFragment) {
        List<Object> args = new ArrayList<>();
        StringBuilder where = where(filter, args);
        if (where == null) {
            return 0;
        }
        if (notesFragment != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("lower(r.notes) LIKE ?");
            args.add("%" + notesFragment.toLowerCase(Locale.ROOT) + "%");
        }
        String sql = "SELECT count(*) FROM run r" + where;
        return plain("cannot count runs", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bind(ps, args, 0);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        });
    }

    private static void bind(PreparedStatement ps, List<Object> args, int offset) throws SQLException {
        for (int i = 0; i < args.size(); i++) {
            ps.setObject(offset + i + 1, args.get(i));
        }
    }

    private void streamRuns(String where, List<Object> args, boolean withMetrics, Consumer<RunRecord> sink) {
        checkOpen();
        String cols = "r." + RUN_COLUMNS.replace(", ", ", r.");
        String order = " ORDER BY " + dialect.textOrder("r.commit_short") + " NULLS LAST, "
                + dialect.textOrder("r.pipeline") + " NULLS LAST, " + dialect.textOrder("r.arm") + ", r.round, "
                + dialect.textOrder("r.run_id");
        String runsSql = "SELECT " + cols + " FROM run r" + where + order;
        if (!withMetrics) {
            read(runsSql, args, rs -> {
                while (rs.next()) {
                    sink.accept(readRun(rs, List.of()));
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
                    try (PreparedStatement ps = prepare(second, metricsSql, args); ResultSet ms = ps.executeQuery()) {
                        boolean more = ms.next();
                        while (runs.next()) {
                            String runId = runs.getString(1);
                            List<Metric> metrics = new ArrayList<>();
                            while (more && runId.equals(ms.getString(1))) {
                                metrics.add(readMetric(ms, 2));
                                more = ms.next();
                            }
                            sink.accept(readRun(runs, metrics));
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
                int nameCol = RUN_COLUMN_COUNT + 1;
                while (rs.next()) {
                    String runId = rs.getString(1);
                    if (pending != null && !pending.runId().equals(runId)) {
                        sink.accept(withMetrics(pending, metrics));
                        metrics = new ArrayList<>();
                        pending = null;
                    }
                    if (pending == null) {
                        pending = readRun(rs, List.of());
                    }
                    if (rs.getString(nameCol) != null) {
                        metrics.add(readMetric(rs, nameCol));
                    }
                }
                if (pending != null) {
                    sink.accept(withMetrics(pending, metrics));
                }
            });
        }
    }

    private static Metric readMetric(ResultSet rs, int nameCol) throws SQLException {
        String better = rs.getString(nameCol + 3);
        return new Metric(rs.getString(nameCol), rs.getDouble(nameCol + 1), rs.getString(nameCol + 2),
                better == null ? null : Better.valueOf(better.toUpperCase(Locale.ROOT)));
    }

    @FunctionalInterface
    private interface RowsWork {
        void run(ResultSet rs) throws SQLException;
    }

    private static PreparedStatement prepare(Connection c, String sql, List<Object> args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
        ps.setFetchSize(FETCH_SIZE);
        for (int i = 0; i < args.size(); i++) {
            ps.setObject(i + 1, args.get(i));
        }
        return ps;
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
        try (PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
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

    private static RunRecord withMetrics(RunRecord r, List<Metric> metrics) {
        return RunRecord.builder(r.runId())
                .session(r.sessionId())
                .kind(r.kind())
                .commit(r.commit(), r.commitShort())
                .agent(r.agent())
                .arm(r.arm())
                .round(r.round())
                .status(r.status())
                .failure(r.failure())
                .mode(r.mode())
                .model(r.model())
                .pipeline(r.pipeline())
                .source(r.sourceId())
                .primary(r.primaryMetric(), r.primaryValue(), r.primaryOrigin())
                .workload(r.workload())
                .startedAt(r.startedAt())
                .durationMs(r.durationMs())
                .engineVersion(r.engineVersion())
                .envRef(r.envRef())
                .argvJson(r.argvJson())
                .logArtifact(r.logArtifact())
                .notes(r.notes())
                .details(r.details())
                .metrics(metrics)
                .build();
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
        return plain("cannot count runs", c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM run")) {
                rs.next();
                return rs.getLong(1);
            }
        });
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

    private static String updateSet(String columns, String key) {
        StringBuilder sb = new StringBuilder();
        for (String col : columns.split(",\\s*")) {
            if (col.equals(key)) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(col).append(" = EXCLUDED.").append(col);
        }
        return sb.toString();
    }

    static void setInstant(PreparedStatement ps, int i, Instant t) throws SQLException {
        if (t == null) {
            ps.setNull(i, Types.TIMESTAMP);
        } else {
            ps.setObject(i, LocalDateTime.ofInstant(t, ZoneOffset.UTC));
        }
    }

    static Instant getInstant(ResultSet rs, int i) throws SQLException {
        LocalDateTime t = rs.getObject(i, LocalDateTime.class);
        return t == null ? null : t.toInstant(ZoneOffset.UTC);
    }

    private static void setDouble(PreparedStatement ps, int i, Double v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.DOUBLE);
        } else {
            ps.setDouble(i, v);
        }
    }

    private static Double getDouble(ResultSet rs, int i) throws SQLException {
        double v = rs.getDouble(i);
        return rs.wasNull() ? null : v;
    }

    private static void setInt(PreparedStatement ps, int i, Integer v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.INTEGER);
        } else {
            ps.setInt(i, v);
        }
    }

    private static Integer getInt(ResultSet rs, int i) throws SQLException {
        int v = rs.getInt(i);
        return rs.wasNull() ? null : v;
    }
}
