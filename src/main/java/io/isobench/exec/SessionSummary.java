package io.isobench.exec;

import io.isobench.plan.SkippedTask;

import java.util.List;

/** What a session did ({@code run}) and the plan's tasks it did not run ({@code notRun}). */
public record SessionSummary(SessionRunner.Summary run, List<SkippedTask> notRun) {

    public SessionSummary {
        notRun = List.copyOf(notRun);
    }

    /** No run succeeded now or in an earlier attempt. */
    public boolean nothingMeasured() {
        return run.succeeded() == 0 && run.skippedFinished() == 0;
    }
}
