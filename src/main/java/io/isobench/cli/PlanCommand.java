package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.exec.SweepPilot;
import io.isobench.plan.AutoSweep;
import io.isobench.plan.PackingSimulator;
import io.isobench.plan.SimInput;
import io.isobench.plan.SimReport;
import io.isobench.plan.SimResult;
import io.isobench.plan.GpuDiscovery;
import io.isobench.probe.Clients;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.Sweep;
import io.isobench.task.TaskSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Plan runs: simulate GPU-aware packing of a suite's jobs onto a node; find a sweep's points.",
        subcommands = {PlanCommand.Simulate.class, PlanCommand.SweepPilotCommand.class})
final class PlanCommand extends CommandGroup {

    @ParentCommand
    Main main;

    @Command(name = "simulate", mixinStandardHelpOptions = true,
            description = {"Pack jobs (tasks × arms × rounds, each with its GPU count and estimated duration) onto a node"
                    + " and report the makespan against the lower bound (max of GPU-seconds/G, the longest job, the"
                    + " jobs needing more than G/2 GPUs). Jobs needing more GPUs than the node are refused"
                    + " (RESOURCES_INSUFFICIENT).", "Exit 0 when simulated, 2 for bad input, 3 when no --gpus is given and no GPU is found."})
    static final class Simulate implements Callable<Integer> {
        @ParentCommand
        PlanCommand parent;

        @Parameters(paramLabel = "FILE", description = "A suite (.yaml) or an ISO-Bench exports/full_results.jsonl.")
        Path file;

        @Option(names = "--gpus", paramLabel = "N|IDS", description = "GPUs of the node: a count (8) or indexes"
                + " (0,1,2,3). Default: ISOBENCH_GPUS, else nvidia-smi.")
        String gpus;

        @Option(names = "--arms", paramLabel = "N", description = "Arms per task (default: 3 for ISO-Bench files;"
                + " baseline + human + agents with a patch for suites).")
        Integer arms;

        @Option(names = "--rounds", paramLabel = "N", description = "Rounds (default: 5 for ISO-Bench files; the"
                + " suite's run.rounds).")
        Integer rounds;

        @Option(names = "--durations", paramLabel = "FILE", description = "Suites: estimated durations, lines"
                + " 'TASK_ID SECONDS' or an ISO-Bench full_results.jsonl (default: each task's run limit).")
        Path durations;

        @Option(names = "--format", defaultValue = "text", description = "text (default) or json.")
        TextOrJson format;

        @Option(names = "--schedule", description = "json: include every job's start, end and GPU ids.")
        boolean schedule;

        @Override
        public Integer call() {
            SimInput.Jobs jobs = SimInput.load(file, new SimInput.Options(arms, rounds, durations));
            GpuDiscovery.Inventory node = GpuDiscovery.discover(gpus);
            if (node.count() == 0 && (gpus == null || gpus.isBlank())) {
                throw new IsobenchException.EnvironmentMissing("no GPUs on this machine: " + node.source()
                        + " (fix: give the node shape to simulate, e.g. --gpus 8)");
            }
            SimResult r = PackingSimulator.simulate(jobs.jobs(), node.count());
            Main m = parent.main;
            m.err.println("node: " + node.count() + " GPU(s) from " + node.source());
            m.out.print(format == TextOrJson.json ? SimReport.json(jobs, r, schedule) : SimReport.text(jobs, r));
            m.out.flush();
            return Main.OK;
        }
    }

    @Command(name = "sweep-pilot", mixinStandardHelpOptions = true,
            description = {"sweep: auto's pilot runs against a running server (start the task's baseline server"
                    + " first): the task's client flags at rates from 1 req/s, doubling until the SLO (--goodput) breaks"
                    + " or throughput stops growing, then bisecting (docs/loadgen.md, \"Load sweeps\"); prints one line"
                    + " per pilot on stderr and the sweep: line with the points on stdout.",
                    "Exit 0 when the points were found, 2 for bad input."})
    static final class SweepPilotCommand implements Callable<Integer> {
        @ParentCommand
        PlanCommand parent;

        @Parameters(paramLabel = "SUITE", description = "The suite (.yaml).")
        Path suite;

        @Option(names = "--task", required = true, paramLabel = "ID", description = "The serving task.")
        String task;

        @Option(names = "--base-url", required = true, paramLabel = "URL", description = "The running server.")
        String baseUrl;

        @Option(names = "--start-rps", paramLabel = "R", description = "The first pilot's rate (default 1).")
        Double startRps;

        @Override
        public Integer call() {
            Suite s = SuiteLoader.load(suite);
            TaskSpec t = s.task(task).orElseThrow(() -> new IsobenchException.BadInput("no task "
                    + task + " in " + suite));
            AutoSweep.Settings d = AutoSweep.Settings.DEFAULTS;
            AutoSweep.Settings settings = startRps == null ? d : new AutoSweep.Settings(
                    startRps, d.minGrowth(), d.bisections(), d.maxPilots(), d.factors());
            SweepPilot.Outcome o;
            try {
                o = SweepPilot.run(URI.create(baseUrl), t, settings,
                        Clients.serving(), parent.main.err::println);
            } catch (IllegalArgumentException e) {
                throw new IsobenchException.BadInput(e.getMessage());
            }
            parent.main.out.println(o.suiteLine(t.sweep() == null ? Sweep.DEFAULT_MIN_GOOD_FRACTION
                    : t.sweep().minGoodFraction()));
            return 0;
        }
    }
}
