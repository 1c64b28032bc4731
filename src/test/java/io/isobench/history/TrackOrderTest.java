package io.isobench.history;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TrackOrderTest {

    @Test
    void passesAlternateDirectionAndEveryBlockOfFourIsBracketedByTheAnchor() {
        List<TrackOrder.Slot> slots = TrackOrder.of(List.of(0, 1, 2, 3, 4, 5, 6), 2);
        assertThat(slots.stream().filter(s -> s.pass() == 1).map(TrackOrder.Slot::position).toList())
                .containsExactly(0, 1, 2, 3, 4, 0, 5, 6, 0);
        assertThat(slots.stream().filter(s -> s.pass() == 2).map(TrackOrder.Slot::position).toList())
                .containsExactly(0, 6, 5, 4, 3, 0, 2, 1, 0);
        assertThat(slots.stream().filter(TrackOrder.Slot::anchor).map(TrackOrder.Slot::position).distinct())
                .containsExactly(0);
        assertThat(slots.get(0).slot()).isZero();
        assertThat(slots.get(8).slot()).isEqualTo(8);
        assertThat(slots.get(9).slot()).isZero();
    }

    @Test
    void everyCommitRunsKTimesAndTheAnchorOncePerBlockPlusOnePerPass() {
        List<Integer> positions = IntStream.rangeClosed(0, 29).boxed().toList(); // 29 besides the anchor
        List<TrackOrder.Slot> slots = TrackOrder.of(positions, 5);
        Map<Integer, Integer> count = new HashMap<>();
        slots.forEach(s -> count.merge(s.position(), 1, Integer::sum));
        for (int p = 1; p <= 29; p++) {
            assertThat(count.get(p)).as("position " + p).isEqualTo(5);
        }
        assertThat(count.get(0)).isEqualTo((8 + 1) * 5); // ceil(29 / 4) + 1 per pass
        assertThat(slots).hasSize(29 * 5 + 45);
        // job ids are unique: a resumed track finds each run by its id
        assertThat(new HashSet<>(slots.stream().map(s -> s.jobId("t")).toList())).hasSize(slots.size());
        assertThat(slots.get(1).jobId("t")).isEqualTo("t/track/p1/s1/c1");
    }

    @Test
    void twoPassesPutTheSameMeanTimeOnEveryCommitWithinOneSlot() {
        List<Integer> positions = List.of(0, 5, 10, 15, 20, 25, 29);
        List<TrackOrder.Slot> slots = TrackOrder.of(positions, 4);
        Map<Integer, Double> meanIndex = new HashMap<>();
        for (int i = 0; i < slots.size(); i++) {
            if (!slots.get(i).anchor()) {
                meanIndex.merge(slots.get(i).position(), i / 4.0, Double::sum);
            }
        }
        double min = meanIndex.values().stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max = meanIndex.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        assertThat(max - min).isLessThanOrEqualTo(1.0);
    }

    @Test
    void theOrderIsDeterministicAndNeedsTheAnchorFirst() {
        assertThat(TrackOrder.of(List.of(0, 3, 6), 3)).isEqualTo(TrackOrder.of(List.of(0, 3, 6), 3));
        assertThatThrownBy(() -> TrackOrder.of(List.of(1, 2), 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TrackOrder.of(List.of(0, 2), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
