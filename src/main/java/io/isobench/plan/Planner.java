package io.isobench.plan;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.task.AgentSpec;
import io.isobench.task.Finding;
import io.isobench.task.GpuEstimate;
import io.isobench.task.ParsedPerfCommand;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Builds the {@link Plan} of a suite: for every runnable task the arms baseline, the A/A arm {@code baseline-aa}
 * (unless turned off), human and one per agent with a patch for it; the correctness checks (the baseline's twice,
 * in two server starts, to calibrate the tolerance); then {@code rounds} measured rounds, each holding every
 * (task, arm) once in the seeded random order of {@link RoundOrder} (DESIGN §4: interleaved B, H, A…).
 */
public final class Planner {

    /** Marker the server argv carries where the executor puts the port it picked. */
    public static final String PORT = "{port}";
    private static final int PORT_SENTINEL = 65432;

    private Planner() {
    }

    /** Options the CLI may override; null keeps the suite's value. */
    public record Options(Integer rounds, Long seed, Path workdir, Boolean aa) {

        public Options(Integer rounds, Long seed, Path workdir) {
            this(rounds, seed, workdir, null);
        }
    }

    /** Suffix of the job id of the baseline's second correctness check (a second, independent server start). */
    public static final String REPEAT_CHECK = "check-repeat";

