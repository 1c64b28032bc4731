package io.isobench.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.analysis.StatsConfig;
import io.isobench.env.Environment;
import io.isobench.env.Worktrees;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
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
     */
    public record Options(String sessionId, boolean resume, PrintWriter progress, boolean tty, Executor executor) {
    }

    /** What the session did. */
    public record Summary(String sessionId, int jobs, int ran, int skippedFinished, int succeeded, int failed,
                          int reapedGroups, Map<String, Integer> failures, Duration wall) {
    }

    private final Store store;
    private final Suite suite;
    private final Plan plan;
    private final Options options;

    private SessionRunner(Store store, Suite suite, Plan plan, Options options) {
        this.store = store;
        this.suite = suite;
        this.plan = plan;
        this.options = options;
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
        store.putSession(new SessionRecord(sessionId, started, null, host(), cpu(), "none", machineJson(options.executor().name()),
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
                Long pgid = pgidOf(r);
                if (pgid != null && !ProcessGroup.members(pgid).isEmpty()) {
                    ProcessGroup.kill(pgid, Duration.ofSeconds(2));
                    reaped++;
                    say("reaped process group " + pgid + " left by the interrupted run " + r.runId());
                }
            } else {
                finished.add(r.runId());
            }
        }
        if (!finished.isEmpty()) {
            say("resuming session " + sessionId + ": " + finished.size() + " run(s) already finished");
        }

        for (TaskSpec t : suite.tasks()) {
            store.putTask(new TaskRecord(t.id(), suite.engine().repo(), t.humanCommit(), t.parentCommit(), null,
                    t.perfCommand(), t.model(), null, t.gpus()));
        }

        // environments (cheap with worktrees; re-made on resume so they are known-clean)
        Map<String, Environment> envs = new LinkedHashMap<>();
        Set<String> neededArms = new HashSet<>();
        for (Job j : plan.jobs()) {
            if (!finished.contains(runId(sessionId, j))) {
                neededArms.add(j.taskId() + "|" + j.arm());
            }
        }
        Map<String, String> humanSha = new HashMap<>();
        for (ArmSpec a : plan.arms()) {
            if (!neededArms.contains(a.taskId() + "|" + a.arm())) {
                continue;
            }
            Environment env = Worktrees.prepare(plan.repo(), a.commitRef(), a.patch(), a.worktree());
            envs.put(a.taskId() + "|" + a.arm(), env);
            if (a.arm().equals("human") && env.intendedCommit() != null) {
                humanSha.put(a.taskId(), env.intendedCommit());
            }
            say(String.format(Locale.ROOT, "env %s %s: %s", a.taskId(), a.arm(), env.ready()
                    ? "at " + env.verifiedCommit().substring(0, 12) + (a.patch() == null ? "" : " + patch")
                    : env.failure().category() + " — " + env.failure().detail()));
        }

        // greedy reference outputs and arms that failed the gate (from this attempt or a previous one)
        Map<String, List<String>> reference = new HashMap<>();
        for (RunRecord r : previous.values()) {
            if (PIPELINE_CHECK.equals(r.pipeline()) && "baseline".equals(r.arm()) && r.status() == RunRecord.RunStatus.SUCCESS) {
                reference.put(taskOf(r), outputsOf(r));
            }
        }

        // Ctrl-C / SIGTERM of the orchestrator: tear down the group of the job in flight (SIGKILL cannot be caught:
        // the next --resume reaps it from the placeholder row)
        java.util.concurrent.atomic.AtomicLong inFlight = new java.util.concurrent.atomic.AtomicLong();
        Thread hook = new Thread(() -> {
            long g = inFlight.get();
            if (g > 1) {
                ProcessGroup.kill(g, Duration.ofSeconds(2));
            }
        }, "isobench-teardown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runJobs(sessionId, started, finished, previous, envs, humanSha, reference, reaped, inFlight, t0);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down
            }
        }
    }

    private Summary runJobs(String sessionId, Instant started, Set<String> finished, Map<String, RunRecord> previous,
                            Map<String, Environment> envs, Map<String, String> humanSha,
                            Map<String, List<String>> reference, int reaped,
                            java.util.concurrent.atomic.AtomicLong inFlight, long t0) {
        int ran = 0;
        int ok = 0;
        int bad = 0;
        Map<String, Integer> failures = new LinkedHashMap<>();
        int total = plan.jobs().size();
        int done = finished.size();
        long runStart = System.nanoTime();
        int ranThisAttempt = 0;
        for (Job job : plan.jobs()) {
            String rid = runId(sessionId, job);
            if (finished.contains(rid)) {
                continue;
            }
            Environment env = envs.get(job.taskId() + "|" + job.arm());
            TaskSpec task = suite.task(job.taskId()).orElseThrow();
            String commit = humanSha.getOrDefault(job.taskId(), task.humanCommit());
            JobResult result;
            long tb;
            if (env == null || !env.ready()) {
                Failure f = env == null ? new Failure(FailureCategory.ENV_MISSING, "no environment", List.of())
                        : env.failure();
                result = new JobResult(f, List.of(), null, env == null ? "" : env.log(), 0, Map.of(), List.of(),
                        job.argv());
            } else {
                Job runnable = job;
                result = null;
                for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
                    final int att = attempt;
                    result = options.executor().execute(runnable, new Executor.Hooks(pgid -> {
                        inFlight.set(pgid);
                        store.putRun(placeholder(rid, sessionId, job, commit, pgid, att));
                    }, () -> false));
                    inFlight.set(0);
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
            if (env != null) {
                extra.put("intended_commit", env.intendedCommit());
                extra.put("verified_commit", env.verifiedCommit());
                extra.put("patch_sha256", env.patchSha256());
            }
            extra.put("recipes", List.of());
            List<String> review = reviewFindings(plan.arm(job.taskId(), job.arm()).map(ArmSpec::patch).orElse(null));
            if (!review.isEmpty()) {
                extra.put("review_findings", review);
            }
            extra.put("timings_ms", result.timingsMs());
            if (job.kind() == Job.Kind.CHECK && result.success()) {
                extra.put("outputs", result.outputs());
                if (job.arm().equals("baseline")) {
                    reference.put(job.taskId(), result.outputs());
                } else {
                    List<String> ref = reference.get(job.taskId());
                    double tol = task.correctness() == null ? 0.0 : task.correctness().tolerance();
                    if (ref == null) {
                        extra.put("correctness", "no_reference");
                    } else {
                        double mismatch = io.isobench.bench.Greedy.mismatchFraction(ref, result.outputs());
                        extra.put("mismatch_fraction", mismatch);
                        extra.put("correctness", mismatch > tol ? "mismatch" : "match");
                        if (mismatch > tol) {
                            failure = new Failure(FailureCategory.OUTPUT_MISMATCH, String.format(Locale.ROOT,
                                    "%.0f %% of the greedy outputs differ from the baseline's (tolerance %.0f %%)",
                                    mismatch * 100, tol * 100), List.of(firstDiff(ref, result.outputs())));
                        }
                    }
                }
            }
            RunRecord rec = record(rid, sessionId, job, commit, env, result, failure, extra);
            store.putRun(rec);
            double bookkeepingMs = (System.nanoTime() - tb) / 1e6;
            ran++;
            ranThisAttempt++;
            done++;
            if (failure == null) {
                ok++;
            } else {
                bad++;
                failures.merge(failure.category().name(), 1, Integer::sum);
            }
            double perJobS = (System.nanoTime() - runStart) / 1e9 / ranThisAttempt;
            long etaS = Math.round(perJobS * (total - done));
            progress(done, total, job, failure, rec, etaS, bookkeepingMs);
        }
        if (options.tty()) {
            options.progress().println();
        }
        store.putSession(new SessionRecord(sessionId, started, Instant.now(), host(), cpu(), "none", machineJson(options.executor().name()),
                plan.toJson(), json(StatsConfig.defaults().toMap()), plan.seed(), "complete"));
        return new Summary(sessionId, total, ran, finished.size(), ok, bad, reaped, failures,
                Duration.ofNanos(System.nanoTime() - t0));
    }

    /** Patch review: an agent patch that edits the benchmark or tests is flagged (SUSPICIOUS_PATCH finding). */
    static List<String> reviewFindings(java.nio.file.Path patch) {
        if (patch == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        try {
            for (String line : java.nio.file.Files.readAllLines(patch, StandardCharsets.UTF_8)) {
                if (line.startsWith("+++ b/") || line.startsWith("--- a/")) {
                    String file = line.substring(6).strip();
                    if ((file.startsWith("benchmarks/") || file.contains("/benchmarks/") || file.startsWith("tests/")
                            || file.contains("/tests/")) && !out.contains("edits " + file)) {
                        out.add("edits " + file);
                    }
                }
            }
        } catch (java.io.IOException e) {
            return List.of();
        }
        return out;
    }

    static String runId(String sessionId, Job job) {
        return sessionId + "/" + job.jobId();
    }

    private RunRecord placeholder(String rid, String sessionId, Job job, String commit, long pgid, int attempt) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("task", job.taskId());
        extra.put("job", job.jobId());
        extra.put("pgid", pgid);
        extra.put("attempt", attempt);
        Arm arm = Arm.fromLabel(job.arm());
        return new RunRecord(rid, sessionId, RunRecord.RunKind.MEASURED, commit, shortOf(commit), arm.agentName(),
                job.arm(), Math.max(0, job.round()), RunRecord.RunStatus.NOT_RUN, null, job.mode(), null,
                job.kind() == Job.Kind.CHECK ? PIPELINE_CHECK : PIPELINE, null, null, null, null, null,
                Instant.now(), null, null, null, json(job.argv()), null, "in progress", json(extra), List.of());
    }

    private RunRecord record(String rid, String sessionId, Job job, String commit, Environment env, JobResult result,
                             Failure failure, Map<String, Object> extra) {
        Arm arm = Arm.fromLabel(job.arm());
        String primaryName = io.isobench.Mode.fromLabel(job.mode()).map(MetricDictionary::primaryMetric).orElse(null);
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
        String logSha = null;
        if (result.log() != null && !result.log().isEmpty()) {
            logSha = store.putArtifact("log", Redact.secrets(result.log()).getBytes(StandardCharsets.UTF_8));
        }
        RunRecord.FailureInfo fi = failure == null ? null : new RunRecord.FailureInfo(failure.category().name(),
                Redact.secrets(failure.detail()), Redact.secrets(String.join("\n", failure.evidence())),
                failure.category().retryable());
        String model = io.isobench.bench.Clients.flagMap(job.client()).get("model");
        return new RunRecord(rid, sessionId, RunRecord.RunKind.MEASURED, commit, shortOf(commit), arm.agentName(),
                job.arm(), Math.max(0, job.round()), status, fi, job.mode(), model,
                job.kind() == Job.Kind.CHECK ? PIPELINE_CHECK : PIPELINE, null, primary == null ? null : primaryName,
                primary, primary == null ? null : "measured", result.workloadJson(),
                Instant.now().minusMillis((long) result.durationMs()), result.durationMs(), null,
                env == null ? null : env.envRef(), json(result.argv().stream().map(Redact::secrets).toList()), logSha,
                null, json(extra), result.metrics());
    }

    private void progress(int done, int total, Job job, Failure failure, RunRecord rec, long etaS, double bookMs) {
        String what = failure != null ? failure.category().name()
                : rec.primaryValue() != null ? String.format(Locale.ROOT, "%s=%.2f", rec.primaryMetric(), rec.primaryValue())
                : "ok";
        String round = job.kind() == Job.Kind.CHECK ? "check" : "round " + (job.round() + 1) + "/" + plan.rounds();
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

    private void say(String line) {
        if (options.tty()) {
            options.progress().print("\r");
        }
        options.progress().println(line);
        options.progress().flush();
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

    private static Long pgidOf(RunRecord r) {
        try {
            JsonNode n = JSON.readTree(r.extraJson()).path("pgid");
            return n.isNumber() ? n.asLong() : null;
        } catch (Exception e) {
            return null;
        }
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

    private static String cpu() {
        return Runtime.getRuntime().availableProcessors() + " cpu(s), " + System.getProperty("os.arch");
    }

    private static String machineJson(String executorName) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", host());
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("java", Runtime.version().toString());
        m.put("executor", executorName);
        return json(m);
    }
}
