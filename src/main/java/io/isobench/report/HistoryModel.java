package io.isobench.report;

import io.isobench.analysis.MedianCi;
import io.isobench.analysis.StatsConfig;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine histories of a store ({@code isobench track}), as the history pages and the Markdown section show them:
 * per track its record, every commit of its range in first-parent order with the series point measured there, and
 * its change rows. Read once from the store ({@link #collect}); the renderers never read the store.
 *
 * <p>A point's values are the primary values of the track session's successful runs of arm {@code track} at that
 * commit (a run whose primary metric is not the track's is left out); its median and interval are
 * {@link MedianCi} (the seeded percentile bootstrap of the median, 95 %, docs/html-report.md "Engine history").
 */
final class HistoryModel {

    /** The arm label of a track's series runs (the shared design of issue 30). */
    static final String TRACK_ARM = "track";

    /**
     * One commit of a track's range.
     *
     * @param commit     the stored commit row (position, ids, subject, state)
     * @param ci         median and 95 % bootstrap interval of its successful runs; null when it has none
     * @param failedRuns its runs that did not succeed
     */
    record Point(TrackCommit commit, MedianCi ci, int failedRuns) {

        /** Whether the commit could not be built (state {@code build_failed}). */
        boolean notBuilt() {
            return "build_failed".equals(commit.state());
        }
    }

    /**
     * One track.
     *
     * @param record  the stored track
     * @param points  every commit of the range, by position
     * @param changes its change rows (candidate, confirmed, rejected), by position
     */
    record Track(TrackRecord record, List<Point> points, List<TrackChange> changes) {

        /** The commit row with this full id (or a prefix of at least 7 characters either way), or null. */
        TrackCommit commit(String id) {
            Point p = point(id);
            return p == null ? null : p.commit();
        }

        /** The point of the commit with this id, or null. */
        Point point(String id) {
            if (id == null || id.isBlank()) {
                return null;
            }
            for (Point p : points) {
                if (sameCommit(p.commit().commitId(), id)) {
                    return p;
                }
            }
            return null;
        }

        /** The confirmed change rows. */
        List<TrackChange> confirmed() {
            return changes.stream().filter(c -> "confirmed".equals(c.status())).toList();
        }
    }

    private HistoryModel() {
    }

    /**
     * The tracks of the store, grouped by task (task ids sorted; a task's tracks by track id), each with its commits,
     * its series read from its session's runs and its change rows.
     */
    static Map<String, List<Track>> collect(Store store) {
        List<TrackRecord> records = store.tracks();
        Map<String, List<Track>> byTask = new LinkedHashMap<>();
        if (records.isEmpty()) {
            return byTask;
        }
        Map<String, List<TrackChange>> changes = new HashMap<>();
        for (TrackChange c : store.trackChanges(null)) {
            changes.computeIfAbsent(c.trackId(), k -> new ArrayList<>()).add(c);
        }
        for (TrackRecord t : records) {
            List<TrackCommit> commits = store.trackCommits(t.trackId());
            Map<String, List<Double>> values = new HashMap<>();
            Map<String, Integer> failed = new HashMap<>();
            if (t.sessionId() != null) {
                store.forEachRun(RunFilter.runs().inSession(t.sessionId()), r -> series(t, commits, r, values, failed));
            }
            List<Point> points = new ArrayList<>();
            for (TrackCommit c : commits) {
                List<Double> v = values.getOrDefault(c.commitId(), List.of());
                MedianCi ci = v.isEmpty() ? null
                        : MedianCi.of(v.stream().mapToDouble(Double::doubleValue).toArray(), StatsConfig.defaults());
                points.add(new Point(c, ci, failed.getOrDefault(c.commitId(), 0)));
            }
            byTask.computeIfAbsent(t.taskId(), k -> new ArrayList<>())
                    .add(new Track(t, List.copyOf(points), List.copyOf(changes.getOrDefault(t.trackId(), List.of()))));
        }
        return byTask;
    }

    /** Files a series run under its commit: successful with the track's primary value, or failed. */
    private static void series(TrackRecord t, List<TrackCommit> commits, RunRecord r, Map<String, List<Double>> values,
                               Map<String, Integer> failed) {
        if (!TRACK_ARM.equals(r.arm().label()) || r.commit() == null) {
            return;
        }
        String id = null;
        for (TrackCommit c : commits) {
            if (sameCommit(c.commitId(), r.commit())) {
                id = c.commitId();
                break;
            }
        }
        if (id == null) {
            return;
        }
        Double v = r.primaryValue();
        boolean sameMetric = t.metric() == null || r.primaryMetric() == null || t.metric().equals(r.primaryMetric());
        if (r.status() == RunRecord.RunStatus.SUCCESS && v != null && Double.isFinite(v) && sameMetric) {
            values.computeIfAbsent(id, k -> new ArrayList<>()).add(v);
        } else if (r.status() == RunRecord.RunStatus.FAILED) {
            failed.merge(id, 1, Integer::sum);
        }
    }

    /** Two commit ids name the same commit: equal, or one a prefix (7 characters at least) of the other. */
    static boolean sameCommit(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        if (a.equalsIgnoreCase(b)) {
            return true;
        }
        String s = a.length() < b.length() ? a : b;
        String l = a.length() < b.length() ? b : a;
        return s.length() >= 7 && l.regionMatches(true, 0, s, 0, s.length());
    }

    /** A range {@code REV1..REV2} with each full commit id (20 characters or more) cut to 8; names kept. */
    static String shortRange(String range) {
        if (range == null) {
            return "";
        }
        int dots = range.indexOf("..");
        if (dots < 0) {
            return range;
        }
        return shortRev(range.substring(0, dots)) + ".." + shortRev(range.substring(dots + 2));
    }

    private static String shortRev(String rev) {
        return rev.matches("[0-9a-zA-Z]{20,}") ? shortId(rev) : rev;
    }

    /** A commit id as the pages show it: its first 8 characters. */
    static String shortId(String id) {
        return id == null ? "" : id.length() > 8 ? id.substring(0, 8) : id;
    }
}
