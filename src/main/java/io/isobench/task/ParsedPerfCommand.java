package io.isobench.task;

import io.isobench.Mode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A perf_command understood: what it runs, in which mode, on which model and how many GPUs, how its flags split
 * between server and client (serving), and what is wrong with it. Built by {@link PerfCommandParser}, or by
 * {@link #declared} for a command a generic task declares.
 *
 * @param raw               the command as given
 * @param env               the {@code VAR=value} prefix, in order
 * @param argv              the command words after the env prefix (the benchmark segment when the command chains
 *                          several; never run through a shell)
 * @param tool              the benchmark entry point
 * @param script            the script path or CLI as written ({@code benchmarks/benchmark_serving.py},
 *                          {@code vllm bench serve}); null when none was found
 * @param interpreter       {@code python}, {@code python3}… as written; null for the {@code vllm} CLI
 * @param mode              the mode the command runs; null when unknown
 * @param model             the model ({@code --model}, else the task's model); null when neither names one
 * @param modelFromTask     true when {@code model} came from the task, not from the command
 * @param flags             all flags in order, aliases resolved ({@code -tp} → {@code --tensor-parallel-size})
 * @param tensorParallelSize  {@code --tensor-parallel-size}/{@code -tp}, default 1
 * @param pipelineParallelSize {@code --pipeline-parallel-size}/{@code -pp}, default 1
 * @param dataParallelSize  {@code --data-parallel-size}/{@code -dp}, default 1
 * @param modelSize         the size estimate; null when the name gives no hint
 * @param serverFlags       the flags for the server (canonical names): serving — every flag that is not the client's,
 *                          forwarded, never stripped; offline — the engine flags, so that a server started for the
 *                          correctness gate runs the same engine configuration
 * @param client            serving only: the client workload in {@code vllm bench serve} names; null otherwise
 * @param findings          lint findings, errors first
 */
public record ParsedPerfCommand(
        String raw,
        Map<String, String> env,
        List<String> argv,
        Tool tool,
        String script,
        String interpreter,
        Mode mode,
        String model,
        boolean modelFromTask,
        List<Flag> flags,
        int tensorParallelSize,
        int pipelineParallelSize,
        int dataParallelSize,
        ModelSize modelSize,
        List<String> serverFlags,
        ClientConfig client,
        List<Finding> findings) {

    /**
     * Offline modes: the benchmark argv to run — the command as written (env prefix excluded: see {@link #env()}),
     * plus {@code --model M} when the model came from the task. Serving tasks run isobench's client instead.
     */
    public List<String> benchmarkArgv() {
        if (!modelFromTask || model == null) {
            return argv;
        }
        List<String> out = new ArrayList<>(argv);
        out.add("--model");
        out.add(model);
        return List.copyOf(out);
    }

    /** The OpenAI-compatible server module every serving arm starts. */
    public static final String SERVER_MODULE = "vllm.entrypoints.openai.api_server";

    /** A parsed flag: canonical name, value (null when it has none) and the spelling as written. */
    public record Flag(String name, String value, String written) {
        public Flag {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(written, "written");
        }
    }

    public ParsedPerfCommand {
        Objects.requireNonNull(tool, "tool");
        env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
        argv = List.copyOf(argv);
        flags = List.copyOf(flags);
        serverFlags = List.copyOf(serverFlags);
        findings = List.copyOf(findings);
    }

    /**
     * A command declared rather than parsed (a generic task): run as written with {@link Tool#OTHER_SCRIPT}, no env
     * prefix, no flags, one GPU, no size estimate, no server flags and no findings.
     *
     * @param display the command as shown
     * @param argv    the words to run; the first is the script
     * @param mode    the mode it runs
     * @param model   its model, or null
     * @param client  serving only: the client workload; null otherwise
     */
    static ParsedPerfCommand declared(String display, List<String> argv, Mode mode, String model,
                                      ClientConfig client) {
        return new ParsedPerfCommand(display, Map.of(), argv, Tool.OTHER_SCRIPT, argv.get(0), null, mode, model,
                false, List.of(), 1, 1, 1, null, List.of(), client, List.of());
    }

    /** GPUs the command uses: tensor × pipeline × data parallel size. */
    public int gpus() {
        return tensorParallelSize * pipelineParallelSize * dataParallelSize;
    }

    /** GPUs one model replica spans (tensor × pipeline): what its weights are spread over. */
    public int gpusPerReplica() {
        return tensorParallelSize * pipelineParallelSize;
    }

    public Optional<Mode> modeIfKnown() {
        return Optional.ofNullable(mode);
    }

    public boolean isServing() {
        return mode == Mode.SERVING;
    }

    public boolean hasErrors() {
        return findings.stream().anyMatch(Finding::isError);
    }

    public List<Finding> errors() {
        return findings.stream().filter(Finding::isError).toList();
    }

    /** The last value of a flag (canonical name); "" for a flag without a value; empty when absent. */
    public Optional<String> flag(String name) {
        String found = null;
        for (Flag f : flags) {
            if (f.name.equals(name)) {
                found = f.value == null ? "" : f.value;
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * The server command, without host and port:
     * {@code python -m vllm.entrypoints.openai.api_server --model M <server flags>}. Serving tasks are measured
     * against it; offline tasks need it only for the correctness gate. Empty when there is no model or no
     * recognised benchmark.
     */
    public List<String> serverArgv() {
        if (mode == null || model == null) {
            return List.of();
        }
        return server(interpreter, model, serverFlags);
    }

    /**
     * The server command with its host and port slots: {@link #serverArgv()} then
     * {@code --host {host} --port {port}} ({@link Word.Slot}); empty when {@link #serverArgv()} is.
     */
    public List<Word> server() {
        List<String> base = serverArgv();
        return base.isEmpty() ? List.of() : bind(base);
    }

    /** The engine's default server for {@code model} with {@code flags}, with its host and port slots. */
    static List<Word> defaultServer(String model, List<String> flags) {
        return bind(server(null, model, flags));
    }

    private static List<String> server(String interpreter, String model, List<String> flags) {
        List<String> out = new ArrayList<>();
        out.add(interpreter != null ? interpreter : "python3");
        out.add("-m");
        out.add(SERVER_MODULE);
        out.add("--model");
        out.add(model);
        out.addAll(flags);
        return List.copyOf(out);
    }

    private static List<Word> bind(List<String> base) {
        List<Word> out = new ArrayList<>(Word.literal(base));
        out.add(Word.text("--host"));
        out.add(Word.HOST);
        out.add(Word.text("--port"));
        out.add(Word.PORT);
        return List.copyOf(out);
    }
}
