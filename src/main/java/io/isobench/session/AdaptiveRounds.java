package io.isobench.session;

import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.Stopping;
import io.isobench.plan.Job;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The measured rounds of an adaptive session (docs/statistics.md §20), round by round: before round r (r ≥ the first
 * look), every task's looks are replayed over its stored rounds 0 … r − 1 with the analysis a report uses
 * ({@link SessionAnalysis} with the session's stored design); a task whose gating comparisons are decided has stopped,
 * and all its arms leave the later rounds together — the remaining arms of a round stay in their planned random order,
 * so pairing stays within a round and the order stays balanced. A resumed session replays the same looks over the same
 * stored runs, so it stops the same tasks.
 */
final class AdaptiveRounds {

    /** Where a task stopped (reported to the listener once, stored with the session). */
    record Stop(String taskId, Stopping stopping) {
    }

    private final Store store;
    private final String sessionId;
    private final SequentialDesign design;
    private final Map<String, Stop> stopped = new LinkedHashMap<>();

    AdaptiveRounds(Store store, String sessionId, SequentialDesign design) {
        this.store = store;
        this.sessionId = sessionId;
        this.design = design;
    }

    /**
     * Runs the measured jobs round by round, dropping the later rounds of every task that stopped.
     *
     * @param jobs    the measured jobs still to run (rounds ≥ 0), in plan order
     * @param run     runs one round's jobs (the dispatcher: tasks side by side, a task's arms one after the other)
     * @param onStop  told once per task that stops early, with the jobs it will not run
     */
    void run(List<Job> jobs, Consumer<List<Job>> run, BiConsumer<Stop, Integer> onStop) {
        int last = jobs.stream().mapToInt(Job::round).max().orElse(-1);
        for (int r = 0; r <= last; r++) {
            if (r >= design.minRounds()) {
                look(r, jobs, onStop);
            }
            int round = r;
            List<Job> now = jobs.stream().filter(j -> j.round() == round && !stopped.containsKey(j.taskId())).toList();
            if (!now.isEmpty()) {
                run.accept(now);
            }
        }
    }

    /** The look after {@code rounds} rounds: the tasks that stopped there (or before). */
    private void look(int rounds, List<Job> jobs, BiConsumer<Stop, Integer> onStop) {
        SessionAnalysis a = SessionAnalysis.of(store, sessionId, StatsConfig.defaults(), rounds);
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            if (stopped.containsKey(t.taskId()) || t.analysis() == null) {
                continue;
            }
            Stopping s = t.analysis().stopping();
            if (s.adaptive() && s.reason() != Stopping.Reason.RUNNING && s.lookRounds() <= rounds
                    && s.lookRounds() < design.maxRounds()) {
                Stop stop = new Stop(t.taskId(), s);
                stopped.put(t.taskId(), stop);
                int skipped = (int) jobs.stream().filter(j -> j.taskId().equals(t.taskId()) && j.round() >= rounds)
                        .count();
                onStop.accept(stop, skipped);
            }
        }
    }

    /** The tasks that stopped early, in the order they stopped. */
    List<Stop> stops() {
        return new ArrayList<>(stopped.values());
    }

    /** Where every task of the session stopped, once its rounds are over (early stops and the last look alike). */
    List<Stop> allStops() {
        List<Stop> out = new ArrayList<>();
        for (SessionAnalysis.TaskResult t : SessionAnalysis.of(store, sessionId, StatsConfig.defaults()).tasks()) {
            if (t.analysis() != null) {
                out.add(new Stop(t.taskId(), t.analysis().stopping()));
            }
        }
        return out;
    }
}
