package io.isobench.exec;

import io.isobench.guard.InsideTree;
import io.isobench.proc.CpuCgroups;
import io.isobench.proc.ProcessGroup;
import io.isobench.probe.Greedy;
import io.isobench.probe.Probe;
import io.isobench.probe.ProbeException;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricResolution;
import io.isobench.parse.MetricRule;
import io.isobench.parse.ReadRule;
import io.isobench.parse.Readout;
import io.isobench.parse.RuleReader;
import io.isobench.plan.Job;

import java.io.IOException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A generic engine's offline command (docs/suite-format.md, "Generic engines"): run without a shell in the arm's
 * environment, its stdout and stderr kept apart, its wall time measured here (monotonic clock, ns) and its CPU time
 * (user + system) from a per-run cgroup v2 ({@link CpuCgroups}: {@code usage_usec}, µs, every process the command
 * started) where one can be made on this machine, else from {@code times} (10 ms ticks; the children it waited for).
 * A POSIX {@code sh} runs the command as {@code "$@"} (the suite's words are arguments, never parsed by the shell).
 * Measured runs read the declared metric rules; checks read the generated text with the output rule; the baseline's
 * first check is the lint run, where every metric rule must match.
 */
final class GenericRun {

    /**
     * Moves itself into the cgroup {@code $2} when one is given (a builtin, no fork: the command and every child it
     * starts are born inside; a failed move leaves it empty), runs {@code "$@"} with stdout and stderr to files and
     * file descriptor 3 open on {@code $3} (where {@link #EXEC_STEP} writes the cgroup's usage at the command's exec),
     * then writes the children's CPU times (the fallback clock); exits with the command's code.
     */
    static final String WRAPPER = "p=$1; cg=$2; s=$3; shift 3; [ -z \"$cg\" ] || { echo $$ >\"$cg/cgroup.procs\"; }"
            + " 2>/dev/null; \"$@\" 3>\"$s\" >\"$p.out\" 2>\"$p.err\"; rc=$?; times >\"$p.times\"; exit $rc";

    /**
     * The last step before the command, inside the arm's walls: writes the cgroup's {@code usage_usec} (read from
     * {@code $1}, its {@code cpu.stat}) to file descriptor 3, closes it, and becomes the command ({@code exec}, the
     * same process). What ran before it (the sandbox's namespaces and mounts, {@code setpriv}, this shell's start) is
     * then subtracted from the command's CPU time. The command never holds descriptor 3, and the file it points to
     * lies in isobench's temporary folder, which the sandbox replaces by a private {@code /tmp}.
     */
    static final String EXEC_STEP = "[ -r \"$1\" ] && while read -r k v; do [ \"$k\" = usage_usec ]"
            + " && { echo \"$v\" >&3; break; }; done <\"$1\" 2>/dev/null; exec 3>&-; shift; exec \"$@\"";
    private static final Pattern TIMES = Pattern.compile("(\\d+)m([0-9.]+)s\\s+(\\d+)m([0-9.]+)s");
    private static final Pattern USAGE = Pattern.compile("\\d{1,18}");

    private GenericRun() {
    }

    /**
     * The argv that runs {@code argv} through the wrapper, its files next to {@code prefix}, in {@code cgroup}, the
     * usage at the exec written to {@code execUsage} (tests: the whole chain without walls).
     */
    static List<String> wrapped(List<String> argv, Path prefix, Path cgroup, Path execUsage) {
        List<String> out = new ArrayList<>(wrapper(prefix, cgroup, execUsage));
        out.addAll(inside(argv, cgroup));
        return out;
    }

    /**
     * The wrapper alone: isobench's own prefix, run outside the sandbox (it writes the cgroup, the command not);
     * without a cgroup descriptor 3 goes to {@code /dev/null}.
     */
    static List<String> wrapper(Path prefix, Path cgroup, Path execUsage) {
        return List.of("sh", "-c", WRAPPER, "isobench-run", prefix.toString(), cgroup == null ? "" : cgroup.toString(),
                cgroup == null || execUsage == null ? "/dev/null" : execUsage.toString());
    }

    /** What runs inside the walls: {@link #EXEC_STEP} before the command when there is a cgroup, else the command. */
    static List<String> inside(List<String> argv, Path cgroup) {
        if (cgroup == null) {
            return argv;
        }
        List<String> out = new ArrayList<>(List.of("sh", "-c", EXEC_STEP, "isobench-exec",
                cgroup.resolve("cpu.stat").toString()));
        out.addAll(argv);
        return out;
    }

    /**
     * One run of the command: its streams, wall and CPU time, the log text; or the failure that kept it from running
     * or finishing ({@code failure} set: a job result to return as is).
     */
    record Ran(Integer exit, double wallS, CpuTime cpu, RuleReader.Streams streams, StringBuilder text,
               JobResult failure) {
    }

    /**
     * The command's CPU seconds and the clock that measured them.
     *
     * @param startUsec the cgroup's usage before the command's exec (sandbox, {@code setpriv}, the exec step), not in
     *                  {@code seconds}; null when it was not known (no cgroup, or the exec step could not say) and
     *                  {@code seconds} holds everything
     */
    record CpuTime(double seconds, MetricResolution resolution, Long startUsec) {
    }

    /** The run's cgroup, or why there is none ({@code run} null). */
    private record Cgroup(CpuCgroups.Run run, String why) {
        static Cgroup of(Placement launcher) {
            if (!launcher.sharesHostCgroups()) {
                return new Cgroup(null, "the command runs in a container");
            }
            CpuCgroups host = CpuCgroups.host();
            if (!host.available()) {
                return new Cgroup(null, host.unavailableReason());
            }
            try {
                return new Cgroup(host.open(), null);
            } catch (IOException e) {
                return new Cgroup(null, "cannot make a cgroup: " + e.getMessage());
            }
        }

        Path dir() {
            return run == null ? null : run.dir();
        }

        OptionalLong usageUsec() {
            return run == null ? OptionalLong.empty() : run.usageUsec();
        }

        void close() {
            if (run != null) {
                run.close();
            }
        }
    }

    /**
     * Runs the job's command through {@code launch} to its end or its limit: its streams, wall and CPU time; or the
     * failed result ({@link Ran#failure}) that kept it from running or finishing.
     *
     * @param t0      {@code System.nanoTime()} when the job began
     * @param timings the job's phases ({@code teardown_ms} added)
     */
    static Ran execute(Job job, Executor.Hooks hooks, Path log, long t0, Map<String, Double> timings, Launch launch) {
        Readout readout = job.readout();
        Path prefix = job.cwd().resolve(".isobench-run-" + job.index());
        List<Path> outputs = new ArrayList<>(List.of(file(prefix, ".out"), file(prefix, ".err"), file(prefix, ".times")));
        for (ReadRule r : rules(readout)) {
            if (r.from() == ReadRule.Source.FILE) {
                try {
                    outputs.add(outputFile(job.cwd(), r.path()));
                } catch (IOException e) {
                    // a link a patch or an earlier run planted: the arm's outcome, never a delete outside the tree
                    return failed(JobResult.failed(t0, new Failure(e instanceof InsideTree.Outside
                            ? FailureCategory.PATCH_FAILED : FailureCategory.DISK_FULL, "cannot clear the output file "
                            + r.path() + ": " + e.getMessage(), List.of(String.valueOf(e.getMessage()))),
                            "", timings, job.argv()));
                }
            }
        }
        try {
            for (Path p : outputs) {
                Files.deleteIfExists(p); // never read what an earlier run left
            }
        } catch (IOException e) {
            return failed(JobResult.failed(t0, new Failure(FailureCategory.DISK_FULL,
                    "cannot clear the output files in "
                    + job.cwd() + ": " + e.getMessage(), List.of()), "", timings, job.argv()));
        }
        Cgroup cgroup = Cgroup.of(launch.placement());
        Integer exit;
        double wallS;
        CpuTime cpu;
        Path execUsage = null;
        try {
            ProcessGroup pg;
            long start = System.nanoTime();
            try {
                execUsage = cgroup.dir() == null ? null : Files.createTempFile("isobench-exec-", ".usage");
                pg = launch.start(job, wrapper(prefix, cgroup.dir(), execUsage), inside(job.argv(), cgroup.dir()),
                        log);
            } catch (IOException e) {
                return failed(JobResult.failed(t0, new Failure(FailureCategory.ENV_MISSING, "cannot start sh for "
                        + job.argv().get(0)
                        + ": " + e.getMessage(), List.of(String.valueOf(e.getMessage()))), "", timings, job.argv()));
            }
            hooks.processGroupStarted().accept(pg.pgid());
            try {
                exit = LocalExecutor.waitCancellable(pg, Duration.ofSeconds(job.limits().runS()), hooks);
            } finally {
                long td = System.nanoTime();
                launch.stop(job, pg);
                timings.put("teardown_ms", (System.nanoTime() - td) / 1e6);
            }
            wallS = (System.nanoTime() - start) / 1e9;
            // read once the whole group is gone: what its members used to the end is in the cgroup
            cpu = cpuTime(cgroup.usageUsec(), execUsage == null ? "" : read(execUsage),
                    read(file(prefix, ".times")));
        } finally {
            cgroup.close();
            deleteQuietly(execUsage);
        }
        RuleReader.Streams streams = streams(job, prefix);
        try {
            for (Path p : outputs.subList(0, 3)) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // in the arm's environment; the next run clears them
        }
        StringBuilder text = new StringBuilder();
        text.append("--- stdout ---\n").append(streams.stdout());
        text.append(streams.stdout().endsWith("\n") || streams.stdout().isEmpty() ? "" : "\n");
        text.append("--- stderr ---\n").append(streams.stderr());
        text.append(streams.stderr().endsWith("\n") || streams.stderr().isEmpty() ? "" : "\n");
        text.append(ProcessGroup.readLog(log));
        text.append(String.format(Locale.ROOT, "--- isobench ---%ncommand: %s%nexit: %s, command_wall_s=%.3f,"
                + " command_cpu_s=%s%n", String.join(" ", job.argv()), exit == null ? "killed" : exit, wallS,
                describe(cpu, cgroup)));
        ProbeException.Kind probe = job.kind() == Job.Kind.CHECK ? ProbeException.Kind.OFFLINE_PROBE_FAILED : null;
        JobResult failure = null;
        if (exit == null) {
            failure = JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "the command ran past "
                    + job.limits().runS()
                    + " s and was killed", List.of("timeout " + job.limits().runS() + " s")), text.toString(),
                    timings, job.argv()).withProbeFailure(probe);
        } else if (exit != 0) {
            failure = JobResult.failed(t0, failed(job, exit, streams), text.toString(), timings, job.argv())
                    .withProbeFailure(probe);
        }
        return new Ran(exit, wallS, cpu, streams, text, failure);
    }

    private static Ran failed(JobResult r) {
        return new Ran(null, 0, null, new RuleReader.Streams("", "", Map.of()), new StringBuilder(), r);
    }

    /** The job's result: a measured run's metrics by the declared rules, or a check's generated texts. */
    static JobResult run(Job job, Executor.Hooks hooks, Path log, long t0, Map<String, Double> timings, Launch launch) {
        Ran ran = execute(job, hooks, log, t0, timings, launch);
        if (ran.failure() != null) {
            return ran.failure();
        }
        Readout readout = job.readout();
        RuleReader.Streams streams = ran.streams();
        StringBuilder text = ran.text();
        double wallS = ran.wallS();
        CpuTime cpu = ran.cpu();
        RuleReader.Read read = RuleReader.metrics(readout.metrics(), streams);
        read.unmatched().forEach((name, why) -> text.append("metric rule ").append(name).append(" did not match: ")
                .append(why).append('\n'));
        if (job.kind() == Job.Kind.CHECK) {
            return check(job, t0, timings, streams, read, text);
        }
        List<Metric> metrics = new ArrayList<>();
        Map<String, MetricResolution> resolutions = new LinkedHashMap<>();
        metrics.add(Metric.of(MetricRule.WALL, wallS));
        resolutions.put(MetricRule.WALL, MetricResolution.MONOTONIC_CLOCK);
        if (cpu != null) {
            metrics.add(Metric.of(MetricRule.CPU, cpu.seconds()));
            resolutions.put(MetricRule.CPU, cpu.resolution());
        }
        metrics.addAll(read.metrics());
        if (metrics.stream().noneMatch(m -> m.name().equals(readout.primary()))) {
            String why = read.unmatched().getOrDefault(readout.primary(), "not measured");
            return JobResult.failed(t0, new Failure(FailureCategory.NO_METRICS, "primary metric " + readout.primary()
                    + ": " + why,
                    List.of(why)), text.toString(), timings, job.argv());
        }
        return JobResult.ended(t0, null, metrics, LocalExecutor.workloadJson(job.argv(), null), text.toString(),
                timings, job.argv()).withMetricResolutions(resolutions);
    }

    /** A check: the generated texts; the baseline's lint run also needs every metric rule to match. */
    private static JobResult check(Job job, long t0, Map<String, Double> timings, RuleReader.Streams streams,
                                   RuleReader.Read read, StringBuilder text) {
        if (!read.unmatched().isEmpty()) {
            Map.Entry<String, String> first = read.unmatched().entrySet().iterator().next();
            MetricRule rule = job.readout().metrics().stream().filter(r -> r.name().equals(first.getKey())).findFirst()
                    .orElseThrow();
            String detail = "lint: task " + job.taskId() + ": metric rule " + rule.name() + " (" + rule.read().describe()
                    + ") does not match the baseline's output: " + first.getValue() + " (fix: the rule's regex or"
                    + " json_path in the suite)";
            return JobResult.failed(t0, new Failure(FailureCategory.BAD_PERF_COMMAND, detail,
                    List.of(first.getValue())),
                    text.toString(), timings, job.argv());
        }
        List<String> texts = RuleReader.texts(job.readout().output(), streams);
        if (texts.isEmpty()) {
            String detail = "OFFLINE_PROBE_FAILED: the output rule (" + job.readout().output().describe()
                    + ") found no generated text";
            return JobResult.failed(t0, new Failure(FailureCategory.NO_METRICS, detail, List.of(detail)),
                    text.toString(), timings, job.argv()).withProbeFailure(ProbeException.Kind.OFFLINE_PROBE_FAILED);
        }
        text.append("generated text: ").append(texts.size()).append(" output(s) read by ")
                .append(job.readout().output().describe()).append('\n');
        List<Probe> probes = texts.stream().map(Probe::text).toList();
        return JobResult.ended(t0, null, List.of(), null, text.toString(), timings, job.argv()).withOutputs(texts)
                .withProbes(Greedy.ProbeRun.sequentialOnly(probes).toJson());
    }

    /** A command that exited non-zero: not found (127), a root cause the classifier knows, else its last lines. */
    private static Failure failed(Job job, int exit, RuleReader.Streams s) {
        String all = s.stdout() + "\n" + s.stderr();
        if (exit == 127 || exit == 126 || ProcessGroup.couldNotExecute(s.stderr())) {
            return new Failure(FailureCategory.BAD_PERF_COMMAND, "cannot run " + job.argv().get(0) + ": not found or"
                    + " not executable in " + job.cwd(), LocalExecutor.tail(s.stderr()));
        }
        Optional<Failure> f = FailureClassifier.classify(all);
        if (f.isPresent() && f.get().category() != FailureCategory.UNKNOWN) {
            return f.get();
        }
        return new Failure(FailureCategory.UNKNOWN, "exited " + exit + " without metrics", LocalExecutor.tail(all));
    }

    /**
     * The command's CPU time: the cgroup's usage when the wrapper joined it (any usage at all: nothing but the wrapper
     * and its descendants can have run there, and a move that failed leaves it at 0) less its usage at the command's
     * exec ({@code execUsage}'s first line, when it is a number no larger than the total: otherwise the whole usage
     * counts), else {@code times}'s; null when neither is known.
     */
    static CpuTime cpuTime(OptionalLong cgroupUsageUsec, String execUsage, String times) {
        if (cgroupUsageUsec.isPresent() && cgroupUsageUsec.getAsLong() > 0) {
            long total = cgroupUsageUsec.getAsLong();
            String first = execUsage.lines().findFirst().orElse("").strip();
            Long before = USAGE.matcher(first).matches() && Long.parseLong(first) <= total ? Long.parseLong(first)
                    : null;
            return new CpuTime((total - (before == null ? 0 : before)) / 1e6, MetricResolution.CGROUP_CPU_STAT,
                    before);
        }
        Double s = cpuSeconds(times);
        return s == null ? null : new CpuTime(s, MetricResolution.SH_TIMES, null);
    }

    /** The log's CPU figure: seconds to the µs, the clock, what it left out, and why not the cgroup if it fell back. */
    private static String describe(CpuTime cpu, Cgroup cgroup) {
        if (cpu == null) {
            return "unknown";
        }
        String why;
        if (!cpu.resolution().equals(MetricResolution.CGROUP_CPU_STAT)) {
            why = "; " + (cgroup.run() == null ? cgroup.why() : "the wrapper could not join " + cgroup.dir());
        } else if (cpu.startUsec() == null) {
            why = "; from the wrapper's start: the usage at the command's exec was not reported";
        } else {
            why = String.format(Locale.ROOT, "; from the command's exec, %.3f ms of start-up before it not counted",
                    cpu.startUsec() / 1e3);
        }
        return String.format(Locale.ROOT, "%.6f (%s%s)", cpu.seconds(), cpu.resolution().source(), why);
    }

    /** User + system CPU seconds of the waited-for children (the second line of {@code times}); null if absent. */
    static Double cpuSeconds(String times) {
        List<String> lines = times.strip().lines().toList();
        if (lines.size() < 2) {
            return null;
        }
        Matcher m = TIMES.matcher(lines.get(1));
        if (!m.find()) {
            return null;
        }
        return Integer.parseInt(m.group(1)) * 60 + Double.parseDouble(m.group(2)) + Integer.parseInt(m.group(3)) * 60
                + Double.parseDouble(m.group(4));
    }

    private static List<ReadRule> rules(Readout r) {
        List<ReadRule> out = new ArrayList<>();
        r.metrics().forEach(m -> out.add(m.read()));
        if (r.output() != null) {
            out.add(r.output());
        }
        return out;
    }

    /**
     * Where a rule's output file is, to clear before the run and read after it: a path inside the worktree must have
     * its folder's real path inside it (a folder a patch or an earlier run turned into a link leading out is refused,
     * so isobench never deletes or reads through it); an absolute path, or one the suite author led out with
     * {@code ..}, is taken as written.
     */
    private static Path outputFile(Path cwd, String rel) throws IOException {
        Path lexical = cwd.resolve(rel).normalize();
        if (Path.of(rel).isAbsolute() || !lexical.startsWith(cwd.normalize())) {
            return lexical;
        }
        Path folder = Path.of(rel).normalize().getParent();
        return (folder == null ? cwd.toRealPath() : InsideTree.resolve(cwd, folder.toString()))
                .resolve(lexical.getFileName());
    }

    private static RuleReader.Streams streams(Job job, Path prefix) {
        Map<String, String> files = new LinkedHashMap<>();
        for (ReadRule r : rules(job.readout())) {
            if (r.from() == ReadRule.Source.FILE) {
                Path p;
                try {
                    p = outputFile(job.cwd(), r.path());
                } catch (IOException e) {
                    continue; // a link planted during the run: not read (the rule reports no match)
                }
                if (Files.isRegularFile(p)) {
                    files.put(r.path(), read(p));
                }
            }
        }
        return new RuleReader.Streams(read(file(prefix, ".out")), read(file(prefix, ".err")), files);
    }

    private static Path file(Path prefix, String suffix) {
        return prefix.resolveSibling(prefix.getFileName() + suffix);
    }

    private static String read(Path p) {
        return Files.isRegularFile(p) ? ProcessGroup.readLog(p) : "";
    }

    private static void deleteQuietly(Path p) {
        try {
            if (p != null) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // isobench's own temporary file: the system's clean-up takes what is left
        }
    }
}
