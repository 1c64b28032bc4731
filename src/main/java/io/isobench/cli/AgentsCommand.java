package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.agent.AgentsRun;
import io.isobench.agent.StoredAttempts;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "agents", mixinStandardHelpOptions = true,
        description = "Agents make the patches: run an agent CLI on each task's parent tree (docs/agents.md).",
        subcommands = {AgentsCommand.Run.class, AgentsCommand.ExportSuite.class, AgentsTrajectoryCommands.Export.class,
                AgentsTrajectoryCommands.Import.class})
final class AgentsCommand extends CommandGroup {

    @ParentCommand
    Main main;

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"Run agent NAME (its runner: block in the suite) once per task, or K times with --attempts,"
                    + " each on a fresh single-commit tree of the task's parent commit, in a sandbox (--executor"
                    + " docker: non-root container, CPU/memory limits, no network but the model endpoint), under the"
                    + " runner's budget. Every attempt is stored when it ends (usage, versions, prompt hash, raw and"
                    + " normalised trajectory, patch); attempt k is agent arm NAME@k of `isobench run SUITE"
                    + " --attempts-of SESSION`; the suite file is only read (`agents export-suite` writes NAME@k"
                    + " entries into it). --resume continues an interrupted run without losing or"
                    + " repeating an attempt.",
                    "Exit 0 when every attempt ran (whatever the agent did), 2 for bad input, 3 when the sandbox or CLI"
                            + " is missing."})
    static final class Run implements Callable<Integer> {
        @ParentCommand
        AgentsCommand parent;

        @Parameters(paramLabel = "SUITE", description = "The suite (.yaml); read, never written.")
        Path suiteFile;

        @Option(names = "--agent", required = true, paramLabel = "NAME", description = "The agent (agents[].name).")
        String agent;

        @Option(names = "--tasks", split = ",", paramLabel = "ID", description = "Task ids, comma-separated (default: every"
                + " runnable task).")
        List<String> tasks = List.of();

        @Option(names = "--attempts", paramLabel = "K", defaultValue = "1", description = "Attempts per task"
                + " (default ${DEFAULT-VALUE}).")
        int attempts;

        @Option(names = "--executor", paramLabel = "local|docker", defaultValue = "docker", description = "Where the"
                + " agent runs: docker (the sandbox; default) or local (a plain process: no isolation).")
        String executor;

        @Option(names = "--workdir", paramLabel = "DIR", defaultValue = "isobench-work",
                description = "Where the attempts' folders go (default ${DEFAULT-VALUE}).")
        Path workdir;

        @Option(names = "--resume", arity = "0..1", fallbackValue = "latest", paramLabel = "SESSION",
                description = "Continue an agents run (default: the newest unfinished one of this agent).")
        String resume;

        @Option(names = "--gpus", paramLabel = "N", description = "GPUs per attempt, overriding the runner's"
                + " sandbox.gpus (0: none). Leased host-wide, so never a GPU a measured run holds; docs/agents.md,"
                + " \"GPUs in the sandbox\".")
        Integer gpus;

        @Override
        public Integer call() throws IOException {
            Main m = parent.main;
            Suite suite = SuiteLoader.load(suiteFile);
            if (suite.engine().localPath() == null) {
                throw new IsobenchException.BadInput(suiteFile + ": engine.repo is not a local repository (fix: a"
                        + " local clone; agents need the parent commit's files)");
            }
            AgentsRun.Request req = new AgentsRun.Request(suite, agent, tasks, attempts, executor, workdir, resume);
            try (Store store = Stores.open(m.dbSpec())) {
                AgentsRun.Summary s = new AgentsRun(store, System.getenv(), m.err::println,
                        AgentsRun.defaultSandboxes(executor)).gpus(gpus).run(req);
                m.out.println("session " + s.sessionId());
                for (AgentsRun.AttemptRow r : s.attempts()) {
                    m.out.println(r.taskId() + "\t" + agent + "@" + r.attempt() + "\t" + r.status()
                            + "\t" + r.usage().turns() + " turns\t" + (r.usage().tokensIn() + r.usage().tokensOut())
                            + " tokens\t" + (r.usage().costUsd() == null ? "-" : String.format(Locale.ROOT,
                            "$%.4f", r.usage().costUsd())) + "\t" + r.patchLines() + " patch lines"
                            + (r.resumed() ? "\t(stored before)" : ""));
                }
                m.out.println("next: isobench run " + Sessions.word(suiteFile.toString()) + " --attempts-of "
                        + Sessions.word(s.sessionId()) + (m.db == null ? "" : " --db " + Sessions.word(m.db)));
                m.out.flush();
            }
            return Main.OK;
        }
    }

    @Command(name = "export-suite", mixinStandardHelpOptions = true,
            description = {"Write the attempts of an agents run into a suite file: each attempt's patches beside the"
                    + " suite (patches/NAME@k/TASK.diff, from the store) and one agents: entry NAME@k per attempt"
                    + " (earlier NAME@… entries of the agent replaced; the rest of the file kept). The explicit form of"
                    + " what `isobench run SUITE --attempts-of SESSION` plans without writing anything.",
                    "Exit 0 when written, 2 for bad input (no such agents run)."})
    static final class ExportSuite implements Callable<Integer> {
        @ParentCommand
        AgentsCommand parent;

        @Parameters(paramLabel = "SUITE", description = "The suite (.yaml) to rewrite.")
        Path suiteFile;

        @Option(names = "--session", required = true, paramLabel = "SESSION",
                description = "The agents run (the session id `isobench agents run` printed).")
        String session;

        @Override
        public Integer call() throws IOException {
            Main m = parent.main;
            Suite suite = SuiteLoader.load(suiteFile);
            try (Store store = Stores.open(m.dbSpec())) {
                StoredAttempts attempts = StoredAttempts.read(store, session, "--session");
                Path written = attempts.exportTo(suite, m.err::println);
                m.out.println(written + ": agents " + attempts.describe() + " name the patches of " + session);
                m.out.flush();
            }
            return Main.OK;
        }
    }
}
