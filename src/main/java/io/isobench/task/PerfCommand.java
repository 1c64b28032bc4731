package io.isobench.task;

import io.isobench.Mode;
import io.isobench.guard.Secrets;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The vLLM perf_command adapter: {@link #parse(String)} turns a command line (as ISO-Bench and suites write it) into a
 * {@link ParsedPerfCommand} — tool, mode, model, GPU count, server/client flag split, lint findings — without ever
 * running a shell.
 */
public final class PerfCommand {

    /**
     * What the task says about itself, checked against the command: the task's model, its mode label
     * ({@code serving|throughput|latency|prefix_caching}, or ISO-Bench's {@code standalone}) and its GPU count.
     * Any of them may be null.
     */
    public record Hints(String model, String modeLabel, Integer gpus) {
        public static final Hints NONE = new Hints(null, null, null);
    }

    private static final Pattern PYTHON = Pattern.compile("python(\\d+(\\.\\d+)?)?");
    private static final Pattern ENV_ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*", Pattern.DOTALL);
    private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
    private static final Pattern ALL_CAPS = Pattern.compile("[A-Z][A-Z0-9_]*[A-Z0-9]");
    private static final Pattern ANGLE_OR_BRACE = Pattern.compile(
            "<[A-Za-z_][A-Za-z0-9_ -]*>|\\{[A-Za-z_][A-Za-z0-9_]*}|\\$\\{?[A-Za-z_][A-Za-z0-9_]*}?");
    private static final Pattern SCRIPT_NAME = Pattern.compile("benchmark_(serving|throughput|latency|prefix_caching)\\.py");
    private static final Set<String> FREE_TEXT_FLAGS = Set.of("--label", "--result-filename", "--metadata",
            "--request-id-prefix", "--header", "--served-model-name", "--result-dir");
    private static final Set<String> DATASET_FILE_NAMES = Set.of("sharegpt", "sonnet", "custom", "burstgpt");

    private PerfCommand() {
    }

    public static ParsedPerfCommand parse(String raw) {
        return parse(raw, Hints.NONE);
    }

    public static ParsedPerfCommand parse(String raw, Hints hints) {
        return new Parser(raw, hints == null ? Hints.NONE : hints).run();
    }

    /** A command line with its secrets hidden ({@link Secrets}, the one redactor). */
    public static String redact(String text) {
        return Secrets.redact(text);
    }

    private static final class Parser {
        private final String raw;
        private final Hints hints;
        private final List<Finding> findings = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<ParsedPerfCommand.Flag> flags = new ArrayList<>();
        private final List<String> serverFlags = new ArrayList<>();
        private final List<ClientConfig.Flag> clientFlags = new ArrayList<>();
        private List<String> argv = List.of();
        private Tool tool = Tool.NONE;
        private String script;
        private String interpreter;
        private String model;
        private boolean modelFromTask;
        private boolean sawExpansion;

        Parser(String raw, Hints hints) {
            this.raw = raw;
            this.hints = hints;
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
                error("SHELL_OPERATOR", "shell operators " + String.join(" ", new java.util.LinkedHashSet<>(sh.operators()))
                        + " need a shell; isobench runs one command as an argv list, never through a shell"
                        + " (fix: keep only the benchmark command; environment setup belongs in the suite)");
            }
            if (!sh.expansions().isEmpty()) {
                sawExpansion = true;
                error("SHELL_EXPANSION", "shell expansion " + String.join(", ", new java.util.LinkedHashSet<>(sh.expansions()))
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
                routeFlags();
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

        private void checkEnv() {
            for (Map.Entry<String, String> e : env.entrySet()) {
                if (e.getKey().equals("CUDA_VISIBLE_DEVICES")) {
                    warning("ENV_GPU_PINNED", "CUDA_VISIBLE_DEVICES=" + e.getValue()
                            + " pins GPUs; isobench assigns GPUs to each job and overrides it");
                }
                if (Secrets.isSecretName(e.getKey())) {
                    e.setValue(Secrets.MASK);
                    if (findings.stream().noneMatch(f -> f.code().equals("SECRET_IN_COMMAND"))) {
                        error("SECRET_IN_COMMAND", "the command sets " + e.getKey()
                                + " (value redacted) (fix: remove it; pass secrets through the executor's environment)");
                    }
                }
            }
        }

        /** Sets tool/script/interpreter; returns the index where flags start, or -1 when there is nothing to parse. */
        private int classify(List<String> w) {
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
                String canonical = VllmFlags.ALIASES.getOrDefault(name, name);
                if (value == null && k + 1 < w.size() && !isFlagLike(w.get(k + 1))) {
                    String next = w.get(k + 1);
                    if (VllmFlags.BOOLEAN.contains(canonical)) {
                        // stays stray: argparse rejects a value after a store_true flag
                    } else if (VllmFlags.OPTIONAL_BOOLEAN.contains(canonical)) {
                        if (next.equalsIgnoreCase("true") || next.equalsIgnoreCase("false")) {
                            value = next;
                            k++;
                        }
                    } else {
                        value = next;
                        k++;
                    }
                }
                if (value == null && eq < 0 && needsValue(canonical)) {
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

        /** The tool's mode; for a command without an adapter (SGLang's bench_serving…), what its entry point names. */
        private Optional<Mode> mode() {
            return tool.mode().or(() -> Mode.ofCommand(script));
        }

        private void checkMode() {
            Optional<Mode> cmd = mode();
            String label = hints.modeLabel() == null ? "" : hints.modeLabel().trim().toLowerCase(Locale.ROOT);
            if (label.isEmpty() || cmd.isEmpty()) {
                return;
            }
            boolean ok;
            if (label.equals("standalone") || label.equals("offline")) {
                ok = cmd.get() != Mode.SERVING;
            } else {
                Optional<Mode> declared = Mode.fromLabel(label);
                if (declared.isEmpty()) {
                    warning("UNKNOWN_MODE_LABEL", "mode label '" + hints.modeLabel() + "' is not one of serving,"
                            + " throughput, latency, prefix_caching (standalone accepted); ignored");
                    return;
                }
                ok = declared.get() == cmd.get();
            }
            if (!ok) {
                error("MODE_MISMATCH", "mode label '" + hints.modeLabel() + "' contradicts the command, which runs "
                        + describeTool() + " (" + cmd.get().label() + ") (fix: correct the label or the command)");
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

        private void checkValues() {
            List<String> placeholders = new ArrayList<>();
            for (ParsedPerfCommand.Flag f : flags) {
                String v = f.value();
                if (v == null) {
                    continue;
                }
                if (isPlaceholder(f.name(), v)) {
                    placeholders.add(f.written() + " " + v);
                    continue;
                }
                if ((v.startsWith("/") || v.startsWith("~")) && !f.name().equals("--endpoint")
                        && !isDatasetFlag(f.name())) {
                    error("ABSOLUTE_PATH", f.written() + " " + v + " is a path on one machine"
                            + " (fix: a path relative to the suite or the engine repo, or drop the flag)");
                }
                if (f.name().equals("--dtype") && !VllmFlags.DTYPES.contains(v.toLowerCase(Locale.ROOT))) {
                    error("INVALID_VALUE", "--dtype " + v + " is not a vLLM dtype (auto, half, float16, bfloat16, float,"
                            + " float32)" + (v.toLowerCase(Locale.ROOT).contains("8") ? " (fix: for FP8 use --quantization fp8)" : ""));
                }
                if (VllmFlags.POSITIVE_INT.contains(f.name()) && !isInt(v, 1)) {
                    error("INVALID_VALUE", f.written() + " " + v + " must be a positive integer");
                }
                if (VllmFlags.NON_NEGATIVE_INT.contains(f.name()) && !isInt(v, 0)) {
                    error("INVALID_VALUE", f.written() + " " + v + " must be an integer >= 0");
                }
            }
            if (!placeholders.isEmpty()) {
                error("PLACEHOLDER", "placeholders left in the command: " + String.join(", ", placeholders)
                        + " (fix: replace them with real values)");
            }
        }

        private void checkDataset() {
            if (tool == Tool.OTHER_SCRIPT || tool == Tool.NONE) {
                return;
            }
            String name = lastValue("--dataset-name").orElse(null);
            String path = lastValue("--dataset-path").or(() -> lastValue("--dataset")).orElse(null);
            String pathFlag = lastValue("--dataset-path").isPresent() ? "--dataset-path" : "--dataset";
            if (path != null && !path.isEmpty() && !isPlaceholder(pathFlag, path)) {
                if (isLocalFile(path, name)) {
                    error("LOCAL_DATASET", pathFlag + " " + path + " is a local file"
                            + (path.startsWith("/") || path.startsWith("~") ? " at an absolute path on one machine" : "")
                            + ", not part of the engine repo, so the run cannot open it (fix: --dataset-name random with"
                            + " --random-input-len/--random-output-len, or an HF dataset id with --dataset-name hf)");
                } else if (!path.startsWith("benchmarks/")) {
                    warning("REMOTE_DATASET", "dataset " + path + " is downloaded from the HF hub at run time"
                            + " (needs network access and a stable revision)");
                }
            } else if (name != null && DATASET_FILE_NAMES.contains(name.toLowerCase(Locale.ROOT))
                    && tool != Tool.BENCHMARK_PREFIX_CACHING) {
                error("DATASET_PATH_MISSING", "--dataset-name " + name + " reads a local file, but the command gives"
                        + " no --dataset-path (fix: --dataset-name random with --random-input-len/--random-output-len)");
            } else if (name == null && tool == Tool.BENCHMARK_SERVING) {
                // the script's default dataset is ShareGPT, a local file: the old runs of such commands crashed with
                // "dataset_path must be provided" (`vllm bench serve` defaults to random in the versions ISO-Bench ran)
                error("DATASET_NAME_MISSING", "benchmark_serving.py has no --dataset-name, so it defaults to sharegpt,"
                        + " which needs a --dataset-path file (fix: --dataset-name random --random-input-len 1024"
                        + " --random-output-len 128, or --dataset-name sharegpt --dataset-path FILE)");
            }
        }

        private void checkGpus() {
            int tp = intFlag("--tensor-parallel-size");
            int pp = intFlag("--pipeline-parallel-size");
            int dp = intFlag("--data-parallel-size");
            int replica = tp * pp;
            int total = replica * dp;
            if (model != null) {
                Optional<ModelSize> est = ModelSize.estimate(model, lastValue("--quantization").orElse(null));
                if (est.isEmpty()) {
                    warning("MODEL_SIZE_UNKNOWN", "cannot estimate the size of " + model + " from its name; GPU needs"
                            + " assume the command's " + total + " GPU(s)");
                } else {
                    ModelSize s = est.get();
                    double capacity = replica * ModelSize.H100_MEMORY_GB;
                    String estimate = "estimate: " + ModelSize.fmt(s.paramsB()) + "B params × "
                            + ModelSize.fmt(s.bytesPerParam()) + (s.bytesPerParam() == 1.0 ? " byte ≈ " : " bytes ≈ ") + ModelSize.fmt(Math.round(s.weightsGb()))
                            + " GB of weights; " + s.basis();
                    int need = s.gpusNeeded();
                    if (s.weightsGb() > capacity) {
                        error("MODEL_TOO_LARGE", model + " is too large for " + replica + " GPU(s) of "
                                + ModelSize.fmt(ModelSize.H100_MEMORY_GB) + " GB (" + estimate + "); it needs ~" + need
                                + " (fix: --tensor-parallel-size " + need + " on " + need + " GPUs, or a smaller or"
                                + " quantized model)");
                    } else if (s.neededGb() > capacity) {
                        warning("MODEL_TIGHT", model + " barely fits " + replica + " GPU(s) of "
                                + ModelSize.fmt(ModelSize.H100_MEMORY_GB) + " GB (" + estimate + ", +"
                                + Math.round((ModelSize.HEADROOM - 1) * 100) + "% headroom); ~" + need + " suggested");
                    }
                }
            }
            Integer declared = hints.gpus();
            if (declared != null && declared > 0) {
                if (declared < total) {
                    error("GPU_CONFIG_TOO_SMALL", "the task declares " + declared + " GPU(s) but the command uses "
                            + total + " (" + parallelism(tp, pp, dp) + ")");
                } else if (declared > total) {
                    warning("GPU_CONFIG_UNUSED", "the task declares " + declared + " GPUs but the command uses "
                            + total + " (" + parallelism(tp, pp, dp) + ") (fix: add --tensor-parallel-size "
                            + declared + " or declare " + total + ")");
                }
            }
        }

        private static String parallelism(int tp, int pp, int dp) {
            if (tp == 1 && pp == 1 && dp == 1) {
                return "no --tensor-parallel-size";
            }
            StringBuilder b = new StringBuilder("tensor-parallel-size " + tp);
            if (pp > 1) {
                b.append(", pipeline-parallel-size ").append(pp);
            }
            if (dp > 1) {
                b.append(", data-parallel-size ").append(dp);
            }
            return b.toString();
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

        // --- helpers ---

        private String describeTool() {
            return script != null ? script : tool.name();
        }

        private Optional<String> lastValue(String name) {
            String found = null;
            boolean present = false;
            for (ParsedPerfCommand.Flag f : flags) {
                if (f.name().equals(name)) {
                    found = f.value();
                    present = true;
                }
            }
            return present ? Optional.of(found == null ? "" : found) : Optional.empty();
        }

        private int intFlag(String name) {
            Optional<String> v = lastValue(name);
            if (v.isEmpty() || !isInt(v.get(), 1)) {
                return 1;
            }
            return Integer.parseInt(v.get().trim());
        }

        private boolean isPlaceholder(String flag, String v) {
            if (sawExpansion && v.contains("$")) {
                return false; // already reported as a shell expansion
            }
            if (ANGLE_OR_BRACE.matcher(v).matches()) {
                return true;
            }
            return !FREE_TEXT_FLAGS.contains(flag) && ALL_CAPS.matcher(v).matches();
        }

        private String nearest(String name) {
            return Nearest.of(name, VllmFlags.allKnown()).map(n -> " (nearest: " + n + ")").orElse("");
        }

        private void error(String code, String message) {
            findings.add(Finding.error(code, message));
        }

        private void warning(String code, String message) {
            findings.add(Finding.warning(code, message));
        }
    }

    static boolean usable(String model) {
        return model != null && !model.isBlank() && !model.trim().equalsIgnoreCase("unknown")
                && !model.trim().equalsIgnoreCase("n/a");
    }

    private static boolean isFlagLike(String t) {
        return t.length() > 1 && t.startsWith("-") && !NUMBER.matcher(t).matches();
    }

    private static boolean needsValue(String canonical) {
        return !VllmFlags.BOOLEAN.contains(canonical) && !VllmFlags.OPTIONAL_BOOLEAN.contains(canonical)
                && VllmFlags.allKnown().contains(canonical);
    }

    private static boolean isInt(String v, int min) {
        try {
            return Integer.parseInt(v.trim()) >= min;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean isDatasetFlag(String name) {
        return name.equals("--dataset-path") || name.equals("--dataset");
    }

    private static boolean isLocalFile(String path, String datasetName) {
        if (path.startsWith("/") || path.startsWith("~") || path.startsWith("./") || path.startsWith("../")) {
            return true;
        }
        if (path.startsWith("benchmarks/")) {
            return false; // shipped with the engine repo (e.g. benchmarks/sonnet.txt)
        }
        String lower = path.toLowerCase(Locale.ROOT);
        if (lower.matches(".*\\.(json|jsonl|csv|txt|parquet|arrow|tsv)$")) {
            return true;
        }
        return datasetName != null && DATASET_FILE_NAMES.contains(datasetName.toLowerCase(Locale.ROOT));
    }

    private static boolean isUserPath(String p) {
        return p.startsWith("~") || p.matches("/(home|Users|root|data|mnt|scratch|workspace|nfs)/.*");
    }

    private static String baseName(String p) {
        int slash = p.lastIndexOf('/');
        return slash < 0 ? p : p.substring(slash + 1);
    }
}
