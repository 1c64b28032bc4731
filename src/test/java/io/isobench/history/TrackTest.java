package io.isobench.history;

import io.isobench.parse.Better;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/** The track id, the range's rows on resume and the candidates of a series. */
class TrackTest {

    private static final TrackRange RANGE = new TrackRange("c0", "c5", List.of(
            new TrackRange.Commit(0, "c0", null, "root"), new TrackRange.Commit(1, "c1", "c0", "one"),
            new TrackRange.Commit(2, "c2", "c1", "two"), new TrackRange.Commit(3, "c3", "c2", "three"),
            new TrackRange.Commit(4, "c4", "c3", "four"), new TrackRange.Commit(5, "c5", "c4", "five")));

    @Test
    void theTrackIdIsAFunctionOfSuiteTaskResolvedRangeEveryAndRuns() {
        String id = Track.trackId("s", "t", "aaa", "bbb", 1, 5);
        assertThat(id).matches("track-[0-9a-f]{12}").isEqualTo(Track.trackId("s", "t", "aaa", "bbb", 1, 5));
        assertThat(List.of(Track.trackId("s2", "t", "aaa", "bbb", 1, 5), Track.trackId("s", "t2", "aaa", "bbb", 1, 5),
                Track.trackId("s", "t", "aab", "bbb", 1, 5), Track.trackId("s", "t", "aaa", "bbc", 1, 5),
                Track.trackId("s", "t", "aaa", "bbb", 2, 5), Track.trackId("s", "t", "aaa", "bbb", 1, 6)))
                .doesNotContain(id).doesNotHaveDuplicates();
    }

    @Test
    void theRowsOfANewTrackArePendingOrNotSelectedAndAResumedTrackKeepsItsStates() {
        List<TrackCommit> fresh = Track.rows("tr", RANGE, TrackRange.selected(6, 2), List.of());
        assertThat(fresh.stream().map(TrackCommit::state)).containsExactly("pending", "not_selected", "pending",
                "not_selected", "pending", "pending");
        assertThat(fresh.get(3).parentCommit()).isEqualTo("c2");
        assertThat(fresh.get(3).subject()).isEqualTo("three");
        List<TrackCommit> stored = new ArrayList<>(fresh);
        stored.set(2, fresh.get(2).withState("build_failed", "make: error"));
        stored.set(4, fresh.get(4).withState("measured", "2 ok run(s)"));
        List<TrackCommit> again = Track.rows("tr", RANGE, TrackRange.selected(6, 2), stored);
        assertThat(again.get(2).state()).isEqualTo("build_failed");
        assertThat(again.get(2).detail()).isEqualTo("make: error");
        assertThat(again.get(4).state()).isEqualTo("measured");
        assertThat(again.get(0).state()).isEqualTo("pending");
    }

    @Test
    void aStepInTheSeriesIsACandidateBetweenTheTwoMeasuredCommitsAroundIt() {
        List<TrackCommit> rows = Track.rows("tr", RANGE, TrackRange.selected(6, 1), List.of());
        TrackRecord track = TrackRecord.builder("tr", "t").range("c0..c5", "c0", 1, 3)
                .metric("command_cpu_s", "lower").build();
        Map<Integer, List<TrackSeries.Run>> values = new TreeMap<>();
        double[][] runs = {{1.00, 1.01, 0.99}, {1.01, 1.00, 0.995}, {0.99, 1.005, 1.0},
                {0.85, 0.86, 0.855}, {0.852, 0.848, 0.86}, {0.85, 0.855, 0.845}};
        for (int i = 0; i < runs.length; i++) {
            List<TrackSeries.Run> v = new ArrayList<>();
            for (int p = 0; p < runs[i].length; p++) {
                v.add(new TrackSeries.Run(p + 1, runs[i][p]));
            }
            values.put(i, v);
        }
        List<TrackChange> c = TrackDetection.candidates(track, rows, values, Better.LOWER);
        assertThat(c).hasSize(1);
        TrackChange at = c.get(0);
        assertThat(at.position()).isEqualTo(3);
        assertThat(at.commitId()).isEqualTo("c3");
        assertThat(at.parentCommit()).isEqualTo("c2");
        assertThat(at.metric()).isEqualTo("command_cpu_s");
        assertThat(at.direction()).isEqualTo("faster");
        assertThat(at.status()).isEqualTo("candidate");
        assertThat(at.changePct()).isBetween(-16.0, -13.0);
        assertThat(at.candidatePValue()).isLessThan(0.01);
        assertThat(at.ciLowPct()).isNull();
        assertThat(at.evidence()).startsWith("E-divisive: -14.");
        // a commit without values (not built) is left out: the change lies between the measured commits around it
        values.remove(3);
        List<TrackChange> gap = TrackDetection.candidates(track, rows, values, Better.LOWER);
        assertThat(gap).hasSize(1);
        assertThat(gap.get(0).commitId()).isEqualTo("c4");
        assertThat(gap.get(0).parentCommit()).isEqualTo("c2");
    }

    @Test
    void theSeriesIsByPassTheAnchorsRunsInAPassByTheirGeometricMeanAndAPassWithoutARunIsNaN() {
        double[] anchor = TrackDetection.byPass(List.of(new TrackSeries.Run(1, 1.0), new TrackSeries.Run(1, 4.0),
                new TrackSeries.Run(3, 2.0)), 3);
        assertThat(anchor[0]).isCloseTo(2.0, offset(1e-12));
        assertThat(anchor[1]).isNaN();
        assertThat(anchor[2]).isEqualTo(2.0);
    }
}
