package io.isobench.exec;

import io.isobench.exec.ExecutorKind.Capability;
import io.isobench.Arm;
import io.isobench.env.ArmSetup;
import io.isobench.env.Environment;
import io.isobench.env.Worktrees;
import io.isobench.engine.EngineAdapter;
import io.isobench.engine.Engines;
import io.isobench.parse.Workload;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.GpuLease;
import io.isobench.plan.GpuSlots;
import io.isobench.plan.HostGpuLocks;
import io.isobench.probe.Clients;
import io.isobench.probe.ServingClient;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.Metric;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.proc.ProcessGroup;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Runs jobs on this machine. Offline modes: the benchmark command in its own process group, its output parsed.
 * Serving: the server in its own process group, the readiness probe (crash detection while waiting), the pinned
 * client in-process, then the whole group torn down and the port verified free. Every path tears the group down.
 */
final class LocalExecutor implements Executor {

    /** Local: process groups on this machine, measured arms confined by the suite's {@code run.confine}. */
    static final ExecutorKind KIND = new ExecutorKind("local", EnumSet.of(Capability.RUNS_ON_THIS_HOST,
            Capability.NEEDS_LOCAL_CLONE, Capability.RUNS_GENERIC_OFFLINE, Capability.INSTALLS_ARTIFACTS,
            Capability.RUNS_ACCURACY, Capability.CONFINES_ARMS), Executors::local);

    static final String HOST = "127.0.0.1";

    private final ExecutorKind kind;
    /** The one serve-and-measure path (readiness probe, pinned client or probes, classification). */
    private final ServePipeline pipeline;
    private final Duration grace;
    /** The node's GPUs, or null on a machine without any (CPU engines such as the toy run unleased). */
    private final GpuSlots gpus;
    /** Where a command starts and how it is torn down: a process group here, a container, a command on an ssh host. */
    private final Placement placement;
    /**
     * The tracked state of each arm prepared here (after its patch, recipes and build): every job of the arm checks
     * it before and after it runs, so a run that rewrote the arm's own code or benchmark (a server at import time, a
     * benchmark script) fails as {@code TREE_CHANGED} instead of measuring something else (docs/security.md).
     */
    private final Map<Path, String> prepared = new ConcurrentHashMap<>();

    LocalExecutor(Readiness.HttpProbe readiness, ServingClient client, Duration grace) {
        this(readiness, client, grace, null);
    }

    LocalExecutor(Readiness.HttpProbe readiness, ServingClient client, Duration grace,
                  GpuSlots gpus) {
        this(readiness, client, grace, gpus, Placement.LOCAL);
    }

    LocalExecutor(Readiness.HttpProbe readiness, ServingClient client, Duration grace,
                  GpuSlots gpus, Placement placement) {
        this(KIND, new ServePipeline(readiness, client), grace, gpus, placement);
    }

    /**
     * @param kind      the kind it runs as (local; docker and ssh run their jobs through this class too)
     * @param gpus      the node's GPUs, leased to jobs; null: none (jobs run unleased)
     * @param placement where the commands start
     */
    LocalExecutor(ExecutorKind kind, ServePipeline pipeline, Duration grace, GpuSlots gpus,
                  Placement placement) {
        this.kind = kind;
        this.pipeline = pipeline;
        this.grace = grace;
        this.gpus = gpus;
        this.placement = placement;
    }

    @Override
    public ExecutorKind kind() {
        return kind;
    }

    @Override
    public int gpuCapacity() {
        return capacity(gpus);
    }

    /** The arm's environment as every executor makes it, its build step inside the placement's walls. */
    @Override
    public Environment prepare(ArmSpec arm, Path repo, ArmSetup setup) {
        ArmSetup walled = placement instanceof ConfinedLauncher c
                ? setup.withWalls(c.buildWalls(arm.arm().kind() == Arm.Kind.AGENT)) : setup;
        Environment e = Executor.super.prepare(arm, repo, walled);
        if (e.ready() && e.path() != null && Files.exists(e.path().resolve(".git"))) {
            Worktrees.trackedState(e.path()).ifPresent(h -> prepared.put(key(e.path()), h));
        }
        return e;
    }

    private static Path key(Path worktree) {
        return worktree.toAbsolutePath().normalize();
    }

    /** Null when the job's arm is as prepared (or was not prepared here), else the failure. */
    private Failure treeChanged(Job job, String when) {
        if (job.cwd() == null) {
            return null;
        }
        String want = prepared.get(key(job.cwd()));
        if (want == null) {
            return null;
        }
        String now = Worktrees.trackedState(job.cwd()).orElse("unknown");
        if (want.equals(now)) {
            return null;
        }
        String detail = "the arm's tracked files changed " + when + " (" + job.cwd()
                + "): one of its runs rewrote its own code or benchmark; `git -C WORKTREE diff HEAD` shows what";
        return new Failure(FailureCategory.TREE_CHANGED, detail, List.of(detail));
    }

