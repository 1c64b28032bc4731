package io.isobench.track;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The bisect rule (docs/statistics.md §21): the first commit that carries a confirmed change between two measured
 * commits, by binary search with one answer per commit asked (carries or clean: its one or two paired sessions read
 * against the change's midpoint, {@link Confirmation#carries}), skipping commits that do not build as
 * {@code git bisect skip} does (the nearest untested commit to the midpoint is asked instead; when only skipped
 * commits are left the answer is the range that must hold the first one).
 */
public final class Bisect {

    /** What a commit's paired session (or its build) said. */
    public enum Answer {
        /** The commit carries the change. */
        CARRIES,
        /** It does not. */
        CLEAN,
        /** It does not build (or cannot be measured): no session, never asked again. */
        SKIP
    }

    /**
     * Where the change starts.
     *
     * @param firstLow  the earliest commit (index in the range) that can be the first to carry it
     * @param firstHigh the latest; equal to {@code firstLow} when the first commit is found, wider only when the commits
     *                  between are skipped ones
     * @param answered  commits that answered CARRIES or CLEAN (each a step of one or two paired sessions, §21c)
     * @param skipped   the commits that answered SKIP, ascending
     */
    public record Result(int firstLow, int firstHigh, int answered, List<Integer> skipped) {
        public Result {
            skipped = List.copyOf(skipped);
        }

        /** The first commit found exactly. */
        public boolean found() {
            return firstLow == firstHigh;
        }
    }

    private Bisect() {
    }

    /**
     * The first commit carrying the change among {@code count} commits in order: the commits after the earlier measured
     * commit (which does not carry it) up to and including the later one (index {@code count − 1}, known to carry it,
     * never asked).
     *
     * @param carries asked for an index in [0, count − 1): the step's answer from its sessions, or SKIP
     */
    public static Result first(int count, IntFunction<Answer> carries) {
        if (count < 1) {
            throw new IllegalArgumentException("a range holds at least the later measured commit");
        }
        boolean[] skip = new boolean[count];
        List<Integer> skipped = new ArrayList<>();
        int lo = 0;
        int hi = count - 1;
        int answered = 0;
        while (lo < hi) {
            int mid = pick(lo, hi, skip);
            if (mid < 0) {
                break;
            }
            Answer a = carries.apply(mid);
            switch (a) {
                case SKIP -> {
                    skip[mid] = true;
                    skipped.add(mid);
                }
                case CARRIES -> {
                    answered++;
                    hi = mid;
                }
                case CLEAN -> {
                    answered++;
                    lo = mid + 1;
                }
            }
        }
        skipped.sort(null);
        return new Result(lo, hi, answered, skipped);
    }

    /** The midpoint of [lo, hi) or, when it is skipped, the nearest unskipped commit to it (the lower first); −1: none. */
    private static int pick(int lo, int hi, boolean[] skip) {
        int mid = (lo + hi) >>> 1;
        for (int d = 0; d < hi - lo; d++) {
            if (mid - d >= lo && !skip[mid - d]) {
                return mid - d;
            }
            if (mid + d < hi && !skip[mid + d]) {
                return mid + d;
            }
        }
        return -1;
    }
}
