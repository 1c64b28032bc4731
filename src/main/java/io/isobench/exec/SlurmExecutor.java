package io.isobench.exec;

import io.isobench.exec.ExecutorKind.Capability;
import io.isobench.IsobenchException;
import io.isobench.probe.Clients;
import io.isobench.probe.ServingClient;
import io.isobench.engine.EngineAdapter;
import io.isobench.engine.Engines;
import io.isobench.guard.Secrets;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import io.isobench.plan.Job;
import io.isobench.plan.Command;
import io.isobench.plan.JobSpec;
import io.isobench.proc.ProcessGroup;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import static io.isobench.exec.SlurmFailures.clusterFailure;
import static io.isobench.exec.SlurmFailures.crash;
import static io.isobench.exec.SlurmFailures.submitFailure;
import static io.isobench.exec.SlurmWatch.awaitEnd;
import static io.isobench.exec.SlurmWatch.awaitExitFile;
import static io.isobench.exec.SlurmWatch.markCancelled;
import static io.isobench.exec.SlurmWatch.sleep;

/**
 * Runs each job as one Slurm batch job (docs/slurm-executor.md).
 *
 * <p>The job script is generated from the job ({@link #script}) and is part of the plan ({@code --dry-run}). Offline
 * modes: the script runs the benchmark argv; its output is the job's log ({@code --output}) in the shared directory
 * and its exit code goes to a file beside it; the orchestrator parses the log exactly like the local executor.
 * Serving and correctness checks: the script picks a free port, starts the server and writes {@code host port} to
 * an endpoint file; the orchestrator probes readiness there (crash detection: the script writes the server's exit
 * code when it dies), runs the same pinned client in-process as the local executor, then {@code scancel}s the job.
 *
 * <p>Job names are {@code isb-<session>-<job id>}: a resumed orchestrator finds the jobs the killed one submitted
 * (squeue by name, and the ids recorded in the shared directory) and adopts the newest one it has not consumed yet
 * — waiting for it, ingesting its finished output, or measuring its running server — instead of submitting again.
 */
final class SlurmExecutor implements Executor {

    /** Slurm: each job a batch job of the cluster; {@code --dry-run} shows the scripts. */
    static final ExecutorKind KIND = new ExecutorKind("slurm", EnumSet.of(Capability.INSTALLS_ARTIFACTS,
            Capability.RUNS_ACCURACY), suite -> connect(SlurmConfig.fromEnv(System.getenv())), SlurmDryRun::render);

    static final String NAME_PREFIX = "isb-";
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Duration POLL = Duration.ofMillis(100);
    /**
     * What {@link Hooks#processGroupStarted()} gets when a Slurm job starts: the job has no process group on the
     * orchestrator's host, so the session's placeholder row records none to reap (ProcessGroup never matches a
     * negative id); a resumed session adopts the job by name instead.
     */
    static final long NO_GROUP = -1;

    private final SlurmConfig config;
    private final SlurmCli cli;
    private final SlurmCli.Capacity capacity;
    /** The one serve-and-measure path (readiness probe, pinned client or probes, classification). */
    private final ServePipeline pipeline;
    private final Set<String> consumed = ConcurrentHashMap.newKeySet();
    private volatile String sessionId;
    private final Set<SlurmWatch> inFlight = ConcurrentHashMap.newKeySet();