    /** What the placement left running for {@code job} beyond its process group (an ssh host's). */
    @Override
    public void reap(Job job) {
        placement.reap(job);
    }

    /** The GPUs of a node's slots (local, docker); 0 on a machine without any ({@code gpus} null). */
    static int capacity(GpuSlots gpus) {
        return gpus == null ? 0 : gpus.total();
    }

    @Override
    public JobResult execute(Job job, Hooks hooks) {
        long t0 = System.nanoTime();
        Map<String, Double> timings = new LinkedHashMap<>();
        Path log;
        try {
            log = logFile(job.cwd(), "job-");
        } catch (IOException e) {
            return JobResult.failed(t0, new Failure(FailureCategory.DISK_FULL,
                    "cannot create a log file: " + e.getMessage(), List.of()), "", timings, job.argv());
        }
        try {
            if (job.cwd() == null || !Files.isDirectory(job.cwd())) {
                return JobResult.failed(t0, new Failure(FailureCategory.ENV_MISSING, "environment " + job.cwd()
                        + " does not exist", List.of()), "", timings, job.argv());
            }
            Failure before = treeChanged(job, "before this run");
            if (before != null) {
                return JobResult.failed(t0, before, "", timings, job.argv());
            }
            JobResult r = gpus == null ? dispatch(job, hooks, log, t0, timings) : leased(job, hooks, log, t0, timings);
            Failure after = treeChanged(job, "during this run");
            return after == null ? r : JobResult.failed(t0, after, r.log(), timings, job.argv());
        } finally {
            try {
                Files.deleteIfExists(log);
            } catch (IOException e) {
                // temp file
            }
        }
    }

    /** The job with its GPUs leased for its duration. */
    private JobResult leased(Job job, Hooks hooks, Path log, long t0, Map<String, Double> timings) {
        if (job.gpus() > gpus.total()) {
            return JobResult.failed(t0, new Failure(FailureCategory.RESOURCES_INSUFFICIENT, "the job needs "
                    + job.gpus()
                    + " GPU(s); this node has " + gpus.total(), List.of()), "", timings, job.argv());
        }
        GpuLease lease;
        try {
            lease = gpus.acquire(job.gpus());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return JobResult.failed(t0, new Failure(FailureCategory.INFRA_TRANSIENT, "interrupted waiting for GPUs",
                    List.of()), "", timings, job.argv());
        }
        HostGpuLocks.Held host = null;
        try {
            if (gpus.hostLocks() != null && lease.count() > 0) { // no other isobench process on this host holds them
                try {
                    host = gpus.hostLocks().acquire(lease.ids(), gpus.hostLocks().maxWait(),
                            "isobench run " + job.jobId());
                } catch (HostGpuLocks.Busy | IllegalStateException e) { // held elsewhere; an unwritable lock folder
                    return JobResult.failed(t0, new Failure(FailureCategory.INFRA_TRANSIENT, e.getMessage(),
                            List.of()), "", timings, job.argv());
                }
            }
            Map<String, String> env = new LinkedHashMap<>(job.env());
            env.put("CUDA_VISIBLE_DEVICES", lease.cudaVisibleDevices());
            Job leased = job.withEnv(env);
            return dispatch(leased, hooks, log, t0, timings).withGpus(lease.cudaVisibleDevices());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return JobResult.failed(t0, new Failure(FailureCategory.INFRA_TRANSIENT, "interrupted waiting for the"
                    + " host-wide GPU lock", List.of()), "", timings, job.argv());
        } finally {
            if (host != null) {
                host.close();
            }
            gpus.release(lease);
        }
    }

    /** Offline probe command, generic offline command, server (serving runs and server checks), or vLLM offline. */
    private JobResult dispatch(Job job, Hooks hooks, Path log, long t0, Map<String, Double> timings) {
        if (job.kind() == Job.Kind.ACCURACY) {
            return accuracy(job, hooks, log, t0, timings);
        }
        if (offlineProbe(job)) {
            return OfflineProbe.run(job, hooks, log, t0, timings, new Launch(placement, grace));
        }
        if (job.generic()) {
            return GenericRun.run(job, hooks, log, t0, timings, new Launch(placement, grace));
        }
        return job.serving() || job.kind() == Job.Kind.CHECK ? server(job, hooks, log, t0, timings)
                : offline(job, hooks, log, t0, timings);
    }

