package io.isobench.store;

import java.time.Instant;

/**
 * One track ({@code isobench track}, docs/track.md): a task's series over a first-parent commit range. Its runs are
 * ordinary {@code run} rows of session {@code sessionId} with arm {@code track}.
 *
 * @param trackId       deterministic (suite, task, resolved range, N, K): running the same command again resumes it
 * @param taskId        the suite's task
 * @param suiteName     the suite's name, or null
 * @param range         the range as resolved, {@code FULL1..FULL2}
 * @param repo          the engine repository as the suite names it, or null
 * @param every         N of {@code --every N}: every N-th commit measured (≥ 1)
 * @param runsPerCommit K of {@code --runs K} (≥ 1)
 * @param anchorCommit  the commit whose runs bracket each block (the range's base), or null
 * @param metric        the series' metric (the task's primary metric)
 * @param better        {@code higher} or {@code lower}: which way the metric is better
 * @param sessionId     the session holding the series' runs
 * @param startedAt     when the track was first started
 * @param status        {@code running}, {@code measured}, {@code done} or {@code failed}
 * @param settingsJson  the detector's and confirmation's settings as JSON, or null
 */
public record TrackRecord(String trackId, String taskId, String suiteName, String range, String repo, int every,
                          int runsPerCommit, String anchorCommit, String metric, String better, String sessionId,
                          Instant startedAt, String status, String settingsJson) {

    public TrackRecord {
        TrackRows.require(trackId, "a track needs its id");
        TrackRows.require(taskId, "track " + trackId + " needs its task");
        TrackRows.require(range, "track " + trackId + " needs its range");
        TrackRows.require(status, "track " + trackId + " needs a status");
        if (every < 1 || runsPerCommit < 1) {
            throw new IllegalArgumentException("track " + trackId + ": every (" + every + ") and runs per commit ("
                    + runsPerCommit + ") must be >= 1");
        }
    }

    /** This track with {@code newStatus}. */
    public TrackRecord withStatus(String newStatus) {
        return new TrackRecord(trackId, taskId, suiteName, range, repo, every, runsPerCommit, anchorCommit, metric,
                better, sessionId, startedAt, newStatus, settingsJson);
    }

    /** A track built by name (its 14 values are not built positionally outside the store). */
    public static Builder builder(String trackId, String taskId) {
        return new Builder(trackId, taskId);
    }

    /** Builds a {@link TrackRecord}; unset values are null (every, runs per commit: 1; status: running). */
    public static final class Builder {
        private final String trackId;
        private final String taskId;
        private String suiteName;
        private String repo;
        private String range;
        private String anchorCommit;
        private int every = 1;
        private int runsPerCommit = 1;
        private String metric;
        private String better;
        private String sessionId;
        private Instant startedAt;
        private String status = "running";
        private String settingsJson;

        private Builder(String trackId, String taskId) {
            this.trackId = trackId;
            this.taskId = taskId;
        }

        public Builder suite(String suiteNameOrNull, String repoOrNull) {
            this.suiteName = suiteNameOrNull;
            this.repo = repoOrNull;
            return this;
        }

        public Builder range(String resolvedRange, String anchor, int everyN, int runsK) {
            this.range = resolvedRange;
            this.anchorCommit = anchor;
            this.every = everyN;
            this.runsPerCommit = runsK;
            return this;
        }

        public Builder metric(String name, String betterLabel) {
            this.metric = name;
            this.better = betterLabel;
            return this;
        }

        public Builder session(String id, Instant started) {
            this.sessionId = id;
            this.startedAt = started;
            return this;
        }

        public Builder status(String value) {
            this.status = value;
            return this;
        }

        public Builder settingsJson(String json) {
            this.settingsJson = json;
            return this;
        }

        public TrackRecord build() {
            return new TrackRecord(trackId, taskId, suiteName, range, repo, every, runsPerCommit, anchorCommit, metric,
                    better, sessionId, startedAt, status, settingsJson);
        }
    }
}