    SlurmExecutor(SlurmConfig config, SlurmCli cli, SlurmCli.Capacity capacity, ServingClient client) {
        this.config = config;
        this.cli = cli;
        this.capacity = capacity;
        this.pipeline = new ServePipeline(Readiness.http(Duration.ofMillis(10)), client);
        this.sessionId = "adhoc-" + ProcessHandle.current().pid() + "-"
                + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);
    }

    /**
     * Checks that the Slurm client commands exist and the controller answers.
     *
     * @throws IsobenchException.EnvironmentMissing naming what is missing and how to get it
     */
    static SlurmExecutor connect(SlurmConfig config) {
        requireTools(System.getenv().getOrDefault("PATH", ""));
        SlurmCli cli = new SlurmCli();
        Optional<String> down = cli.unreachable();
        if (down.isPresent()) {
            throw new IsobenchException.EnvironmentMissing("executor slurm: the Slurm controller does not answer ("
                    + down.get() + "); start it (scripts/provision-slurm on this machine) or set SLURM_CONF");
        }
        SlurmExecutor ex = new SlurmExecutor(config, cli, cli.capacity(), Clients.serving());
        Runtime.getRuntime().addShutdownHook(new Thread(ex::cancelInFlight, "isobench-slurm-scancel"));
        return ex;
    }

    /** The Slurm client commands on {@code path}, or the one-line EnvironmentMissing naming the first missing one. */
    static void requireTools(String path) {
        for (String tool : List.of("sbatch", "squeue", "scancel", "scontrol", "sinfo")) {
            if (!SlurmCli.onPath(tool, path)) {
                throw new IsobenchException.EnvironmentMissing("executor slurm: " + tool + " is not on PATH; install"
                        + " the Slurm client (apt-get install slurm-client) or start a local cluster with"
                        + " scripts/provision (scripts/provision-slurm)");
            }
        }
    }

    @Override
    public ExecutorKind kind() {
        return KIND;
    }

    @Override
    public void beginSession(String sessionId) {
        this.sessionId = sessionId;
    }

    // ---------------------------------------------------------------- naming, paths, script

    /** {@code isb-<session>-<job id>} with every character outside {@code [A-Za-z0-9._-]} as {@code _}. */
    static String jobName(String sessionId, String jobId) {
        return NAME_PREFIX + safe(sessionId) + "-" + safe(jobId);
    }

    static String safe(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /** The shared directory of one job: {@code <root>/<session>/<job id>}. */
    static Path jobDir(SlurmConfig config, String sessionId, Job job) {
        return sharedRoot(config, job).resolve(safe(sessionId)).resolve(safe(job.jobId()));
    }

    /** ISOBENCH_SLURM_DIR, else {@code <workdir>/slurm} (the workdir holds {@code envs/<task>/<arm>}). */
    static Path sharedRoot(SlurmConfig config, Job job) {
        if (config.sharedDir() != null) {
            return config.sharedDir();
        }
        Path cwd = job.cwd().toAbsolutePath().normalize();
        for (Path p = cwd; p != null; p = p.getParent()) {
            if (p.getFileName() != null && p.getFileName().toString().equals("envs") && p.getParent() != null) {
                return p.getParent().resolve("slurm");
            }
        }
        return (cwd.getParent() == null ? cwd : cwd.getParent()).resolve("isobench-slurm");
    }

    static boolean serverJob(Job job) {
        return (job.serving() || job.kind() == Job.Kind.CHECK) && !LocalExecutor.offlineProbe(job);
    }

    /** Minutes of {@code --time}: the job's limits plus two minutes for start and teardown. */
    static int timeLimitMin(Job job) {
        long s = (long) job.limits().runS() + (serverJob(job) ? job.limits().serverStartS() : 0) + 120;
        return (int) Math.max(1, (s + 59) / 60);
    }

    /**
     * The batch script of a job (what {@code --dry-run} shows). {@code capacity} (the largest node) caps the CPU and
     * memory requests; null leaves them as configured.
     */
    static String script(Job job, String sessionId, Path dir, SlurmConfig config, SlurmCli.Capacity capacity) {
        int gpus = config.gpusFor(job.gpus());
        int cpus = config.cpusFor(job.gpus());
        long mem = config.memMbFor(job.gpus());
        if (capacity != null) {
            cpus = capacity.cpus() > 0 ? Math.min(cpus, capacity.cpus()) : cpus;
            mem = capacity.memMb() > 0 ? Math.min(mem, capacity.memMb()) : mem;
        }
        StringBuilder sb = new StringBuilder();
        sb.append("#!/bin/bash\n");
        sb.append("# isobench ").append(job.kind().name().toLowerCase(Locale.ROOT)).append(" job ")
                .append(job.jobId()).append(" (run ").append(sessionId).append('/').append(job.jobId())
                .append("), mode ").append(job.mode()).append("; generated, do not edit\n");
        sb.append("#SBATCH --job-name=").append(jobName(sessionId, job.jobId())).append('\n');
        sb.append("#SBATCH --output=").append(dir).append("/slurm-%j.log\n");
        sb.append("#SBATCH --chdir=").append(job.cwd()).append('\n');
        sb.append("#SBATCH --nodes=1\n");
        sb.append("#SBATCH --ntasks=1\n");
        sb.append("#SBATCH --cpus-per-task=").append(cpus).append('\n');
        sb.append("#SBATCH --mem=").append(mem).append("M\n");
        if (gpus > 0) {
            sb.append("#SBATCH --gpus=").append(gpus).append('\n');
        }
        sb.append("#SBATCH --time=").append(timeLimitMin(job)).append('\n');
        if (config.partition() != null) {
            sb.append("#SBATCH --partition=").append(config.partition()).append('\n');
        }
        if (config.account() != null) {
            sb.append("#SBATCH --account=").append(config.account()).append('\n');
        }
        for (String e : config.extra()) {
            sb.append("#SBATCH ").append(e).append('\n');
        }
        sb.append("set -u\n");
        sb.append("dir=").append(q(dir.toString())).append('\n');
        sb.append("exit_file=\"$dir/exit-$SLURM_JOB_ID\"\n");
        sb.append("cd ").append(q(job.cwd().toString())).append(" || { echo \"isobench: the environment ")
                .append(job.cwd().toString().replace("\"", "'")).append(" is not visible on $(hostname)\";"
                        + " echo 200 > \"$exit_file\"; exit 200; }\n");
        for (Map.Entry<String, String> e : new TreeMap<>(job.env()).entrySet()) {
            if (ENV_NAME.matcher(e.getKey()).matches() && !secret(e.getKey(), e.getValue())) {
                sb.append("export ").append(e.getKey()).append('=').append(q(e.getValue())).append('\n');
            }
        }
        Map<String, String> secrets = secretEnv(job);
        if (!secrets.isEmpty()) {
            // values never enter the script (or a command line): a 0600 file beside it, written at submission
            sb.append("set -a; . \"$dir/secrets.env\"; set +a  # ").append(String.join(" ", secrets.keySet()))
                    .append('\n');
        }
        if (serverJob(job)) {
            String bind = config.serverBind();
            sb.append("port=$(( 20000 + SLURM_JOB_ID % 20000 ))\n");
            sb.append("while (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do port=$(( port + 1 )); done\n");
            sb.append(job.spec().command().line(SlurmExecutor::q, bind, "\"$port\"")).append(" &\n");
            sb.append("server=$!\n");
            sb.append("printf '%s %s\\n' \"$(hostname)\" \"$port\" > \"$dir/endpoint-$SLURM_JOB_ID.tmp\"\n");
            sb.append("mv \"$dir/endpoint-$SLURM_JOB_ID.tmp\" \"$dir/endpoint-$SLURM_JOB_ID\"\n");
            sb.append("wait \"$server\"\n");
        } else {
            sb.append(job.spec().command().line(SlurmExecutor::q)).append('\n');
        }
        sb.append("code=$?\n");
        sb.append("echo \"$code\" > \"$exit_file.tmp\" && mv \"$exit_file.tmp\" \"$exit_file\"\n");
        sb.append("exit \"$code\"\n");
        return sb.toString();
    }

    /** A variable whose value must stay out of the script: a secret-like name, or a value Redact would hide. */
    static boolean secret(String name, String value) {
        return Secrets.isSecretName(name) || Secrets.contains(value);
    }

    /** The job's secret variables (sorted), written to {@code secrets.env} at submission. */
    static Map<String, String> secretEnv(Job job) {
        Map<String, String> out = new TreeMap<>();
        job.env().forEach((k, v) -> {
            if (ENV_NAME.matcher(k).matches() && secret(k, v)) {
                out.put(k, v);
            }
        });
        return out;
    }

    static String q(String s) {
        if (s.matches("[A-Za-z0-9_./:=,+@%-]+")) {
            return s;
        }
        return "'" + s.replace("'", "'\"'\"'") + "'";
    }

    // ---------------------------------------------------------------- execution

    @Override
    public JobResult execute(Job job, Hooks hooks) {
        long t0 = System.nanoTime();
        Map<String, Double> timings = new LinkedHashMap<>();
        if (job.cwd() != null && LocalExecutor.offlineProbe(job)) {
            // the correctness check through the offline entry point: the prompts go into the (shared) worktree, the
            // command runs as an offline batch job, its output is read as probe outputs
            OfflineProbe.Prepared probe = OfflineProbe.prepare(job, t0, timings);
            if (probe.failure() != null) {
                return probe.failure();
            }
            try {
                Job filled = job.withSpec(new JobSpec.Check(Command.of(probe.argv()), job.probes(), job.readout()));
                return execute(filled, hooks, t0, timings, probe);
            } finally {
                probe.cleanUp();
            }
        }
        return execute(job, hooks, t0, timings, null);
    }

    private JobResult execute(Job job, Hooks hooks, long t0, Map<String, Double> timings,
                              OfflineProbe.Prepared probe) {
        if (job.cwd() == null) {
            return JobResult.failed(t0, new Failure(FailureCategory.ENV_MISSING, "the job has no environment",
                    List.of()), "", timings, job.argv());
        }
        if (capacity != null && config.gpusFor(job.gpus()) > capacity.gpus()) {
            return JobResult.failed(t0, new Failure(FailureCategory.RESOURCES_INSUFFICIENT, "the job needs "
                    + job.gpus() + " GPU(s); the largest node of the Slurm cluster has " + capacity.gpus()
                    + " (GRES gpu)", List.of()), "", timings, job.argv());
        }
        String name = jobName(sessionId, job.jobId());
        Path dir = jobDir(config, sessionId, job);
        StringBuilder notes = new StringBuilder();
        String jobId = adoptable(name, dir);
        if (jobId != null) {
            notes.append("isobench: adopted Slurm job ").append(jobId).append(" (").append(name)
                    .append(") submitted by an earlier orchestrator of session ").append(sessionId).append('\n');
        } else {
            try {
                Files.createDirectories(dir);
                Map<String, String> secrets = secretEnv(job);
                if (!secrets.isEmpty()) {
                    Path env = dir.resolve("secrets.env");
                    Files.deleteIfExists(env);
                    Files.createFile(env, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")));
                    StringBuilder sb = new StringBuilder();
                    secrets.forEach((k, v) -> sb.append(k).append('=').append(q(v)).append('\n'));
                    Files.writeString(env, sb, StandardCharsets.UTF_8);
                }
                Path script = dir.resolve("job.sbatch");
                Files.writeString(script, script(job, sessionId, dir, config, capacity), StandardCharsets.UTF_8);
                SlurmCli.Out o = cli.submit(script);
                if (!o.ok()) {
                    return JobResult.failed(t0, submitFailure(o), o.err() + o.out(), timings,
                            job.argv());
                }
                jobId = SlurmCli.jobIdOf(o.out());
                Files.writeString(dir.resolve("submitted"), jobId + "\n", StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                return JobResult.failed(t0, new Failure(FailureCategory.DISK_FULL, "cannot write the job script to "
                        + dir
                        + ": " + e.getMessage(), List.of()), "", timings, job.argv());
            }
        }
        consumed.add(jobId);
        SlurmWatch w = new SlurmWatch(cli, jobId, dir, hooks);
        inFlight.add(w);
        try {
            return serverJob(job) ? server(job, w, t0, timings, notes) : offline(job, w, t0, timings, notes, probe);
        } finally {
            inFlight.remove(w);
        }
    }

    /**
     * Ctrl-C or SIGTERM of the orchestrator: scancel the jobs in flight (SIGKILL cannot be caught; then they keep
     * running until {@code --time} or until a resumed session adopts them).
     */
    private void cancelInFlight() {
        for (SlurmWatch w : List.copyOf(inFlight)) {
            markCancelled(w.dir, w.jobId);
            cli.cancel(w.jobId);
        }
    }

    /**
     * The newest job of this name not consumed by this process: one recorded in the job's shared directory
     * ({@code submitted}), or one squeue lists that is still queued or running, or that wrote its exit or endpoint
     * file into this directory. A finished job of the same name that this directory never saw (squeue lists finished
     * jobs for {@code MinJobAge}, 300 s by default: a same-named session's cancelled job) is never adopted.
     */
    private String adoptable(String name, Path dir) {
        Set<Long> recorded = new TreeSet<>();
        try {
            Path sub = dir.resolve("submitted");
            if (Files.exists(sub)) {
                for (String l : Files.readAllLines(sub, StandardCharsets.UTF_8)) {
                    if (l.strip().matches("\\d+")) {
                        recorded.add(Long.parseLong(l.strip()));
                    }
                }
            }
        } catch (IOException e) {
            // nothing recorded
        }
        Set<Long> ids = new TreeSet<>(recorded);
        for (long id : cli.jobsNamed(name)) {
            if (recorded.contains(id) || Files.exists(dir.resolve("exit-" + id))
                    || Files.exists(dir.resolve("endpoint-" + id))) {
                ids.add(id);
                continue;
            }
            SlurmCli.JobState st = cli.state(Long.toString(id));
            if (st != null && !st.terminal()) {
                ids.add(id);
            }
        }
        Long best = null;
        for (long id : ids) {
            if (!consumed.contains(Long.toString(id)) && !Files.exists(dir.resolve("cancelled-" + id))) {
                best = id;
            }
        }
        return best == null ? null : Long.toString(best);
    }

    /** Waits until the job left the queue; false on cancellation or when it waited longer than the limit. */
    private String awaitStart(SlurmWatch w, long submitNs, Map<String, Double> timings) {
        long end = submitNs + Duration.ofSeconds(config.pendingLimitS()).toNanos();
        while (true) {
            SlurmCli.JobState s = w.state(false);
            if (s == null || !s.pending() || w.exitCode() != null || w.endpoint() != null) {
                timings.put("queue_ms", (System.nanoTime() - submitNs) / 1e6);
                w.markStarted();
                return null;
            }
            if (w.hooks.cancelled().getAsBoolean()) {
                return "cancelled while pending (" + s.reason() + ")";
            }
            if (System.nanoTime() > end) {
                return "still pending after " + config.pendingLimitS() + " s (" + s.reason() + ")";
            }
            sleep(POLL.toMillis());
        }
    }

    private JobResult offline(Job job, SlurmWatch w, long t0, Map<String, Double> timings, StringBuilder notes,
                              OfflineProbe.Prepared probe) {
        List<String> argv = job.argv();
        String pend = awaitStart(w, t0, timings);
        if (pend != null) {
            w.cancel(timings);
            return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "Slurm job " + w.jobId + " " + pend,
                    List.of(pend)), notes + w.readLog(), timings, argv);
        }
        long end = w.startedNs + Duration.ofSeconds(job.limits().runS()).toNanos();
        Integer exit;
        boolean cancelled = false;
        while (true) {
            exit = w.exitCode();
            if (exit != null) {
                break;
            }
            if (w.gone()) {
                exit = awaitExitFile(w);
                break;
            }
            if (System.nanoTime() > end || w.hooks.cancelled().getAsBoolean()) {
                cancelled = true;
                break;
            }
            sleep(POLL.toMillis());
        }
        if (cancelled) {
            w.cancel(timings);
            String text = notes + w.readLog();
            if (probe != null) {
                return OfflineProbe.finish(job, probe, null, text, t0, timings);
            }
            if (job.kind() == Job.Kind.ACCURACY) {
                return JobResult.failed(t0, Accuracy.exitFailure(null, text, job.limits().runS()), text, timings, argv);
            }
            return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "the benchmark ran past "
                    + job.limits().runS()
                    + " s (or was cancelled); Slurm job " + w.jobId + " cancelled",
                    List.of("timeout " + job.limits().runS() + " s")), text, timings, argv);
        }
        awaitEnd(w);
        String text = notes + w.readLog();
        if (exit == null) {
            return JobResult.failed(t0, clusterFailure(w, text), text, timings, argv);
        }
        if (probe != null && exit != 200 && exit != 127) {
            return OfflineProbe.finish(job, probe, exit, text, t0, timings);
        }
        if (job.kind() == Job.Kind.ACCURACY && exit != 200 && exit != 127) {
            // a plain command: its exit and output; the session reads the score
            Failure f = Accuracy.exitFailure(exit, text, job.limits().runS());
            return f == null ? JobResult.ended(t0, null, List.of(), null, text, timings, argv)
                    : JobResult.failed(t0, f, text, timings, argv);
        }
        EngineAdapter engine = Engines.forCommand(argv); // the job's engine: its command's (docs/engines.md)
        ParsedOutput parsed = engine.readConsole(text, OutputParser.Truncation.NONE);
        if (exit == 0 && parsed.hasMetrics()) {
            return JobResult.ended(t0, null, parsed.metrics(), LocalExecutor.workloadJson(argv, parsed.workload()),
                    text, timings, argv);
        }
        Failure f = FailureClassifier.classify(text, engine.failureSignatures()).orElse(null);
        if (exit == 200) {
            f = new Failure(FailureCategory.ENV_MISSING, "the environment " + job.cwd() + " is not visible on the"
                    + " compute node", LocalExecutor.tail(text));
        } else if (exit == 127) {
            f = new Failure(FailureCategory.BAD_PERF_COMMAND, "cannot run " + argv.get(0) + ": not found or not "
                    + "executable in " + job.cwd(), LocalExecutor.tail(text));
        }
        if ((f == null || f.category() == FailureCategory.UNKNOWN) && exit != 0) {
            // the command was killed under the script (OOM killer of the job's cgroup, node trouble, an outside
            // scancel whose SIGTERM reached the command before the script, which then wrote 128+15): Slurm's state
            Failure cluster = clusterFailure(w, "");
            boolean signalled = exit > 128;
            if (cluster.category() != FailureCategory.UNKNOWN
                    && (signalled || !"CANCELLED".equals(w.state.state()))) {
                f = cluster;
            }
        }
        if (f == null || f.category() == FailureCategory.UNKNOWN) {
            f = exit == 0 ? new Failure(FailureCategory.NO_METRICS, "exited 0 without a metric block", List.of())
                    : new Failure(FailureCategory.UNKNOWN, "exited " + exit + " without metrics",
                    LocalExecutor.tail(text));
        }
        return JobResult.failed(t0, f, text, timings, argv);
    }

    /** A serving run or server check: the batch job's server, once it left the queue, through the one pipeline. */
    private JobResult server(Job job, SlurmWatch w, long t0, Map<String, Double> timings, StringBuilder notes) {
        return pipeline.serve(job, w.hooks, t0, timings, () -> {
            String pend = awaitStart(w, t0, timings);
            if (pend != null) {
                w.cancel(timings);
                throw new ServePipeline.NotStarted(JobResult.failed(t0, new Failure(
                        FailureCategory.SERVER_START_TIMEOUT, "Slurm job " + w.jobId + " " + pend, List.of(pend)),
                        notes + w.readLog(), timings, job.argv()));
            }
            return new BatchServer(job, w, notes);
        });
    }

    /**
     * The server of a batch job: its endpoint is the {@code host port} the script writes once it picked a port; its
     * end before readiness is the script's exit file (or Slurm's state when the job vanished without one).
     */
    private final class BatchServer implements ServePipeline.Server {
        private final Job job;
        private final SlurmWatch w;
        private final StringBuilder notes;
        private URI endpoint;
        private List<String> argv;

        BatchServer(Job job, SlurmWatch w, StringBuilder notes) {
            this.job = job;
            this.w = w;
            this.notes = notes;
            this.argv = job.argv();
        }

        @Override
        public URI endpoint() {
            String[] ep = endpoint == null ? w.endpoint() : null;
            if (ep != null) {
                String host = config.serverBind().equals("0.0.0.0") ? ep[0] : config.serverBind();
                int port = Integer.parseInt(ep[1]);
                argv = job.argvFor(port);
                endpoint = URI.create("http://" + host + ":" + port);
            }
            return endpoint;
        }

        @Override
        public Failure crashedBeforeReady() {
            Integer exit = w.exitCode();
            if (exit == null && w.gone()) {
                exit = awaitExitFile(w);
                if (exit == null) {
                    return clusterFailure(w, w.readLog());
                }
            }
            return exit == null ? null : crash(job, w, exit, argv);
        }

        @Override
        public boolean alive() {
            return w.exitCode() == null && !w.gone();
        }

        @Override
        public String log() {
            return notes + w.readLog();
        }

        @Override
        public List<String> argv() {
            return argv;
        }

        @Override
        public void stop(Map<String, Double> timings, StringBuilder clientNotes) {
            w.cancel(timings);
        }
    }
}
