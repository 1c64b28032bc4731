package io.isobench.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The training run of the class-data archive: the launcher runs it once per build with
 * {@code -XX:ArchiveClassesAtExit}, so the archive holds the classes the results commands load (DuckDB's JDBC driver,
 * Jackson, the store, the 3-way rules, the report, the export, the HF import) instead of those of whichever command happened to
 * run first. It runs those commands in-process on a small synthetic store in DIR. Hidden: not a user feature.
 */
@Command(name = "train-archive", hidden = true, mixinStandardHelpOptions = true,
        description = "Run synth, table, report, export hf, import hf and runs on a small synthetic store in DIR (the"
                + " launcher's class-data archive training run).")
final class TrainArchiveCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Parameters(index = "0", paramLabel = "DIR", description = "An empty or new folder for the store and outputs.")
    Path dir;

    @Override
    public Integer call() throws IOException {
        Files.createDirectories(dir);
        String db = dir.resolve("train.duckdb").toString();
        List<List<String>> commands = List.of(
                List.of("--db", db, "synth", "--tasks", "300", "--rounds", "2"),
                List.of("--db", db, "table", "--agent", "claude_code", "--format", "csv"),
                List.of("--db", db, "report", "--out", dir.resolve("report.md").toString()),
                List.of("--db", db, "export", "hf", "--out", dir.resolve("hf").toString()),
                List.of("--db", dir.resolve("hf.duckdb").toString(), "import", "hf",
                        dir.resolve("hf/data/train-00000-of-00001.parquet").toString()),
                List.of("--db", db, "runs", "--commit", "0000", "--format", "csv"));
        for (List<String> args : commands) {
            StringWriter text = new StringWriter();
            try (PrintWriter out = new PrintWriter(text)) {
                int code = Main.run(out, out, args.toArray(String[]::new));
                if (code != Main.OK) {
                    throw new IllegalStateException("training run " + String.join(" ", args)
                            + " ended with exit code " + code + ": " + text);
                }
            }
        }
        main.out.println("trained on " + commands.size() + " commands in " + dir);
        return Main.OK;
    }
}
