package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.exec.Executor;
import io.isobench.exec.Executors;
import io.isobench.exec.SessionRunner;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.plan.SkippedTask;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;

import java.util.Locale;

/** What run and demo share: plan, dry-run output, the session, the summary lines. */
final class Sessions {

    private Sessions() {
    }

    /** A path or value as a shell word (single-quoted when it needs to be), for commands printed to copy. */
    static String word(String s) {
        return s.matches("[A-Za-z0-9_./:=@%+,-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * Runs (or prints) the plan; returns the exit code; {@code sessionOut[0]} gets the session id.
     *
     * @param resumeCommand the command that resumes a session, given its id (printed when the run is interrupted)
     */
    static int run(Main main, Suite suite, Planner.Options po, String db, String session, boolean resume,
                   boolean dryRun, String format, ExecutionOptions execution, String[] sessionOut,
                   java.util.function.Function<String, String> resumeCommand) {
        String executorName = execution.executor != null ? execution.executor : suite.run().executor();
        int parallel = execution.parallelJobs();
        Executor chosen = dryRun ? null : Executors.create(executorName, suite);
        if (suite.engine().isUrl() && "local".equals(executorName)) {
            throw new IsobenchException.EnvironmentMissing("engine.repo " + suite.engine().repo() + " is a URL; the "
                    + "local executor needs a local clone (git clone it and point engine.repo at the folder)");
        }
        if (!executorName.equals("local") && !executorName.equals("docker") && suite.tasks().stream().anyMatch(t ->
                t.generic() != null && t.generic().offline() != null)) {
            throw new IsobenchException.BadInput("--executor " + executorName + ": generic offline commands run on the"
                    + " local or docker executor (fix: --executor local, or describe the task as serving)");
        }
        if (executorName.equals("kubernetes") && suite.engine().artifact() != null) {
            throw new IsobenchException.BadInput("--executor kubernetes: its arms are images; prebuilt-artifact arms"
                    + " are installed by the local, docker or slurm executor (fix: one of those)");
        }
        Plan plan = Planner.plan(suite, po);
        if (dryRun) {
            main.out.print(Executors.dryRun(executorName, plan, session, format));
            main.out.flush();
            return Main.OK;
        }
        for (SkippedTask s : plan.skipped()) {
            main.err.println("isobench: task " + s.taskId() + " is not run: " + s.category() + " — " + s.reason());
        }
        try (Store store = Stores.open(db)) {
            String id = session;
            if (resume) {
                id = SessionRunner.resumable(store, session).orElseThrow(() -> new IsobenchException.BadInput(
                        "--resume: no session " + (session == null ? "to resume" : session) + " in " + store.describe()));
            } else if (id != null && store.session(id).isPresent()) {
                throw new IsobenchException.BadInput("--session " + id + " already exists in " + store.describe()
                        + "; add --resume to continue it");
            } else if (id == null) {
                id = SessionRunner.newSessionId();
            }
            boolean tty = System.console() != null && System.getenv("ISOBENCH_PLAIN_PROGRESS") == null;
            // Ctrl-C / SIGTERM: the runs finished so far are stored; say how to go on
            String again = resumeCommand.apply(id);
            Thread hint = new Thread(() -> {
                main.err.println();
                main.err.println("isobench: interrupted; every finished run is stored. Resume with: " + again);
                main.err.flush();
            }, "isobench-resume-hint");
            Runtime.getRuntime().addShutdownHook(hint);
            SessionRunner.Summary s;
            try {
                s = SessionRunner.run(store, suite, plan, new SessionRunner.Options(id, resume, main.err, tty, chosen,
                        parallel, execution.allowCrossGpu));
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hint);
                } catch (IllegalStateException e) {
                    // shutting down: the hint is printed
                }
            }
            sessionOut[0] = s.sessionId();
            main.out.println(String.format(Locale.ROOT,
                    "session %s: %d job(s)%s, %d run now, %d already finished, %d ok, %d failed %s in %.1f s",
                    s.sessionId(), s.jobs(), s.accuracyRuns() == 0 ? "" : " + " + s.accuracyRuns() + " accuracy run(s)",
                    s.ran(), s.skippedFinished(), s.succeeded(), s.failed(), s.failures(),
                    s.wall().toMillis() / 1000.0));
            for (SkippedTask sk : plan.skipped()) {
                main.out.println("not run: " + sk.taskId() + " " + sk.category() + " — " + sk.reason());
            }
            main.out.flush();
            return s.succeeded() == 0 && s.skippedFinished() == 0 ? Main.NOTHING_MEASURED : Main.OK;
        }
    }
}
