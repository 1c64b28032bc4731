package io.isobench.store;

import java.time.Instant;

/**
 * A change point of a track: a {@code candidate} found in the series, then {@code confirmed} or {@code rejected} by
 * a paired session of {@code commitId} against {@code parentCommit} (the status and direction names are a contract:
 * docs/track.md, {@code isobench changes}).
 *
 * @param trackId         the track
 * @param taskId          its task
 * @param position        the commit's position in the track's range
 * @param commitId        the measured commit where the change was found
 * @param parentCommit    the previous measured commit (the first parent when every commit is measured)
 * @param metric          the metric that changed
 * @param direction       {@code faster}, {@code slower} or {@code none}
 * @param changePct       the change commit vs parent in percent (the series' for a candidate, the session's after)
 * @param ciLowPct        the low end of the confirming session's interval on the change, percent; null before
 * @param ciHighPct       the high end
 * @param status          {@code candidate}, {@code confirmed} or {@code rejected}
 * @param firstCommit     the first commit that carries the change (bisected), or null
 * @param evidence        one line: the confirming session's verdict and numbers, or the candidate's test
 * @param candidatePValue the detector's p-value of the split
 * @param sessionId       the confirming session, or null
 * @param bisectJson      the bisect's sessions and skipped commits as JSON, or null
 * @param updatedAt       when the row was last written
 */
public record TrackChange(String trackId, String taskId, int position, String commitId, String parentCommit,
                          String metric, String direction, Double changePct, Double ciLowPct, Double ciHighPct,
                          String status, String firstCommit, String evidence, Double candidatePValue,
                          String sessionId, String bisectJson, Instant updatedAt) {

    public TrackChange {
        TrackRows.require(trackId, "a track change needs its track id");
        TrackRows.require(taskId, "track " + trackId + ": a change needs its task");
        TrackRows.require(commitId, "track " + trackId + ": a change needs its commit");
        TrackRows.require(metric, "track " + trackId + " change at " + commitId + " needs its metric");
        TrackRows.require(direction, "track " + trackId + " change at " + commitId + " needs a direction");
        TrackRows.require(status, "track " + trackId + " change at " + commitId + " needs a status");
    }
}