    /** An accuracy job: the task's accuracy command runs to its end; the session reads the score from its output. */
    private JobResult accuracy(Job job, Hooks hooks, Path log, long t0, Map<String, Double> timings) {
        Ran ran = runToEnd(job, hooks, log, timings, e -> Accuracy.cannotStart(job.argv(), e));
        Failure f = ran.notStarted() != null ? ran.notStarted()
                : Accuracy.exitFailure(ran.exit(), ran.text(), job.limits().runS());
        return f == null ? JobResult.ended(t0, null, List.of(), null, ran.text(), timings, job.argv())
                : JobResult.failed(t0, f, ran.text(), timings, job.argv());
    }

    /**
     * How a command ended: its exit code (null when killed at its limit or cancelled) and its output, or why it did
     * not start.
     */
    private record Ran(Integer exit, String text, Failure notStarted) {
    }

    /** Runs the job's command through the placement to its end or its limit, then tears it down. */
    private Ran runToEnd(Job job, Hooks hooks, Path log, Map<String, Double> timings,
                         Function<IOException, Failure> cannotStart) {
        ProcessGroup pg;
        try {
            pg = placement.start(job, job.argv(), log);
        } catch (IOException e) {
            return new Ran(null, "", cannotStart.apply(e));
        }
        hooks.processGroupStarted().accept(pg.pgid());
        Integer exit;
        try {
            exit = waitCancellable(pg, job.limits().run(), hooks);
        } finally {
            long td = System.nanoTime();
            placement.stop(job, pg, grace);
            timings.put("teardown_ms", (System.nanoTime() - td) / 1e6);
        }
        return new Ran(exit, ProcessGroup.readLog(log), null);
    }

