package io.isobench.analysis;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The capacity rule of a load sweep on constructed rounds (docs/statistics.md, "Load sweeps and capacity"). */
class CapacityRuleTest {

    private static final List<Double> POINTS = List.of(1.0, 2.0, 4.0, 8.0);

    @Test
    void theHighestPointMetTogetherWithEveryLowerOne() {
        assertThat(CapacityRule.capacityIndex(new boolean[] {true, true, false, false})).isEqualTo(1);
        assertThat(CapacityRule.sample(POINTS, 1)).isEqualTo(2.0);
        // a lucky high point above a missed one does not count
        assertThat(CapacityRule.capacityIndex(new boolean[] {true, false, true, true})).isEqualTo(0);
    }

    @Test
    void noPointMetIsBelowTheLowestPointHalfItAsACensoredSample() {
        int c = CapacityRule.capacityIndex(new boolean[] {false, true, true, true});
        assertThat(c).isEqualTo(-1);
        assertThat(CapacityRule.sample(POINTS, c)).isEqualTo(0.5);
    }

    @Test
    void everyPointMetIsTheHighestPoint() {
        int c = CapacityRule.capacityIndex(new boolean[] {true, true, true, true});
        assertThat(c).isEqualTo(3);
        assertThat(CapacityRule.sample(POINTS, c)).isEqualTo(8.0);
        assertThatThrownBy(() -> CapacityRule.sample(List.of(), 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theGoodFractionCountsFailedRequestsAsNotGood() {
        // 10 completed in 5 s (2 req/s), goodput 1.8 req/s → 9 good of 10
        assertThat(CapacityRule.goodFraction(1.8, 2.0, 10.0, 0.0)).isCloseTo(0.9, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(CapacityRule.met(CapacityRule.goodFraction(1.8, 2.0, 10.0, 0.0), 0.9)).isTrue();
        // the same 9 good, 2 more requests failed: 9 of 12
        assertThat(CapacityRule.goodFraction(1.8, 2.0, 10.0, 2.0)).isEqualTo(0.75);
        assertThat(CapacityRule.met(0.75, 0.9)).isFalse();
        // no goodput (no --goodput targets), nothing completed: unknown, never met
        assertThat(CapacityRule.goodFraction(null, 2.0, 10.0, 0.0)).isNull();
        assertThat(CapacityRule.goodFraction(0.0, 0.0, 0.0, 3.0)).isNull();
        assertThat(CapacityRule.met(null, 0.5)).isFalse();
    }
}
