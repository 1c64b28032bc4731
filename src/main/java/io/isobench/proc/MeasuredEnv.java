package io.isobench.proc;

import io.isobench.guard.Secrets;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The whole environment of a measured process (server, benchmark, probe, accuracy command, build step): an allowlist,
 * never isobench's own environment passed through (docs/security.md, "Measured arms").
 *
 * <p>It is made of three parts, in this order (a later part wins):
 * <ol>
 *   <li>the names of isobench's environment that an engine needs to find its tools and devices ({@link #BASE}: the
 *   search paths, locale, time zone, the GPU and thread variables, Python's and the HF hub's cache settings…), but
 *   never one whose name looks secret ({@link Secrets#isSecretName}: {@code HF_TOKEN}, {@code VLLM_API_KEY}…);</li>
 *   <li>the names the suite declares in {@code run.confine.pass_env} (an engine that needs {@code HF_TOKEN} to download
 *   a gated model says so), except the agents' runner secrets, which no measured process ever gets;</li>
 *   <li>the job's own variables: its perf command's prefix, its arm's recipes, its GPU lease.</li>
 * </ol>
 * A name isobench's environment does not have is simply absent. {@code ISOBENCH_GROUP} (the group marker) is added by
 * {@link ProcessGroup} itself.
 */
public final class MeasuredEnv {

    /** Names taken from isobench's environment (when set and not secret-looking). */
    static final Set<String> BASE = Set.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM",
            "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
            "JAVA_HOME", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CUDA_HOME", "CUDA_PATH",
            "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "HF_HOME", "HF_HUB_CACHE",
            "HF_HUB_OFFLINE", "TRANSFORMERS_CACHE", "TRANSFORMERS_OFFLINE", "XDG_CACHE_HOME", "TRITON_CACHE_DIR",
            "TORCH_HOME", "TORCHINDUCTOR_CACHE_DIR", "PIP_INDEX_URL", "PIP_NO_INDEX", "PIP_FIND_LINKS");
    /** Prefixes of names taken from isobench's environment (when not secret-looking). */
    static final List<String> BASE_PREFIXES = List.of("LC_", "NCCL_", "CUDA_", "VLLM_", "SGLANG_");

    private MeasuredEnv() {
    }

    /**
     * The environment of a measured process.
     *
     * @param host          isobench's own environment (normally {@code System.getenv()})
     * @param passEnv       names the suite declares ({@code run.confine.pass_env})
     * @param runnerSecrets names of the agents' runner secrets: never passed, even when declared
     * @param job           the job's own variables (added last, whatever their names: the suite wrote them)
     */
    public static Map<String, String> of(Map<String, String> host, List<String> passEnv, Set<String> runnerSecrets,
                                         Map<String, String> job) {
        Map<String, String> out = new TreeMap<>();
        host.forEach((k, v) -> {
            if (base(k) && !Secrets.isSecretName(k) && !runnerSecrets.contains(k)) {
                out.put(k, v);
            }
        });
        for (String k : passEnv) {
            String v = host.get(k);
            if (v != null && !runnerSecrets.contains(k)) {
                out.put(k, v);
            }
        }
        Map<String, String> all = new LinkedHashMap<>(out);
        all.putAll(job);
        return all;
    }

    private static boolean base(String name) {
        if (BASE.contains(name)) {
            return true;
        }
        for (String p : BASE_PREFIXES) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