    private JobResult offline(Job job, Hooks hooks, Path log, long t0, Map<String, Double> timings) {
        List<String> argv = job.argv();
        Ran ran = runToEnd(job, hooks, log, timings, e -> new Failure(FailureCategory.BAD_PERF_COMMAND,
                "cannot start " + argv.get(0) + ": " + e.getMessage(), List.of(String.valueOf(e.getMessage()))));
        if (ran.notStarted() != null) {
            return JobResult.failed(t0, ran.notStarted(), "", timings, argv);
        }
        Integer exit = ran.exit();
        String text = ran.text();
        if (exit == null) {
            return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "the benchmark ran past "
                    + job.limits().runS()
                    + " s and was killed", List.of("timeout " + job.limits().runS() + " s")), text,
                    timings, argv);
        }
        EngineAdapter engine = Engines.forCommand(argv); // the job's engine: its command's (docs/engines.md)
        ParsedOutput parsed = engine.readConsole(text, OutputParser.Truncation.NONE);
        if (exit == 0 && parsed.hasMetrics()) {
            String workload = workloadJson(argv, parsed.workload());
            return JobResult.ended(t0, null, parsed.metrics(), workload, text, timings, argv);
        }
        Failure f = FailureClassifier.classify(text, engine.failureSignatures()).orElse(null);
        if (exit == 127 || ProcessGroup.couldNotExecute(text)) {
            f = new Failure(FailureCategory.BAD_PERF_COMMAND, "cannot run " + argv.get(0) + ": not found or not "
                    + "executable in " + job.cwd(), tail(text));
        }
        if (f == null || f.category() == FailureCategory.UNKNOWN) {
            f = exit == 0 ? new Failure(FailureCategory.NO_METRICS, "exited 0 without a metric block", List.of())
                    : new Failure(FailureCategory.UNKNOWN, "exited " + exit + " without metrics", tail(text));
        }
        return JobResult.failed(t0, f, text, timings, argv);
    }

    /** A serving run or server check: its server placed here (a free port of this machine), then the one pipeline. */
    private JobResult server(Job job, Hooks hooks, Path log, long t0, Map<String, Double> timings) {
        return pipeline.serve(job, hooks, t0, timings, () -> {
            int port;
            try {
                port = freePort();
            } catch (IOException e) {
                throw new ServePipeline.NotStarted(JobResult.failed(t0, new Failure(FailureCategory.PORT_CONFLICT,
                        "no free port: " + e.getMessage(), List.of()), "", timings, job.argv()));
            }
            List<String> argv = job.argvFor(port);
            ProcessGroup pg;
            try {
                pg = placement.startServer(job, argv, log, port);
            } catch (IOException e) {
                throw new ServePipeline.NotStarted(JobResult.failed(t0, new Failure(FailureCategory.ENV_MISSING,
                        "cannot start the server " + argv.get(0) + ": " + e.getMessage(),
                        List.of(String.valueOf(e.getMessage()))), "", timings, argv));
            }
            hooks.processGroupStarted().accept(pg.pgid());
            return new PlacedServer(job, argv, pg, log, port);
        });
    }

    /** A server in a process group the placement started, reached at 127.0.0.1:{@code port}. */
    private final class PlacedServer implements ServePipeline.Server {
        private final Job job;
        private final List<String> argv;
        private final ProcessGroup pg;
        private final Path log;
        private final int port;

        PlacedServer(Job job, List<String> argv, ProcessGroup pg, Path log, int port) {
            this.job = job;
            this.argv = argv;
            this.pg = pg;
            this.log = log;
            this.port = port;
        }

        @Override
        public URI endpoint() {
            return URI.create("http://" + HOST + ":" + port);
        }

        @Override
        public Failure crashedBeforeReady() {
            Integer exit = pg.exitCode();
            if (exit == null) {
                return null;
            }
            String text = ProcessGroup.readLog(log);
            if (exit == 127 || ProcessGroup.couldNotExecute(text)) {
                return new Failure(FailureCategory.ENV_MISSING, "the server command " + argv.get(0)
                        + " does not exist or is not executable", tail(text));
            }
            return serverFailure(text, argv, FailureCategory.SERVER_CRASHED, "the server exited with code " + exit
                    + " before it was ready");
        }

        @Override
        public boolean alive() {
            return pg.leaderAlive();
        }

        @Override
        public String log() {
            return ProcessGroup.readLog(log);
        }

        @Override
        public List<String> argv() {
            return argv;
        }

        @Override
        public void stop(Map<String, Double> timings, StringBuilder notes) {
            long td = System.nanoTime();
            boolean gone = placement.stop(job, pg, grace);
            boolean portFree = awaitPortFree(port, Duration.ofSeconds(2));
            timings.put("teardown_ms", (System.nanoTime() - td) / 1e6);
            if (!gone) {
                notes.append("isobench: process group ").append(pg.pgid()).append(" survived SIGKILL\n");
            }
            if (!portFree) {
                notes.append("isobench: port ").append(port).append(" still bound after teardown\n");
            }
        }
    }

    /**
     * The classifier's root cause when it finds one (PORT_CONFLICT, GPU_OOM…), with the failure lines of the engine the
     * server command picks (docs/engines.md, "At run time"), else the given category.
     */
    static Failure serverFailure(String log, List<String> serverArgv, FailureCategory fallback, String detail) {
        Optional<Failure> f = FailureClassifier.classify(log, Engines.forCommand(serverArgv).failureSignatures());
        if (f.isPresent() && f.get().category().precedence() == 1
                && f.get().category() != FailureCategory.DEPENDENCY_CONFLICT) {
            return f.get();
        }
        return new Failure(fallback, detail, tail(log));
    }

    /** Evidence: the last error line (…Error: / …Exception) first, then the log's last lines. */
    static List<String> tail(String text) {
        List<String> lines = text.strip().lines().filter(l -> !l.isBlank()).toList();
        List<String> out = new ArrayList<>();
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).matches("^\\S*(Error|Exception)\\b.*")) {
                out.add(lines.get(i).strip());
                break;
            }
        }
        for (String l : lines.subList(Math.max(0, lines.size() - 3), lines.size())) {
            if (!out.contains(l.strip())) {
                out.add(l);
            }
        }
        return out;
    }

    static Integer waitCancellable(ProcessGroup pg, Duration limit, Hooks hooks) {
        long end = System.nanoTime() + limit.toNanos();
        try {
            while (true) {
                Integer exit = pg.waitFor(Duration.ofMillis(100));
                if (exit != null) {
                    return exit;
                }
                if (System.nanoTime() > end || hooks.cancelled().getAsBoolean()) {
                    return null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    static String workloadJson(List<String> argv, Workload w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("argv", argv);
        if (w != null) {
            m.put("requests", w.completedRequests());
            m.put("input_tokens", w.totalInputTokens());
            m.put("output_tokens", w.totalOutputTokens());
        }
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(m);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
            return s.getLocalPort();
        }
    }

    /** A CHECK job that runs the task's offline probe command instead of the server. */
    static boolean offlineProbe(Job job) {
        return job.probes() != null && job.probes().offline();
    }

    static boolean awaitPortFree(int port, Duration limit) {
        long end = System.nanoTime() + limit.toNanos();
        while (true) {
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
                return true;
            } catch (IOException e) {
                if (System.nanoTime() > end) {
                    return false;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    /**
     * A new log file for a command run in {@code cwd}: in the arm's scratch folder beside its worktree (the work
     * folder: cleared when the arm is prepared again), or the system's temporary folder for a folder that is not a
     * git checkout (tests, tools). Deleted by the caller when the command is done.
     */
    static Path logFile(Path cwd, String prefix) throws IOException {
        if (cwd != null && Files.exists(cwd.resolve(".git"))) {
            Path scratch = Files.createDirectories(Worktrees.scratch(cwd));
            return Files.createTempFile(scratch, prefix, ".log");
        }
        return Files.createTempFile("isobench-" + prefix, ".log");
    }
}
