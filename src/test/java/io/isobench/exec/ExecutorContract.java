package io.isobench.exec;

import io.isobench.guard.Secrets;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.proc.ProcessGroup;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The executor contract (issue 5, point 1): the same scenarios on every executor that can run on this machine —
 * success, non-zero exit, timeout, cancellation, a serving run with readiness (the toy engine's real HTTP server and
 * isobench's own load generator), log capture (full log, secrets kept off the command line and redacted when
 * stored), and a session whose orchestrator is SIGKILLed mid-job and then resumed (no duplicate runs, nothing left
 * running).
 *
 * <p>A subclass supplies the executor and its environment — keep it small:
 * <ul>
 *   <li>{@link #requireEnvironment()}: skip (locally) or fail (CI) when the executor's service is missing, via
 *       {@code SharedData.requireService};</li>
 *   <li>{@link #executor()}: the executor under test (created once per test class);</li>
 *   <li>{@link #executorName()}: the {@code --executor} name, for the scenario that runs the real CLI;</li>
 *   <li>{@link #workRoot()}: optional — where job working directories are created; they must be visible to the
 *       executor's jobs under the same path (a shared file system for a cluster executor); default: a fresh
 *       directory under {@code target/};</li>
 *   <li>{@link #leftovers(Path)}: optional — executor-side things still running for jobs under the work root
 *       (containers, cluster jobs); default none. Processes on this host whose cwd is under the work root are
 *       always checked.</li>
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ExecutorContract {

    /** A token-shaped secret that must never reach a command line or a stored log. */
    protected static final String SECRET = "hf_ContractSecretToken1234567890abcd";

    private Executor executor;
    private Path root;

    /** Skips or fails (CI) when what the executor needs is missing; called before every scenario. */
    protected abstract void requireEnvironment();

    /** The executor under test. */
    protected abstract Executor executor();

    /** The name {@code --executor} takes for this executor. */
    protected abstract String executorName();

    /** A fresh directory for this test's jobs, visible to the executor's jobs at the same path. */
    protected Path workRoot() throws IOException {
        Path base = Path.of("target", "contract").toAbsolutePath();
        Files.createDirectories(base);
        // others may enter it (755): the local executor confines every arm as uid 65534 when the tests run as root
        Path dir = Files.createTempDirectory(base, getClass().getSimpleName() + "-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /** Executor-side leftovers (containers, cluster jobs) of jobs whose cwd is under {@code workRoot}. */
    protected List<String> leftovers(Path workRoot) {
        return List.of();
    }

    /**
     * Extra environment of the real CLI the orchestrator-kill scenario starts (e.g. {@code KUBECONFIG} pointing at a
     * mock API server); default none.
     */
    protected Map<String, String> cliEnvironment() {
        return Map.of();
    }

    /**
     * How long a job's processes may take to go once {@code execute} returned (default 5 s). An executor whose
     * processes are stopped by something asynchronous (the Kubernetes garbage collector) may need longer.
     */
    protected Duration processGrace() {
        return Duration.ofSeconds(5);
    }

    /** This test's work root (a fresh directory per test). */
    protected final Path root() {
        return root;
    }

    @BeforeEach
    void setUp() throws IOException {
        requireEnvironment();
        if (executor == null) {
            executor = executor();
        }
        root = workRoot();
    }

    @AfterEach
    void nothingLeftBehind() throws Exception {
        if (root == null) {
            return;
        }
        assertThat(waitForNone(root, processGrace())).as("processes left under " + root).isEmpty();
        assertThat(leftovers(root)).as("executor leftovers under " + root).isEmpty();
        deleteTree(root);
    }

    // ---- scenarios ------------------------------------------------------------------------------------------

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void successParsesTheBenchmarkOutput() throws IOException {
        Path cwd = scripts("ok");
        JobResult r = executor.execute(offline("ok", List.of("python3", "bench.py", "0.25"), 60, Map.of()),
                Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.metrics()).anyMatch(m -> m.value() == 250.0 || m.value() == 0.25);
        assertThat(r.log()).contains("Avg latency: 0.25 seconds").contains("cwd=" + cwd);
        assertThat(r.argv()).contains("bench.py");
        assertThat(r.durationMs()).isPositive();
    }

    /**
     * {@code --parallel 2}: two jobs are handed to the executor at once (from two threads, as the session's
     * dispatcher does); both succeed and their processes ran at the same time (the time spans their scripts print
     * overlap).
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void twoJobsAtOnceRunSideBySide() throws IOException {
        scripts("span-a");
        scripts("span-b");
        List<Job> jobs = List.of(offline("span-a", List.of("python3", "span.py", "4"), 90, Map.of()),
                offline("span-b", List.of("python3", "span.py", "4"), 90, Map.of()));
        Map<String, JobResult> results = new ConcurrentHashMap<>();
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            for (Future<?> f : two.invokeAll(jobs.stream().map(j -> (java.util.concurrent
                    .Callable<JobResult>) () -> results.put(j.jobId(), executor.execute(j, Executor.Hooks.NONE)))
                    .toList())) {
                f.get();
            }
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        } finally {
            two.shutdown();
        }
        assertThat(results).hasSize(2);
        double[][] spans = new double[2][];
        int i = 0;
        for (Job j : jobs) {
            JobResult r = results.get(j.jobId());
            assertThat(r.failure()).as(r.log()).isNull();
            Matcher from = Pattern.compile("span_start=([0-9.]+)").matcher(r.log());
            Matcher to = Pattern.compile("span_end=([0-9.]+)").matcher(r.log());
            assertThat(from.find() && to.find()).as(r.log()).isTrue();
            spans[i++] = new double[] {Double.parseDouble(from.group(1)), Double.parseDouble(to.group(1))};
        }
        double overlapS = Math.min(spans[0][1], spans[1][1]) - Math.max(spans[0][0], spans[1][0]);
        assertThat(overlapS).as("seconds both jobs ran at once").isGreaterThan(1.0);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void nonZeroExitIsAClassifiedFailure() throws IOException {
        scripts("fail");
        JobResult r = executor.execute(offline("fail", List.of("python3", "fail.py"), 60, Map.of()),
                Executor.Hooks.NONE);
        assertThat(r.success()).isFalse();
        assertThat(r.failure().category()).isEqualTo(FailureCategory.UNKNOWN);
        assertThat(r.failure().detail()).contains("exited 3");
        assertThat(r.metrics()).isEmpty();
        assertThat(r.log()).contains("about to fail");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void timeoutKillsTheJob() throws IOException {
        scripts("timeout");
        long t0 = System.nanoTime();
        JobResult r = executor.execute(offline("timeout", List.of("python3", "sleep.py", "300"), 3, Map.of()),
                Executor.Hooks.NONE);
        double s = (System.nanoTime() - t0) / 1e9;
        assertThat(r.failure()).isNotNull();
        assertThat(r.failure().category()).isEqualTo(FailureCategory.TIMEOUT);
        assertThat(r.log()).contains("sleeping");
        assertThat(s).as("returned soon after the 3 s limit").isLessThan(60);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void cancellationStopsTheJob() throws IOException {
        scripts("cancel");
        long[] started = {0};
        Executor.Hooks hooks = new Executor.Hooks(pgid -> started[0] = System.nanoTime(),
                () -> started[0] != 0 && System.nanoTime() - started[0] > 2_000_000_000L);
        long t0 = System.nanoTime();
        JobResult r = executor.execute(offline("cancel", List.of("python3", "sleep.py", "300"), 600, Map.of()), hooks);
        double s = (System.nanoTime() - t0) / 1e9;
        assertThat(started[0]).as("the executor reported the job's start").isNotZero();
        assertThat(r.failure()).isNotNull();
        assertThat(s).as("cancelled long before the 600 s limit").isLessThan(60);
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void servingRunWaitsForReadinessAndMeasures() throws IOException {
        Path cwd = toyEngine("serve");
        Job job = new Job(new Job.Place(0, "contract-serve/baseline/r0", "contract-serve", 0), Arm.BASELINE,
                Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("python3", "-m", "toyllm.entrypoints.api_server", "--host", "{host}",
                "--port", "{port}", "--model", "toy-1m", "--disable-log-requests")), ClientConfig.ofArgv(List.of("--model", "toy-1m", "--dataset-name", "random", "--random-input-len", "16",
                        "--random-output-len", "16", "--num-prompts", "4", "--max-concurrency", "2", "--ignore-eos")), 1, null),
                                new Job.Where(cwd, Map.of(), 1), Job.Limits.ofSeconds(60, 120));
        JobResult r = executor.execute(job, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.metrics()).extracting(Metric::name).contains("tpot_ms_mean", "ttft_ms_mean");
        assertThat(r.timingsMs()).containsKeys("ready_ms", "client_ms", "teardown_ms");
        assertThat(r.argv()).doesNotContain("{port}");
        assertThat(r.log()).doesNotContain("still bound after teardown").doesNotContain("survived SIGKILL");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void serverThatCrashesBeforeReadinessIsClassified() throws IOException {
        scripts("crash");
        Job job = new Job(new Job.Place(0, "contract-crash/baseline/r0", "contract-crash", 0), Arm.BASELINE,
                Mode.SERVING, new JobSpec.Measure(Command.template(List.of("python3", "crash.py", "{port}")),
                ClientConfig.ofArgv(List.of("--model", "m", "--num-prompts", "1")), 0, null),
                new Job.Where(root.resolve("crash"), Map.of(), 1), Job.Limits.ofSeconds(60, 120));
        JobResult r = executor.execute(job, Executor.Hooks.NONE);
        assertThat(r.failure()).isNotNull();
        assertThat(r.failure().category()).isEqualTo(FailureCategory.SERVER_CRASHED);
        assertThat(r.log()).contains("TypeError: crash on purpose");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void logIsCapturedInFullAndSecretsStayOffTheCommandLine() throws IOException {
        scripts("log");
        JobResult r = executor.execute(offline("log", List.of("python3", "chatty.py", "20000"), 120,
                Map.of("HF_TOKEN", SECRET)), Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log().lines().limit(5).toList().toString()).isNull();
        List<String> lines = r.log().lines().filter(l -> l.startsWith("line ")).toList();
        assertThat(lines).hasSize(20000);
        assertThat(lines.get(0)).isEqualTo("line 0");
        assertThat(lines.get(19999)).isEqualTo("line 19999");
        assertThat(r.log()).contains("stderr line").contains("token=" + SECRET);
        assertThat(String.join(" ", r.argv())).doesNotContain(SECRET);
        String stored = Secrets.redact(r.log());
        assertThat(stored).doesNotContain(SECRET).contains("token=***").contains("Authorization: Bearer ***");
    }

    /**
     * The real CLI ({@code isobench run --executor NAME}) is SIGKILLed while a job runs, then {@code --resume}
     * finishes the session: every job exactly once, the runs finished before the kill untouched, and nothing of
     * the killed job still running.
     */
    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void sessionKilledMidJobResumesWithoutDuplicatesOrOrphans() throws Exception {
        Path repo = root.resolve("repo");
        Cli.buildToyRepo(repo);
        Path suite = root.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: latency",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model} {server_flags}",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --batch-size 1 --input-len 16"
                        + " --output-len 16 --num-iters 60 --num-iters-warmup 1 --seed 0",
                "    correctness: {prompts: 2, max_tokens: 8, tolerance: 0.0}",
                // the executor is under test, not the statistics: no A/A arm; unconfined, so that the local job
                // outlives the killed orchestrator as a cluster's would (a confined one dies with it:
                // SandboxTest.aConfinedCommandDiesWithItsParent) and the resume's reaping is what is tested
                "run: {rounds: 2, seed: 7, aa: false, warmup_requests: 0, confine: {arms: off},"
                        + " timeouts: {server_start_s: 60, run_s: 120, build_s: 60}}",
                ""));
        String db = root.resolve("db.duckdb").toString();
        String work = root.resolve("work").toString();
        // checks: baseline, its repeat, human; 2 rounds of baseline and human (the kill comes in the 4th job, the first
        // round's: jobs before it are kept, the one in flight is reaped or adopted, the ones after it run on resume)
        int jobs = 3 + 2 * 2;

        ProcessBuilder firstPb = Cli.builder("run", suite.toString(), "--db", db, "--session", "contract-kill",
                "--workdir", work, "--executor", executorName()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        firstPb.environment().putAll(cliEnvironment());
        Process first = firstPb.start();
        Pattern progress = Pattern.compile("^job (\\d+)/(\\d+) ");
        int finished = 0;
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(first.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                Matcher m = progress.matcher(line);
                if (m.find()) {
                    assertThat(Integer.parseInt(m.group(2))).isEqualTo(jobs);
                    if (++finished == 3) {
                        break;
                    }
                }
            }
        }
        assertThat(finished).as("progress of the first attempt: " + lines).isEqualTo(3);
        // kill while the 4th job is in flight (each runs ~5 s; its placeholder row records what it started)
        Path envs = Path.of(work, "envs");
        long until = System.nanoTime() + 30_000_000_000L;
        while (processesUnder(envs).isEmpty() && leftovers(envs).isEmpty() && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        Thread.sleep(500);
        first.destroyForcibly(); // SIGKILL: no shutdown hook runs
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).as("killed by SIGKILL: " + lines).isEqualTo(137);

        List<String> inFlight = new ArrayList<>(processesUnder(envs));
        inFlight.addAll(leftovers(envs));
        assertThat(inFlight).as("the killed orchestrator left its job running").isNotEmpty();

        Map<String, RunRecord> before = runs(db);
        long done = before.values().stream().filter(r -> r.status() != RunRecord.RunStatus.NOT_RUN).count();
        assertThat(done).isBetween(3L, 4L);

        ProcessBuilder secondPb = Cli.builder("run", suite.toString(), "--db", db, "--session", "contract-kill",
                "--resume", "--workdir", work, "--executor", executorName()).redirectErrorStream(true);
        secondPb.environment().putAll(cliEnvironment());
        Process second = secondPb.start();
        String out = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(second.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(second.exitValue()).as(out).isZero();
        assertThat(out).contains("resuming session contract-kill: " + done + " run(s) already finished");

        Map<String, RunRecord> after = runs(db);
        assertThat(after).hasSize(jobs);
        assertThat(after.values()).allMatch(r -> r.status() == RunRecord.RunStatus.SUCCESS, out);
        for (RunRecord r : after.values()) {
            RunRecord b = before.get(r.runId());
            if (b != null && b.status() != RunRecord.RunStatus.NOT_RUN) {
                assertThat(r.startedAt()).as("finished before the kill: " + r.runId()).isEqualTo(b.startedAt());
                assertThat(r.primaryValue()).isEqualTo(b.primaryValue());
            }
        }
        try (Store store = Stores.open(db)) {
            assertThat(store.session("contract-kill").orElseThrow().machineJson())
                    .contains("\"executor\":\"" + executorName() + "\"");
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    /** An offline job running {@code argv} in {@code root/name}. */
    protected Job offline(String name, List<String> argv, int timeoutS, Map<String, String> env) {
        return new Job(new Job.Place(0, "contract-" + name + "/baseline/r0", "contract-" + name, 0), Arm.BASELINE,
                Mode.LATENCY, new JobSpec.Measure(Command.template(argv), ClientConfig.NONE, 0, null),
                new Job.Where(root.resolve(name), env, 1), Job.Limits.ofSeconds(60, timeoutS));
    }

    /** {@code root/name} with the scenario scripts. */
    protected Path scripts(String name) throws IOException {
        Path d = Files.createDirectories(root.resolve(name));
        Files.writeString(d.resolve("bench.py"), String.join("\n",
                "import os, sys",
                "print('cwd=' + os.getcwd())",
                "print('Avg latency: ' + sys.argv[1] + ' seconds')",
                ""));
        Files.writeString(d.resolve("fail.py"), String.join("\n",
                "import sys",
                "print('about to fail', flush=True)",
                "sys.exit(3)",
                ""));
        Files.writeString(d.resolve("sleep.py"), String.join("\n",
                "import sys, time",
                "print('sleeping', flush=True)",
                "time.sleep(float(sys.argv[1]))",
                ""));
        Files.writeString(d.resolve("span.py"), String.join("\n",
                "import sys, time",
                "print('span_start=%.3f' % time.time(), flush=True)",
                "time.sleep(float(sys.argv[1]))",
                "print('span_end=%.3f' % time.time())",
                "print('Avg latency: ' + sys.argv[1] + ' seconds')",
                ""));
        Files.writeString(d.resolve("crash.py"), String.join("\n",
                "import time",
                "print('starting', flush=True)",
                "time.sleep(0.5)",
                "raise TypeError('crash on purpose')",
                ""));
        Files.writeString(d.resolve("chatty.py"), String.join("\n",
                "import os, sys",
                "n = int(sys.argv[1])",
                "print('token=' + os.environ.get('HF_TOKEN', 'unset'))",
                "print('Authorization: Bearer abcdef123456')",
                "sys.stderr.write('stderr line\\n'); sys.stderr.flush()",
                "for i in range(n):",
                "    print('line %d' % i)",
                "print('Avg latency: 0.5 seconds')",
                ""));
        return d;
    }

    /** A copy of the toy engine's sources (server and benchmarks) in {@code root/name}. */
    protected Path toyEngine(String name) throws IOException {
        return copyToyEngine(root, name);
    }

    /** A copy of the toy engine's sources (server and benchmarks) in {@code root/name}. */
    static Path copyToyEngine(Path root, String name) throws IOException {
        Path src = Path.of("examples/toy-engine/src").toAbsolutePath();
        Path dest = root.resolve(name);
        try (Stream<Path> s = Files.walk(src)) {
            for (Path p : s.filter(p -> !p.toString().contains("__pycache__")).toList()) {
                Path t = dest.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return dest;
    }

    private static Map<String, RunRecord> runs(String db) {
        Map<String, RunRecord> out = new HashMap<>();
        try (Store store = Stores.open(db)) {
            store.forEachRun(new RunFilter(null, null, "contract-kill", false), r -> out.put(r.runId(), r));
        }
        return out;
    }

    /** Host processes whose working directory is under {@code dir}, after waiting a few seconds for them to go. */
    private static List<String> waitForNone(Path dir, Duration grace) throws InterruptedException {
        List<String> left = processesUnder(dir);
        for (long i = 0; i < grace.toMillis() / 100 && !left.isEmpty(); i++) {
            Thread.sleep(100);
            left = processesUnder(dir);
        }
        return left;
    }

    static List<String> processesUnder(Path dir) {
        List<String> out = new ArrayList<>();
        String prefix = dir.toAbsolutePath().normalize().toString();
        AtomicLong self = new AtomicLong(ProcessHandle.current().pid());
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path p : ds) {
                if (Long.parseLong(p.getFileName().toString()) == self.get() || !ProcessGroup.alive(
                        Long.parseLong(p.getFileName().toString()))) {
                    continue;
                }
                try {
                    String cwd = Files.readSymbolicLink(p.resolve("cwd")).toString();
                    if (cwd.equals(prefix) || cwd.startsWith(prefix + "/")) {
                        String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ').strip();
                        out.add(p.getFileName() + " " + cmd + " (cwd " + cwd + ")");
                    }
                } catch (IOException | RuntimeException e) {
                    // gone, or not ours to read
                }
            }
        } catch (IOException e) {
            // no /proc: nothing to check
        }
        return out;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a file written by a container as another user: leave it under target/
                }
            }
        }
    }
}