    public static Plan plan(Suite suite, Options options) {
        RunConfig run = suite.run();
        int rounds = options.rounds() != null ? options.rounds() : run.rounds();
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
        for (TaskSpec task : suite.tasks()) {
            ParsedPerfCommand cmd = task.parsedCommand();
            if (cmd.hasErrors()) {
                Finding f = cmd.errors().get(0);
                skipped.add(new SkippedTask(task.id(), f.code(), cmd.errors().stream().map(Finding::message)
                        .collect(Collectors.joining("; "))));
                continue;
            }
            Optional<Mode> mode = task.mode();
            if (mode.isEmpty() || mode.get() == Mode.MICRO) {
                skipped.add(new SkippedTask(task.id(), "BAD_PERF_COMMAND", "the benchmark mode is unknown"));
                continue;
            }
            List<ArmSpec> taskArms = new ArrayList<>();
            String parent = task.parentCommit() != null ? task.parentCommit() : task.humanCommit() + "^";
            taskArms.add(new ArmSpec(task.id(), Arm.BASELINE.label(), parent, null,
                    envRoot.resolve(task.id()).resolve("baseline")));
            if (aa) {
                taskArms.add(new ArmSpec(task.id(), Arm.BASELINE_AA.label(), parent, null,
                        envRoot.resolve(task.id()).resolve(Arm.BASELINE_AA.label())));
            }
            taskArms.add(new ArmSpec(task.id(), Arm.HUMAN.label(), task.humanCommit(), null,
                    envRoot.resolve(task.id()).resolve("human")));
            for (AgentSpec agent : suite.agents()) {
                Optional<Path> patch = agent.patchFor(task.id());
                if (patch.isPresent()) {
                    String label = Arm.agent(agent.name()).label();
                    taskArms.add(new ArmSpec(task.id(), label, parent, patch.get(),
                            envRoot.resolve(task.id()).resolve(agent.name())));
                }
            }
            List<String> build = suite.buildArgv(task);
            for (int k = 0; k < taskArms.size(); k++) {
                ArmSpec a = taskArms.get(k);
                taskArms.set(k, new ArmSpec(a.taskId(), a.arm(), a.commitRef(), a.patch(), a.worktree(),
                        suite.recipesFor(a.taskId(), a.arm()).stream().map(io.isobench.task.Recipe::name).toList(),
                        build, GenericJobs.artifact(suite, task, a.arm(), a.commitRef())));
            }
            arms.addAll(taskArms);
            int gpus = GpuEstimate.forTask(task).gpus();
            int runS = task.timeoutS() != null ? task.timeoutS() : run.timeouts().runS();
            boolean serving = mode.get() == Mode.SERVING;
            boolean generic = task.generic() != null;
            List<String> argv = generic ? GenericJobs.measureArgv(task, options.workdir())
                    : serving ? serverArgv(task) : cmd.benchmarkArgv();
            List<String> client = serving && cmd.client() != null ? cmd.client().argv() : List.of();
            Map<String, String> env = cmd.env();
            List<Job> measure = new ArrayList<>();
            // the correctness check talks to the arm's server, or runs the task's offline probe command (a generic
            // offline task: its command, read by its output rule; none without one)
            boolean checked = !generic || GenericJobs.hasCheck(task);
            boolean offlineGeneric = generic && !serving;
            List<String> checkArgv = offlineGeneric ? GenericJobs.checkArgv(task, options.workdir())
                    : generic ? argv : checkArgv(task, suite);
            List<String> checkFlags = offlineGeneric ? List.of() : checkFlags(task, cmd);
            for (ArmSpec a : taskArms) {
                // the A/A arm runs the baseline's code: its outputs are the baseline's second check instead
                if (checked && !a.arm().equals(Arm.BASELINE_AA.label())) {
                    checks.add(new Job(0, task.id() + "/" + a.arm() + "/check", task.id(), a.arm(), -1,
                            Job.Kind.CHECK, mode.get().label(), checkArgv, checkFlags, env, a.worktree(),
                            run.timeouts().serverStartS(), runS, gpus, 0,
                            generic ? GenericJobs.checkReadout(task, a.arm().equals(Arm.BASELINE.label())) : null));
                }
                if (checked && a.arm().equals(Arm.BASELINE.label())) {
                    // the baseline again, in a server of its own: how much the baseline disagrees with itself sets
                    // the floor of the task's tolerance (docs/correctness.md)
                    checks.add(new Job(0, task.id() + "/" + a.arm() + "/" + REPEAT_CHECK, task.id(), a.arm(), -1,
                            Job.Kind.CHECK, mode.get().label(), checkArgv, checkFlags, env, a.worktree(),
                            run.timeouts().serverStartS(), runS, gpus, 0,
                            generic ? GenericJobs.checkReadout(task, false) : null));
                }
                measure.add(new Job(0, "", task.id(), a.arm(), 0, Job.Kind.MEASURE,
                        mode.get().label(), argv, client, env, a.worktree(), run.timeouts().serverStartS(), runS, gpus,
                        run.warmupRequests(), generic ? GenericJobs.measureReadout(task) : null));
            }
            perTask.add(measure);
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
                armOrder.add(j.arm());
                jobs.add(j.at(0, j.taskId() + "/" + j.arm() + "/r" + r, r));
            }
            if (task != null) {
                order.add(new Plan.RoundEntry(r, task, armOrder));
            }
        }
        List<Job> indexed = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            indexed.add(j.at(i, j.jobId(), j.round()));
        }
        return new Plan(suite.engine() == null ? "suite" : nameOf(suite), repo, rounds, seed, aa, arms, indexed, order,
                skipped, GenericJobs.setup(suite, options.workdir(), repo));
    }

    private static String nameOf(Suite suite) {
        Path f = suite.file();
        return f == null ? "suite" : f.getFileName().toString();
    }

    private static List<String> checkFlags(TaskSpec task, ParsedPerfCommand cmd) {
        TaskSpec.Correctness c = task.correctness() != null ? task.correctness() : TaskSpec.Correctness.DEFAULT;
        String model = cmd.model() != null ? cmd.model() : task.model() != null ? task.model() : "model";
        List<String> flags = new ArrayList<>(List.of("--model", model, "--num-prompts", Integer.toString(c.prompts()),
                "--max-tokens", Integer.toString(c.maxTokens()), "--tolerance", Double.toString(c.tolerance())));
        if (c.logprobs()) {
            flags.add("--logprobs");
        }
        if (c.offlineCommand() != null) {
            flags.addAll(List.of("--probe", "offline"));
        }
        return List.copyOf(flags);
    }

    /** The check's argv: the offline probe command ({suite_dir} resolved) when the task has one, else the server. */
    static List<String> checkArgv(TaskSpec task, Suite suite) {
        TaskSpec.Correctness c = task.correctness();
        if (c == null || c.offlineCommand() == null) {
            return serverArgv(task);
        }
        String dir = suite.file() == null ? "." : suite.file().toAbsolutePath().normalize().getParent().toString();
        return c.offlineArgv(dir);
    }

    /** The server argv with {@link #PORT} where the port goes. */
    static List<String> serverArgv(TaskSpec task) {
        List<String> argv = task.serverArgv("127.0.0.1", PORT_SENTINEL);
        if (argv.isEmpty()) {
            // offline tasks' correctness checks still start the engine's server
            TaskSpec asServing = new TaskSpec(task.id(), task.commits(), new TaskSpec.Workload(
                    "vllm bench serve --model " + (task.model() == null ? "model" : task.model()), task.model(),
                    "serving", task.serverCommand()), task.limits(), new TaskSpec.Gates(task.correctness(), null, null),
                    null, task.line());
            argv = asServing.serverArgv("127.0.0.1", PORT_SENTINEL);
        }
        String s = Integer.toString(PORT_SENTINEL);
        return argv.stream().map(w -> w.replace(s, PORT)).toList();
    }
}
