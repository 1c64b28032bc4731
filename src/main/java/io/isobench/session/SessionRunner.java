package io.isobench.session;

import io.isobench.Arm;
import io.isobench.analysis.ClockRule;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.StatsConfig;
import io.isobench.env.Environment;
import io.isobench.env.Hardware;
import io.isobench.exec.Accuracy;
import io.isobench.exec.Executor;
import io.isobench.exec.ExecutorKind;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.AutoSweep;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.probe.Greedy;
import io.isobench.proc.ProcessGroup;
import io.isobench.proc.Sandbox;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.task.Confine;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import static io.isobench.session.RunRecorder.accuracyRunId;
import static io.isobench.session.RunRecorder.json;
import static io.isobench.session.RunRecorder.runId;

/**
 * Runs a plan as one session (DESIGN §4): prepares every arm's environment ({@link ArmPreparation}), runs the jobs in
 * plan order through an {@link Executor} ({@link JobDispatcher}, {@link JobRunner}), commits each run to the store when
 * it ends ({@link RunRecorder}), and resumes an interrupted session without repeating finished runs
 * ({@link Attempt}). Before a server or benchmark starts, a placeholder run ({@code NOT_RUN}) records its process
 * group, so a session resumed after the orchestrator was SIGKILLed first reaps what the killed one left. Progress goes
 * to a {@link SessionListener}.
 */
final class SessionRunner {

    /**
     * @param sessionId     the session to create or resume; null makes a new id (or, with resume, takes the latest
     *                      unfinished session)
     * @param resume        continue an existing session
     * @param listener      where progress goes (stderr)
     * @param executor      runs the jobs
     * @param parallel      the most jobs in flight; 0 (auto) packs them into the executor's GPUs when it has some,
     *                      else runs one at a time
     * @param allowCrossGpu measured runs of one task may run at the same time (different GPUs / shared CPUs); off,
     *                      the arms of a task run one after the other
     * @param replan        the plan again with the points the pilots of {@code sweep: auto} tasks decided
     *                      ({@link PilotPhase}); null: the plan as it is
     * @param design        the rounds design: fixed (every planned round), or adaptive (tasks stop when decided)
     */
    record Options(String sessionId, boolean resume, SessionListener listener, Executor executor, int parallel,
                   boolean allowCrossGpu, Function<Map<String, List<Double>>, Plan> replan,
                   SequentialDesign design) {
    }

    private final Store store;
    private final Suite suite;
    private Plan plan;
    private final Options options;
    /** The machine the runs measure on; null for cluster executors (their nodes are not fingerprinted). */
    private final Hardware hardware;
    private SessionContext ctx;
    private final RunRecorder recorder;
    private final ArmPreparation preparation;

    private SessionRunner(SessionContext ctx) {
        this.store = ctx.store();
        this.suite = ctx.suite();
        this.plan = ctx.plan();
        this.options = ctx.options();
        this.hardware = ctx.hardware();
        this.ctx = ctx;
        this.recorder = new RunRecorder(store);
        this.preparation = new ArmPreparation(ctx, recorder);
    }

    static SessionSummary.Run run(Store store, Suite suite, Plan plan, Options options) {
        return new SessionRunner(SessionContext.of(store, suite, plan, options)).run();
    }

