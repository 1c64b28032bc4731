package io.isobench.task;

import io.isobench.engine.Engines;
import io.isobench.engine.EntryPoint;
import io.isobench.engine.VllmFlags;
import io.isobench.guard.Secrets;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import static io.isobench.task.PerfCommand.baseName;
import static io.isobench.task.PerfCommand.isFlagLike;
import static io.isobench.task.PerfCommand.isUserPath;
import static io.isobench.task.PerfCommand.needsValue;
import static io.isobench.task.PerfCommand.redact;
import static io.isobench.task.PerfCommand.usable;

/**
 * Reads one perf_command: tokenises it without a shell, takes the environment assignments, classifies the program
 * (another engine's tool by its adapter's dialect, {@code engine.Engines#toolOf}; else vllm bench, a benchmarks/
 * script, another script), reads its flags in that dialect and its model, splits vLLM's flags between server and
 * client, runs the lint checks of {@link PerfCommandChecks}, and builds the {@link ParsedPerfCommand}.
 */
final class PerfCommandParser extends PerfCommandChecks {

    private static final Pattern PYTHON = Pattern.compile("python(\\d+(\\.\\d+)?)?");
    private static final Pattern ENV_ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*", Pattern.DOTALL);
    private static final Pattern SCRIPT_NAME = Pattern.compile("benchmark_(serving|throughput|latency|prefix_caching)\\.py");

    PerfCommandParser(String raw, PerfCommand.Hints hints) {
        super(raw, hints);
    }

    ParsedPerfCommand run() {
        if (raw == null || raw.isBlank()) {
            error("NO_PERF_COMMAND", "the task has no perf_command (fix: give one, e.g."
                    + " python benchmarks/benchmark_serving.py --model ORG/NAME --dataset-name random)");
            return build();
        }
        if (Secrets.contains(raw)) {
            error("SECRET_IN_COMMAND", "the command contains a token or API key (redacted here)"
                    + " (fix: remove it; pass secrets through the environment of the executor)");
        }
        Shell.Result sh = Shell.tokenize(raw.strip());
        if (sh.error() != null) {
            error("SHELL_SYNTAX", sh.error() + " (fix: close the quote)");
        }
        if (!sh.operators().isEmpty()) {
            error("SHELL_OPERATOR", "shell operators " + String.join(" ", new LinkedHashSet<>(sh.operators()))
                    + " need a shell; isobench runs one command as an argv list, never through a shell"
                    + " (fix: keep only the benchmark command; environment setup belongs in the suite)");
        }
        if (!sh.expansions().isEmpty()) {
            sawExpansion = true;
            error("SHELL_EXPANSION", "shell expansion " + String.join(", ", new LinkedHashSet<>(sh.expansions()))
                    + " would need a shell and a value; isobench expands nothing (fix: write the value)");
        }
        List<Shell.Word> words = chooseSegment(sh.segments());
        int i = 0;
        if (!words.isEmpty() && words.get(0).text().equals("env") && !words.get(0).quoted()) {
            i = 1;
        }
        while (i < words.size() && !words.get(i).text().startsWith("=")
                && ENV_ASSIGNMENT.matcher(words.get(i).text()).matches()) {
            String t = words.get(i).text();
            int eq = t.indexOf('=');
            env.put(t.substring(0, eq), t.substring(eq + 1));
            i++;
        }
        checkEnv();
        List<String> rest = new ArrayList<>();
        for (int k = i; k < words.size(); k++) {
            rest.add(words.get(k).text());
        }
        argv = rest;
        if (rest.isEmpty()) {
            error("UNSUPPORTED_COMMAND", "the command holds only environment assignments, no program");
            return build();
        }
        int argsStart = classify(rest);
        if (argsStart >= 0) {
            parseFlags(rest, argsStart);
            resolveModel();
            checkMode();
            if (foreign != null) {
                routeForeign();
            } else {
                routeFlags();
            }
            checkValues();
            checkDataset();
            checkGpus();
        }
        return build();
    }

    private List<Shell.Word> chooseSegment(List<List<Shell.Word>> segments) {
        for (List<Shell.Word> seg : segments) {
            for (Shell.Word w : seg) {
                if (ENV_ASSIGNMENT.matcher(w.text()).matches() || w.text().equals("env")) {
                    continue;
                }
                String base = baseName(w.text());
                if (PYTHON.matcher(base).matches() || base.equals("vllm")) {
                    return seg;
                }
                break;
            }
        }
        return segments.isEmpty() ? List.of() : segments.get(0);
    }

