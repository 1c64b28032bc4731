package io.isobench.session;

import io.isobench.IsobenchException;
import io.isobench.analysis.SequentialDesign;
import io.isobench.exec.Executor;
import io.isobench.exec.ExecutorKind;
import io.isobench.exec.ExecutorKind.Capability;
import io.isobench.exec.Executors;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.plan.SkippedTask;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;

/** The entry to a session: checks the executor fits the suite, plans, then runs (or prints) the plan. */
public final class Session {

    private Session() {
    }

    /** The plan as {@code --dry-run} prints it ({@code format}: text or json); runs nothing. */
    public static String dryRun(SessionRequest request, String format) {
        String executorName = request.executorName();
        Plan plan = plan(request, executorName);
        return Executors.dryRun(executorName, plan, request.sessionId(), format);
    }

    /** Creates or resumes the session and runs its plan; every run is committed as it ends. */
    public static SessionSummary start(SessionRequest request) {
        String executorName = request.executorName();
        Executor chosen = Executors.create(executorName, request.suite());
        Plan plan = plan(request, executorName);
        SessionListener listener = request.feedback().listener();
        for (SkippedTask s : plan.skipped()) {
            listener.note("isobench: task " + s.taskId() + " is not run: " + s.category() + " — " + s.reason());
        }
        try (Store store = Stores.open(request.db())) {
            String session = request.sessionId();
            String id = session;
            if (request.resume()) {
                id = Attempt.resumable(store, session).orElseThrow(() -> new IsobenchException.BadInput(
                        "--resume: no session " + (session == null ? "to resume" : session) + " in " + store.describe()));
            } else if (id != null && store.session(id).isPresent()) {
                throw new IsobenchException.BadInput("--session " + id + " already exists in " + store.describe()
                        + "; add --resume to continue it");
            } else if (id == null) {
                id = Attempt.newSessionId();
            }
            // Ctrl-C / SIGTERM: the runs finished so far are stored; say how to go on
            String again = request.feedback().resumeCommand().apply(id);
            Thread hint = new Thread(() -> listener.interrupted(again), "isobench-resume-hint");
            Runtime.getRuntime().addShutdownHook(hint);
            try {
                SessionRequest.ExecutorChoice ex = request.executor();
                // the rounds design: a resumed session keeps the one it stored (its looks and their levels)
                SequentialDesign stored = request.resume() ? store.session(id).map(s -> SequentialDesign.ofSettings(
                        s.statsConfigJson())).orElse(null) : null;
                SessionRequest req = request;
                Plan planned = plan;
                if (stored != null && !Designs.plan(stored).equals(Designs.plan(design(request)))) {
                    req = request.withSuite(request.suite().withRun(request.suite().run().withRounds(
                            Designs.plan(stored))), null);
                    planned = plan(req, executorName);
                    listener.note("isobench: --resume keeps the session's rounds design: " + stored.describe());
                }
                SessionRequest r = req;
                SequentialDesign design = stored != null ? stored : design(request);
                return new SessionSummary(SessionRunner.run(store, r.suite(), planned, new SessionRunner.Options(
                        id, r.resume(), listener, chosen, ex.parallelJobs(), ex.allowCrossGpu(),
                        points -> Planner.plan(r.suite(), r.planOptions().withAutoPoints(points)), design)),
                        planned.skipped());
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hint);
                } catch (IllegalStateException e) {
                    // shutting down: the hint is printed
                }
            }
        }
    }

    /** The design a request asks for: {@code --rounds N} fixed, else the suite's rounds plan. */
    static SequentialDesign design(SessionRequest request) {
        Integer n = request.planOptions().rounds();
        return n != null ? SequentialDesign.fixed(n) : Designs.of(request.suite().run().rounds());
    }

    private static Plan plan(SessionRequest request, String executorName) {
        Suite suite = request.suite();
        ExecutorKind kind = Executors.kind(executorName);
        if (suite.engine().isUrl() && kind.can(Capability.NEEDS_LOCAL_CLONE)) {
            throw new IsobenchException.EnvironmentMissing("engine.repo " + suite.engine().repo() + " is a URL; the "
                    + kind + " executor needs a local clone (git clone it and point engine.repo at the folder)");
        }
        if (!kind.can(Capability.RUNS_GENERIC_OFFLINE) && suite.tasks().stream().anyMatch(t ->
                t.generic() != null && t.generic().offline() != null)) {
            throw new IsobenchException.BadInput("--executor " + kind + ": generic offline commands run on the "
                    + Executors.namesWith(Capability.RUNS_GENERIC_OFFLINE) + " executor (fix: --executor local, or "
                    + "describe the task as serving)");
        }
        if (!kind.can(Capability.INSTALLS_ARTIFACTS) && suite.engine().artifact() != null) {
            throw new IsobenchException.BadInput("--executor " + kind + ": its arms are images; prebuilt-artifact arms"
                    + " are installed by the " + Executors.namesWith(Capability.INSTALLS_ARTIFACTS)
                    + " executor (fix: one of those)");
        }
        Plan plan = Planner.plan(suite, request.planOptions());
        if (!kind.can(Capability.RUNS_ACCURACY) && plan.jobs().stream()
                .anyMatch(j -> j.kind() == Job.Kind.ACCURACY)) {
            throw new IsobenchException.BadInput("--executor " + kind + ": accuracy commands run on the "
                    + Executors.namesWith(Capability.RUNS_ACCURACY) + " executor (fix: one of those, or drop the"
                    + " tasks' accuracy hooks)");
        }
        return plan;
    }
}
