package io.isobench.task;

import io.isobench.Mode;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One task: a performance commit and how to measure it.
 *
 * @param id            unique within the suite ({@code [A-Za-z0-9._-]+}), e.g. the commit's first 8 hex digits
 * @param humanCommit   the merged commit (the human arm)
 * @param parentCommit  the baseline commit; null means the human commit's first parent
 * @param perfCommand   the benchmark command; null or blank is linted as {@code NO_PERF_COMMAND}
 * @param model         the model the task targets; null to take it from the command
 * @param modeLabel     serving|throughput|latency|prefix_caching (or ISO-Bench's standalone); null to infer
 * @param serverCommand server template for serving tasks ({@code {model} {host} {port} {server_flags}}); null for
 *                      {@code python -m vllm.entrypoints.openai.api_server}
 * @param gpus          GPUs the task needs; null to derive them from the command and the model
 * @param timeoutS      per-run limit overriding the suite's; null for the suite's
 * @param correctness   the greedy-output gate; null when the task has none
 * @param line          the line of the task in the suite file (1-based); 0 when built in memory
 * @param build         this task's build argv, overriding {@code engine.build}; empty = no build; null = the engine's
 */
public record TaskSpec(String id, String humanCommit, String parentCommit, String perfCommand, String model,
                       String modeLabel, String serverCommand, Integer gpus, Integer timeoutS,
                       Correctness correctness, int line, List<String> build) {

    /** A task that uses the engine's build step. */
    public TaskSpec(String id, String humanCommit, String parentCommit, String perfCommand, String model,
                    String modeLabel, String serverCommand, Integer gpus, Integer timeoutS, Correctness correctness,
                    int line) {
        this(id, humanCommit, parentCommit, perfCommand, model, modeLabel, serverCommand, gpus, timeoutS, correctness,
                line, null);
    }

    /** Greedy outputs of each arm compared with the baseline's: {@code prompts} prompts × {@code maxTokens}. */
    public record Correctness(int prompts, int maxTokens, double tolerance) {
        public static final Correctness DEFAULT = new Correctness(8, 32, 0.0);

        public Correctness {
            if (prompts < 1) {
                throw new IllegalArgumentException("prompts (" + prompts + ") must be >= 1");
            }
            if (maxTokens < 1) {
                throw new IllegalArgumentException("maxTokens (" + maxTokens + ") must be >= 1");
            }
            if (!(tolerance >= 0 && tolerance <= 1)) {
                throw new IllegalArgumentException("tolerance (" + tolerance + ") must be in 0..1");
            }
        }
    }

    public TaskSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(humanCommit, "humanCommit");
        build = build == null ? null : List.copyOf(build);
    }

    /** The perf_command parsed and linted against this task's model, mode label and GPU count. */
    public ParsedPerfCommand parsedCommand() {
        return PerfCommand.parse(perfCommand, new PerfCommand.Hints(model, modeLabel, gpus));
    }

    /** The mode the task runs: the command's; else the declared label when it names one mode. */
    public Optional<Mode> mode() {
        Optional<Mode> fromCommand = parsedCommand().modeIfKnown();
        return fromCommand.isPresent() ? fromCommand : Mode.fromLabel(modeLabel);
    }

    /**
     * The server argv: the {@code server_command} template with {@code {model}}, {@code {host}}, {@code {port}} and
     * {@code {server_flags}} filled in, else the adapter's default. Serving tasks are measured against it; offline
     * tasks start it only for the correctness gate. Empty when the command names no model or no benchmark.
     */
    public List<String> serverArgv(String host, int port) {
        ParsedPerfCommand p = parsedCommand();
        if (serverCommand == null || serverCommand.isBlank()) {
            return p.serverArgv(host, port);
        }
        if (p.serverArgv().isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (List<Shell.Word> seg : Shell.tokenize(serverCommand).segments()) {
            for (Shell.Word w : seg) {
                if (w.text().equals("{server_flags}")) {
                    out.addAll(p.serverFlags());
                } else {
                    out.add(w.text().replace("{model}", p.model() == null ? "" : p.model())
                            .replace("{host}", host).replace("{port}", Integer.toString(port)));
                }
            }
        }
        return List.copyOf(out);
    }

    /** Template placeholders {@code server_command} may use. */
    public static final List<String> SERVER_PLACEHOLDERS = List.of("{model}", "{host}", "{port}", "{server_flags}");
}
