package io.isobench.session;

import io.isobench.plan.SkippedTask;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What a session did ({@code run}) and the plan's tasks it did not run ({@code notRun}). */
public record SessionSummary(Run run, List<SkippedTask> notRun) {

    public SessionSummary {
        notRun = List.copyOf(notRun);
    }

    /** No run succeeded now or in an earlier attempt. */
    public boolean nothingMeasured() {
        return run.counts().succeeded() == 0 && run.counts().skippedFinished() == 0;
    }

    /**
     * What the session did.
     *
     * @param reapedGroups process groups of a killed attempt torn down
     * @param failures     failed runs of this attempt by failure category
     */
    public record Run(String sessionId, Counts counts, int reapedGroups, Map<String, Integer> failures,
                      Duration wall) {
    }

    /**
     * The runs of a session. The counts cover the same runs: the plan's {@code jobs} and its {@code accuracyRuns} (of
     * the arms whose environment was ready or that finished before) = {@code ran} (this attempt) +
     * {@code skippedFinished} (an earlier attempt) when the session completes.
     */
    public record Counts(int jobs, int accuracyRuns, int ran, int skippedFinished, int succeeded, int failed) {
    }
}