    private SessionSummary.Run run() {
        long t0 = System.nanoTime();
        String sessionId = options.sessionId() != null ? options.sessionId() : Attempt.newSessionId();
        Optional<SessionRecord> existing = store.session(sessionId);
        Instant started = existing.map(SessionRecord::startedAt).orElse(Instant.now());
        store.putSession(sessionRecord(sessionId, started, null, "running"));
        // the points earlier attempts' pilots decided (sweep: auto): planned first, so a resumed session finds the jobs
        replan(sessionId, started, PilotPhase.decided(store, sessionId, plan));

        // what a previous, interrupted attempt of this session left
        Attempt attempt = Attempt.resume(ctx, new Attempt(sessionId, started, Set.of(), Map.of(), 0, t0));

        // Ctrl-C / SIGTERM of the orchestrator: tear down every group it started (builds, servers, benchmarks,
        // accuracy commands); SIGKILL cannot be caught: the next --resume reaps them from the placeholder rows
        Thread hook = new Thread(() -> ProcessGroup.reapLaunched(Duration.ofSeconds(2)), "isobench-teardown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return prepareAndRun(attempt);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down
            }
        }
    }

    private SessionSummary.Run prepareAndRun(Attempt attempt) {
        ArmPreparation.Arms arms = preparation.prepare(attempt);
        if (!plan.pilots().isEmpty()) {
            // sweep: auto: the pilots against the baseline before round 1 (their own tally; never counted as rounds)
            Tally pilots = new Tally(plan.pilots().stream().mapToInt(j -> AutoSweep.settingsOf(
                    j.sweepPoint().sweep()).maxPilots()).sum(), 0); // at most; the rule may stop earlier
            JobRunner runner = new JobRunner(ctx, new JobRunner.Pieces(preparation, recorder, new CorrectnessGate(store),
                    RetryPolicy.DEFAULT));
            replan(attempt.sessionId(), attempt.started(), PilotPhase.run(store, attempt.sessionId(), plan, task -> {
                Environment env = arms.envs().get(new ArmPreparation.ArmKey(task, Arm.BASELINE));
                return env != null && env.ready();
            }, job -> runner.runJob(job, attempt.sessionId(), arms, Map.of(), pilots), this::say));
        }

        // greedy reference outputs (baseline and human, from this attempt or a previous one)
        Map<CorrectnessGate.ReferenceKey, Greedy.ProbeRun> reference = CorrectnessGate.references(
                attempt.previous().values());

        return runJobs(attempt, arms, reference);
    }

    /** The plan again with the points decided so far (and the session's stored plan with it); none: unchanged. */
    private void replan(String sessionId, Instant started, Map<String, List<Double>> points) {
        if (points.isEmpty() || options.replan() == null) {
            return;
        }
        plan = options.replan().apply(points);
        ctx = new SessionContext(store, suite, plan, options, hardware);
        store.putSession(sessionRecord(sessionId, started, null, "running"));
    }

    /** The most jobs in flight: {@code --parallel}, else (auto) the executor's GPUs on a GPU node, else 1. */
    int parallelism() {
        if (options.parallel() > 0) {
            return options.parallel();
        }
        return Math.max(1, options.executor().gpuCapacity());
    }

    private SessionSummary.Run runJobs(Attempt attempt, ArmPreparation.Arms arms,
                                       Map<CorrectnessGate.ReferenceKey, Greedy.ProbeRun> reference) {
        String sessionId = attempt.sessionId();
        Set<String> finished = attempt.finished();
        Map<ArmPreparation.ArmKey, Environment> envs = arms.envs();
        // the summary's counts cover the same runs: the plan's jobs and the accuracy runs (of arms whose environment
        // is ready or that finished before), so a resumed session adds up: jobs + accuracy = run now + already finished
        List<Job> jobs = plan.jobs().stream().filter(j -> j.kind() != Job.Kind.ACCURACY).toList();
        List<Job> accuracyJobs = plan.jobs().stream().filter(j -> j.kind() == Job.Kind.ACCURACY).toList();
        Set<String> jobIds = new HashSet<>();
        jobs.forEach(j -> jobIds.add(runId(sessionId, j)));
        Set<String> planned = new HashSet<>(jobIds);
        int accuracyRuns = 0;
        for (Job j : accuracyJobs) {
            Environment env = envs.get(ArmPreparation.ArmKey.of(j));
            if (finished.contains(runId(sessionId, j)) || env != null && env.ready()) {
                planned.add(runId(sessionId, j));
                accuracyRuns++;
            }
        }
        int alreadyFinished = (int) finished.stream().filter(planned::contains).count();
        Tally tally = new Tally(jobs.size(), (int) finished.stream().filter(jobIds::contains).count());
        List<Job> todo = jobs.stream().filter(j -> !finished.contains(runId(sessionId, j))).toList();
        int parallel = parallelism();
        if (parallel > 1) {
            say(String.format(Locale.ROOT, "up to %d job(s) at once%s", parallel,
                    options.executor().gpuCapacity() > 0 ? ", packed into " + options.executor().gpuCapacity()
                            + " GPU(s)" : ""));
        }
        options.listener().startSession(sessionId, tally.total, tally.done, parallel);
        Map<CorrectnessGate.ReferenceKey, Greedy.ProbeRun> refs = new ConcurrentHashMap<>(reference);
        JobRunner runner = new JobRunner(ctx, new JobRunner.Pieces(preparation, recorder, new CorrectnessGate(store),
                RetryPolicy.DEFAULT));
        Consumer<List<Job>> dispatch = batch -> JobDispatcher.run(batch, parallel,
                options.executor().gpuCapacity(), options.allowCrossGpu(), job -> runner.runJob(job, sessionId, arms,
                refs, tally));
        List<AdaptiveRounds.Stop> stops = List.of();
        if (options.design().adaptive()) {
            // the checks first, then round by round: a task whose verdicts are decided leaves the later rounds
            dispatch.accept(todo.stream().filter(j -> j.round() < 0).toList());
            AdaptiveRounds adaptive = new AdaptiveRounds(store, sessionId, options.design());
            adaptive.run(todo.stream().filter(j -> j.round() >= 0).toList(), dispatch, (stop, skipped) -> {
                tally.skip(skipped);
                say("task " + stop.taskId() + ": " + stop.stopping().describe() + " (" + skipped + " job(s) not run)");
            });
            stops = adaptive.allStops();
        } else {
            dispatch.accept(todo);
        }
        // the accuracy jobs, last, in plan order (every baseline first: its score is the reference)
        for (Job job : accuracyJobs) {
            ArmSpec a = plan.arm(job.taskId(), job.arm()).orElseThrow();
            String rid = accuracyRunId(sessionId, a);
            if (finished.contains(rid)) {
                continue;
            }
            Environment env = envs.get(ArmPreparation.ArmKey.of(a));
            if (env == null || !env.ready()) {
                continue; // the arm's outcome is already its environment failure (PATCH_FAILED, EMPTY_PATCH…)
            }
            TaskSpec task = suite.task(a.taskId()).orElseThrow();
            String commit = arms.humanSha().getOrDefault(a.taskId(), task.humanCommit());
            Accuracy.Target target = new Accuracy.Target(a, task, env, commit, job,
                    preparation.review(a.taskId(), a.arm(), task));
            Accuracy.Measured measured = Accuracy.run(sessionId, target, options.executor(),
                    pgid -> store.putRun(recorder.armPlaceholder(rid, sessionId, a, commit, "accuracy", pgid)),
                    attempt.previous());
            RunRecord rec = recorder.accuracy(sessionId, target, measured);
            store.putRun(rec);
            attempt.previous().put(rid, rec);
            tally.countRun(rec.failure() == null ? null : rec.failure().category());
            say(String.format(Locale.ROOT, "accuracy %s %s: %s", a.taskId(), a.label(), rec.failure() != null
                    ? rec.failure().category() + " — " + rec.failure().detail()
                    : String.format(Locale.ROOT, "accuracy_score=%s", rec.primaryValue())));
        }
        stopsRecorded = stops;
        store.putSession(sessionRecord(sessionId, attempt.started(), Instant.now(), "complete"));
        SessionSummary.Run summary = new SessionSummary.Run(sessionId, new SessionSummary.Counts(tally.total,
                accuracyRuns, tally.ran, alreadyFinished, tally.ok, tally.bad), attempt.reaped(), tally.failures,
                Duration.ofNanos(System.nanoTime() - attempt.t0()));
        options.listener().endSession(summary);
        return summary;
    }

    private void say(String line) {
        options.listener().note(line);
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }

    private String cpu() {
        if (hardware == null) {
            return Runtime.getRuntime().availableProcessors() + " cpu(s), " + System.getProperty("os.arch")
                    + " (orchestrator)";
        }
        return hardware.cpuModel() + ", " + hardware.cores() + " cores";
    }

    private String gpu() {
        return hardware == null ? "not fingerprinted (cluster nodes)" : hardware.gpuText();
    }

    private String machineJson() {
        String executorName = options.executor().name();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", host());
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("java", Runtime.version().toString());
        m.put("executor", executorName);
        m.put("parallel", parallelism());
        m.put("node_gpus", options.executor().gpuCapacity());
        m.put("arms_at_once", options.allowCrossGpu());
        m.put("hardware_id", hardware == null ? null : hardware.id());
        m.put("hardware", hardware == null ? null : hardware.toMap());
        if (options.executor().kind().can(ExecutorKind.Capability.CONFINES_ARMS)) {
            // which arms ran in the sandbox, with what (docs/security.md, "Measured arms")
            Confine c = suite.run().confine();
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("arms", c.arms().key());
            cm.put("sandbox", c.arms() == Confine.Arms.OFF ? null
                    : Sandbox.problem().orElse("bwrap"));
            cm.put("run_as", Sandbox.runAs() == null ? "isobench's user"
                    : Sandbox.runAs().toString());
            cm.put("pass_env", c.passEnv());
            cm.put("writable", c.writable());
            cm.put("build_network", c.buildNetwork());
            m.put("confine", cm);
        }
        return json(m);
    }

    /**
     * The statistical settings stored with the session: the method's, the suite's GPU clock rule, and the rounds
     * design with every look's nominal levels (and, once the session ends, where each task of an adaptive session
     * stopped and why).
     */
    private Map<String, Object> statsSettings() {
        Map<String, Object> m = new LinkedHashMap<>(StatsConfig.defaults().toMap());
        RunConfig.ClockMismatch c = suite.run().clockMismatch();
        m.put(ClockRule.KEY, new ClockRule(c.smClockPct(), c.throttleShare(), c.exclude()).toMap());
        Map<String, Object> design = new LinkedHashMap<>(options.design().toMap(StatsConfig.defaults().confidence()));
        if (!stopsRecorded.isEmpty()) {
            Map<String, Object> stops = new LinkedHashMap<>();
            for (AdaptiveRounds.Stop s : stopsRecorded) {
                Map<String, Object> sm = new LinkedHashMap<>();
                sm.put("rounds", s.stopping().lookRounds());
                sm.put("reason", s.stopping().reason().key());
                sm.put("text", s.stopping().describe());
                stops.put(s.taskId(), sm);
            }
            design.put("stops", stops);
        }
        m.put(SequentialDesign.KEY, design);
        return m;
    }

    /** Where each task of an adaptive session stopped (stored with the session at its end). */
    private List<AdaptiveRounds.Stop> stopsRecorded = List.of();

    private SessionRecord sessionRecord(String sessionId, Instant started, Instant ended, String status) {
        return SessionRecord.builder(sessionId).time(started, ended).machine(host(), cpu(), gpu(), machineJson())
                .suiteJson(plan.toJson()).statsConfigJson(json(statsSettings())).seed(plan.seed())
                .status(status).build();
    }
}
