package io.isobench.session;

import io.isobench.plan.Job;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress on an interactive terminal: one line redrawn after each job ({@code [####....] N/M TASK ARM ROUND ETA
 * m:ss OUTCOME}); a note is written over the bar and the next job's result draws it again below.
 */
final class TtyListener extends PlainListener {

    private static final int WIDTH = 24;

    TtyListener(PrintWriter out) {
        super(out);
    }

    @Override
    public synchronized void jobResult(JobProgress p) {
        Job job = p.job();
        int fill = (int) Math.round((double) p.done() / p.total() * WIDTH);
        out.print(String.format(Locale.ROOT, "\r[%s%s] %d/%d %-10s %-14s %-11s ETA %s  %-40s",
                "#".repeat(fill), ".".repeat(WIDTH - fill), p.done(), p.total(), job.taskId(), job.arm(), p.round(),
                p.eta(), p.outcome().text()));
        out.flush();
    }

    @Override
    public synchronized void note(String line) {
        out.print("\r");
        super.note(line);
    }

    @Override
    public synchronized void endSession(SessionSummary.Run summary) {
        out.println(); // end the bar's line
        out.flush();
    }
}
