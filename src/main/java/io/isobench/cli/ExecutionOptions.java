package io.isobench.cli;

import io.isobench.IsobenchException;
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