    /** Sets tool/script/interpreter; returns the index where flags start, or -1 when there is nothing to parse. */
    private int classify(List<String> w) {
        Optional<EntryPoint> other = Engines.toolOf(w).filter(e -> !e.engine().equals(Engines.DEFAULT));
        if (other.isPresent()) {
            return classifyForeign(other.get());
        }
        String first = w.get(0);
        String base = baseName(first);
        if (PYTHON.matcher(base).matches()) {
            interpreter = first;
            if (isUserPath(first)) {
                error("ABSOLUTE_PATH", "interpreter " + first + " is a path on one machine (fix: python3)");
            }
            int i = 1;
            while (i < w.size() && w.get(i).startsWith("-") && !w.get(i).equals("-m")) {
                i += (w.get(i).equals("-X") || w.get(i).equals("-W")) ? 2 : 1;
            }
            if (i >= w.size()) {
                error("UNSUPPORTED_COMMAND", "`" + first + "` runs no script (fix: python benchmarks/benchmark_serving.py …)");
                return -1;
            }
            if (w.get(i).equals("-m")) {
                String module = i + 1 < w.size() ? w.get(i + 1) : "";
                script = "-m " + module;
                if (module.startsWith("vllm.entrypoints")) {
                    error("NOT_A_BENCHMARK", "`-m " + module + "` starts a server, not a benchmark; isobench starts"
                            + " the server itself (fix: give the client command, e.g. vllm bench serve --model M …)");
                } else {
                    error("UNSUPPORTED_COMMAND", "module " + module + " is not a vLLM benchmark isobench can run"
                            + " (supported: benchmarks/benchmark_{serving,throughput,latency,prefix_caching}.py,"
                            + " vllm bench serve|throughput|latency)");
                }
                return -1;
            }
            classifyScript(w.get(i));
            return i + 1;
        }
        if (base.equals("vllm")) {
            if (w.size() >= 3 && w.get(1).equals("bench")) {
                switch (w.get(2)) {
                    case "serve" -> tool = Tool.VLLM_BENCH_SERVE;
                    case "throughput" -> tool = Tool.VLLM_BENCH_THROUGHPUT;
                    case "latency" -> tool = Tool.VLLM_BENCH_LATENCY;
                    default -> {
                        script = "vllm bench " + w.get(2);
                        error("UNSUPPORTED_COMMAND", "`vllm bench " + w.get(2) + "` has no isobench adapter"
                                + " (supported: vllm bench serve|throughput|latency)");
                        return -1;
                    }
                }
                script = "vllm bench " + w.get(2);
                return 3;
            }
            if (w.size() >= 2 && w.get(1).equals("serve")) {
                script = "vllm serve";
                error("NOT_A_BENCHMARK", "`vllm serve` starts a server, not a benchmark; isobench starts the server"
                        + " itself (fix: give the client command, e.g. vllm bench serve --model M …)");
                return -1;
            }
            error("UNSUPPORTED_COMMAND", "`" + String.join(" ", w.subList(0, Math.min(2, w.size())))
                    + "` is not a vLLM benchmark (supported: vllm bench serve|throughput|latency)");
            return -1;
        }
        error("UNSUPPORTED_COMMAND", "`" + first + "` is not a vLLM benchmark (expected python"
                + " benchmarks/benchmark_{serving,throughput,latency,prefix_caching}.py or vllm bench serve|throughput|latency)");
        return -1;
    }

    /** Another engine's program: read in its adapter's dialect; a program that is not a benchmark stops here. */
    private int classifyForeign(EntryPoint e) {
        foreign = e;
        dialect = Engines.named(e.engine()).orElseThrow().dialect();
        tool = Tool.OTHER_SCRIPT;
        script = e.tool();
        if (!e.benchmark()) {
            error("NOT_A_BENCHMARK", "`" + e.tool() + "` is " + e.engine() + "'s, not one of its benchmarks; isobench"
                    + " starts the server itself (fix: give the benchmark command, e.g. python -m sglang.bench_serving"
                    + " --model M …)");
            return -1;
        }
        return e.argsStart();
    }

