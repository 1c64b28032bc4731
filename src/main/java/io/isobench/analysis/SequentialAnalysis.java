package io.isobench.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The looks of a group-sequential design replayed over a task's stored rounds (docs/statistics.md §19): after each
 * round from the first look on, every comparison is read at that look's levels; the task stops at the first look
 * where every gating comparison is decided (not open), or at the last look. The same function tells a running session
 * whether to run a task's next round and tells a report which look the verdicts are read at, so both agree.
 */
final class SequentialAnalysis {

    private SequentialAnalysis() {
    }

    /**
     * @param roundsRun rounds the session ran for the task
     * @param atRounds  the task's comparisons read at the look after n rounds (its data: rounds 0 … n − 1)
     */
    static TaskAnalysis replay(SequentialDesign design, int roundsRun, StatsConfig config,
                               IntFunction<TaskAnalysis> atRounds) {
        if (!design.adaptive()) {
            return atRounds.apply(roundsRun).withStopping(new Stopping(design, roundsRun, roundsRun,
                    Stopping.Reason.FIXED, List.of()));
        }
        List<Stopping.Look> looks = new ArrayList<>();
        int last = Math.min(roundsRun, design.maxRounds());
        TaskAnalysis at = null;
        for (int n = design.minRounds(); n <= last; n++) {
            at = atRounds.apply(n);
            Map<String, Comparison> gating = gating(at, design);
            looks.add(new Stopping.Look(n, texts(gating)));
            boolean decided = !gating.isEmpty() && gating.values().stream().allMatch(Comparison::decided);
            if (decided || n == design.maxRounds()) {
                return at.withStopping(new Stopping(design, roundsRun, n, reason(gating, n, design), looks));
            }
        }
        if (at == null) { // fewer rounds than the first look: read what there is (too few rounds)
            at = atRounds.apply(Math.max(roundsRun, 0));
        }
        return at.withStopping(new Stopping(design, roundsRun, Math.min(roundsRun, design.maxRounds()),
                Stopping.Reason.RUNNING, looks));
    }

    /** The comparisons that gate the task's stop, by name ({@code human vs baseline}, {@code agent:x vs baseline}). */
    static Map<String, Comparison> gating(TaskAnalysis t, SequentialDesign design) {
        Map<String, Comparison> out = new LinkedHashMap<>();
        if (design.gating().contains(SequentialDesign.Gate.HUMAN)) {
            out.put("human vs baseline", t.humanVsBaseline());
        }
        if (design.gating().contains(SequentialDesign.Gate.AGENTS)) {
            for (AgentOutcome a : t.agents()) {
                out.put(a.agent() + " vs baseline", a.vsBaseline());
            }
        }
        if (design.gating().contains(SequentialDesign.Gate.AGENTS_VS_HUMAN)) {
            for (AgentOutcome a : t.agents()) {
                out.put(a.agent() + " vs human", a.vsHuman());
            }
        }
        return out;
    }

    private static Map<String, String> texts(Map<String, Comparison> gating) {
        Map<String, String> m = new LinkedHashMap<>();
        gating.forEach((k, c) -> m.put(k, c.verdictShown()));
        return m;
    }

    private static Stopping.Reason reason(Map<String, Comparison> gating, int n, SequentialDesign design) {
        boolean futile = gating.values().stream().anyMatch(c -> c.inconclusiveReason() == InconclusiveReason.FUTILE
                || c.inconclusiveReason() == InconclusiveReason.BELOW_RESOLUTION
                || c.inconclusiveReason() == InconclusiveReason.NOISY && n < design.maxRounds());
        if (n >= design.maxRounds() && gating.values().stream().anyMatch(c -> c.verdict() == Verdict.INCONCLUSIVE)) {
            return Stopping.Reason.MAX_ROUNDS;
        }
        return futile ? Stopping.Reason.FUTILE : Stopping.Reason.DECIDED;
    }
}
