package io.isobench.history;

import io.isobench.parse.Better;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.track.ChangePoint;
import io.isobench.track.EDivisive;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A track's candidates (docs/statistics.md §21): the series' raw run values per measured commit (no normalisation)
 * handed to {@link EDivisive#detect}; each change point becomes a {@code candidate} row: the measured commit after
 * the split, the measured commit before it as its parent, the change in percent from the series, and the t test's p.
 */
final class TrackDetection {

    private TrackDetection() {
    }

    /**
     * The candidates of a measured series.
     *
     * @param trackId the track
     * @param taskId  its task
     * @param commits the range's rows by position
     * @param values  per measured position, its runs' values
     * @param metric  the primary metric's name
     * @param better  its direction
     */
    static List<TrackChange> candidates(String trackId, String taskId, List<TrackCommit> commits,
                                        Map<Integer, List<Double>> values, String metric, Better better) {
        List<double[]> series = new ArrayList<>();
        for (TrackCommit c : commits) {
            List<Double> v = values.get(c.position());
            series.add(v == null || v.isEmpty() ? null : v.stream().mapToDouble(Double::doubleValue).toArray());
        }
        List<TrackChange> out = new ArrayList<>();
        Instant now = Instant.now();
        for (ChangePoint cp : EDivisive.detect(series, better)) {
            TrackCommit at = commits.get(cp.commit());
            TrackCommit before = commits.get(cp.previous());
            String evidence = String.format(Locale.ROOT, "E-divisive: %+.2f %% between measured commits %d and %d,"
                            + " t = %.2f, p = %.2g, q̂ = %.3g (%d and %d runs)", cp.changePct(), cp.previous(),
                    cp.commit(), cp.tStatistic(), cp.pValue(), cp.qHat(), values.get(cp.previous()).size(),
                    values.get(cp.commit()).size());
            out.add(TrackChange.builder(trackId, taskId).at(cp.commit(), at.commitId(), before.commitId())
                    .change(metric, cp.direction().label(), cp.changePct()).status("candidate", null, evidence)
                    .candidatePValue(cp.pValue()).updatedAt(now).build());
        }
        return out;
    }
}
