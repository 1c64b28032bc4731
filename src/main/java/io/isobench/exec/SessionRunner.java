package io.isobench.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.analysis.StatsConfig;
import io.isobench.probe.CorrectnessRules;
import io.isobench.probe.Greedy;
import io.isobench.probe.OutputDiff;
import io.isobench.probe.Probe;
import io.isobench.env.Environment;
import io.isobench.guard.Secrets;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.proc.ProcessGroup;
import io.isobench.review.Check;
import io.isobench.review.PatchReview;
import io.isobench.review.ReviewConfig;
import io.isobench.review.ReviewResult;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs a plan as one session (DESIGN §4): prepares every arm's environment, runs the jobs in plan order through an
 * {@link Executor}, commits each run to the store when it ends, and resumes an interrupted session without
 * repeating finished runs. Before a server or benchmark starts, a placeholder run ({@code NOT_RUN}) records its
 * process group, so a session resumed after the orchestrator was SIGKILLed first reaps what the killed one left.
 */
public final class SessionRunner {

    public static final String PIPELINE = "native";
    public static final String PIPELINE_CHECK = "native-check";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_ATTEMPTS = 3;

    /**
     * @param sessionId    the session to create or resume; null makes a new id (or, with resume, takes the latest
     *                     unfinished session)
     * @param resume       continue an existing session
     * @param progress     where progress lines go (stderr)
     * @param tty          draw a progress bar instead of lines
     * @param executor     runs the jobs
     * @param parallel     the most jobs in flight; 0 (auto) packs them into the executor's GPUs when it has some, else
     *                     runs one at a time
     * @param allowCrossGpu measured runs of one task may run at the same time (different GPUs / shared CPUs); off,
     *                     the arms of a task run one after the other
     */
    public record Options(String sessionId, boolean resume, PrintWriter progress, boolean tty, Executor executor,
                          int parallel, boolean allowCrossGpu) {

        public Options(String sessionId, boolean resume, PrintWriter progress, boolean tty, Executor executor) {
            this(sessionId, resume, progress, tty, executor, 0, false);
        }

        public Options(String sessionId, boolean resume, PrintWriter progress, boolean tty, Executor executor,
                       int parallel) {
            this(sessionId, resume, progress, tty, executor, parallel, false);
        }
    }

    /**
     * What the session did. The counts cover the same runs: the plan's {@code jobs} and its {@code accuracyRuns} (of
     * the arms whose environment was ready or that finished before) = {@code ran} (this attempt) +
     * {@code skippedFinished} (an earlier attempt) when the session completes.
     */
    public record Summary(String sessionId, int jobs, int accuracyRuns, int ran, int skippedFinished, int succeeded,
                          int failed, int reapedGroups, Map<String, Integer> failures, Duration wall) {
    }

    private final Store store;
    private final Suite suite;
    private final Plan plan;
    private final Options options;
    /** The machine the runs measure on; null for cluster executors (their nodes are not fingerprinted). */
    private final io.isobench.env.Hardware hardware;

    private SessionRunner(Store store, Suite suite, Plan plan, Options options) {
        this.store = store;
        this.suite = suite;
        this.plan = plan;
        this.options = options;
        String ex = options.executor().name();
        this.hardware = ex.equals("local") || ex.equals("docker") ? io.isobench.env.Hardware.detect() : null;
    }

    public static Summary run(Store store, Suite suite, Plan plan, Options options) {
        return new SessionRunner(store, suite, plan, options).run();
    }

