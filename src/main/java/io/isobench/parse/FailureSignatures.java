package io.isobench.parse;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import static io.isobench.parse.FailureCategory.*;

/**
 * The signature table of the failure classifier (DESIGN.md §7): one ordered list of (needle, optional regex) →
 * category. A line matches a signature when it contains the needle (case-insensitive) and, if a regex is given,
 * the regex finds a match in it (case-insensitive). Every regex here is led by a literal and has no nested
 * quantifiers, so matching is linear in the line length.
 *
 * <p>Between categories, {@link FailureCategory#precedence()} decides. Between two signatures of the same
 * precedence, the one listed first wins — so more specific signatures come first (e.g. {@code CUDA out of memory}
 * before the generic {@code CUDA error}).
 *
 * <p>{@link Scope#HINT} signatures only look at the structured status/error fields of a result, never at console
 * text, because the words they use are too common in ordinary logs.
 */
final class FailureSignatures {

    enum Scope { ANY, HINT }

    record Signature(FailureCategory category, String needle, Pattern regex, Scope scope, String description) {

        boolean matches(String line, String lower, boolean hint) {
            if (scope == Scope.HINT && !hint) {
                return false;
            }
            if (!lower.contains(needle)) {
                return false;
            }
            return regex == null || regex.matcher(line).find();
        }
    }

    private static Signature sig(FailureCategory c, String needle, String description) {
        return new Signature(c, needle.toLowerCase(Locale.ROOT), null, Scope.ANY, description);
    }

