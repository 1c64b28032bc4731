package io.isobench.task;

import io.isobench.Mode;
import io.isobench.engine.Dialect;
import io.isobench.engine.Engines;
import io.isobench.engine.EntryPoint;
import io.isobench.engine.VllmFlags;
import io.isobench.guard.Secrets;
import io.isobench.loadgen.ServeFlags;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import static io.isobench.task.PerfCommand.DATASET_FILE_NAMES;
import static io.isobench.task.PerfCommand.isDatasetFlag;
import static io.isobench.task.PerfCommand.isInt;
import static io.isobench.task.PerfCommand.isLocalFile;

/**
 * One perf_command as {@link PerfCommandParser} reads it (environment, argv, tool, script, model, flags, the server and
 * client flag split, findings) and the lint checks over it: environment, mode label, flag values, dataset, GPU count.
 */
abstract class PerfCommandChecks {

    private static final Pattern ALL_CAPS = Pattern.compile("[A-Z][A-Z0-9_]*[A-Z0-9]");
    private static final Pattern ANGLE_OR_BRACE = Pattern.compile(
            "<[A-Za-z_][A-Za-z0-9_ -]*>|\\{[A-Za-z_][A-Za-z0-9_]*}|\\$\\{?[A-Za-z_][A-Za-z0-9_]*}?");
    private static final Set<String> FREE_TEXT_FLAGS = Set.of("--label", "--result-filename", "--metadata",
            "--request-id-prefix", "--header", "--served-model-name", "--result-dir");

    final String raw;
    final PerfCommand.Hints hints;
    final List<Finding> findings = new ArrayList<>();
    final Map<String, String> env = new LinkedHashMap<>();
    final List<ParsedPerfCommand.Flag> flags = new ArrayList<>();
    final List<String> serverFlags = new ArrayList<>();
    final List<ClientConfig.Flag> clientFlags = new ArrayList<>();
    List<String> argv = List.of();
    Tool tool = Tool.NONE;
    String script;
    String interpreter;
    String model;
    boolean modelFromTask;
    boolean sawExpansion;
    /** The dialect the flags are read in: vLLM's unless another engine's tool claims the command. */
    Dialect dialect = Engines.vllm().dialect();
    /** Another engine's tool the command runs (SGLang's bench_serving…); null for vLLM's path. */
    EntryPoint foreign;

    PerfCommandChecks(String raw, PerfCommand.Hints hints) {
        this.raw = raw;
        this.hints = hints;
    }

    void checkEnv() {
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

    /** The tool's mode; for another engine's tool, its dialect's; else what the command's entry point names. */
    Optional<Mode> mode() {
        return tool.mode().or(() -> foreign == null ? Optional.empty() : foreign.modeIfAny())
                .or(() -> Mode.ofCommand(script));
    }

    void checkMode() {
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

    void checkValues() {
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
            if (foreign == null && f.name().equals("--dtype") && !VllmFlags.DTYPES.contains(v.toLowerCase(Locale.ROOT))) {
                error("INVALID_VALUE", "--dtype " + v + " is not a vLLM dtype (auto, half, float16, bfloat16, float,"
                        + " float32)" + (v.toLowerCase(Locale.ROOT).contains("8") ? " (fix: for FP8 use --quantization fp8)" : ""));
            }
            Dialect.ValueRule rule = dialect.rule(f.name());
            if (rule == Dialect.ValueRule.POSITIVE_INT && !isInt(v, 1)) {
                error("INVALID_VALUE", f.written() + " " + v + " must be a positive integer");
            }
            if (rule == Dialect.ValueRule.NON_NEGATIVE_INT && !isInt(v, 0)) {
                error("INVALID_VALUE", f.written() + " " + v + " must be an integer >= 0");
            }
        }
        if (!placeholders.isEmpty()) {
            error("PLACEHOLDER", "placeholders left in the command: " + String.join(", ", placeholders)
                    + " (fix: replace them with real values)");
        }
    }

    void checkDataset() {
        if (tool == Tool.OTHER_SCRIPT || tool == Tool.NONE) {
            return;
        }
        String name = lastValue("--dataset-name").orElse(null);
        String path = lastValue("--dataset-path").or(() -> lastValue("--dataset")).orElse(null);
        String pathFlag = lastValue("--dataset-path").isPresent() ? "--dataset-path" : "--dataset";
        if (path != null && !path.isEmpty() && !isPlaceholder(pathFlag, path)) {
            Optional<String> inRepo = name != null && name.equalsIgnoreCase("sonnet")
                    ? ServeFlags.engineRepoPath(path) : Optional.empty();
            if (inRepo.isPresent()) {
                warning("REPO_DATASET_PATH", pathFlag + " " + path + " is the engine repo's " + inRepo.get()
                        + " at an absolute path on the machine that wrote the command; isobench reads "
                        + inRepo.get() + " from each arm's worktree (fix: write " + pathFlag + " " + inRepo.get() + ")");
            } else if (isLocalFile(path, name)) {
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

    void checkGpus() {
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

    static String parallelism(int tp, int pp, int dp) {
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

    // --- helpers ---

    String describeTool() {
        return script != null ? script : tool.name();
    }

    Optional<String> lastValue(String name) {
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

    int intFlag(String name) {
        Optional<String> v = lastValue(name);
        if (v.isEmpty() || !isInt(v.get(), 1)) {
            return 1;
        }
        return Integer.parseInt(v.get().trim());
    }

    boolean isPlaceholder(String flag, String v) {
        if (sawExpansion && v.contains("$")) {
            return false; // already reported as a shell expansion
        }
        if (ANGLE_OR_BRACE.matcher(v).matches()) {
            return true;
        }
        return !FREE_TEXT_FLAGS.contains(flag) && ALL_CAPS.matcher(v).matches();
    }

    String nearest(String name) {
        return Nearest.of(name, dialect.known()).map(n -> " (nearest: " + n + ")").orElse("");
    }

    void error(String code, String message) {
        findings.add(Finding.error(code, message));
    }

    void warning(String code, String message) {
        findings.add(Finding.warning(code, message));
    }
}
