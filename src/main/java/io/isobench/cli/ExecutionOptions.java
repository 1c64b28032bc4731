package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.exec.Executors;
import io.isobench.session.ProgressMode;
import io.isobench.session.SessionRequest;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Locale;
import java.util.function.Function;

/** Where and how many jobs at once: the options run and demo share. */
final class ExecutionOptions {

    @Option(names = "--executor", paramLabel = "NAME", completionCandidates = Kinds.class,
            description = "Where jobs run: ${COMPLETION-CANDIDATES} (docs/executors.md; default: the suite's "
                    + "run.executor).")
    String executor;

    /** The executor names of the one registry. */
    static final class Kinds implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Executors.names().iterator();
        }
    }

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

    @Option(names = "--progress", paramLabel = "auto|plain|json|tty", defaultValue = "auto",
            description = "How progress goes to stderr: plain lines, JSON lines (one object per event), a tty bar "
                    + "(one redrawn line), or auto (default: the bar on an interactive terminal whose stderr is not "
                    + "redirected, else plain lines; ISOBENCH_PLAIN_PROGRESS=1 forces plain).")
    String progress;

    /** Where the session's progress goes ({@code --progress} on {@code err}) and how it is resumed. */
    SessionRequest.Feedback feedback(PrintWriter err, Function<String, String> resumeCommand) {
        return new SessionRequest.Feedback(ProgressMode.of(progress == null ? "auto" : progress).listener(err),
                resumeCommand);
    }

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
