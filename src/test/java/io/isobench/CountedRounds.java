package io.isobench;

import io.isobench.analysis.RoundExclusion;
import io.isobench.analysis.TaskAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Test helper for ITs that serve through isobench's load generator on a shared 2-core machine: a round whose client
 * was saturated (its own check, docs/loadgen.md "Client self-check") is excluded by rule (docs/statistics.md, "Which
 * rounds count"), so an arm's valid rounds are the rounds it ran less those exclusions, and no other exclusion.
 */
public final class CountedRounds {

    private CountedRounds() {
    }

    /**
     * Asserts that {@code arm} has {@code ran} rounds, each either a valid sample or excluded as client saturated, and
     * at least {@code minValid} valid ones.
     */
    public static void assertCounted(TaskAnalysis analysis, Arm arm, int ran, int minValid) {
        long saturated = analysis.exclusions().stream()
                .filter(e -> e.arm().equals(arm.label()) && e.excluded())
                .peek(e -> assertThat(e.cause()).as(e.oneLine()).isEqualTo(RoundExclusion.Cause.CLIENT_SATURATED))
                .count();
        int valid = analysis.summaries().get(arm).n();
        assertThat(valid + saturated).as(arm.label() + ": valid " + valid + ", excluded " + analysis.exclusions())
                .isEqualTo(ran);
        assertThat(valid).as(arm.label() + " valid rounds, exclusions " + analysis.exclusions()).isGreaterThanOrEqualTo(minValid);
    }
}