    private static Signature sig(FailureCategory c, String needle, String regex, String description) {
        return new Signature(c, needle.toLowerCase(Locale.ROOT),
                Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE), Scope.ANY, description);
    }

    private static Signature hint(FailureCategory c, String needle, String regex, String description) {
        return new Signature(c, needle.toLowerCase(Locale.ROOT),
                regex == null ? null : Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE),
                Scope.HINT, description);
    }

    /** The table. Order matters only between signatures of equal category precedence. */
    static final List<Signature> ALL = List.of(
            // --- precedence 1: specific root causes -------------------------------------------------------------
            sig(DISK_FULL, "no space left on device", "disk full (no space left on device)"),
            sig(DISK_FULL, "errno 28", "disk full (ENOSPC)"),
            sig(DISK_FULL, "disk quota exceeded", "disk quota exceeded"),

            sig(GPU_OOM, "out of memory", "(CUDA|GPU|HIP)[^\\n]{0,40}out of memory", "GPU out of memory"),
            sig(GPU_OOM, "outofmemoryerror", "GPU out of memory (OutOfMemoryError)"),
            sig(GPU_OOM, "no available memory for the cache blocks", "GPU memory too small for the KV cache"),

            sig(MODEL_UNSUPPORTED, "rope scaling type", "Unknown RoPE scaling type", "engine version cannot run the model (RoPE scaling)"),
            sig(MODEL_UNSUPPORTED, "rope_scaling", "rope_scaling[^\\n]{0,80}(must|should be|invalid|unsupported|not supported|unknown)",
                    "engine version cannot run the model (rope_scaling format)"),
            sig(MODEL_UNSUPPORTED, "are not supported for now", "model architecture not supported by this engine version"),
            sig(MODEL_UNSUPPORTED, "architecture", "architectures?[^\\n]{0,120}(not supported|is not supported|unsupported)",
                    "model architecture not supported by this engine version"),
            hint(MODEL_UNSUPPORTED, "incompatible", null, "engine version incompatible with the model"),
            hint(MODEL_UNSUPPORTED, "unsupported model", null, "model unsupported by this engine version"),

            sig(MODEL_ACCESS, "gatedrepoerror", "gated model repository (HF access denied)"),
            sig(MODEL_ACCESS, "gated repo", "gated model repository (HF access denied)"),
            sig(MODEL_ACCESS, "401 client error", "HF authentication failed (401)"),
            sig(MODEL_ACCESS, "403 client error", "HF access forbidden (403)"),
            sig(MODEL_ACCESS, "invalid user token", "HF token invalid"),
            sig(MODEL_ACCESS, "repositorynotfounderror", "model repository not found or not accessible"),

            sig(DEPENDENCY_CONFLICT, "is already used by a transformers config", "library version clash (Transformers config name already registered)"),
            sig(DEPENDENCY_CONFLICT, "numpy is not available", "NumPy ABI/version mismatch"),
            sig(DEPENDENCY_CONFLICT, "cannot import name", "library API changed (cannot import name)"),
            sig(DEPENDENCY_CONFLICT, "no module named", "missing Python module"),
            sig(DEPENDENCY_CONFLICT, "modulenotfounderror", "missing Python module"),
            sig(DEPENDENCY_CONFLICT, "undefined symbol", "binary incompatibility (undefined symbol)"),
            sig(DEPENDENCY_CONFLICT, "attributeerror", "AttributeError:[^\\n]{0,300}has no attribute",
                    "library API changed (AttributeError on a library object)"),
            sig(DEPENDENCY_CONFLICT, "but you have", "requires [^\\n]{0,200}but you have", "pip dependency conflict"),

            sig(RESOURCES_INSUFFICIENT, "exceeds the total number of available gpus", "needs more GPUs than available"),
            sig(RESOURCES_INSUFFICIENT, "resources_insufficient", "needs more GPUs than the executor has"),

            sig(PORT_CONFLICT, "address already in use", "port already in use"),
            sig(PORT_CONFLICT, "errno 98", "port already in use (EADDRINUSE)"),
            sig(PORT_CONFLICT, "8791", "#8791", "vLLM 0.6.0–0.6.5 port-binding bug #8791"),
            hint(PORT_CONFLICT, "version_bug", null, "known engine version bug (#8791 port binding)"),

            sig(BAD_PERF_COMMAND, "unrecognized arguments", "perf command has arguments this version does not accept"),
            sig(BAD_PERF_COMMAND, "invalid int value", "perf command has a non-integer value (placeholder?)"),
            sig(BAD_PERF_COMMAND, "invalid float value", "perf command has a non-numeric value (placeholder?)"),
            sig(BAD_PERF_COMMAND, "invalid choice", "error: argument[^\\n]{0,200}invalid choice", "perf command uses an invalid choice"),
            sig(BAD_PERF_COMMAND, "the following arguments are required", "perf command lacks required arguments"),
            sig(BAD_PERF_COMMAND, "can't open file", "perf command script is missing"),

            sig(NO_PERF_COMMAND, "no perf_command", "task has no perf command"),
            sig(NO_PERF_COMMAND, "no perf command", "task has no perf command"),
            hint(NO_PERF_COMMAND, "no_perf_command", null, "task has no perf command"),

            sig(PATCH_FAILED, "patch does not apply", "agent patch does not apply"),
            sig(PATCH_FAILED, "corrupt patch", "agent patch is corrupt"),
            sig(PATCH_FAILED, "hunk #", "Hunk #\\d{1,6} FAILED", "agent patch does not apply"),
            sig(PATCH_FAILED, "patch_failed", "agent patch does not apply"),
            sig(EMPTY_PATCH, "empty patch", "agent patch is empty"),
            sig(EMPTY_PATCH, "patch is empty", "agent patch is empty"),
            sig(OUTPUT_MISMATCH, "output mismatch", "outputs differ from the baseline's"),
            sig(OUTPUT_MISMATCH, "output_mismatch", "outputs differ from the baseline's"),

            sig(CUDA_ERROR, "illegal memory access", "CUDA illegal memory access"),
            sig(CUDA_ERROR, "device-side assert", "CUDA device-side assert"),
            sig(CUDA_ERROR, "misaligned address", "CUDA misaligned address"),
            sig(CUDA_ERROR, "compilationerror", "Triton compilation error"),
            sig(CUDA_ERROR, "triton", "triton[^\\n]{0,200}(compil\\w{0,10} (error|failed)|error[^\\n]{0,40}compil)", "Triton compilation error"),
            sig(CUDA_ERROR, "no kernel image is available", "CUDA kernel not built for this GPU"),
            sig(CUDA_ERROR, "cuda error", "CUDA error: ", "CUDA error"),

            sig(GIT_ERROR, "index.lock", "git index.lock exists"),
            sig(GIT_ERROR, "'git'", "\\['git'[^\\n]{0,300}timed out", "git command timed out"),
            sig(GIT_ERROR, "git ", "\\bgit (reset|checkout|clone|fetch|apply|worktree)\\b[^\\n]{0,200}timed out", "git command timed out"),
            sig(GIT_ERROR, "fatal:", "fatal: (reference is not a tree|bad object|not a git repository|unable to access|could not read from remote)",
                    "git error"),

            sig(ENV_MISSING, "no wheel available", "no engine wheel for this commit"),
            sig(ENV_MISSING, "no ancestor wheel", "no engine wheel for this commit"),
            sig(ENV_MISSING, "failed to download vllm", "engine download failed"),
            sig(ENV_MISSING, "pull access denied", "engine image missing"),
            sig(ENV_MISSING, "manifest unknown", "engine image missing"),
            sig(ENV_MISSING, "no such image", "engine image missing"),
            sig(ENV_MISSING, "command not found", "vllm[^\\n]{0,40}command not found", "engine not installed"),

            sig(BUILD_FAILED, "failed building editable", "engine build failed"),
            sig(BUILD_FAILED, "failed building wheel", "engine build failed"),
            sig(BUILD_FAILED, "failed to build", "Failed to build (vllm|installable wheels|wheel)", "engine build failed"),
            sig(BUILD_FAILED, "cmake error", "engine build failed (CMake)"),
            sig(BUILD_FAILED, "ninja: build stopped", "engine build failed (compiler error)"),
            sig(BUILD_FAILED, "compilation terminated", "engine build failed (compiler error)"),
            sig(BUILD_FAILED, "build", "build[^\\n]{0,40}(timed out|timeout)", "engine build timed out"),

            sig(INFRA_TRANSIENT, "broken pipe", "infrastructure: broken pipe"),
            sig(INFRA_TRANSIENT, "connection reset", "infrastructure: connection reset"),
            sig(INFRA_TRANSIENT, "connectionreseterror", "infrastructure: connection reset"),
            sig(INFRA_TRANSIENT, "remotedisconnected", "infrastructure: remote end closed the connection"),
            sig(INFRA_TRANSIENT, "temporary failure in name resolution", "infrastructure: DNS failure"),
            sig(INFRA_TRANSIENT, "sandbox", "sandbox[^\\n]{0,80}(terminated|crashed|error|failed|lost)", "infrastructure: sandbox failure"),

            // --- precedence 2: the server died / never became ready, no root cause known -------------------------
            sig(SERVER_START_TIMEOUT, "server_start_timeout", "server never became ready"),
            sig(SERVER_START_TIMEOUT, "server", "server[^\\n]{0,60}(did not become ready|not ready after|never became ready|start(up)? timed out|failed to start within)",
                    "server never became ready"),
            sig(SERVER_START_TIMEOUT, "waiting for", "timed out waiting for[^\\n]{0,40}server", "server never became ready"),
            sig(SERVER_CRASHED, "server_crashed", "server process died"),
            sig(SERVER_CRASHED, "server crashed", "server process died"),
            sig(SERVER_CRASHED, "failed to start", "(server failed to start|failed to start[^\\n]{0,20}server)", "server process died during startup"),
            sig(SERVER_CRASHED, "engine core initialization failed", "engine process died during startup"),
            sig(SERVER_CRASHED, "engine process failed to start", "engine process died during startup"),
            sig(SERVER_CRASHED, "enginedeaderror", "engine process died"),

            // --- precedence 3: ran without result / ran out of time ------------------------------------------------
            sig(NO_METRICS, "never received a valid chunk", "benchmark client got no valid streamed chunk: no metrics"),
            sig(NO_METRICS, "no metrics", "(produced no metrics|no metrics in)", "benchmark produced no metrics"),
            sig(NO_METRICS, "metrics in", "no (throughput|latency|serving) metrics in", "benchmark produced no metrics"),
            sig(TIMEOUT, "timed out after", "run exceeded its time limit"),
            sig(TIMEOUT, "timeoutexpired", "run exceeded its time limit"),
            hint(TIMEOUT, "timeout", "^timeout$", "run exceeded its time limit"));

    private FailureSignatures() {
    }
}
