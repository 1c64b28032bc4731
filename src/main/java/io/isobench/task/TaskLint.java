package io.isobench.task;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code isobench tasks lint}: lints the perf_commands of a suite, of ISO-Bench data (full_results.jsonl, the HF
 * table as parquet/jsonl/csv) or of a text file with one command per line. Findings are outcomes; only an
 * unreadable input is an error ({@link IsobenchException.BadInput}).
 */
public final class TaskLint {

    /**
     * One linted command.
     *
     * @param id      the task id, the commit's first 8 hex digits, or {@code line N}
     * @param source  {@code file:line} it came from
     * @param command the parse, with findings
     */
    public record Linted(String id, String source, ParsedPerfCommand command) {
        public boolean runnable() {
            return !command.hasErrors();
        }
    }

    private TaskLint() {
    }

    /** Lints a file, detecting its kind from the name (.yaml/.yml suite, .jsonl/.json/.parquet/.csv rows, else text). */
    public static List<Linted> lintFile(Path file) {
        if (!Files.isRegularFile(file)) {
            throw IsobenchException.badInput("%s: no such file (fix: a suite .yaml, an ISO-Bench full_results.jsonl,"
                    + " an HF table .parquet/.csv/.jsonl, or a text file with one perf_command per line)", file);
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            return lintSuite(SuiteLoader.load(file, false));
        }
        if (name.endsWith(".jsonl") || name.endsWith(".json") || name.endsWith(".parquet") || name.endsWith(".csv")) {
            return lintRows(file);
        }
        return lintText(file);
    }

    public static List<Linted> lintSuite(Suite suite) {
        String label = suite.file() == null ? "suite" : suite.file().toString();
        return suite.tasks().stream()
                .map(t -> new Linted(t.id(), label + ":" + t.line(), t.parsedCommand()))
                .toList();
    }

    /** ISO-Bench rows: the row's model, benchmark_mode and gpu_config are checked against the command. */
    public static List<Linted> lintRows(Path file) {
        List<Linted> out = new ArrayList<>();
        for (IsoBenchRows.Row r : IsoBenchRows.read(file)) {
            String id = IsoBenchRows.blank(r.commit()) ? "row " + r.line()
                    : r.commit().substring(0, Math.min(8, r.commit().length()));
            out.add(new Linted(id, file + ":" + r.line(),
                    PerfCommand.parse(r.perfCommand(), new PerfCommand.Hints(r.model(), r.modeLabel(), r.gpus()))));
        }
        return out;
    }

    /** One command per line; blank lines and lines starting with '#' are skipped. */
    public static List<Linted> lintText(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": cannot read (" + e.getMessage() + ")", e);
        }
        List<Linted> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            out.add(new Linted("line " + (i + 1), file + ":" + (i + 1), PerfCommand.parse(l)));
        }
        return out;
    }
}
