package io.isobench.cli;

import io.isobench.plan.SkippedTask;
import io.isobench.session.Session;
import io.isobench.session.SessionRequest;
import io.isobench.session.SessionSummary;

import java.util.Locale;

/** What run and demo share: the session request, the dry-run output, the summary lines, the exit code. */
final class Sessions {

    private Sessions() {
    }

    /** A path or value as a shell word (single-quoted when it needs to be), for commands printed to copy. */
    static String word(String s) {
        return s.matches("[A-Za-z0-9_./:=@%+,-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    /** Runs (or prints) the plan of the request; returns the exit code and, when a session ran, its summary. */
    static Outcome run(Main main, SessionRequest request, boolean dryRun, String format) {
        if (dryRun) {
            main.out.print(Session.dryRun(request, format));
            main.out.flush();
            return new Outcome(Main.OK, null);
        }
        SessionSummary summary = Session.start(request);
        SessionSummary.Run s = summary.run();
        SessionSummary.Counts n = s.counts();
        main.out.println(String.format(Locale.ROOT,
                "session %s: %d job(s)%s, %d run now, %d already finished, %d ok, %d failed %s in %.1f s",
                s.sessionId(), n.jobs(), n.accuracyRuns() == 0 ? "" : " + " + n.accuracyRuns() + " accuracy run(s)",
                n.ran(), n.skippedFinished(), n.succeeded(), n.failed(), s.failures(),
                s.wall().toMillis() / 1000.0));
        for (SkippedTask sk : summary.notRun()) {
            main.out.println("not run: " + sk.taskId() + " " + sk.category() + " — " + sk.reason());
        }
        main.out.flush();
        return new Outcome(summary.nothingMeasured() ? Main.NOTHING_MEASURED : Main.OK, summary);
    }

    /** The exit code and the session's summary (null after a dry run). */
    record Outcome(int exitCode, SessionSummary summary) {
    }
}
