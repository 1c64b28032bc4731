package io.isobench.history;

import io.isobench.parse.Better;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;
import io.isobench.track.ChangePoint;
import io.isobench.track.EDivisive;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A track's candidates (docs/statistics.md §21a, §21f): the series by pass handed to {@link EDivisive#detect} — per
 * measured commit, entry r its value in pass r + 1: the run's raw primary value, or for the anchor (several runs in a
 * pass) the geometric mean of its runs in that pass; NaN for a pass without an ok run. No normalisation by the anchor:
 * the detector removes each pass's common drift itself. Each change point becomes a {@code candidate} row: the
 * measured commit after the split, the measured commit before it as its parent, the change in percent from the
 * series, and the t test's p.
 */
final class TrackDetection {

    private TrackDetection() {
    }

    /**
     * The series by pass of one measured commit: {@code passes} entries, NaN where the pass has no ok run.
     */
    static double[] byPass(List<TrackSeries.Run> runs, int passes) {
        double[] logSum = new double[passes];
        int[] n = new int[passes];
        for (TrackSeries.Run r : runs) {
            logSum[r.pass() - 1] += Math.log(r.value());
            n[r.pass() - 1]++;
        }
        double[] out = new double[passes];
        for (int p = 0; p < passes; p++) {
            out[p] = n[p] == 0 ? Double.NaN : Math.exp(logSum[p] / n[p]);
        }
        return out;
    }

    /**
     * The candidates of a measured series.
     *
     * @param track   the track (id, task, K, metric)
     * @param commits the range's rows by position
     * @param values  per measured position, its ok runs
     * @param better  the metric's direction
     */
    static List<TrackChange> candidates(TrackRecord track, List<TrackCommit> commits,
                                        Map<Integer, List<TrackSeries.Run>> values, Better better) {
        List<double[]> series = new ArrayList<>();
        for (TrackCommit c : commits) {
            List<TrackSeries.Run> v = values.get(c.position());
            series.add(v == null || v.isEmpty() ? null : byPass(v, track.runsPerCommit()));
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
            out.add(TrackChange.builder(track.trackId(), track.taskId()).at(cp.commit(), at.commitId(),
                            before.commitId()).change(track.metric(), cp.direction().label(), cp.changePct())
                    .status("candidate", null, evidence).candidatePValue(cp.pValue()).updatedAt(now).build());
        }
        return out;
    }
}
