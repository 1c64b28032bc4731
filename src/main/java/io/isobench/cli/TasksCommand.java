package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.exec.LintRun;
import io.isobench.task.LintReport;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.SuiteWriter;
import io.isobench.task.TaskImport;
import io.isobench.task.TaskLint;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "tasks", mixinStandardHelpOptions = true,
        description = "Task suites: lint perf_commands, import tasks from ISO-Bench data; Harbor tasks (docs/harbor.md).",
        subcommands = {TasksCommand.Lint.class, TasksCommand.Import.class, HarborCommands.Export.class,
                HarborCommands.CheckHarbor.class, HarborCommands.CollectPatch.class})
final class TasksCommand extends CommandGroup {

    @ParentCommand
    Main main;

    @Command(name = "lint", mixinStandardHelpOptions = true,
            description = {"Parse and lint perf_commands: tool, mode, model, GPUs, server/client flags, problems.",
                    "Exit 0 when lint ran (findings are outcomes), 2 when the input cannot be read."})
    static final class Lint implements Callable<Integer> {
        @ParentCommand
        TasksCommand parent;

        @Parameters(paramLabel = "FILE", description = "A suite (.yaml), ISO-Bench full_results.jsonl, an HF table"
                + " (.parquet/.csv/.jsonl), or a text file with one perf_command per line.")
        Path file;

        @Option(names = "--format", defaultValue = "text", description = "text (default) or json (one object per line).")
        TextOrJson format;

        @Option(names = "--run", description = "Suites of the generic adapter: also run each offline task's command"
                + " once in its baseline (setup, environment, build as a session would) and check that every metric"
                + " rule and the output rule match its real output.")
        boolean run;

        @Option(names = "--workdir", paramLabel = "DIR", defaultValue = "isobench-work",
                description = "With --run: where the baseline environments go (default ${DEFAULT-VALUE}).")
        Path workdir;

        @Override
        public Integer call() {
            List<TaskLint.Linted> items = TaskLint.lintFile(file);
            parent.main.out.print(format == TextOrJson.json ? LintReport.jsonLines(items) : LintReport.text(items));
            if (run) {
                Suite suite = SuiteLoader.load(file);
                parent.main.out.print(LintRun.run(suite, workdir.toAbsolutePath(), line -> {
                    parent.main.err.println(line);
                    parent.main.err.flush();
                }));
            }
            parent.main.out.flush();
            return Main.OK;
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = "Build a suite from ISO-Bench data (full_results.jsonl, or the HF table as parquet/jsonl/csv);"
                    + " `tasks import harbor DIR...`: from Harbor task folders.",
            subcommands = {HarborCommands.ImportHarbor.class})
    static final class Import implements Callable<Integer> {
        @ParentCommand
        TasksCommand parent;

        @Parameters(paramLabel = "FILE", arity = "0..1",
                description = "ISO-Bench full_results.jsonl or the HF table (.parquet/.jsonl/.csv).")
        Path file;

        @Option(names = "--out", paramLabel = "SUITE.yaml", description = "Write the suite here (default: stdout).")
        Path out;

        @Option(names = "--repo", paramLabel = "PATH|URL", defaultValue = TaskImport.DEFAULT_REPO,
                description = "Engine repo for the suite (default: ${DEFAULT-VALUE}).")
        String repo;

        @Override
        public Integer call() {
            if (file == null) {
                throw new IsobenchException.BadInput("tasks import: FILE is missing (fix: isobench tasks import FILE,"
                        + " or isobench tasks import harbor DIR...)");
            }
            TaskImport.Result r = TaskImport.fromIsoBench(file, repo);
            String yaml = SuiteWriter.toYaml(r);
            if (out == null) {
                parent.main.out.print(yaml);
                parent.main.out.flush();
            } else {
                SuiteWriter.write(out, yaml);
                parent.main.out.println(out);
            }
            parent.main.err.println("imported " + r.tasks().size() + " task(s) from " + file + " ("
                    + r.notRunnable() + " with perf_command errors: `isobench tasks lint` lists them)");
            return Main.OK;
        }
    }
}
