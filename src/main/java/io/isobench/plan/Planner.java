package io.isobench.plan;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.task.AgentSpec;
import io.isobench.task.ClientConfig;
import io.isobench.task.Finding;
import io.isobench.task.ParsedPerfCommand;
import io.isobench.task.ParsedTask;
import io.isobench.task.Recipe;
import io.isobench.task.RoundsPlan;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;
import io.isobench.task.Sweep;
import io.isobench.task.TaskSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Builds the {@link Plan} of a suite: for every runnable task the arms baseline, the A/A arm {@code baseline-aa}
 * (unless turned off), human and one per agent with a patch for it; the correctness checks (the baseline's twice,
 * in two server starts, to calibrate the tolerance); then {@code rounds} measured rounds, each holding every
 * (task, arm) once in the seeded random order of {@link RoundOrder} (DESIGN §4: interleaved B, H, A…); a sweep
 * task's arm once per load point, every (arm, point) a slot of the round's random order.
 */
public final class Planner {

    private Planner() {
    }

    /**
     * Options the CLI may override; null keeps the suite's value.
     *
     * @param autoPoints per {@code sweep: auto} task id, the points its pilots decided (the session's pilot phase,
     *                   {@code session.PilotPhase}); a task without them is planned with its pilot job and no rounds
     */
    public record Options(Integer rounds, Long seed, Path workdir, Boolean aa, Integer serverMetricsIntervalMs,
                          Map<String, List<Double>> autoPoints) {

        public Options {
            autoPoints = autoPoints == null ? Map.of() : Map.copyOf(autoPoints);
        }

        public Options(Integer rounds, Long seed, Path workdir, Boolean aa, Integer serverMetricsIntervalMs) {
            this(rounds, seed, workdir, aa, serverMetricsIntervalMs, null);
        }

        /** These options with the points the pilots decided for {@code sweep: auto} tasks. */
        public Options withAutoPoints(Map<String, List<Double>> points) {
            return new Options(rounds, seed, workdir, aa, serverMetricsIntervalMs, points);
        }

        public Options(Integer rounds, Long seed, Path workdir) {
            this(rounds, seed, workdir, null);
        }

        public Options(Integer rounds, Long seed, Path workdir, Boolean aa) {
            this(rounds, seed, workdir, aa, null);
        }
    }

    /** Suffix of the job id of the baseline's second correctness check (a second, independent server start). */
    public static final String REPEAT_CHECK = "check-repeat";

