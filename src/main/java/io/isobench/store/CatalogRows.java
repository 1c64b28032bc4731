package io.isobench.store;

import io.isobench.Arm;
import io.isobench.guard.Secrets;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;

import static io.isobench.store.StoreSql.getInstant;
import static io.isobench.store.StoreSql.getInt;
import static io.isobench.store.StoreSql.setInstant;
import static io.isobench.store.StoreSql.setInt;

/** The {@code source}, {@code task} and {@code session} tables' columns and rows. */
final class CatalogRows {

    static final String SOURCE_COLUMNS = "source_id, format_id, path, sha256, pipeline, invocation_group, agent, "
            + "outcome, reason, content_artifact";

    static final String TASK_COLUMNS = "task_id, repo, commit_id, parent_commit, subject, perf_command, model, "
            + "gpu_config, gpu_count";

    static final String SESSION_COLUMNS = "session_id, started_at, ended_at, host, cpu, gpu, machine_json, "
            + "suite_json, stats_config_json, seed, status";

    static SourceRecord readSource(ResultSet rs) throws SQLException {
        return SourceRecord.builder(rs.getString(1)).format(rs.getString(2)).file(rs.getString(3), rs.getString(4))
                .pipeline(rs.getString(5)).invocationGroup(rs.getString(6)).agent(rs.getString(7))
                .outcome(rs.getString(8), rs.getString(9)).contentArtifact(rs.getString(10)).build();
    }

    static TaskRecord readTask(ResultSet rs) throws SQLException {
        return TaskRecord.builder(rs.getString(1)).repo(rs.getString(2)).commit(rs.getString(3), rs.getString(4))
                .subject(rs.getString(5)).perfCommand(rs.getString(6)).model(rs.getString(7))
                .gpus(rs.getString(8), getInt(rs, 9)).build();
    }

    static SessionRecord readSession(ResultSet rs) throws SQLException {
        long seed = rs.getLong(10);
        Long seedOrNull = rs.wasNull() ? null : seed;
        return SessionRecord.builder(rs.getString(1)).time(getInstant(rs, 2), getInstant(rs, 3))
                .machine(rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7))
                .suiteJson(rs.getString(8)).statsConfigJson(rs.getString(9)).seed(seedOrNull).status(rs.getString(11))
                .build();
    }

    /** Binds a source row (imported at {@code now}) from parameter {@code i}; returns the next free index. */
    static int bindSource(PreparedStatement ps, int i, SourceRecord s, Instant now) throws SQLException {
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
    }

    /** Binds a task row from parameter {@code i}; returns the next free index. */
    static int bindTask(PreparedStatement ps, int i, TaskRecord t) throws SQLException {
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
    }

    /** Binds a session row from parameter 1. */
    /** Binds a session row from parameter {@code i}; returns the next free index. */
    static int bindSession(PreparedStatement ps, int i, SessionRecord s) throws SQLException {
        ps.setString(i++, s.sessionId());
        setInstant(ps, i++, s.startedAt());
        setInstant(ps, i++, s.endedAt());
        ps.setString(i++, Secrets.redact(s.host()));
        ps.setString(i++, Secrets.redact(s.cpu()));
        ps.setString(i++, Secrets.redact(s.gpu()));
        ps.setString(i++, Secrets.redact(s.machineJson()));
        ps.setString(i++, Secrets.redact(s.suiteJson()));
        ps.setString(i++, Secrets.redact(s.statsConfigJson()));
        if (s.seed() == null) {
            ps.setNull(i++, Types.BIGINT);
        } else {
            ps.setLong(i++, s.seed());
        }
        ps.setString(i++, Secrets.redact(s.status()));
        return i;
    }

    private CatalogRows() {
    }
}
