package io.isobench.session;

import io.isobench.plan.Job;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress as plain lines: {@code job N/M TASK ARM ROUND: OUTCOME (ETA m:ss)} per job, and the notes as they come
 * (the {@link TtyListener} draws the same events as a bar).
 */
class PlainListener implements SessionListener {

    final PrintWriter out;

    PlainListener(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void startSession(String sessionId, int jobs, int alreadyFinished, int parallel) {
        // the notes say what the session does
    }

    @Override
    public void startJob(Job job) {
        // one line per job, when it ends
    }

    @Override
    public synchronized void jobResult(JobProgress p) {
        Job job = p.job();
        out.println(String.format(Locale.ROOT, "job %d/%d %s %s %s: %s (ETA %s)", p.done(), p.total(),
                job.taskId(), job.arm(), p.round(), p.outcome().text(), p.eta()));
        out.flush();
    }

    @Override
    public synchronized void note(String line) {
        out.println(line);
        out.flush();
    }

    @Override
    public synchronized void interrupted(String resumeCommand) {
        out.println();
        out.println("isobench: interrupted; every finished run is stored. Resume with: " + resumeCommand);
        out.flush();
    }

    @Override
    public void endSession(SessionSummary.Run summary) {
        // the command prints the summary
    }
}
