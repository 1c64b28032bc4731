package io.isobench.store;

import io.isobench.guard.Secrets;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import static io.isobench.store.StoreSql.getDouble;
import static io.isobench.store.StoreSql.getInstant;
import static io.isobench.store.StoreSql.setDouble;
import static io.isobench.store.StoreSql.setInstant;

/** The {@code track}, {@code track_commit} and {@code track_change} tables' columns and rows (schema V2). */
final class TrackRows {

    static final String TRACK_COLUMNS = "track_id, task_id, suite_name, range_spec, repo, every_n, runs_per_commit, "
            + "anchor_commit, metric, better, session_id, started_at, status, settings_json";

    static final String COMMIT_COLUMNS = "track_id, position, commit_id, parent_commit, subject, selected, state, "
            + "detail";

    static final String CHANGE_COLUMNS = "track_id, task_id, position, commit_id, parent_commit, metric, direction, "
            + "change_pct, ci_low_pct, ci_high_pct, status, first_commit, evidence, candidate_p_value, session_id, "
            + "bisect_json, updated_at";

    static final String COMMIT_KEY = "track_id, position";
    static final String CHANGE_KEY = "track_id, commit_id, metric";

    private TrackRows() {
    }

    /** A record's required text: present and not blank, else {@code message}. */
    static void require(String value, String message) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(message);
        }
    }

    static int bindTrack(PreparedStatement ps, int i, TrackRecord t) throws SQLException {
        ps.setString(i++, t.trackId());
        ps.setString(i++, t.taskId());
        ps.setString(i++, t.suiteName());
        ps.setString(i++, t.range());
        ps.setString(i++, Secrets.redact(t.repo()));
        ps.setInt(i++, t.every());
        ps.setInt(i++, t.runsPerCommit());
        ps.setString(i++, t.anchorCommit());
        ps.setString(i++, t.metric());
        ps.setString(i++, t.better());
        ps.setString(i++, t.sessionId());
        setInstant(ps, i++, t.startedAt());
        ps.setString(i++, t.status());
        ps.setString(i++, t.settingsJson());
        return i;
    }

    static TrackRecord readTrack(ResultSet rs) throws SQLException {
        return new TrackRecord(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getInt(6), rs.getInt(7), rs.getString(8), rs.getString(9), rs.getString(10), rs.getString(11),
                getInstant(rs, 12), rs.getString(13), rs.getString(14));
    }

    /** A commit's subject is stored as the commit has it (untrusted text: escaped where shown, never run). */
    static int bindCommit(PreparedStatement ps, int i, TrackCommit c) throws SQLException {
        ps.setString(i++, c.trackId());
        ps.setInt(i++, c.position());
        ps.setString(i++, c.commitId());
        ps.setString(i++, c.parentCommit());
        ps.setString(i++, c.subject());
        ps.setBoolean(i++, c.selected());
        ps.setString(i++, c.state());
        ps.setString(i++, Secrets.redact(c.detail()));
        return i;
    }

    static TrackCommit readCommit(ResultSet rs) throws SQLException {
        return new TrackCommit(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getBoolean(6), rs.getString(7), rs.getString(8));
    }

    static int bindChange(PreparedStatement ps, int i, TrackChange c) throws SQLException {
        ps.setString(i++, c.trackId());
        ps.setString(i++, c.taskId());
        ps.setInt(i++, c.position());
        ps.setString(i++, c.commitId());
        ps.setString(i++, c.parentCommit());
        ps.setString(i++, c.metric());
        ps.setString(i++, c.direction());
        setDouble(ps, i++, c.changePct());
        setDouble(ps, i++, c.ciLowPct());
        setDouble(ps, i++, c.ciHighPct());
        ps.setString(i++, c.status());
        ps.setString(i++, c.firstCommit());
        ps.setString(i++, Secrets.redact(c.evidence()));
        setDouble(ps, i++, c.candidatePValue());
        ps.setString(i++, c.sessionId());
        ps.setString(i++, c.bisectJson());
        setInstant(ps, i++, c.updatedAt());
        return i;
    }

    static TrackChange readChange(ResultSet rs) throws SQLException {
        return new TrackChange(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), getDouble(rs, 8), getDouble(rs, 9), getDouble(rs, 10),
                rs.getString(11), rs.getString(12), rs.getString(13), getDouble(rs, 14), rs.getString(15),
                rs.getString(16), getInstant(rs, 17));
    }
}
