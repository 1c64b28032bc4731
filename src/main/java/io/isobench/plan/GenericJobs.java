package io.isobench.plan;

import io.isobench.Arm;

import io.isobench.parse.Readout;
import io.isobench.task.ArtifactSpec;
import io.isobench.task.GenericTask;
import io.isobench.task.ParsedTask;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The planner's part for engines described by the suite: the generic adapter's jobs (argv with {@code {workdir}}
 * filled in, how their output is read), the session's setup steps (a git bundle's clone, the suite's {@code setup:}
 * commands) and prebuilt-artifact arms.
 */
final class GenericJobs {

    private GenericJobs() {
    }

    /** The repository the worktrees come from: a bundle's clone in the work folder, else the local clone. */
    static Path repo(Suite suite, Path workdir) {
        if (suite.engine().isBundle()) {
            String name = suite.engine().localPath().getFileName().toString().replaceFirst("\\.bundle$", "");
            return workdir.resolve("repos").resolve(name.isEmpty() ? "engine" : name);
        }
        return suite.engine().local().orElse(null);
    }

    /** The session's setup steps: clone the bundle (unless an earlier session did), then the suite's commands. */
    static List<SetupStep> setup(Suite suite, Path workdir, Path repo) {
        List<SetupStep> out = new ArrayList<>();
        if (suite.engine().isBundle()) {
            out.add(new SetupStep("clone", List.of("git", "clone", "--quiet", suite.engine().localPath().toString(),
                    repo.toString()), workdir, repo));
        }
        for (List<String> argv : suite.setup()) {
            out.add(new SetupStep("setup", fill(argv, workdir), workdir, null));
        }
        return out;
    }

    /** The argv with {@code {workdir}} filled in ({@code {suite_dir}} was filled in by the suite loader). */
    static List<String> fill(List<String> argv, Path workdir) {
        return argv.stream().map(w -> w.replace("{workdir}", workdir.toString())).toList();
    }

    /** A measured run: the offline command, or the server with its host and port slots left for the executor. */
    static Command measureCommand(ParsedTask parsed, Path workdir) {
        GenericTask g = parsed.task().generic();
        return g.offline() != null ? Command.of(fill(g.offline().command(), workdir)) : server(parsed, workdir);
    }

    /** The server's words with {@code {workdir}} filled in (text only: the slots stay slots). */
    private static Command server(ParsedTask parsed, Path workdir) {
        return new Command(parsed.checkServer().stream().map(w -> w.mapText(t -> t.replace("{workdir}",
                workdir.toString()))).toList());
    }

    /** Whether the task has a correctness gate: serving always (its server is probed), offline with an output rule. */
    static boolean hasCheck(TaskSpec t) {
        return t.generic().serving() != null || t.generic().offline().output() != null;
    }

    /** A check: the offline probe command (else the command itself), or the server. */
    static Command checkCommand(ParsedTask parsed, Path workdir) {
        GenericTask g = parsed.task().generic();
        return g.offline() != null ? Command.of(fill(g.offline().probeCommand(), workdir)) : server(parsed, workdir);
    }

    /** How a measured run is read. */
    static Readout measureReadout(TaskSpec t) {
        GenericTask g = t.generic();
        return g.offline() != null ? g.offline().readout() : new Readout(List.of(), g.serving().primary(), null);
    }

    /**
     * How a check is read: the generated text; the baseline's first check is also the lint run (every metric rule
     * must match the baseline's output) when it runs the measured command itself. Serving checks probe the server.
     */
    static Readout checkReadout(TaskSpec t, boolean lintRun) {
        GenericTask.Offline o = t.generic().offline();
        if (o == null) {
            return null;
        }
        Readout r = new Readout(o.metrics(), o.primary(), o.output());
        return lintRun && o.probe() == null ? r : r.outputOnly();
    }

    /** An arm's prebuilt artifact; null when the engine's arms are worktrees. */
    static ArtifactSpec.Resolved artifact(Suite suite, TaskSpec task, Arm arm, String commit) {
        ArtifactSpec spec = suite.engine().artifact();
        if (spec == null) {
            return null;
        }
        String role = arm.equals(Arm.HUMAN) ? "human" : "baseline"; // the suite's artifact keys
        TaskSpec.ArmArtifacts a = task.artifacts();
        Path dir = suite.file() == null ? null : suite.file().toAbsolutePath().normalize().getParent();
        return spec.resolve(commit, a == null ? null : a.versions().get(role), a == null ? null : a.sources().get(role),
                dir);
    }
}
