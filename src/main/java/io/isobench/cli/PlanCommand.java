package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.plan.PackingSimulator;
import io.isobench.plan.SimInput;
import io.isobench.plan.SimReport;
import io.isobench.plan.SimResult;
import io.isobench.plan.GpuDiscovery;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Plan runs: simulate GPU-aware packing of a suite's jobs onto a node.",
        subcommands = {PlanCommand.Simulate.class})
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
}