    /**
     * Another engine's benchmark: a flag its tool does not accept is a warning (the tables cover the common flags
     * of many versions); then the one error that keeps the task from running: isobench lints and parses this
     * engine's tools, it has no runner for them (docs/engines.md).
     */
    private void routeForeign() {
        Set<String> accepted = dialect.accepted(foreign);
        for (ParsedPerfCommand.Flag f : flags) {
            if (!accepted.contains(f.name())) {
                warning("UNKNOWN_FLAG", f.written() + " is not a known flag of " + foreign.engine() + "'s "
                        + foreign.tool() + nearest(f.name()));
            }
        }
        error("ENGINE_NOT_RUN", "isobench lints and parses " + foreign.engine() + "'s " + foreign.tool()
                + " but does not run it (fix: a vLLM-dialect command, e.g. vllm bench serve, or an engine: generic"
                + " task; docs/engines.md)");
    }

    private void classifyScript(String path) {
        script = path;
        String base = baseName(path);
        var m = SCRIPT_NAME.matcher(base);
        if (!m.matches()) {
            tool = Tool.OTHER_SCRIPT;
            error("UNSUPPORTED_SCRIPT", "script " + path + " has no isobench adapter (supported:"
                    + " benchmarks/benchmark_{serving,throughput,latency,prefix_caching}.py, vllm bench serve|throughput|latency)");
            if (path.startsWith("/") || path.startsWith("~")) {
                error("ABSOLUTE_PATH", "script path " + path + " is a path on one machine (fix: a path relative to the engine repo)");
            }
            return;
        }
        tool = switch (m.group(1)) {
            case "serving" -> Tool.BENCHMARK_SERVING;
            case "throughput" -> Tool.BENCHMARK_THROUGHPUT;
            case "latency" -> Tool.BENCHMARK_LATENCY;
            default -> Tool.BENCHMARK_PREFIX_CACHING;
        };
        if (path.startsWith("/") || path.startsWith("~")) {
            error("ABSOLUTE_PATH", "script path " + path + " is a path on one machine (fix: the repo-relative "
                    + tool.canonical() + ")");
            return;
        }
        String rel = path.startsWith("./") ? path.substring(2) : path;
        if (!rel.equals("benchmarks/" + base)) {
            error("WRONG_SCRIPT_DIR", "script " + path + " is not where vLLM keeps it (fix: " + tool.canonical() + ")");
        }
    }

    private void parseFlags(List<String> w, int start) {
        List<String> stray = new ArrayList<>();
        for (int k = start; k < w.size(); k++) {
            String t = w.get(k);
            if (!isFlagLike(t)) {
                stray.add(t);
                continue;
            }
            String name = t;
            String value = null;
            int eq = t.indexOf('=');
            if (eq > 0) {
                name = t.substring(0, eq);
                value = t.substring(eq + 1);
            }
            if (value == null && name.matches("-O[0-3]")) { // -O3: compilation level, value attached
                value = name.substring(2);
                name = "-O";
            }
            String canonical = dialect.canonical(foreign, name);
            if (value == null && k + 1 < w.size() && !isFlagLike(w.get(k + 1))) {
                String next = w.get(k + 1);
                if (dialect.isBoolean(canonical)) {
                    // stays stray: argparse rejects a value after a store_true flag
                } else if (dialect.isOptionalBoolean(canonical)) {
                    if (next.equalsIgnoreCase("true") || next.equalsIgnoreCase("false")) {
                        value = next;
                        k++;
                    }
                } else {
                    value = next;
                    k++;
                    // nargs="+": every following word up to the next flag is a value too (one value, space-joined)
                    while (dialect.isMultiValue(canonical) && k + 1 < w.size() && !isFlagLike(w.get(k + 1))) {
                        value = value + " " + w.get(++k);
                    }
                }
            }
            if (value == null && eq < 0 && needsValue(dialect, canonical)) {
                error("MISSING_VALUE", "flag " + name + " needs a value");
            }
            flags.add(new ParsedPerfCommand.Flag(canonical, value, name));
        }
        if (!stray.isEmpty()) {
            error("UNEXPECTED_ARGUMENT", "stray argument(s) " + String.join(" ", stray)
                    + ": the script would stop with 'unrecognized arguments'");
        }
    }

    private void resolveModel() {
        Optional<String> m = lastValue("--model");
        if (m.isEmpty() && foreign != null) {
            m = lastValue("--model-path"); // SGLang's offline tools name the model as the server does
        }
        String hinted = usable(hints.model()) ? hints.model().trim() : null;
        if (m.isPresent() && !m.get().isBlank()) {
            model = isPlaceholder("--model", m.get()) ? null : m.get();
            if (model != null && hinted != null && !hinted.equalsIgnoreCase(model)) {
                warning("MODEL_MISMATCH", "the command runs " + model + " but the task says " + hinted
                        + " (the command wins; fix whichever is wrong)");
            }
            return;
        }
        if (m.isEmpty() && hinted != null) {
            model = hinted;
            modelFromTask = true;
            warning("MISSING_MODEL", "the command has no --model; the task's model " + hinted + " is used");
            return;
        }
        if (m.isEmpty()) {
            if (tool.isServing()) {
                error("MISSING_MODEL", "the command has no --model; the server and the client need one"
                        + " (fix: add --model ORG/NAME)");
            } else if (tool != Tool.OTHER_SCRIPT && tool != Tool.NONE) {
                warning("MISSING_MODEL", "the command has no --model; vLLM's script falls back to"
                        + " facebook/opt-125m, probably not the model the commit targets (fix: add --model ORG/NAME)");
            }
        }
    }