    /** The id {@code run} would resume: the given one, else the latest session not marked complete. */
    public static Optional<String> resumable(Store store, String sessionId) {
        if (sessionId != null) {
            return store.session(sessionId).map(SessionRecord::sessionId);
        }
        List<SessionRecord> all = store.sessions();
        for (int i = all.size() - 1; i >= 0; i--) {
            if (!"complete".equals(all.get(i).status())) {
                return Optional.of(all.get(i).sessionId());
            }
        }
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1).sessionId());
    }

    public static String newSessionId() {
        return "s" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).format(Instant.now()
                .atOffset(ZoneOffset.UTC)) + "-" + String.format(Locale.ROOT, "%04x", new java.security.SecureRandom().nextInt(0x10000));
    }

    private Summary run() {
        long t0 = System.nanoTime();
        String sessionId = options.sessionId() != null ? options.sessionId() : newSessionId();
        Optional<SessionRecord> existing = store.session(sessionId);
        Instant started = existing.map(SessionRecord::startedAt).orElse(Instant.now());
        store.putSession(new SessionRecord(sessionId, started, null, host(), cpu(), gpu(), machineJson(),
                plan.toJson(), json(StatsConfig.defaults().toMap()), plan.seed(), "running"));

        // what a previous, interrupted attempt of this session left
        options.executor().beginSession(sessionId);
        Map<String, RunRecord> previous = new HashMap<>();
        store.forEachRun(new RunFilter(null, null, sessionId, false), r -> previous.put(r.runId(), r));
        int reaped = 0;
        Set<String> finished = new HashSet<>();
        for (RunRecord r : previous.values()) {
            if (r.status() == RunRecord.RunStatus.NOT_RUN) {
                for (Job j : plan.jobs()) {
                    if (runId(sessionId, j).equals(r.runId())) {
                        options.executor().reap(j); // containers / cluster jobs the killed attempt left
                    }
                }
                if (Leftovers.reap(store, r, this::say)) { // only a group provably ours; its id is cleared
                    reaped++;
                }
            } else {
                finished.add(r.runId());
            }
        }
        if (!finished.isEmpty()) {
            say("resuming session " + sessionId + ": " + finished.size() + " run(s) already finished");
        }

        // Ctrl-C / SIGTERM of the orchestrator: tear down every group it started (builds, servers, benchmarks,
        // accuracy commands); SIGKILL cannot be caught: the next --resume reaps them from the placeholder rows
        Thread hook = new Thread(() -> ProcessGroup.reapLaunched(Duration.ofSeconds(2)), "isobench-teardown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return prepareAndRun(new Attempt(sessionId, started, finished, previous, reaped, t0));
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down
            }
        }
    }

    /**
     * This attempt of a session and what earlier attempts left.
     *
     * @param started  when the session first started
     * @param finished run ids an earlier attempt finished
     * @param previous the session's stored runs by run id (accuracy runs of this attempt are added as they end)
     * @param reaped   process groups of a killed attempt torn down
     * @param t0       this attempt's start ({@code System.nanoTime})
     */
    private record Attempt(String sessionId, Instant started, Set<String> finished, Map<String, RunRecord> previous,
                           int reaped, long t0) {
    }

    /**
     * The arms made ready for this attempt, each keyed {@code task|arm}.
     *
     * @param envs      the arms' environments
     * @param buildLogs the artifact id of each built arm's build log
     * @param humanSha  the human arm's commit per task, as its environment resolved it
     */
    private record Arms(Map<String, Environment> envs, Map<String, String> buildLogs, Map<String, String> humanSha) {
    }

    private Summary prepareAndRun(Attempt attempt) {
        String sessionId = attempt.sessionId();
        Set<String> finished = attempt.finished();

        for (TaskSpec t : suite.tasks()) {
            store.putTask(new TaskRecord(t.id(), suite.engine().repo(), t.humanCommit(), t.parentCommit(), null,
                    t.perfCommand(), t.model(), null, t.gpus()));
        }

        SessionSetup.run(plan, suite.run().timeouts().buildS(), this::say);
        // environments (cheap with worktrees; re-made on resume so they are known-clean)
        Map<String, Environment> envs = new LinkedHashMap<>();
        Set<String> neededArms = new HashSet<>();
        for (Job j : plan.jobs()) {
            if (!finished.contains(runId(sessionId, j))) {
                neededArms.add(j.taskId() + "|" + j.arm());
            }
        }
        Map<String, String> humanSha = new HashMap<>();
        Map<String, String> buildLogs = new HashMap<>();
        for (ArmSpec a : plan.arms()) {
            if (!neededArms.contains(a.taskId() + "|" + a.arm())) {
                continue;
            }
            TaskSpec task = suite.task(a.taskId()).orElseThrow();
            String buildRun = openRunOf(sessionId, a, finished);
            io.isobench.env.ArmSetup setup = new io.isobench.env.ArmSetup(suite.recipesFor(a.taskId(), a.arm()),
                    suite.buildArgv(task), suite.run().timeouts().buildS(), pgid -> store.putRun(
                    armPlaceholder(buildRun, sessionId, a, task.humanCommit(), "build", pgid)));
            Environment env = options.executor().prepare(a, plan.repo(), setup);
            envs.put(a.taskId() + "|" + a.arm(), env);
            if (env.build() != null) {
                buildLogs.put(a.taskId() + "|" + a.arm(), store.putArtifact("build_log",
                        Secrets.redact(env.build().log()).getBytes(StandardCharsets.UTF_8)));
            }
            if (a.arm().equals("human") && env.intendedCommit() != null) {
                humanSha.put(a.taskId(), env.intendedCommit());
            }
            say(String.format(Locale.ROOT, "env %s %s: %s", a.taskId(), a.arm(), env.ready()
                    ? (env.verifiedCommit() == null ? env.envRef() : "at " + env.verifiedCommit().substring(0, 12)
                    + (a.patch() == null ? "" : " + patch"))
                    + (env.recipes().isEmpty() ? "" : " + recipes " + String.join(",",
                    env.recipes().stream().map(io.isobench.env.RecipeApplication::name).toList()))
                    + (env.build() == null ? "" : String.format(Locale.ROOT, ", built in %.1f s",
                    env.build().durationMs() / 1000))
                    : env.failure().category() + " — " + env.failure().detail()));
        }

        // greedy reference outputs (baseline and human, from this attempt or a previous one)
        Map<String, List<Probe>> reference = references(attempt.previous().values());

        return runJobs(attempt, new Arms(envs, buildLogs, humanSha), reference);
    }

    /** Counts of a session attempt, updated by the job threads. */
    private static final class Tally {
        final int total;
        final long startNs = System.nanoTime();
        int done;
        int ran;
        int ok;
        int bad;
        final Map<String, Integer> failures = new LinkedHashMap<>();

        Tally(int total, int done) {
            this.total = total;
            this.done = done;
        }

        /** One job's run recorded in this attempt ({@code done} counts jobs, as the progress lines do). */
        synchronized void count(String failureCategory) {
            done++;
            countRun(failureCategory);
        }

        /** One run recorded in this attempt (a job's or an accuracy run). */
        synchronized void countRun(String failureCategory) {
            ran++;
            if (failureCategory == null) {
                ok++;
            } else {
                bad++;
                failures.merge(failureCategory, 1, Integer::sum);
            }
        }
    }

    /** The most jobs in flight: {@code --parallel}, else (auto) the executor's GPUs on a GPU node, else 1. */
    int parallelism() {
        if (options.parallel() > 0) {
            return options.parallel();
        }
        return Math.max(1, options.executor().gpuCapacity());
    }

    private Summary runJobs(Attempt attempt, Arms arms, Map<String, List<Probe>> reference) {
        String sessionId = attempt.sessionId();
        Set<String> finished = attempt.finished();
        Map<String, Environment> envs = arms.envs();
        // the summary's counts cover the same runs: the plan's jobs and the accuracy runs (of arms whose environment
        // is ready or that finished before), so a resumed session adds up: jobs + accuracy = run now + already finished
        List<Job> jobs = plan.jobs().stream().filter(j -> j.kind() != Job.Kind.ACCURACY).toList();
        List<Job> accuracyJobs = plan.jobs().stream().filter(j -> j.kind() == Job.Kind.ACCURACY).toList();
        Set<String> jobIds = new HashSet<>();
        jobs.forEach(j -> jobIds.add(runId(sessionId, j)));
        Set<String> planned = new HashSet<>(jobIds);
        int accuracyRuns = 0;
        for (Job j : accuracyJobs) {
            Environment env = envs.get(j.taskId() + "|" + j.arm());
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
        Map<String, List<Probe>> refs = new java.util.concurrent.ConcurrentHashMap<>(reference);
        JobDispatcher.run(todo, parallel, options.executor().gpuCapacity(), options.allowCrossGpu(),
                job -> runJob(job, sessionId, arms, refs, tally));
        // the accuracy jobs, last, in plan order (every baseline first: its score is the reference)
        for (Job job : accuracyJobs) {
            ArmSpec a = plan.arm(job.taskId(), job.arm().label()).orElseThrow();
            String rid = accuracyRunId(sessionId, a);
            if (finished.contains(rid)) {
                continue;
            }
            Environment env = envs.get(a.taskId() + "|" + a.arm());
            if (env == null || !env.ready()) {
                continue; // the arm's outcome is already its environment failure (PATCH_FAILED, EMPTY_PATCH…)
            }
            TaskSpec task = suite.task(a.taskId()).orElseThrow();
            String commit = arms.humanSha().getOrDefault(a.taskId(), task.humanCommit());
            Accuracy.Target target = new Accuracy.Target(a, task, env, commit, job, review(a.taskId(), a.arm(), task));
            RunRecord rec = Accuracy.run(store, sessionId, target, options.executor(),
                    pgid -> store.putRun(armPlaceholder(rid, sessionId, a, commit, "accuracy", pgid)),
                    attempt.previous());
            attempt.previous().put(rid, rec);
            tally.countRun(rec.failure() == null ? null : rec.failure().category());
            say(String.format(Locale.ROOT, "accuracy %s %s: %s", a.taskId(), a.arm(), rec.failure() != null
                    ? rec.failure().category() + " — " + rec.failure().detail()
                    : String.format(Locale.ROOT, "accuracy_score=%s", rec.primaryValue())));
        }
        if (options.tty()) {
            options.progress().println();
        }
        store.putSession(new SessionRecord(sessionId, attempt.started(), Instant.now(), host(), cpu(), gpu(), machineJson(),
                plan.toJson(), json(StatsConfig.defaults().toMap()), plan.seed(), "complete"));
        return new Summary(sessionId, tally.total, accuracyRuns, tally.ran, alreadyFinished, tally.ok, tally.bad,
                attempt.reaped(), tally.failures, Duration.ofNanos(System.nanoTime() - attempt.t0()));
    }

    /** Runs one job to its end (retries included), applies the correctness gate and commits the run. */
    private void runJob(Job job, String sessionId, Arms arms, Map<String, List<Probe>> reference, Tally tally) {
        String rid = runId(sessionId, job);
        Environment env = arms.envs().get(job.taskId() + "|" + job.arm());
        TaskSpec task = suite.task(job.taskId()).orElseThrow();
        String commit = arms.humanSha().getOrDefault(job.taskId(), task.humanCommit());
        JobResult result;
        long tb;
        if (env == null || !env.ready()) {
            Failure f = env == null ? new Failure(FailureCategory.ENV_MISSING, "no environment", List.of())
                    : env.failure();
            result = new JobResult(f, List.of(), null, env == null ? "" : env.log(), 0, Map.of(), List.of(),
                    job.argv(), null, null, null);
        } else {
            Job runnable = withEnv(job, env.env());
            result = null;
            for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
                final int att = attempt;
                result = options.executor().execute(runnable, new Executor.Hooks(pgid ->
                        store.putRun(placeholder(rid, sessionId, job, commit, pgid, att)), () -> false, rid));
                if (result.success() || !result.failure().category().retryable() || attempt == MAX_ATTEMPTS) {
                    break;
                }
                long backoffMs = 500L << (attempt - 1);
                say(String.format(Locale.ROOT, "retrying %s after %s (attempt %d/%d, backoff %d ms)", job.jobId(),
                        result.failure().category(), attempt + 1, MAX_ATTEMPTS, backoffMs));
                sleep(backoffMs);
            }
        }
        tb = System.nanoTime();
        // correctness gate
        Failure failure = result.failure();
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", job.taskId());
        extra.put("job", job.jobId());
        extra.put("job_index", job.index());
        extra.put("plan_seed", plan.seed());
        if (hardware != null) {
            extra.put("hardware_id", hardware.id());
        }
        if (job.arm().kind() == Arm.Kind.AGENT) {
            String name = job.arm().agentName();
            suite.agents().stream().filter(a -> io.isobench.Arm.normalizeAgent(a.name()).equals(name)
                    && a.model() != null).findFirst().ifPresent(a -> extra.put("agent_model", a.model()));
        }
        if (env != null) {
            extra.put("intended_commit", env.intendedCommit());
            extra.put("verified_commit", env.verifiedCommit());
            extra.put("patch_sha256", env.patchSha256());
            if (env.artifact() != null) {
                extra.put("artifact", env.artifact());
            }
        }
        extra.put("recipes", env == null ? List.of()
                : env.recipes().stream().map(io.isobench.env.RecipeApplication::toMap).toList());
        if (env != null && env.build() != null) {
            extra.put("build", env.build().toMap(arms.buildLogs().get(job.taskId() + "|" + job.arm())));
        }
        ReviewResult review = review(job.taskId(), job.arm().label(), task);
        if (review != null) {
            putReview(extra, review, job.kind() == Job.Kind.CHECK);
        }
        extra.put("timings_ms", result.timingsMs());
        if (job.readout() != null && job.readout().primaryDefinition() != null) {
            // a generic engine's primary metric may be one the dictionary does not know: its unit and direction
            io.isobench.parse.MetricDictionary.Definition d = job.readout().primaryDefinition();
            extra.put("primary_definition", Map.of("name", d.name(), "unit", d.unit(), "better", d.better().label()));
        }
        if (result.gpus() != null) {
            extra.put("gpus", result.gpus());
        }
        if (job.kind() == Job.Kind.CHECK) {
            Gate gate = gate(job, task, result, reference, extra);
            failure = gate.failure() != null ? gate.failure() : failure;
            if (!gate.metrics().isEmpty()) {
                List<Metric> all = new ArrayList<>(result.metrics());
                all.addAll(gate.metrics());
                result = result.withMetrics(all);
            }
        }
        RunRecord rec = record(sessionId, job, commit, env, result, failure, extra);
        store.putRun(rec);
        double bookkeepingMs = (System.nanoTime() - tb) / 1e6;
        String category = failure == null ? null : failure.category().name();
        synchronized (tally) {
            tally.count(category);
            double perJobS = (System.nanoTime() - tally.startNs) / 1e9 / tally.ran;
            long etaS = Math.round(perJobS * (tally.total - tally.done));
            progress(tally.done, tally.total, job, failure, rec, etaS, bookkeepingMs);
        }
    }

    /** The job with the arm's recipe variables added (the perf_command's own {@code VAR=value} prefix wins). */
    static Job withEnv(Job job, Map<String, String> armEnv) {
        if (armEnv.isEmpty()) {
            return job;
        }
        Map<String, String> env = new LinkedHashMap<>(armEnv);
        env.putAll(job.env());
        return job.withEnv(env);
    }

    /** What the correctness gate decided for one check run. */
    private record Gate(Failure failure, List<Metric> metrics) {
    }

    /**
     * The correctness gate of a check run: stores the probe outputs of both passes (extra_json {@code outputs}/{@code
     * probe} for the sequential pass, {@code probe_batched}/{@code probe_batch_size} for the concurrent one, and the
     * artifact {@code probe_outputs}). The baseline's check is the reference; its repeat check (a second server start)
     * calibrates the tolerance's floor and never replaces the reference; the human and the agents are judged by
     * {@link CorrectnessRules} against the baseline (gating) and the human, and exact-match rate, first divergence
     * and logprob drift are recorded as metrics.
     */
    private Gate gate(Job job, TaskSpec task, JobResult result, Map<String, List<Probe>> reference,
                      Map<String, Object> extra) {
        TaskSpec.Correctness c = task.correctness() != null ? task.correctness() : TaskSpec.Correctness.DEFAULT;
        Map<String, Object> corr = new LinkedHashMap<>();
        Map<String, Object> thresholds = new LinkedHashMap<>();
        thresholds.put("tolerance", c.tolerance());
        thresholds.put("max_logprob_drift", c.maxLogprobDrift());
        thresholds.put("prompts", c.prompts());
        thresholds.put("max_tokens", c.maxTokens());
        thresholds.put("probe", job.generic() ? "command" : c.offlineCommand() != null ? "offline" : "server");
        corr.put("thresholds", thresholds);
        extra.put("correctness", corr);
        if (!result.success()) {
            String kind = result.probeFailure();
            corr.put("outcome", kind != null ? kind : "CHECK_FAILED");
            corr.put("reason", (job.repeatCheck() ? "the baseline's second check failed, so the tolerance is not"
                    + " calibrated (floor 0): " : "") + result.failure().detail());
            return new Gate(null, List.of());
        }
        Greedy.ProbeRun run = probeRun(result);
        putProbes(job, c, run, extra);
        String taskId = job.taskId();
        Greedy.ProbeRun base = referenceRun(reference, taskId, "baseline");
        if (job.repeatCheck()) {
            putReference(reference, taskId, REPEAT_ROLE, run);
            if (base == null) {
                corr.put("outcome", "NO_REFERENCE");
                corr.put("reason", "the baseline's first check has no probe outputs: nothing to calibrate against"
                        + " (floor 0)");
            } else {
                CorrectnessRules.Calibration cal = CorrectnessRules.calibrate(base, run);
                corr.put("outcome", "CALIBRATION");
                corr.put("reason", cal.describe());
                corr.put("calibration", cal.toMap());
            }
            return new Gate(null, List.of());
        }
        if (job.arm().equals(Arm.BASELINE)) {
            putReference(reference, taskId, "baseline", run);
            corr.put("outcome", "REFERENCE");
            corr.put("reason", "the baseline's outputs are the reference");
            return new Gate(null, List.of());
        }
        CorrectnessRules.Thresholds th = new CorrectnessRules.Thresholds(c.tolerance(), c.maxLogprobDrift(),
                calibration(reference, taskId));
        corr.put("floor", th.calibration().floor());
        corr.put("tolerance_effective", th.effectiveTolerance());
        if (c.maxLogprobDrift() != null) {
            corr.put("max_logprob_drift_effective", th.effectiveMaxDrift());
        }
        List<Metric> metrics = new ArrayList<>();
        Greedy.ProbeRun human = referenceRun(reference, taskId, "human");
        CorrectnessRules.Comparison vh = null;
        if (!job.arm().equals(Arm.HUMAN) && human != null) {
            vh = CorrectnessRules.compare(human, run);
            putComparison(corr, "human", vh);
            metrics.addAll(diffMetrics(vh.sequential().diff(), "human"));
        }
        Failure failure = null;
        if (base == null) {
            corr.put("outcome", "NO_REFERENCE");
            corr.put("reason", "the baseline's probe outputs are missing (its check failed): nothing to compare with");
        } else {
            CorrectnessRules.Comparison vb = CorrectnessRules.compare(base, run);
            putComparison(corr, "baseline", vb);
            metrics.addAll(diffMetrics(vb.sequential().diff(), "baseline"));
            extra.put("mismatch_fraction", vb.mismatch());
            CorrectnessRules.Decision d = job.arm().equals(Arm.HUMAN) ? CorrectnessRules.human(vb, th)
                    : CorrectnessRules.agent(vb, vh, human == null ? null : CorrectnessRules.compare(base, human), th);
            corr.put("outcome", d.outcome().name());
            corr.put("rule", d.rule() == null ? null : d.rule().label());
            corr.put("reason", d.reason());
            if (d.fails()) {
                failure = new Failure(FailureCategory.OUTPUT_MISMATCH, d.reason(), List.of(firstDiff(vb)));
            }
        }
        if (job.arm().equals(Arm.HUMAN)) {
            putReference(reference, taskId, "human", run);
        }
        return new Gate(failure, metrics);
    }

    /**
     * The reference map rebuilt from a session's stored check runs (on {@code --resume}): the baseline's and the
     * human's probes, and the baseline's repeat check kept apart (it calibrates the tolerance, it never replaces the
     * baseline's reference).
     */
    static Map<String, List<Probe>> references(java.util.Collection<RunRecord> previous) {
        Map<String, List<Probe>> reference = new HashMap<>();
        for (RunRecord r : previous) {
            if (PIPELINE_CHECK.equals(r.pipeline()) && ("baseline".equals(r.arm()) || "human".equals(r.arm()))
                    && (r.status() == RunRecord.RunStatus.SUCCESS || "human".equals(r.arm()) && r.failure() != null
                    && "OUTPUT_MISMATCH".equals(r.failure().category()))) {
                putReference(reference, taskOf(r), r.runId().endsWith("/" + io.isobench.plan.Planner.REPEAT_CHECK)
                        ? REPEAT_ROLE : r.arm(), probeRunOf(r));
            }
        }
        return reference;
    }

    /** Key suffix of the baseline's repeat check's probes in the reference map (never the baseline's reference). */
    static final String REPEAT_ROLE = "baseline/" + io.isobench.plan.Planner.REPEAT_CHECK;

    /** A check's probe run; its plain texts when the executor returned no probe JSON. */
    private static Greedy.ProbeRun probeRun(JobResult result) {
        Greedy.ProbeRun run = Greedy.ProbeRun.fromJson(result.probeJson());
        return run.sequential().isEmpty()
                ? Greedy.ProbeRun.sequentialOnly(result.outputs().stream().map(Probe::text).toList()) : run;
    }

    /** extra_json {@code outputs}, {@code probe}, {@code probe_batched}, {@code probe_batch_size}, and the artifact. */
    private void putProbes(Job job, TaskSpec.Correctness c, Greedy.ProbeRun run, Map<String, Object> extra) {
        extra.put("outputs", run.texts());
        extra.put("probe", run.sequential().stream().map(Probe::toMap).toList());
        extra.put("probe_batched", run.batched().stream().map(Probe::toMap).toList());
        extra.put("probe_batch_size", run.hasBatched() ? run.batchSize() : null);
        Map<String, Object> art = new LinkedHashMap<>();
        art.put("task", job.taskId());
        art.put("arm", job.arm().label());
        art.put("prompts", Greedy.prompts(c.prompts()));
        art.put("max_tokens", c.maxTokens());
        art.put("outputs", run.sequential().stream().map(Probe::toMap).toList());
        art.put("outputs_batched", run.batched().stream().map(Probe::toMap).toList());
        art.put("batch_size", run.hasBatched() ? run.batchSize() : null);
        extra.put("probe_artifact_sha256", store.putArtifact("probe_outputs",
                Secrets.redact(json(art)).getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code vs_<ref>} (sequential pass) and {@code vs_<ref>_batched} (concurrent pass, when both sides ran one). */
    private static void putComparison(Map<String, Object> corr, String ref, CorrectnessRules.Comparison c) {
        corr.put("vs_" + ref, c.sequential().diff().toMap());
        if (c.batched() != null) {
            corr.put("vs_" + ref + "_batched", c.batched().diff().toMap());
        }
    }

    /** The reference map holds each role's sequential pass under {@code task|role}, its batched one beside it. */
    private static void putReference(Map<String, List<Probe>> reference, String taskId, String role,
                                     Greedy.ProbeRun run) {
        reference.put(taskId + "|" + role, run.sequential());
        reference.put(taskId + "|" + role + "|batched", run.batched());
    }

    /** The probe run stored for a role ({@code baseline}, {@code human}, {@link #REPEAT_ROLE}); null when none. */
    static Greedy.ProbeRun referenceRun(Map<String, List<Probe>> reference, String taskId, String role) {
        List<Probe> seq = reference.get(taskId + "|" + role);
        if (seq == null) {
            return null;
        }
        List<Probe> batched = reference.getOrDefault(taskId + "|" + role + "|batched", List.of());
        return batched.isEmpty() ? Greedy.ProbeRun.sequentialOnly(seq)
                : new Greedy.ProbeRun(seq, batched, Greedy.batchSize(batched.size()));
    }

    /** The task's calibration from the baseline's two checks; {@code NONE} (floor 0) when either has no probes. */
    private static CorrectnessRules.Calibration calibration(Map<String, List<Probe>> reference, String taskId) {
        Greedy.ProbeRun first = referenceRun(reference, taskId, "baseline");
        Greedy.ProbeRun repeat = referenceRun(reference, taskId, REPEAT_ROLE);
        return first == null || repeat == null ? CorrectnessRules.Calibration.NONE
                : CorrectnessRules.calibrate(first, repeat);
    }

    private static List<Metric> diffMetrics(OutputDiff d, String vs) {
        List<Metric> out = new ArrayList<>();
        out.add(Metric.of("exact_match_rate_vs_" + vs, d.exactMatchRate()));
        if (d.firstDivergenceChar() != null) {
            out.add(Metric.of("first_divergence_char_vs_" + vs, d.firstDivergenceChar()));
        }
        if (d.firstDivergenceToken() != null) {
            out.add(Metric.of("first_divergence_token_vs_" + vs, d.firstDivergenceToken()));
        }
        if (d.maxLogprobDrift() != null) {
            out.add(Metric.of("logprob_drift_max_vs_" + vs, d.maxLogprobDrift()));
        }
        return out;
    }

    private final Map<String, Optional<ReviewResult>> reviews = new java.util.concurrent.ConcurrentHashMap<>();

    /** The patch review of an agent arm (once per arm); null for baseline/human or an unreadable patch. */
    private ReviewResult review(String taskId, String arm, TaskSpec task) {
        return reviews.computeIfAbsent(taskId + "|" + arm, k -> {
            java.nio.file.Path patch = plan.arm(taskId, arm).map(ArmSpec::patch).orElse(null);
            if (patch == null) {
                return Optional.empty();
            }
            try {
                return Optional.of(PatchReview.review(patch, reviewConfig(task))); // streamed, bounded memory
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                return Optional.empty();
            }
        }).orElse(null);
    }

    /** The review settings of a task: defaults, the files its perf_command names, then the suite's review keys. */
    public static ReviewConfig reviewConfig(TaskSpec task) {
        ReviewConfig rc = ReviewConfig.defaults().withPerfCommand(task.perfCommand());
        if (task.generic() != null) {
            rc = rc.withEngineRoots(List.of()); // the default roots are vLLM's; a generic engine names its own
        }
        TaskSpec.Review r = task.review();
        if (r == null) {
            return rc;
        }
        if (r.failOn() != null) {
            Set<Check> checks = new HashSet<>();
            for (String n : r.failOn()) {
                checks.add(Check.valueOf(n.toUpperCase(Locale.ROOT)));
            }
            rc = rc.withFailingChecks(checks);
        }
        if (r.maxPatchLines() != null || r.maxPatchBytes() != null) {
            rc = rc.withMaxPatch(r.maxPatchLines() != null ? r.maxPatchLines() : rc.maxChangedLines(),
                    r.maxPatchBytes() != null ? r.maxPatchBytes() : rc.maxPatchBytes());
        }
        if (r.engineRoots() != null) {
            rc = rc.withEngineRoots(r.engineRoots());
        }
        return rc;
    }

    /**
     * Review fields of a run's extra_json: {@code review_findings} (one line per finding: SUSPICIOUS_PATCH reasons),
     * {@code review_fails_arm}, {@code review_failing} (the findings the suite marks as failing the arm); the check
     * run also carries {@code review} (the whole review with every evidence hunk) and the artifact
     * {@code patch_review}.
     */
    void putReview(Map<String, Object> extra, ReviewResult review, boolean full) {
        if (review.suspicious()) {
            extra.put("review_findings", review.reasons());
            extra.put("review_fails_arm", review.failsArm());
            extra.put("review_failing", review.findings().stream()
                    .filter(f -> f.severity() == io.isobench.review.Finding.Severity.ERROR)
                    .map(io.isobench.review.Finding::oneLine).toList());
        }
        if (full) {
            try {
                extra.put("review", JSON.readTree(review.json()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            extra.put("review_artifact_sha256", store.putArtifact("patch_review",
                    review.json().getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** The run id an arm's build or pip group is recorded under: its first unfinished job, else its accuracy run. */
    private String openRunOf(String sessionId, ArmSpec a, Set<String> finished) {
        for (Job j : plan.jobs()) {
            if (j.taskId().equals(a.taskId()) && j.arm().label().equals(a.arm())
                    && !finished.contains(runId(sessionId, j))) {
                return runId(sessionId, j);
            }
        }
        return accuracyRunId(sessionId, a);
    }

    static String accuracyRunId(String sessionId, ArmSpec a) {
        return sessionId + "/" + a.taskId() + "/" + a.arm() + "/accuracy";
    }

    static String runId(String sessionId, Job job) {
        return sessionId + "/" + job.jobId();
    }

    private RunRecord placeholder(String rid, String sessionId, Job job, String commit, long pgid, int attempt) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", job.taskId());
        extra.put("job", job.jobId());
        Leftovers.record(extra, pgid);
        extra.put("attempt", attempt);
        Arm arm = job.arm();
        return new RunRecord(rid, sessionId, RunRecord.RunKind.MEASURED, commit, shortOf(commit), arm.agentName(),
                job.arm().label(), Math.max(0, job.round()), RunRecord.RunStatus.NOT_RUN, null, job.mode().label(),
                null,
                job.kind() == Job.Kind.CHECK ? PIPELINE_CHECK : PIPELINE, null, null, null, null, null,
                Instant.now(), null, null, null, json(job.argv()), null, "in progress", json(extra), List.of());
    }

    /**
     * The placeholder of a command that belongs to an arm rather than to one job (the accuracy command, the build, a
     * pip_pin install), under run id {@code rid}: a resumed session reaps its group like a job's.
     */
    private RunRecord armPlaceholder(String rid, String sessionId, ArmSpec a, String commit, String phase, long pgid) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", a.taskId());
        extra.put("phase", phase);
        Leftovers.record(extra, pgid);
        Arm arm = Arm.fromLabel(a.arm());
        return new RunRecord(rid, sessionId, RunRecord.RunKind.MEASURED, commit, shortOf(commit), arm.agentName(),
                a.arm(), 0, RunRecord.RunStatus.NOT_RUN, null, null, null, PIPELINE, null, null, null, null, null,
                Instant.now(), null, null, null, null, null, "in progress: " + phase, json(extra), List.of());
    }

    private RunRecord record(String sessionId, Job job, String commit, Environment env, JobResult result,
                             Failure failure, Map<String, Object> extra) {
        String rid = runId(sessionId, job);
        Arm arm = job.arm();
        String primaryName = job.readout() != null ? job.readout().primary()
                : MetricDictionary.primaryMetric(job.mode());
        Double primary = null;
        if (failure == null || failure.category() == FailureCategory.OUTPUT_MISMATCH) {
            for (Metric m : result.metrics()) {
                if (m.name().equals(primaryName)) {
                    primary = m.value();
                }
            }
        }
        RunRecord.RunStatus status = failure == null ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED;
        if (job.kind() == Job.Kind.MEASURE && failure == null && primary == null) {
            failure = new Failure(FailureCategory.NO_METRICS, "no " + primaryName + " in the output", List.of());
            status = RunRecord.RunStatus.FAILED;
        }
        if (job.kind() == Job.Kind.MEASURE && failure == null) {
            failure = lostRequests(result);
            status = failure == null ? status : RunRecord.RunStatus.FAILED;
        }
        String logSha = null;
        if (result.log() != null && !result.log().isEmpty()) {
            logSha = store.putArtifact("log", Secrets.redact(result.log()).getBytes(StandardCharsets.UTF_8));
        }
        RunRecord.FailureInfo fi = failure == null ? null : new RunRecord.FailureInfo(failure.category().name(),
                Secrets.redact(failure.detail()), Secrets.redact(String.join("\n", failure.evidence())),
                failure.category().retryable());
        String model = job.probes() != null ? job.probes().model()
                : io.isobench.probe.Clients.flagMap(job.client()).get("model");
        return new RunRecord(rid, sessionId, RunRecord.RunKind.MEASURED, commit, shortOf(commit), arm.agentName(),
                job.arm().label(), Math.max(0, job.round()), status, fi, job.mode().label(), model,
                job.kind() == Job.Kind.CHECK ? PIPELINE_CHECK : PIPELINE, null, primary == null ? null : primaryName,
                primary, primary == null ? null : "measured", result.workloadJson(),
                Instant.now().minusMillis((long) result.durationMs()), result.durationMs(), null,
                env == null ? null : env.envRef(), json(Secrets.argv(result.argv())), logSha,
                null, json(extra), result.metrics());
    }

    /**
     * A measured run that lost requests did less work than the others: {@code REQUESTS_FAILED} (its metrics are kept,
     * the analysis excludes the round), with the client's failure reasons; null when none failed.
     */
    static Failure lostRequests(JobResult result) {
        double failed = 0;
        double completed = 0;
        for (Metric m : result.metrics()) {
            if (m.name().equals("failed_requests")) {
                failed = m.value();
            } else if (m.name().equals("completed_requests")) {
                completed = m.value();
            }
        }
        if (!(failed > 0)) {
            return null;
        }
        String reasons = "";
        try {
            JsonNode w = result.workloadJson() == null ? null : JSON.readTree(result.workloadJson());
            JsonNode by = w == null ? null : w.path("failures_by_reason");
            if (by != null && by.isObject() && !by.isEmpty()) {
                List<String> parts = new ArrayList<>();
                by.fields().forEachRemaining(e -> parts.add(e.getKey() + " x" + e.getValue().asText()));
                reasons = ": " + String.join(", ", parts);
            }
        } catch (java.io.IOException e) {
            // no reasons recorded
        }
        String detail = String.format(Locale.ROOT, "%d of %d requests failed%s", (long) failed,
                (long) (failed + completed), reasons);
        return new Failure(FailureCategory.REQUESTS_FAILED, detail, List.of(detail));
    }

    private synchronized void progress(int done, int total, Job job, Failure failure, RunRecord rec, long etaS, double bookMs) {
        String what = failure != null ? failure.category().name()
                : rec.primaryValue() != null ? String.format(Locale.ROOT, "%s=%.2f", rec.primaryMetric(), rec.primaryValue())
                : "ok";
        String round = job.repeatCheck() ? "repeat check" : job.kind() == Job.Kind.CHECK ? "check"
                : "round " + (job.round() + 1) + "/" + plan.rounds();
        String eta = String.format(Locale.ROOT, "%d:%02d", etaS / 60, etaS % 60);
        if (options.tty()) {
            int width = 24;
            int fill = (int) Math.round((double) done / total * width);
            options.progress().print(String.format(Locale.ROOT, "\r[%s%s] %d/%d %-10s %-14s %-11s ETA %s  %-40s",
                    "#".repeat(fill), ".".repeat(width - fill), done, total, job.taskId(), job.arm(), round, eta, what));
            options.progress().flush();
        } else {
            options.progress().println(String.format(Locale.ROOT, "job %d/%d %s %s %s: %s (ETA %s)", done, total,
                    job.taskId(), job.arm(), round, what, eta));
            options.progress().flush();
        }
    }

    private synchronized void say(String line) {
        if (options.tty()) {
            options.progress().print("\r");
        }
        options.progress().println(line);
        options.progress().flush();
    }

    /** Evidence of an output mismatch: the first differing probe, sequential unless only the batched pass differs. */
    private static String firstDiff(CorrectnessRules.Comparison c) {
        CorrectnessRules.ProbePair p = c.batched() != null && c.sequential().diff().mismatchFraction() == 0
                ? c.batched() : c.sequential();
        return firstDiff(p.reference().stream().map(Probe::text).toList(), p.arm().stream().map(Probe::text).toList())
                + (p.batchSize() > 1 ? " (" + p.batchSize() + " requests at once)" : "");
    }

    private static String firstDiff(List<String> ref, List<String> got) {
        for (int i = 0; i < Math.min(ref.size(), got.size()); i++) {
            if (!ref.get(i).equals(got.get(i))) {
                return "prompt " + i + ": expected " + abbreviate(ref.get(i)) + " got " + abbreviate(got.get(i));
            }
        }
        return "output count " + got.size() + " vs " + ref.size();
    }

    private static String abbreviate(String s) {
        String t = s.replace("\n", "\\n");
        return "\"" + (t.length() > 60 ? t.substring(0, 60) + "…" : t) + "\"";
    }

    static String taskOf(RunRecord r) {
        try {
            return JSON.readTree(r.extraJson()).path("task").asText(null);
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * The probes a check run stored: extra_json {@code probe} (with token ids/logprobs when present; else its plain
     * {@code outputs}) and {@code probe_batched} (absent in runs stored before the concurrent pass).
     */
    static Greedy.ProbeRun probeRunOf(RunRecord r) {
        List<Probe> seq = null;
        List<Probe> batched = new ArrayList<>();
        try {
            JsonNode x = JSON.readTree(r.extraJson());
            if (x.path("probe").isArray() && !x.path("probe").isEmpty()) {
                seq = new ArrayList<>();
                for (JsonNode n : x.path("probe")) {
                    seq.add(Probe.of(n));
                }
            }
            for (JsonNode n : x.path("probe_batched")) {
                batched.add(Probe.of(n));
            }
        } catch (Exception e) {
            // fall back to the texts
        }
        if (seq == null) {
            seq = outputsOf(r).stream().map(Probe::text).toList();
        }
        return batched.isEmpty() ? Greedy.ProbeRun.sequentialOnly(seq)
                : new Greedy.ProbeRun(seq, batched, Greedy.batchSize(batched.size()));
    }

    static List<String> outputsOf(RunRecord r) {
        List<String> out = new ArrayList<>();
        try {
            for (JsonNode n : JSON.readTree(r.extraJson()).path("outputs")) {
                out.add(n.asText());
            }
        } catch (Exception e) {
            // none
        }
        return out;
    }

    private static String shortOf(String commit) {
        return commit == null ? null : commit.length() <= 8 ? commit : commit.substring(0, 8);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
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
        return json(m);
    }
}