    public static Plan plan(Suite suite, Options options) {
        suite.requireCommits();
        RunConfig run = suite.run();
        // the rounds plan: --rounds N (fixed) over the suite's run.rounds (adaptive by default: planned up to its max)
        RoundsPlan roundsPlan = options.rounds() != null ? RoundsPlan.fixed(
                Math.max(1, options.rounds())) : run.rounds();
        int rounds = options.rounds() != null ? options.rounds() : roundsPlan.planned();
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds (" + rounds + ") must be >= 1");
        }
        long seed = options.seed() != null ? options.seed() : run.seed();
        boolean aa = options.aa() != null ? options.aa() : run.aa();
        Path repo = GenericJobs.repo(suite, options.workdir());
        Path envRoot = options.workdir().resolve("envs");
        List<ArmSpec> arms = new ArrayList<>();
        List<SkippedTask> skipped = new ArrayList<>();
        List<Job> checks = new ArrayList<>();
        List<List<Job>> perTask = new ArrayList<>();
        List<Job> accuracy = new ArrayList<>();
        List<Job> pilots = new ArrayList<>();
        for (TaskSpec task : suite.tasks()) {
            ParsedTask parsed = task.parsed(); // the task's perf_command parsed once: every read below uses it
            ParsedPerfCommand cmd = parsed.command();
            if (cmd.hasErrors()) {
                Finding f = cmd.errors().get(0);
                skipped.add(new SkippedTask(task.id(), f.code(), cmd.errors().stream().map(Finding::message)
                        .collect(Collectors.joining("; "))));
                continue;
            }
            // sweep: auto: the points its pilots decided, else a pilot job for the session's pilot phase and no rounds
            Sweep sweep = task.sweep();
            boolean piloted = sweep != null && sweep.kind() == Sweep.Kind.AUTO;
            if (piloted && options.autoPoints().containsKey(task.id())) {
                sweep = sweep.decided(options.autoPoints().get(task.id()));
                piloted = false;
            }
            Optional<Mode> mode = parsed.mode();
            if (mode.isEmpty() || mode.get() == Mode.MICRO) {
                skipped.add(new SkippedTask(task.id(), "BAD_PERF_COMMAND", "the benchmark mode is unknown"));
                continue;
            }
            List<ArmSpec> taskArms = new ArrayList<>();
            String parent = task.parentCommit() != null ? task.parentCommit() : task.humanCommit() + "^";
            taskArms.add(new ArmSpec(task.id(), Arm.BASELINE, parent, null,
                    envRoot.resolve(task.id()).resolve(Arm.BASELINE.label())));
            if (aa) {
                taskArms.add(new ArmSpec(task.id(), Arm.BASELINE_AA, parent, null,
                        envRoot.resolve(task.id()).resolve(Arm.BASELINE_AA.label())));
            }
            taskArms.add(new ArmSpec(task.id(), Arm.HUMAN, task.humanCommit(), null,
                    envRoot.resolve(task.id()).resolve(Arm.HUMAN.label())));
            for (AgentSpec agent : suite.agents()) {
                Optional<Path> patch = agent.patchFor(task.id());
                if (patch.isPresent()) {
                    taskArms.add(new ArmSpec(task.id(), Arm.agent(agent.name()), parent, patch.get(),
                            envRoot.resolve(task.id()).resolve(agent.name())));
                }
            }
            List<String> build = suite.buildArgv(task);
            for (int k = 0; k < taskArms.size(); k++) {
                ArmSpec a = taskArms.get(k);
                Arm arm = a.arm();
                taskArms.set(k, new ArmSpec(a.taskId(), arm, a.commitRef(), a.patch(), a.worktree(),
                        suite.recipesFor(a.taskId(), a.label()).stream().map(Recipe::name).toList(),
                        build, GenericJobs.artifact(suite, task, arm, a.commitRef()), arm.kind() == Arm.Kind.AGENT
                        ? attemptRunOf(suite, task.id(), arm) : null));
            }
            arms.addAll(taskArms);
            int gpus = parsed.gpus();
            int runS = task.timeoutS() != null ? task.timeoutS() : run.timeouts().runS();
            boolean serving = mode.get() == Mode.SERVING;
            boolean generic = task.generic() != null;
            Command argv = generic ? GenericJobs.measureCommand(parsed, options.workdir())
                    : serving ? new Command(parsed.checkServer()) : Command.of(cmd.benchmarkArgv());
            ClientConfig client = serving && cmd.client() != null ? cmd.client() : ClientConfig.NONE;
            Job.Limits limits = Job.Limits.ofSeconds(run.timeouts().serverStartS(), runS);
            List<Job> measure = new ArrayList<>();
            // the correctness check talks to the arm's server, or runs the task's offline probe command (a generic
            // offline task: its command, read by its output rule; none without one)
            boolean checked = !generic || GenericJobs.hasCheck(task);
            boolean offlineGeneric = generic && !serving;
            Command checkArgv = offlineGeneric ? GenericJobs.checkCommand(parsed, options.workdir())
                    : generic ? argv : checkCommand(parsed, suite);
            JobSpec.Probes probes = offlineGeneric ? JobSpec.Probes.OWN_COMMAND : probes(task, cmd);
            for (ArmSpec a : taskArms) {
                Arm arm = a.arm();
                Job.Where where = new Job.Where(a.worktree(), cmd.env(), gpus);
                // the A/A arm runs the baseline's code: its outputs are the baseline's second check instead
                if (checked && !arm.equals(Arm.BASELINE_AA)) {
                    checks.add(new Job(new Job.Place(0, task.id() + "/" + a.label() + "/check", task.id(), -1), arm,
                            mode.get(), new JobSpec.Check(checkArgv, probes,
                            generic ? GenericJobs.checkReadout(task, arm.equals(Arm.BASELINE)) : null), where, limits));
                }
                if (checked && arm.equals(Arm.BASELINE)) {
                    // the baseline again, in a server of its own: how much the baseline disagrees with itself sets
                    // the floor of the task's tolerance (docs/correctness.md)
                    checks.add(new Job(new Job.Place(0, task.id() + "/" + a.label() + "/" + REPEAT_CHECK, task.id(), -1),
                            arm, mode.get(), new JobSpec.Check(checkArgv, probes.asRepeat(),
                            generic ? GenericJobs.checkReadout(task, false) : null), where, limits));
                }
                Job measured = new Job(new Job.Place(0, "", task.id(), 0), arm, mode.get(), new JobSpec.Measure(argv,
                        client, run.warmupRequests(), generic ? GenericJobs.measureReadout(task) : null,
                        options.serverMetricsIntervalMs() != null ? options.serverMetricsIntervalMs()
                                : run.serverMetricsIntervalMs()), where,
                        limits);
                if (piloted && arm.equals(Arm.BASELINE)) {
                    pilots.add(AutoSweep.template(measured, task.sweep()));
                }
                measure.addAll(atPoints(measured, piloted ? null : sweep, piloted));
                // the A/A arm runs the baseline's code: its accuracy is not evaluated again
                if (task.accuracy() != null && !arm.equals(Arm.BASELINE_AA)) {
                    accuracy.add(accuracyJob(suite, parsed, measured.at(0, task.id() + "/" + a.label() + "/accuracy",
                            -1)));
                }
            }
            if (!measure.isEmpty()) {
                perTask.add(measure);
            }
        }
        List<Job> jobs = new ArrayList<>(checks);
        int[] armsPerTask = perTask.stream().mapToInt(List::size).toArray();
        List<Plan.RoundEntry> order = new ArrayList<>();
        List<List<int[]>> rounds0 = RoundOrder.of(seed, rounds, armsPerTask);
        for (int r = 0; r < rounds; r++) {
            String task = null;
            List<String> armOrder = new ArrayList<>();
            for (int[] ta : rounds0.get(r)) {
                Job j = perTask.get(ta[0]).get(ta[1]);
                if (task != null && !task.equals(j.taskId())) {
                    order.add(new Plan.RoundEntry(r, task, armOrder));
                    armOrder = new ArrayList<>();
                }
                task = j.taskId();
                JobSpec.Point p = j.sweepPoint();
                armOrder.add(j.arm().label() + (p == null ? "" : "@" + p.name()));
                jobs.add(j.at(0, j.taskId() + "/" + j.arm().label() + "/r" + r + (p == null ? "" : "/" + p.name()), r));
            }
            if (task != null) {
                order.add(new Plan.RoundEntry(r, task, armOrder));
            }
        }
        // after the measured rounds, every baseline first: its score is the reference of the task's other arms
        accuracy.stream().filter(j -> j.arm().equals(Arm.BASELINE)).forEach(jobs::add);
        accuracy.stream().filter(j -> !j.arm().equals(Arm.BASELINE)).forEach(jobs::add);
        List<Job> indexed = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            indexed.add(j.at(i, j.jobId(), j.round()));
        }
        return new Plan(new Plan.Header(suite.engine() == null ? "suite" : nameOf(suite), repo, rounds, seed, aa,
                roundsPlan), arms,
                indexed, order, skipped, GenericJobs.setup(suite, options.workdir(), repo), pilots);
    }

    /**
     * A task's measured round for one arm: once, or once per load point of its sweep (every point in every round:
     * the round order treats each (arm, point) as one slot, so the points of all arms are interleaved).
     */
    static List<Job> atPoints(Job measured, Sweep sweep, boolean piloted) {
        if (piloted) {
            return List.of(); // sweep: auto before its pilots: no rounds yet
        }
        if (sweep == null || !(measured.spec() instanceof JobSpec.Measure m)) {
            return List.of(measured);
        }
        List<Job> out = new ArrayList<>();
        for (int k = 0; k < sweep.points().size(); k++) {
            out.add(measured.withSpec(m.at(new JobSpec.Point(sweep, k, sweep.points().get(k)))));
        }
        return out;
    }

    /**
     * The arm's accuracy run: the task's accuracy command ({@code {model}}, {@code {suite_dir}} filled in) where the
     * arm's measured job runs, within the command's own limit or else the benchmark's.
     *
     * @param measured the arm's measured job, at the accuracy run's place
     */
    private static Job accuracyJob(Suite suite, ParsedTask parsed, Job measured) {
        TaskSpec.Accuracy acc = parsed.task().accuracy();
        String model = parsed.model();
        Job.Limits limits = acc.timeoutS() == null ? measured.limits()
                : new Job.Limits(measured.limits().serverStart(), Duration.ofSeconds(acc.timeoutS()));
        return new Job(measured.place(), measured.arm(), measured.mode(),
                new JobSpec.Accuracy(Command.of(acc.argv(model, suiteDir(suite))), acc, suiteDir(suite)),
                measured.where(), limits);
    }

    /** The folder of the suite file ({@code {suite_dir}}); {@code .} for a suite without a file. */
    public static String suiteDir(Suite suite) {
        return suite.file() == null ? "." : suite.file().toAbsolutePath().normalize().getParent().toString();
    }

    private static String nameOf(Suite suite) {
        Path f = suite.file();
        return f == null ? "suite" : f.getFileName().toString();
    }

    private static JobSpec.Probes probes(TaskSpec task, ParsedPerfCommand cmd) {
        TaskSpec.Correctness c = task.correctness() != null ? task.correctness() : TaskSpec.Correctness.DEFAULT;
        String model = cmd.model() != null ? cmd.model() : task.model() != null ? task.model() : "model";
        return new JobSpec.Probes(model, c.prompts(), c.maxTokens(), c.tolerance(), c.logprobs(),
                c.offlineCommand() != null ? JobSpec.Via.OFFLINE : JobSpec.Via.SERVER, false);
    }

    /**
     * The check's command: the offline probe command ({suite_dir} resolved) when the task has one, else the server
     * ({@link ParsedTask#checkServer}, its host and port slots open).
     */
    static Command checkCommand(ParsedTask parsed, Suite suite) {
        TaskSpec.Correctness c = parsed.task().correctness();
        if (c == null || c.offlineCommand() == null) {
            return new Command(parsed.checkServer());
        }
        return Command.of(c.offlineArgv(suiteDir(suite)));
    }

    /** The stored attempt whose patch {@code arm} measures at {@code taskId} ({@code run --attempts-of}), or null. */
    private static String attemptRunOf(Suite suite, String taskId, Arm arm) {
        return suite.agents().stream().filter(a -> Arm.agent(a.name()).equals(arm)).findFirst()
                .flatMap(a -> a.attemptRunFor(taskId)).orElse(null);
    }

}
