package io.isobench.parse;

import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static io.isobench.parse.FailureCategory.*;

/**
 * The generic signature table of the failure classifier (DESIGN.md §7; docs/parsing.md lists it): one ordered list
 * of signature → category, for the lines of the tools every engine shares (Python, CUDA, pip, Hugging Face, git, the
 * harnesses) and, as before the engine seam, vLLM's (the default engine's; a text with no engine known is read as
 * vLLM's). Another engine's own lines are its adapter's ({@link FailureSignature}), matched after this table where the
 * run's engine is known. A signature is a needle (matched case-insensitively), optionally with words that must come
 * shortly <em>after</em> it on the same line, or shortly <em>before</em> it. There are deliberately no general regexes:
 * needles are found with {@code indexOf}, so classification stays linear however hostile the text.
 *
 * <p>Between categories, {@link FailureCategory#precedence()} decides. Between two signatures of the same
 * precedence, the one listed first wins, so more specific signatures come first (e.g. {@code CUDA out of memory}
 * before the generic {@code CUDA error:}).
 *
 * <p>{@link Scope#HINT} signatures only look at the structured status/error fields of a result, never at console
 * text, because their words are too common in ordinary logs. A {@link Scope#WHOLE} signature, a hint too, must equal
 * the whole field.
 */
final class FailureSignatures {

    /** Where a needle is looked for: anywhere, in the structured status/error fields, or as the whole field. */
    enum Scope { ANY, HINT, WHOLE }

    /**
     * @param needle       lower-case text that must occur
     * @param after        if not empty: one of these must start within {@code within} chars after the needle
     * @param before       if not empty: one of these must end within {@code within} chars before the needle
     * @param within       distance for {@code after}/{@code before}, same line only
     * @param scope        {@link Scope#WHOLE}: a hint whose needle must be the whole (trimmed) field
     */
    record Signature(FailureCategory category, String needle, List<String> after, List<String> before, int within,
                     Scope scope, String description) {

        /** The needle must be the whole (trimmed) structured field. */
        boolean whole() {
            return scope == Scope.WHOLE;
        }
    }

    // Each helper gives the signatures of one table entry: one, or (sigs) one per needle, in the order given.

    private static List<Signature> sig(FailureCategory c, String needle, String description) {
        return List.of(new Signature(c, lower(needle), List.of(), List.of(), 0, Scope.ANY, description));
    }

    /** Several needles that mean the same failure: one {@link #sig} each. */
    private static List<Signature> sigs(FailureCategory c, String description, String... needles) {
        return Stream.of(needles).flatMap(n -> sig(c, n, description).stream()).toList();
    }

    private static List<Signature> after(FailureCategory c, String needle, int within, List<String> after,
                                         String description) {
        return List.of(new Signature(c, lower(needle), after.stream().map(FailureSignatures::lower).toList(), List.of(),
                within, Scope.ANY, description));
    }

    private static List<Signature> before(FailureCategory c, String needle, int within, List<String> before,
                                          String description) {
        List<String> lowered = before.stream().map(FailureSignatures::lower).toList();
        return List.of(new Signature(c, lower(needle), List.of(), lowered, within, Scope.ANY, description));
    }

    private static List<Signature> hint(FailureCategory c, String needle, String description) {
        return List.of(new Signature(c, lower(needle), List.of(), List.of(), 0, Scope.HINT, description));
    }

    /** A hint whose needle must be followed by one of {@code after} within {@code within} chars. */
    private static List<Signature> hintAfter(FailureCategory c, String needle, int within, List<String> after,
                                             String description) {
        return List.of(new Signature(c, lower(needle), after.stream().map(FailureSignatures::lower).toList(), List.of(),
                within, Scope.HINT, description));
    }

    private static List<Signature> wholeHint(FailureCategory c, String needle, String description) {
        return List.of(new Signature(c, lower(needle), List.of(), List.of(), 0, Scope.WHOLE, description));
    }

    @SafeVarargs
    private static List<Signature> table(List<Signature>... entries) {
        return Stream.of(entries).flatMap(List::stream).toList();
    }

