package io.isobench.session;

import io.isobench.plan.Planner;
import io.isobench.task.Suite;

import java.util.function.Function;

/**
 * What a command asks of a session: the suite and its plan options, the store, which session, where jobs run.
 *
 * @param db            the store spec ({@code Stores.open})
 * @param sessionId     the session to create or (with {@code resume}) continue; null: a new id, or with resume the
 *                      latest unfinished session
 * @param feedback      where progress goes and how to resume
 */
public record SessionRequest(Suite suite, Planner.Options planOptions, String db, String sessionId, boolean resume,
                             ExecutorChoice executor, Feedback feedback) {

    /**
     * What the session tells its user.
     *
     * @param listener      where progress and diagnostics go (stderr; {@link ProgressMode#listener})
     * @param resumeCommand the command that resumes a session, given its id (said when the run is interrupted)
     */
    public record Feedback(SessionListener listener, Function<String, String> resumeCommand) {
    }

    /**
     * Where and how many jobs at once.
     *
     * @param name          local, docker, slurm or kubernetes; null: the suite's {@code run.executor}
     * @param parallelJobs  the most jobs in flight; 0 (auto) packs them into the executor's GPUs, else one at a time
     * @param allowCrossGpu measured runs of one task may run at the same time
     */
    public record ExecutorChoice(String name, int parallelJobs, boolean allowCrossGpu) {
    }

    /** This request for another suite, planned with {@code rounds} (null: the suite's rounds plan). */
    SessionRequest withSuite(Suite other, Integer rounds) {
        Planner.Options o = planOptions;
        return new SessionRequest(other, new Planner.Options(rounds, o.seed(), o.workdir(), o.aa(),
                o.serverMetricsIntervalMs(), o.autoPoints()), db, sessionId, resume, executor, feedback);
    }

    /** The executor's name: the one chosen, else the suite's. */
    String executorName() {
        return executor.name() != null ? executor.name() : suite.run().executor();
    }
}
