package io.isobench.track;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class BisectTest {

    private static Bisect.Result bisect(int count, int first, Set<Integer> unbuildable, List<Integer> asked) {
        return Bisect.first(count, j -> {
            asked.add(j);
            return unbuildable.contains(j) ? Bisect.Answer.SKIP : j >= first ? Bisect.Answer.CARRIES
                    : Bisect.Answer.CLEAN;
        });
    }

    @Test
    void findsTheFirstCommitInLogarithmicSessionsWithoutAskingTheMeasuredEnd() {
        for (int first = 0; first < 10; first++) {
            List<Integer> asked = new ArrayList<>();
            Bisect.Result r = bisect(10, first, Set.of(), asked);
            assertThat(r.found()).isTrue();
            assertThat(r.firstLow()).isEqualTo(first);
            assertThat(r.answered()).isLessThanOrEqualTo(4).isEqualTo(asked.size());
            assertThat(asked).doesNotContain(9).doesNotHaveDuplicates();
        }
    }

    @Test
    void skipsUnbuildableCommitsAndStillFindsTheFirst() {
        List<Integer> asked = new ArrayList<>();
        Bisect.Result r = bisect(10, 7, Set.of(4, 8), asked);
        assertThat(r.found()).isTrue();
        assertThat(r.firstLow()).isEqualTo(7);
        assertThat(r.skipped()).containsExactly(4, 8);
        assertThat(asked).doesNotHaveDuplicates();
        assertThat(r.answered()).isEqualTo(asked.size() - r.skipped().size());
    }

    @Test
    void anUnbuildableCommitJustBeforeTheFirstLeavesBothPossible() {
        Bisect.Result r = bisect(10, 7, Set.of(4, 6), new ArrayList<>());
        assertThat(r.found()).isFalse();
        assertThat(r.firstLow()).isEqualTo(6);
        assertThat(r.firstHigh()).isEqualTo(7);
    }

    @Test
    void onlySkippedCommitsLeftGiveTheRangeThatHoldsTheFirst() {
        Bisect.Result r = bisect(10, 6, Set.of(4, 5), new ArrayList<>());
        assertThat(r.found()).isFalse();
        assertThat(r.firstLow()).isEqualTo(4);
        assertThat(r.firstHigh()).isEqualTo(6);
        assertThat(r.skipped()).containsExactly(4, 5);
    }

    @Test
    void aRangeOfOneCommitIsThatCommitWithoutASession() {
        Bisect.Result r = Bisect.first(1, j -> {
            throw new AssertionError("asked " + j);
        });
        assertThat(r.found()).isTrue();
        assertThat(r.firstLow()).isZero();
        assertThat(r.answered()).isZero();
    }
}
