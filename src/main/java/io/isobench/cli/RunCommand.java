package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.agent.StoredAttempts;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.session.SessionRequest;
import io.isobench.plan.Planner;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run a suite as one session: every task's arms (baseline, human, one per agent) for N interleaved"
                + " rounds on an executor (local by default); each run is committed when it ends. --resume continues an"
                + " interrupted session without repeating finished runs. --dry-run prints the plan.")
final class RunCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "SUITE", description = "The suite YAML file (docs/suite-format.md).")
    Path suiteFile;

    @Option(names = "--session", paramLabel = "ID", description = "Session id to create or (with --resume) continue.")
    String session;

    @Option(names = "--resume", description = "Continue the session (--session, else the latest unfinished one).")
    boolean resume;

    @Option(names = "--dry-run", description = "Print the plan (argv, env, cwd, timeouts per job); run nothing.")
    boolean dryRun;

    @Option(names = "--format", defaultValue = "text", description = "Plan format for --dry-run: text or json.")
    String format;

    @Option(names = "--rounds", paramLabel = "N|adaptive", description = "Measured rounds: a fixed number, or adaptive"
            + " (each task stops when its verdicts are decided; docs/statistics.md §20). Default: the suite's"
            + " run.rounds, adaptive unless it says otherwise.")
    String rounds;

    @Option(names = "--server-metrics-interval-ms", paramLabel = "MS", description = "How often a measured serving run"
            + " scrapes the server's /metrics (default: the suite's run.server_metrics_interval_ms, 1000; 0: off).")
    Integer serverMetricsIntervalMs;

    @Option(names = "--exclude-on-clock-mismatch", negatable = true, description = "Keep a round whose GPU clocks or"
            + " throttle state differ from the baseline's out of the comparison (default: the suite's"
            + " run.exclude_on_clock_mismatch, false: flagged, still counted; docs/gpu-telemetry.md).")
    Boolean excludeOnClockMismatch;

    @Option(names = "--workdir", paramLabel = "DIR", defaultValue = "isobench-work",
            description = "Where the arm environments (git worktrees) go (default ${DEFAULT-VALUE}).")
    Path workdir;

    @Option(names = "--attempts-of", paramLabel = "SESSION", description = "Measure the attempts an `isobench agents"
            + " run` stored (its session id): attempt k of agent NAME is agent arm NAME@k, its patches read from the"
            + " store (written under --workdir); the suite file is not changed (docs/agents.md).")
    String attemptsOf;

    @picocli.CommandLine.Mixin
    ExecutionOptions execution = new ExecutionOptions();

    @Override
    public Integer call() {
        if (serverMetricsIntervalMs != null && serverMetricsIntervalMs < 0) {
            throw new IsobenchException.BadInput("--server-metrics-interval-ms (" + serverMetricsIntervalMs
                    + ") must be >= 0");
        }
        if (!format.equals("text") && !format.equals("json")) {
            throw new IsobenchException.BadInput("--format " + format + ": use text or json");
        }
        Suite suite = SuiteLoader.load(suiteFile);
        if (attemptsOf != null) {
            suite = withAttempts(suite);
        }
        RoundsOption.Choice roundsChoice = RoundsOption.of(rounds, suite);
        suite = roundsChoice.suite();
        if (excludeOnClockMismatch != null) {
            suite = suite.withRun(suite.run().withClockMismatch(suite.run().clockMismatch()
                    .excluding(excludeOnClockMismatch)));
        }
        SessionRequest request = new SessionRequest(suite, new Planner.Options(roundsChoice.fixed(), null, workdir.toAbsolutePath(),
                execution.aa(), serverMetricsIntervalMs), main.dbSpec(), session, resume, execution.choice(), execution.feedback(main.err,
                id -> "isobench run " + Sessions.word(suiteFile.toString()) + " --resume --session " + Sessions.word(id)
                + (main.db == null ? "" : " --db " + Sessions.word(main.db))
                + (excludeOnClockMismatch == null ? "" : excludeOnClockMismatch ? " --exclude-on-clock-mismatch"
                : " --no-exclude-on-clock-mismatch")
                + " --workdir " + Sessions.word(workdir.toString())
                + (attemptsOf == null ? "" : " --attempts-of " + Sessions.word(attemptsOf))));
        return Sessions.run(main, request, dryRun, format).exitCode();
    }

    /** The suite with the stored attempts of {@code --attempts-of} as its agent arms NAME@k. */
    private Suite withAttempts(Suite suite) {
        try (Store store = Stores.open(main.dbSpec())) {
            return StoredAttempts.read(store, attemptsOf, "--attempts-of").plan(suite,
                    workdir.toAbsolutePath().resolve("attempts"), main.err::println);
        } catch (IOException e) {
            throw new IsobenchException.BadInput("--attempts-of " + attemptsOf + ": cannot write the attempts' patches"
                    + " under " + workdir + ": " + e.getMessage() + " (fix: a writable --workdir)", e);
        }
    }
}
