package io.isobench.store;

import io.isobench.Arm;
import io.isobench.guard.Secrets;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import static io.isobench.store.StoreSql.getDouble;
import static io.isobench.store.StoreSql.getInstant;
import static io.isobench.store.StoreSql.setDouble;
import static io.isobench.store.StoreSql.setInstant;
import static io.isobench.store.StoreSql.updateSet;

/** The {@code run} table's row ↔ {@link RunRecord} (the details through {@link RunDetailsCodec}), and run filters. */
final class RunRows {

    private static final int RUN_CHUNK = 200;
    private static final int METRIC_CHUNK = 1000;

    static final String RUN_COLUMNS = "run_id, session_id, kind, commit_id, commit_short, agent, arm, round, status, "
            + "failure_category, failure_detail, failure_evidence, failure_retryable, mode, model, pipeline, source_id, "
            + "primary_metric, primary_value, primary_origin, workload, started_at, duration_ms, engine_version, env_ref, "
            + "argv_json, log_artifact, notes, extra_json";

    static final int RUN_COLUMN_COUNT = RUN_COLUMNS.split(",").length;

    /** Binds a run's columns from parameter {@code i}; returns the next free parameter index. */
    static int bind(PreparedStatement ps, int i, RunRecord r) throws SQLException {
        ps.setString(i++, r.runId());
        ps.setString(i++, r.sessionId());
        ps.setString(i++, r.kind().name());
        ps.setString(i++, r.commit());
        ps.setString(i++, r.commitShort());
        ps.setString(i++, Arm.normalizeAgent(r.agent()));
        ps.setString(i++, normalizeArm(r.arm().label()));
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
        ps.setString(i++, r.mode() == null ? null : r.mode().label());
        ps.setString(i++, Secrets.redact(r.model()));
        ps.setString(i++, Pipeline.labelOf(r.pipeline()));
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
    static RunRecord read(ResultSet rs, List<Metric> metrics) throws SQLException {
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
                .armLabel(rs.getString(7))
                .round(rs.getInt(8))
                .status(RunRecord.RunStatus.valueOf(rs.getString(9)))
                .failure(failure)
                .modeLabel(rs.getString(14))
                .model(rs.getString(15))
                .pipelineLabel(rs.getString(16))
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

    /** WHERE clause for a filter (alias r), or null when the filter matches nothing. */
    static StringBuilder where(RunFilter filter, List<Object> args) {
        StringBuilder where = new StringBuilder();
        if (filter.agent() != null && Arm.normalizeAgent(filter.agent()).equals(RunFilter.UNKNOWN_AGENT)) {
            // the source names no agent: stored without one (an agent arm then reads agent:unknown)
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("(r.agent IS NULL OR r.agent = ?)");
            args.add(RunFilter.UNKNOWN_AGENT);
        } else if (filter.agent() != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.agent = ?");
            args.add(Arm.normalizeAgent(filter.agent()));
        }
        scope(filter.scope(), where, args);
        if (filter.kinds() != null) {
            if (filter.kinds().isEmpty()) {
                return null;
            }
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.kind IN (")
                    .append(String.join(", ", Collections.nCopies(filter.kinds().size(), "?"))).append(')');
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

    private static void scope(RunFilter.Scope scope, StringBuilder where, List<Object> args) {
        if (scope.pipeline() != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("r.pipeline = ?");
            args.add(scope.pipeline());
        }
        if (scope.arm() != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ");
            if (scope.arm().equals("agent")) {
                where.append("r.arm LIKE ?");
                args.add("agent:%");
            } else {
                where.append("r.arm = ?");
                args.add(scope.arm().startsWith("agent:") ? Arm.agent(scope.arm().substring(6)).label() : scope.arm());
            }
        }
        if (scope.sourcePrefix() != null) {
            // the source column of `isobench runs`: root_path / hf_file in the run's JSON details (written compactly
            // by Jackson, which escapes neither '/' nor non-ASCII), or the session id of a native run
            String like = likeEscape(scope.sourcePrefix()) + "%";
            String json = likeEscape(jsonEscape(scope.sourcePrefix())) + "%";
            where.append(where.isEmpty() ? " WHERE " : " AND ")
                    .append("(r.extra_json LIKE ? ESCAPE '\\' OR r.extra_json LIKE ? ESCAPE '\\'"
                            + " OR r.session_id LIKE ? ESCAPE '\\')");
            args.add("%\"root\\_path\":\"" + json);
            args.add("%\"hf\\_file\":\"" + json);
            args.add(like);
        }
    }

    /** {@code s} with LIKE's wildcards and the escape character itself escaped (escape character backslash). */
    private static String likeEscape(String s) {
        return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    /** {@code s} as it appears inside a JSON string written by Jackson. */
    private static String jsonEscape(String s) {
        String quoted = RunDetailsCodec.write(s);
        return quoted.substring(1, quoted.length() - 1);
    }

    /** Runs matching {@code filter} whose notes contain {@code notesFragment} (case-insensitive; null: every run). */
    static long count(Connection c, RunFilter filter, String notesFragment) throws SQLException {
        List<Object> args = new ArrayList<>();
        StringBuilder where = where(filter, args);
        if (where == null) {
            return 0;
        }
        if (notesFragment != null) {
            where.append(where.isEmpty() ? " WHERE " : " AND ").append("lower(r.notes) LIKE ?");
            args.add("%" + notesFragment.toLowerCase(Locale.ROOT) + "%");
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM run r" + where)) {
            StoreSql.bind(ps, args, 0);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Sets the kind of each run named (unknown ids ignored); the number of runs changed. */
    static int setKinds(Connection c, Map<String, RunRecord.RunKind> kindByRunId) throws SQLException {
        int n = 0;
        try (PreparedStatement ps = c.prepareStatement("UPDATE run SET kind = ? WHERE run_id = ? AND kind <> ?")) {
            for (Map.Entry<String, RunRecord.RunKind> e : kindByRunId.entrySet()) {
                ps.setString(1, e.getValue().name());
                ps.setString(2, e.getKey());
                ps.setString(3, e.getValue().name());
                n += ps.executeUpdate();
            }
        }
        return n;
    }

    static Metric readMetric(ResultSet rs, int nameCol) throws SQLException {
        String better = rs.getString(nameCol + 3);
        return new Metric(rs.getString(nameCol), rs.getDouble(nameCol + 1), rs.getString(nameCol + 2),
                better == null ? null : Better.valueOf(better.toUpperCase(Locale.ROOT)));
    }

    /**
     * Inserts or replaces {@code runs} (unique ids) and their metrics, with multi-row statements of
     * {@link #RUN_CHUNK} runs and {@link #METRIC_CHUNK} metrics.
     */
    static void upsert(Connection c, List<RunRecord> runs) throws SQLException {
        // multi-row statements: DuckDB runs each element of a JDBC batch as its own statement (~10 ms a row)
        for (int from = 0; from < runs.size(); from += RUN_CHUNK) {
            List<RunRecord> chunk = runs.subList(from, Math.min(runs.size(), from + RUN_CHUNK));
            String row = "(?" + ", ?".repeat(RUN_COLUMN_COUNT - 1) + ")";
            try (PreparedStatement upsert = c.prepareStatement("INSERT INTO run (" + RUN_COLUMNS + ") VALUES "
                    + String.join(", ", Collections.nCopies(chunk.size(), row))
                    + " ON CONFLICT (run_id) DO UPDATE SET " + StoreSql.updateSet(RUN_COLUMNS, "run_id"));
                 PreparedStatement delete = c.prepareStatement("DELETE FROM metric WHERE run_id IN ("
                         + String.join(", ", Collections.nCopies(chunk.size(), "?")) + ")")) {
                int i = 1;
                int k = 1;
                for (RunRecord r : chunk) {
                    i = bind(upsert, i, r);
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
                    + "VALUES " + String.join(", ", Collections.nCopies(chunk.size(), "(?, ?, ?, ?, ?, ?)")))) {
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
    }

    /** The WHERE clause of failed runs of a filter, and its arguments. */
    record Failed(String where, List<Object> args) {
    }

    /** Failure counts per category and arm group, with example commits and one evidence each. */
    static List<Store.FailureCount> failureCounts(Connection c, JdbcStore.Dialect dialect, Failed f, int examples)
            throws SQLException {
        Map<String, long[]> counts = new TreeMap<>();
        // the A/A arm is a baseline; a run charged to no arm (a legacy harness event, arm `attempt`) has its own count
        String armCase = "CASE WHEN r.arm IN ('baseline', 'baseline-aa') THEN 0 WHEN r.arm = 'human' THEN 1"
                + " WHEN r.arm LIKE 'agent:%' THEN 2 ELSE 3 END";
        try (PreparedStatement ps = c.prepareStatement("SELECT r.failure_category, " + armCase
                + ", count(*) FROM run r" + f.where() + " GROUP BY 1, 2")) {
            StoreSql.bind(ps, f.args(), 0);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    counts.computeIfAbsent(rs.getString(1), k -> new long[4])[rs.getInt(2)] = rs.getLong(3);
                }
            }
        }
        List<Store.FailureCount> out = new ArrayList<>();
        int limit = Math.max(1, examples);
        String ofCategory = " FROM run r" + f.where() + " AND r.failure_category = ?";
        try (PreparedStatement commitsPs = c.prepareStatement("SELECT r.commit_short" + ofCategory
                + " AND r.commit_short IS NOT NULL GROUP BY r.commit_short ORDER BY "
                + dialect.textOrder("r.commit_short") + " LIMIT " + (limit + 1));
             PreparedStatement evidencePs = c.prepareStatement("SELECT r.failure_evidence, r.failure_detail"
                + ofCategory + " ORDER BY " + dialect.textOrder("r.commit_short") + " NULLS LAST, "
                + dialect.textOrder("r.run_id") + " LIMIT 1")) {
            for (Map.Entry<String, long[]> e : counts.entrySet()) {
                List<String> commits = new ArrayList<>();
                StoreSql.bind(commitsPs, f.args(), 0);
                commitsPs.setString(f.args().size() + 1, e.getKey());
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
                StoreSql.bind(evidencePs, f.args(), 0);
                evidencePs.setString(f.args().size() + 1, e.getKey());
                try (ResultSet rs = evidencePs.executeQuery()) {
                    if (rs.next()) {
                        String ev = rs.getString(1);
                        evidence = ev == null || ev.isBlank() ? rs.getString(2) : ev;
                    }
                }
                long[] n = e.getValue();
                out.add(new Store.FailureCount(e.getKey(), n[0], n[1], n[2], n[3], evidence, List.copyOf(commits), more));
            }
        }
        return out;
    }

    private RunRows() {
    }
}
