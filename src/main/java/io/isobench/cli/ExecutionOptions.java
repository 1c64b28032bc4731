package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.exec.SessionRequest;
import picocli.CommandLine.Option;

import java.util.Locale;

/** Where and how many jobs at once: the options run and demo share. */
final class ExecutionOptions {

    @Option(names = "--executor", paramLabel = "NAME",
            description = "Where jobs run: local, docker, slurm or kubernetes (default: the suite's run.executor).")
    String executor;

    @Option(names = "--parallel", paramLabel = "N|auto", defaultValue = "auto",
            description = "Jobs in flight at once (default ${DEFAULT-VALUE}: packed into the node's GPUs when the "
                    + "local or docker executor finds some, else one at a time; 1 runs one job at a time; slurm and "
                    + "kubernetes: jobs submitted at once, the cluster places them).")
    String parallel;

    @Option(names = "--no-aa",
            description = "Do not measure the A/A arm (baseline-aa: the baseline started again in every round, whose "
                    + "paired comparison with the baseline is each task's measured noise band). Verdicts then use the "
                    + "minimum effect alone as their margin.")
    boolean noAa;

    @Option(names = "--allow-cross-gpu",
            description = "Let measured runs of one task run at the same time (on different GPUs, or side by side on "
                    + "the CPUs) when --parallel allows several jobs; recorded with the session and shown in reports. "
                    + "Without it the arms of a task run one after the other, so compared runs never share or split "
                    + "the machine differently.")
    boolean allowCrossGpu;

    /** The A/A setting for the planner: false with --no-aa, else the suite's ({@code run.aa}). */
    Boolean aa() {
        return noAa ? Boolean.FALSE : null;
    }

    /** The executor, jobs in flight and cross-GPU setting as the session takes them. */
    SessionRequest.ExecutorChoice choice() {
        return new SessionRequest.ExecutorChoice(executor, parallelJobs(), allowCrossGpu);
    }

    /** 0 for auto, else the number. */
    int parallelJobs() {
        if (parallel == null || parallel.equalsIgnoreCase("auto")) {
            return 0;
        }
        try {
            int n = Integer.parseInt(parallel.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IsobenchException.BadInput(String.format(Locale.ROOT,
                "--parallel %s: use a number of jobs >= 1 or auto", parallel));
    }
}
