package io.isobench.analysis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How many rounds a task's verdicts read, and why (docs/statistics.md §19).
 *
 * @param design     the session's rounds design
 * @param roundsRun  rounds the session ran for the task
 * @param lookRounds the look the verdicts are read at (rounds)
 * @param reason     why the task stopped there
 * @param looks      adaptive: each look up to the stop, with the gating comparisons' verdicts at it
 */
public record Stopping(SequentialDesign design, int roundsRun, int lookRounds, Reason reason, List<Look> looks) {

    /** Why a task stopped where it did. */
    public enum Reason {
        /** A fixed number of rounds: every round run. */
        FIXED("fixed number of rounds"),
        /** Every gating comparison was decided (better, worse, equivalent, or an outcome more rounds cannot change). */
        DECIDED("every gating comparison decided"),
        /** Every gating comparison was decided or futile, at least one futile. */
        FUTILE("the rest futile"),
        /** The design's last look. */
        MAX_ROUNDS("the last look"),
        /** The session ran fewer rounds than the next look needs (unfinished or interrupted). */
        RUNNING("unfinished: no later look yet");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One look.
     *
     * @param rounds   the look came after this many rounds
     * @param verdicts the gating comparisons (e.g. {@code human vs baseline}) and their verdict text at this look
     */
    public record Look(int rounds, Map<String, String> verdicts) {
        public Look {
            verdicts = Collections.unmodifiableMap(new LinkedHashMap<>(verdicts));
        }
    }

    public Stopping {
        if (design == null) {
            throw new IllegalArgumentException("design must not be null");
        }
        looks = List.copyOf(looks);
    }

    /** A fixed design read over {@code rounds} rounds. */
    public static Stopping fixed(int rounds) {
        return new Stopping(SequentialDesign.fixed(Math.max(1, rounds)), rounds, rounds, Reason.FIXED, List.of());
    }

    /** The rounds were adaptive. */
    public boolean adaptive() {
        return design.adaptive();
    }

    /** The most rounds the design allows (fixed: the rounds planned). */
    public int maxRounds() {
        return design.maxRounds();
    }

    /** Rounds the design would have run without stopping early, less the rounds run (0 for a fixed design). */
    public int roundsSaved() {
        return adaptive() && reason != Reason.RUNNING ? Math.max(0, maxRounds() - lookRounds) : 0;
    }

    /** One line: {@code stopped after round 4 of up to 8: every gating comparison decided (human vs baseline better)}. */
    public String describe() {
        if (!adaptive()) {
            return roundsRun + " round" + (roundsRun == 1 ? "" : "s") + " (fixed)";
        }
        String at = reason == Reason.RUNNING
                ? String.format(Locale.ROOT, "%d round%s of up to %d so far", roundsRun, roundsRun == 1 ? "" : "s",
                maxRounds())
                : String.format(Locale.ROOT, "stopped after round %d of up to %d", lookRounds, maxRounds());
        String last = looks.isEmpty() ? "" : gating(looks.get(looks.size() - 1));
        return at + ": " + reason.label() + (last.isEmpty() ? "" : " (" + last + ")");
    }

    private static String gating(Look l) {
        List<String> parts = new ArrayList<>();
        l.verdicts().forEach((k, v) -> parts.add(k + " " + v));
        return String.join(", ", parts);
    }

    /** Machine form. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("design", adaptive() ? "adaptive" : "fixed");
        m.put("max_rounds", maxRounds());
        m.put("rounds_run", roundsRun);
        m.put("look_rounds", lookRounds);
        m.put("reason", reason.key());
        m.put("rounds_saved", roundsSaved());
        List<Object> ls = new ArrayList<>();
        for (Look l : looks) {
            Map<String, Object> lm = new LinkedHashMap<>();
            lm.put("rounds", l.rounds());
            lm.put("verdicts", l.verdicts());
            ls.add(lm);
        }
        m.put("looks", ls);
        return Collections.unmodifiableMap(m);
    }
}