    private void routeFlags() {
        if (tool.isServing()) {
            if (model != null) {
                clientFlags.add(new ClientConfig.Flag("--model", model));
            }
            for (ParsedPerfCommand.Flag f : flags) {
                String n = f.name();
                if (n.equals("--model")) {
                    continue;
                }
                if (VllmFlags.SERVING_ENDPOINT.contains(n)) {
                    warning("ENDPOINT_IGNORED", f.written() + (f.value() == null ? "" : " " + f.value())
                            + " is ignored: isobench starts the server on a host and port it chooses");
                } else if (VllmFlags.SERVING_BOTH.contains(n)) {
                    clientFlags.add(new ClientConfig.Flag(n, f.value()));
                    addServer(f);
                } else if (VllmFlags.SERVING_CLIENT.contains(n)) {
                    clientFlags.add(new ClientConfig.Flag(VllmFlags.CLIENT_RENAMES.getOrDefault(n, n), f.value()));
                } else if (VllmFlags.OFFLINE_ONLY.contains(n)) {
                    String fix = VllmFlags.SERVING_REPLACEMENT.get(n);
                    error("INVALID_FLAG", f.written() + " is a flag of the offline benchmarks; " + describeTool()
                            + " rejects it" + (fix == null ? "" : " (fix: " + fix + ")"));
                } else if (VllmFlags.ENGINE.contains(n)) {
                    addServer(f);
                } else {
                    warning("UNKNOWN_FLAG", f.written() + " is not a known vLLM flag" + nearest(n)
                            + "; forwarded to the server as written");
                    addServer(f);
                }
            }
            return;
        }
        Set<String> scriptFlags = switch (tool) {
            case BENCHMARK_LATENCY, VLLM_BENCH_LATENCY -> VllmFlags.LATENCY_SCRIPT;
            case BENCHMARK_THROUGHPUT, VLLM_BENCH_THROUGHPUT -> VllmFlags.THROUGHPUT_SCRIPT;
            case BENCHMARK_PREFIX_CACHING -> VllmFlags.PREFIX_CACHING_SCRIPT;
            default -> null;
        };
        if (scriptFlags == null) {
            return;
        }
        for (ParsedPerfCommand.Flag f : flags) {
            String n = f.name();
            if (VllmFlags.ENGINE.contains(n) && !scriptFlags.contains(n) && !n.equals("--model")) {
                addServer(f); // engine flags: the server for the correctness gate runs with the same engine config
            }
            if (scriptFlags.contains(n) || VllmFlags.ENGINE.contains(n)) {
                continue;
            }
            if (VllmFlags.SERVING_CLIENT.contains(n)) {
                error("INVALID_FLAG", f.written() + " is a serving-client flag; " + describeTool() + " rejects it");
            } else {
                warning("UNKNOWN_FLAG", f.written() + " is not a known flag of " + describeTool() + nearest(n));
            }
        }
    }

    private void addServer(ParsedPerfCommand.Flag f) {
        serverFlags.add(f.name());
        if (f.value() != null) {
            serverFlags.add(f.value());
        }
    }

    private ParsedPerfCommand build() {
        findings.sort(Comparator.comparing((Finding f) -> f.severity().ordinal()));
        int tp = intFlag("--tensor-parallel-size");
        int pp = intFlag("--pipeline-parallel-size");
        int dp = intFlag("--data-parallel-size");
        ModelSize size = model == null ? null
                : ModelSize.estimate(model, lastValue("--quantization").orElse(null)).orElse(null);
        List<String> redactedArgv = Secrets.argv(argv);
        return new ParsedPerfCommand(redact(raw), env, redactedArgv, tool, script, interpreter,
                mode().orElse(null), model, modelFromTask, flags, tp, pp, dp, size,
                serverFlags,
                tool.isServing() ? new ClientConfig(clientFlags) : null, findings);
    }
}
