package io.isobench.session;

import io.isobench.plan.Job;

/**
 * Where a session reports its progress (STYLE 11: progress goes to stderr through a listener, never printed by the
 * engine): the session's start and end, each job's start and result, and notes (environments, setup steps, retries,
 * reaped groups, accuracy runs). {@link ProgressMode} picks an implementation: plain lines, JSON lines or a redrawn
 * progress bar. Jobs run on several threads at once: implementations are thread-safe.
 */
public interface SessionListener {

    /**
     * The session starts (or resumes) its jobs.
     *
     * @param jobs            the plan's jobs
     * @param alreadyFinished the plan's jobs an earlier attempt finished
     * @param parallel        the most jobs in flight
     */
    void startSession(String sessionId, int jobs, int alreadyFinished, int parallel);

    /** A job starts (its first attempt). */
    void startJob(Job job);

    /** A job's run is committed. */
    void jobResult(JobProgress progress);

    /** A line of what the session does (an environment made, a setup step, a retry, a reaped group…). */
    void note(String line);

    /** The orchestrator was interrupted (Ctrl-C, SIGTERM); {@code resumeCommand} goes on with the session. */
    void interrupted(String resumeCommand);

    /** The session ended; {@code summary} is what it did. */
    void endSession(SessionSummary.Run summary);
}
