package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.history.Track;
import io.isobench.plan.Planner;
import io.isobench.session.ProgressMode;
import io.isobench.session.SessionRequest;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "track", mixinStandardHelpOptions = true,
        description = {"Track a suite's tasks over an engine's history: the first-parent commits of REV1..REV2 (every"
                + " N-th measured, K runs each, in an interleaved order bracketed by REV1's runs), change points found"
                + " on the series, each confirmed or rejected by a paired session of the commit against the previous"
                + " measured one, and bisected to the first commit that carries it (docs/track.md). Running the same"
                + " command again continues an interrupted track.",
                "Exit 0, 1 with --fail-on when such a confirmed change is in the range, 2 for bad input, 4 when a"
                        + " track measured nothing (no commit built and ran), 130 when interrupted."})
final class TrackCommand implements Callable<Integer> {

    /** Exit code of an interrupted track (the runs stored so far are kept). */
    static final int INTERRUPTED = 130;

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "SUITE", description = "The suite YAML file (docs/suite-format.md).")
    Path suiteFile;

    @Option(names = "--range", required = true, paramLabel = "REV1..REV2",
            description = "The commits: REV1 and the first-parent line after it up to REV2, of the engine repository.")
    String range;

    @Option(names = "--task", paramLabel = "T", description = "Track only this task (default: every task).")
    String task;

    @Option(names = "--every", paramLabel = "N", defaultValue = "1",
            description = "Measure every N-th commit of the range, and always the last (default ${DEFAULT-VALUE}).")
    int every;

    @Option(names = "--runs", paramLabel = "K", defaultValue = "5",
            description = "Runs of each measured commit (default ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--bisect", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Bisect a confirmed change between two measured commits that are not adjacent to the first"
                    + " commit that carries it (default: on).")
    boolean bisect;

    @Option(names = "--fail-on", paramLabel = "slower|faster|any",
            description = "Exit 1 when a confirmed change of this direction (any: either) is in the range (for CI).")
    String failOn;

    @Option(names = "--session", paramLabel = "ID", description = "The session id of a new track's series runs"
            + " (default: the track id).")
    String session;

    @Option(names = "--workdir", paramLabel = "DIR", defaultValue = "isobench-work",
            description = "Where the engine clone and the commits' worktrees go (default ${DEFAULT-VALUE}).")
    Path workdir;

    @Mixin
    ExecutionOptions execution = new ExecutionOptions();

    @Override
    public Integer call() {
        if (failOn != null && !List.of("slower", "faster", "any").contains(failOn)) {
            throw new IsobenchException.BadInput("--fail-on " + failOn + ": use slower, faster or any");
        }
        Track.Settings settings = new Track.Settings(task, every, runs, bisect);
        Suite suite = SuiteLoader.load(suiteFile);
        SessionRequest template = new SessionRequest(suite, new Planner.Options(null, null,
                workdir.toAbsolutePath(), execution.aa()), main.dbSpec(), session, false, execution.choice(),
                execution.feedback(main.err, id -> again()));
        String mode = execution.progress == null ? "auto" : execution.progress;
        boolean tty = ProgressMode.of(mode) == ProgressMode.TTY
                || ProgressMode.of(mode) == ProgressMode.AUTO && System.console() != null
                && System.getenv("ISOBENCH_PLAIN_PROGRESS") == null;
        Track.Result result = Track.run(new Track.Request(template, range, settings, main.err, tty));
        boolean fail = false;
        for (Track.Tracked t : result.tracks()) {
            int rejected = 0;
            for (TrackChange c : t.changes()) {
                if ("rejected".equals(c.status())) {
                    rejected++;
                    continue;
                }
                main.out.println(t.track().taskId() + ": " + line(c, t.commits()));
                fail |= "confirmed".equals(c.status()) && failOn != null
                        && (failOn.equals("any") || failOn.equals(c.direction()));
            }
            long confirmed = t.changes().stream().filter(c -> "confirmed".equals(c.status())).count();
            main.out.println(String.format(Locale.ROOT, "%s: track %s (%s): %d confirmed change(s), %d rejected"
                            + " candidate(s)%s", t.track().taskId(), t.track().trackId(), t.track().status(), confirmed,
                    rejected, rejected == 0 ? "" : " (isobench changes --status rejected)"));
        }
        main.out.flush();
        if (result.interrupted()) {
            main.err.println("isobench: track interrupted; the runs stored so far are kept; to continue: " + again());
            return INTERRUPTED;
        }
        if (fail) {
            return 1;
        }
        return result.tracks().stream().anyMatch(t -> "failed".equals(t.track().status())) ? Main.NOTHING_MEASURED
                : Main.OK;
    }

    /** The command that continues this track (its stored runs and sessions are kept). */
    private String again() {
        return "isobench " + (main.db == null ? "" : "--db " + Sessions.word(main.db) + " ") + "track "
                + Sessions.word(suiteFile.toString()) + " --range " + Sessions.word(range)
                + (task == null ? "" : " --task " + Sessions.word(task)) + " --every " + every + " --runs " + runs
                + (bisect ? "" : " --no-bisect") + " --workdir " + Sessions.word(workdir.toString());
    }

    /** {@code confirmed faster -14.5 % [-15.1, -13.9] 9f3c… "subject" (first commit …)}. */
    static String line(TrackChange c, List<TrackCommit> commits) {
        String subject = commits.stream().filter(k -> k.commitId().equals(c.commitId())).map(TrackCommit::subject)
                .findFirst().orElse("");
        StringBuilder b = new StringBuilder();
        b.append(c.status()).append(' ').append(c.direction()).append(' ')
                .append(c.changePct() == null ? "?" : String.format(Locale.ROOT, "%+.1f %%", c.changePct()));
        if (c.ciLowPct() != null && c.ciHighPct() != null) {
            b.append(String.format(Locale.ROOT, " [%+.1f, %+.1f]", c.ciLowPct(), c.ciHighPct()));
        }
        b.append(' ').append(c.commitId(), 0, Math.min(12, c.commitId().length())).append(" \"").append(subject)
                .append('"');
        if (c.firstCommit() != null) {
            String first = commits.stream().filter(k -> k.commitId().equals(c.firstCommit()))
                    .map(TrackCommit::subject).findFirst().orElse("");
            b.append(" (first commit ").append(c.firstCommit(), 0, Math.min(12, c.firstCommit().length()))
                    .append(first.isEmpty() ? "" : " \"" + first + "\"").append(')');
        }
        return b.toString();
    }
}
