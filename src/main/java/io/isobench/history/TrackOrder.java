package io.isobench.history;

import java.util.ArrayList;
import java.util.List;

/**
 * The interleaved anchored order of a track's runs (docs/statistics.md §21, "The order"). Pass p = 1..K measures every
 * measured commit but the anchor once: in ascending position on odd passes, descending on even ones, cut into blocks
 * of {@link #BLOCK} consecutive commits, and every block is bracketed by a run of the anchor (position 0, REV1):
 * {@code A b1 A b2 … A bm A}. So each commit's K runs are spread over the whole track, two passes in opposite
 * directions put the same mean time on every commit (a linear drift moves all of them alike), and the anchor's runs,
 * never more than {@link #BLOCK} runs apart, show the drift itself.
 *
 * <p>Guarantees: deterministic (the same positions and K give the same slots, so a resumed track finds its runs by
 * their ids); every non-anchor position K times, the anchor (ceil(m / BLOCK) + 1) · K times, m the non-anchor
 * positions.
 */
public final class TrackOrder {

    /** Commits between two anchor runs. */
    public static final int BLOCK = 4;

    /**
     * One run of the order.
     *
     * @param pass     1..K
     * @param slot     0-based index within its pass
     * @param position the commit's position in the range
     * @param anchor   a bracketing run of the anchor (position 0)
     */
    public record Slot(int pass, int slot, int position, boolean anchor) {

        /** The run's job id within its task: stable across attempts. */
        public String jobId(String taskId) {
            return taskId + "/track/p" + pass + "/s" + slot + "/c" + position;
        }
    }

    private TrackOrder() {
    }

    /**
     * The order of a track's runs.
     *
     * @param positions the measured positions, ascending, the anchor 0 first
     * @param passes    K, the runs of each non-anchor commit
     */
    public static List<Slot> of(List<Integer> positions, int passes) {
        if (positions.isEmpty() || positions.get(0) != 0) {
            throw new IllegalArgumentException("the measured positions start at the anchor 0: " + positions);
        }
        if (passes < 1) {
            throw new IllegalArgumentException("passes (" + passes + ") must be >= 1");
        }
        List<Integer> rest = positions.subList(1, positions.size());
        List<Slot> out = new ArrayList<>();
        for (int pass = 1; pass <= passes; pass++) {
            List<Integer> line = new ArrayList<>(rest);
            if (pass % 2 == 0) {
                line = line.reversed();
            }
            int slot = 0;
            out.add(new Slot(pass, slot++, 0, true));
            for (int i = 0; i < line.size(); i++) {
                out.add(new Slot(pass, slot++, line.get(i), false));
                if ((i + 1) % BLOCK == 0 || i == line.size() - 1) {
                    out.add(new Slot(pass, slot++, 0, true));
                }
            }
        }
        return out;
    }
}