    /**
     * An engine's own line ({@link FailureSignature}, from its adapter) as a signature of this table's kind: its text
     * is the needle, anywhere (not a hint), with no context words.
     */
    static Signature ofEngine(FailureSignature s) {
        return new Signature(s.category(), lower(s.text()), List.of(), List.of(), 0, Scope.ANY, s.description());
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    /** The table. Order matters only between signatures of equal category precedence. */
    static final List<Signature> ALL = table(
            // --- precedence 1: specific root causes -------------------------------------------------------------
            sig(DISK_FULL, "no space left on device", "disk full (no space left on device)"),
            sig(DISK_FULL, "errno 28", "disk full (ENOSPC)"),
            sig(DISK_FULL, "disk quota exceeded", "disk quota exceeded"),

            before(GPU_OOM, "out of memory", 40, List.of("cuda", "gpu", "hip"), "GPU out of memory"),
            sig(GPU_OOM, "outofmemoryerror", "GPU out of memory (OutOfMemoryError)"),
            sig(GPU_OOM, "no available memory for the cache blocks", "GPU memory too small for the KV cache"),

            sig(MODEL_UNSUPPORTED, "unknown rope scaling type", "engine version cannot run the model (RoPE scaling)"),
            after(MODEL_UNSUPPORTED, "rope_scaling", 80,
                    List.of("must", "should be", "invalid", "unsupported", "not supported", "unknown"),
                    "engine version cannot run the model (rope_scaling format)"),
            sig(MODEL_UNSUPPORTED, "are not supported for now", "model architecture not supported by this engine version"),
            after(MODEL_UNSUPPORTED, "architecture", 120, List.of("not supported", "unsupported"),
                    "model architecture not supported by this engine version"),
            hint(MODEL_UNSUPPORTED, "incompatible", "engine version incompatible with the model"),
            hint(MODEL_UNSUPPORTED, "unsupported model", "model unsupported by this engine version"),

            sigs(MODEL_ACCESS, "gated model repository (HF access denied)", "gatedrepoerror", "gated repo"),
            sig(MODEL_ACCESS, "401 client error", "HF authentication failed (401)"),
            sig(MODEL_ACCESS, "403 client error", "HF access forbidden (403)"),
            sig(MODEL_ACCESS, "invalid user token", "HF token invalid"),
            sig(MODEL_ACCESS, "repositorynotfounderror", "model repository not found or not accessible"),

            sig(DEPENDENCY_CONFLICT, "is already used by a transformers config",
                    "library version clash (Transformers config name already registered)"),
            sig(DEPENDENCY_CONFLICT, "numpy is not available", "NumPy ABI/version mismatch"),
            sig(DEPENDENCY_CONFLICT, "cannot import name", "library API changed (cannot import name)"),
            sigs(DEPENDENCY_CONFLICT, "missing Python module", "no module named", "modulenotfounderror"),
            sig(DEPENDENCY_CONFLICT, "undefined symbol", "binary incompatibility (undefined symbol)"),
            after(DEPENDENCY_CONFLICT, "attributeerror:", 300, List.of("has no attribute"),
                    "library API changed (AttributeError on a library object)"),
            before(DEPENDENCY_CONFLICT, "but you have", 200, List.of("requires"), "pip dependency conflict"),
            before(DEPENDENCY_CONFLICT, "but found", 200, List.of("is required", "requires"),
                    "library version conflict (a required version is not installed)"),
            sig(DEPENDENCY_CONFLICT, "versionconflict", "library version conflict"),
            sig(DEPENDENCY_CONFLICT, "importerror:", "library API changed (ImportError)"),
            sig(DEPENDENCY_CONFLICT, "cannot open shared object file", "binary incompatibility (shared library missing)"),
            sig(DEPENDENCY_CONFLICT, "failed to import", "library import failed"),
            sig(DEPENDENCY_CONFLICT, "has no attribute", "library API changed (missing attribute)"),
            after(DEPENDENCY_CONFLICT, "typeerror:", 300, List.of("unexpected keyword argument",
                    "required positional argument", "positional argument but", "positional arguments but"),
                    "library API changed (call signature differs)"),
            sig(DEPENDENCY_CONFLICT, "\"target_resolved\": false",
                    "micro-benchmark target not found in this version (API changed)"),

            sig(RESOURCES_INSUFFICIENT, "exceeds the total number of available gpus", "needs more GPUs than available"),
            sig(RESOURCES_INSUFFICIENT, "resources_insufficient", "needs more GPUs than the executor has"),
            sig(RESOURCES_INSUFFICIENT, "capability_unsupported", "the machine lacks a capability the test needs"),
            sig(RESOURCES_INSUFFICIENT, "cuda device required", "the test needs a CUDA device"),

            // The old harness's own failures, before any arm's root cause: they name no arm (docs/parsing.md,
            // "Whose failure is it: arm or harness"). Listed before PORT_CONFLICT: its version refusal quotes #8791.
            sig(HARNESS_ERROR, "has known port binding bug",
                    "the old harness refused this engine version (known port-binding bug #8791), nothing ran"),
            wholeHint(HARNESS_ERROR, "version_bug",
                    "the old harness refused this engine version (status version_bug), nothing ran"),
            hintAfter(HARNESS_ERROR, "name '", 120, List.of("' is not defined"),
                    "the old harness's own bug (NameError in its script)"),
            sig(HARNESS_ERROR, "lookup failed for function",
                    "the old harness's cloud function was not deployed (Modal lookup failed)"),
            hint(CANCELLED, "cancelled by user", "the run was cancelled by its user"),
            hint(CANCELLED, "canceled by user", "the run was cancelled by its user"),
            wholeHint(CANCELLED, "cancelled", "the run was cancelled (status cancelled)"),
            wholeHint(CANCELLED, "canceled", "the run was cancelled (status canceled)"),

            sig(PORT_CONFLICT, "address already in use", "port already in use"),
            sig(PORT_CONFLICT, "errno 98", "port already in use (EADDRINUSE)"),

            sig(BAD_PERF_COMMAND, "unrecognized arguments", "perf command has arguments this version does not accept"),
            sig(BAD_PERF_COMMAND, "invalid int value", "perf command has a non-integer value (placeholder?)"),
            sig(BAD_PERF_COMMAND, "invalid float value", "perf command has a non-numeric value (placeholder?)"),
            before(BAD_PERF_COMMAND, "invalid choice", 200, List.of("error: argument"), "perf command uses an invalid choice"),
            sig(BAD_PERF_COMMAND, "the following arguments are required", "perf command lacks required arguments"),
            sig(BAD_PERF_COMMAND, "can't open file", "perf command script is missing"),
            sig(BAD_PERF_COMMAND, "dataset_path must be provided",
                    "perf command lacks --dataset-name/--dataset-path (benchmark_serving defaults to ShareGPT, which needs a file)"),
            sig(BAD_PERF_COMMAND, "is not a local folder and is not a valid model identifier",
                    "perf command names a model that is neither a local folder nor a model on the HF hub"),
            sig(BAD_PERF_COMMAND, "hfvalidationerror", "perf command names a model that is neither an HF repo id nor a local path"),
            sig(BAD_PERF_COMMAND, "repo id must be in the form",
                    "perf command names a model that is neither an HF repo id nor a local path"),

            sigs(NO_PERF_COMMAND, "task has no perf command", "no perf_command", "no perf command"),
            wholeHint(NO_PERF_COMMAND, "no_perf_command", "task has no perf command"),
            sigs(NO_PERF_COMMAND, "no benchmark can exercise this commit",
                    "no optimizable code paths", "opt_path_not_trig"),

            sig(PATCH_FAILED, "patch does not apply", "agent patch does not apply"),
            sig(PATCH_FAILED, "corrupt patch", "agent patch is corrupt"),
            after(PATCH_FAILED, "hunk #", 12, List.of("failed"), "agent patch does not apply"),
            sig(PATCH_FAILED, "patch_failed", "agent patch does not apply"),
            sigs(EMPTY_PATCH, "agent patch is empty", "empty patch", "patch is empty"),
            sigs(OUTPUT_MISMATCH, "outputs differ from the baseline's", "output mismatch", "output_mismatch"),
            sig(OUTPUT_MISMATCH, "equivalence check failed", "outputs differ from the reference (equivalence check)"),
            after(OUTPUT_MISMATCH, "assertionerror", 200, List.of("mismatch", "not equal", "not close", "differ",
                    "equivalen"), "outputs differ from the reference (equivalence check)"),

            sig(CUDA_ERROR, "illegal memory access", "CUDA illegal memory access"),
            sig(CUDA_ERROR, "device-side assert", "CUDA device-side assert"),
            sig(CUDA_ERROR, "misaligned address", "CUDA misaligned address"),
            sig(CUDA_ERROR, "compilationerror", "Triton compilation error"),
            after(CUDA_ERROR, "triton", 200, List.of("compilation error", "compile error", "compilation failed",
                    "compile failed"), "Triton compilation error"),
            sig(CUDA_ERROR, "no kernel image is available", "CUDA kernel not built for this GPU"),
            sig(CUDA_ERROR, "cuda error: ", "CUDA error"),

            sig(GIT_ERROR, "index.lock", "git index.lock exists"),
            after(GIT_ERROR, "['git'", 300, List.of("timed out"), "git command timed out"),
            after(GIT_ERROR, "git reset", 200, List.of("timed out"), "git command timed out"),
            after(GIT_ERROR, "git checkout", 200, List.of("timed out"), "git command timed out"),
            after(GIT_ERROR, "git clone", 200, List.of("timed out"), "git command timed out"),
            after(GIT_ERROR, "git fetch", 200, List.of("timed out"), "git command timed out"),
            sigs(GIT_ERROR, "git error",
                    "fatal: reference is not a tree", "fatal: bad object", "fatal: not a git repository",
                    "fatal: unable to access", "fatal: could not read from remote"),

            sig(ENV_MISMATCH, "env_mismatch", "the arm's environment is not the intended one"),
            sigs(ENV_MISSING, "no engine wheel for this commit", "no wheel available", "no ancestor wheel"),
            sig(ENV_MISSING, "no wheel for", "no engine wheel for this arm's commit"),
            wholeHint(ENV_MISSING, "no_wheel", "no engine wheel for this commit"),
            wholeHint(ENV_MISSING, "no_baseline_wheel", "no engine wheel for the baseline commit"),
            wholeHint(ENV_MISSING, "no_human_wheel", "no engine wheel for the human commit"),
            sig(ENV_MISSING, "could not find vllm installation", "engine not installed (no vLLM installation found)"),
            after(ENV_MISSING, "failed to install", 40, List.of("wheel"), "engine wheel could not be installed"),
            wholeHint(ENV_MISSING, "wheel_install_failed", "engine wheel could not be installed"),
            sig(ENV_MISSING, "no matching distribution found", "engine/package not available to install"),
            sig(ENV_MISSING, "failed to download vllm", "engine download failed"),
            sigs(ENV_MISSING, "engine image missing", "pull access denied", "manifest unknown", "no such image"),
            before(ENV_MISSING, "command not found", 40, List.of("vllm"), "engine not installed"),

            sigs(BUILD_FAILED, "engine build failed", "failed building editable", "failed building wheel"),
            after(BUILD_FAILED, "failed to build", 30, List.of("vllm", "wheel"), "engine build failed"),
            sig(BUILD_FAILED, "cmake error", "engine build failed (CMake)"),
            sigs(BUILD_FAILED, "engine build failed (compiler error)",
                    "ninja: build stopped", "compilation terminated"),
            after(BUILD_FAILED, "build", 40, List.of("timed out", "timeout"), "engine build timed out"),

            sig(INFRA_TRANSIENT, "broken pipe", "infrastructure: broken pipe"),
            sigs(INFRA_TRANSIENT, "infrastructure: connection reset", "connection reset", "connectionreseterror"),
            sig(INFRA_TRANSIENT, "remotedisconnected", "infrastructure: remote end closed the connection"),
            sig(INFRA_TRANSIENT, "temporary failure in name resolution", "infrastructure: DNS failure"),
            after(INFRA_TRANSIENT, "sandbox", 80, List.of("terminated", "crashed", "error", "failed", "lost"),
                    "infrastructure: sandbox failure"),

            // --- precedence 2: the server died / never became ready, no root cause known -------------------------
            sig(SERVER_START_TIMEOUT, "server_start_timeout", "server never became ready"),
            after(SERVER_START_TIMEOUT, "server", 60, List.of("did not become ready", "not ready after",
                    "never became ready", "start timed out", "startup timed out", "failed to start within"),
                    "server never became ready"),
            after(SERVER_START_TIMEOUT, "timed out waiting for", 40, List.of("server"), "server never became ready"),
            sigs(SERVER_CRASHED, "server process died", "server_crashed", "server crashed"),
            sig(SERVER_CRASHED, "server failed to start", "server process died during startup"),
            after(SERVER_CRASHED, "failed to start", 30, List.of("server"), "server process died during startup"),
            sigs(SERVER_CRASHED, "engine process died during startup",
                    "engine core initialization failed", "engine process failed to start"),
            sig(SERVER_CRASHED, "enginedeaderror", "engine process died"),

            // --- precedence 3: ran without result / ran out of time ------------------------------------------------
            // A stated timeout explains a missing result: its specific signatures come before the NO_METRICS ones.
            sig(TIMEOUT, "benchmark timed out", "benchmark exceeded its time limit"),
            sigs(TIMEOUT, "run exceeded its time limit", "timed out after", "timeoutexpired"),
            wholeHint(TIMEOUT, "timeout", "run exceeded its time limit"),
            wholeHint(TIMEOUT, "timed_out", "run exceeded its time limit"),
            sig(NO_METRICS, "never received a valid chunk", "benchmark client got no valid streamed chunk: no metrics"),
            sigs(NO_METRICS, "benchmark produced no metrics",
                    "produced no metrics", "no metrics in", "no throughput metrics", "no latency metrics",
                    "no serving metrics"),
            sig(NO_METRICS, "failed to produce json output", "benchmark produced no result (no JSON output)"),
            sig(NO_METRICS, "produced no output", "benchmark produced no output"),
            sig(NO_METRICS, "no json results in output", "benchmark produced no result (no JSON results in output)"),
            wholeHint(NO_METRICS, "no_metrics", "benchmark produced no metrics (status no_metrics)"),
            sig(TIMEOUT, "timeouterror", "run exceeded its time limit (TimeoutError)"),
            sig(TIMEOUT, "timed out", "run exceeded its time limit"));

    private FailureSignatures() {
    }
}
