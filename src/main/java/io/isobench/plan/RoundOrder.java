package io.isobench.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The order of a session's measured jobs (docs/statistics.md, "Design of a session"): every round holds every arm of
 * every task once; the tasks of a round come in a random order and the arms of each task run back to back, in a
 * random order of their own, so an arm and the baseline it is compared with run close together in time. All draws
 * come from one {@link SplittableRandom} seeded with the session's seed (Fisher–Yates with
 * {@code nextInt(i + 1)}: every permutation equally likely, independently from round to round), so the same seed
 * always gives the same plan.
 */
public final class RoundOrder {

    private RoundOrder() {
    }

    /**
     * @param seed         the session's seed
     * @param rounds       measured rounds (≥ 1)
     * @param armsPerTask  the number of arms of each task, in suite order
     * @return per round, the (task, arm) indices in the order they run; each as {@code {task, arm}}
     */
    public static List<List<int[]>> of(long seed, int rounds, int[] armsPerTask) {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds (" + rounds + ") must be >= 1");
        }
        SplittableRandom rng = new SplittableRandom(seed);
        List<List<int[]>> out = new ArrayList<>(rounds);
        for (int r = 0; r < rounds; r++) {
            int[] tasks = permutation(rng, armsPerTask.length);
            List<int[]> round = new ArrayList<>();
            for (int t : tasks) {
                for (int a : permutation(rng, armsPerTask[t])) {
                    round.add(new int[] {t, a});
                }
            }
            out.add(round);
        }
        return out;
    }

    /** A uniformly random permutation of 0 … n−1 (Fisher–Yates, Durstenfeld's in-place form). */
    static int[] permutation(SplittableRandom rng, int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}
