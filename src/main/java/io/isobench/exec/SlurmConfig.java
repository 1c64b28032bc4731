package io.isobench.exec;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Settings of the Slurm executor, from environment variables (docs/slurm-executor.md). Every field has a default, so
 * an empty environment gives a working configuration for a single-node cluster.
 *
 * @param partition    {@code --partition} ({@code ISOBENCH_SLURM_PARTITION}); null: the cluster's default
 * @param account      {@code --account} ({@code ISOBENCH_SLURM_ACCOUNT}); null: none
 * @param cpusPerGpu   {@code --cpus-per-task} = GPUs × this ({@code ISOBENCH_SLURM_CPUS_PER_GPU}, default 8)
 * @param cpusMin      lower bound of {@code --cpus-per-task} ({@code ISOBENCH_SLURM_CPUS}, default 1)
 * @param memPerGpuMb  {@code --mem} = GPUs × this ({@code ISOBENCH_SLURM_MEM_PER_GPU_MB}, default 65536)
 * @param memMinMb     lower bound of {@code --mem} ({@code ISOBENCH_SLURM_MEM_MB}, default 2048)
 * @param cpuOnly      request no GPUs at all ({@code ISOBENCH_SLURM_CPU_ONLY=1}; CPU engines such as the toy)
 * @param serverBind   address the job's server binds ({@code ISOBENCH_SLURM_SERVER_BIND}, default 127.0.0.1:
 *                     the orchestrator shares the node; 0.0.0.0 on a multi-node cluster, the orchestrator then
 *                     connects to the node name the job writes)
 * @param sharedDir    where job scripts, logs and exit codes go ({@code ISOBENCH_SLURM_DIR}); null: the session's
 *                     workdir ({@code <workdir>/slurm}); must be visible to the compute nodes
 * @param pendingLimitS how long a job may wait in the queue ({@code ISOBENCH_SLURM_PENDING_S}, default 3600)
 * @param extra        further {@code #SBATCH} lines verbatim ({@code ISOBENCH_SLURM_EXTRA}, separated by {@code ;})
 */
public record SlurmConfig(String partition, String account, int cpusPerGpu, int cpusMin, int memPerGpuMb,
                          int memMinMb, boolean cpuOnly, String serverBind, Path sharedDir, int pendingLimitS,
                          List<String> extra) {

    public static final SlurmConfig DEFAULT = new SlurmConfig(null, null, 8, 1, 65536, 2048, false, "127.0.0.1",
            null, 3600, List.of());

    public SlurmConfig {
        extra = List.copyOf(extra);
    }

    /** The configuration the environment variables give (unset ones keep {@link #DEFAULT}). */
    public static SlurmConfig fromEnv(Map<String, String> env) {
        SlurmConfig d = DEFAULT;
        String dir = blank(env.get("ISOBENCH_SLURM_DIR"));
        String extra = blank(env.get("ISOBENCH_SLURM_EXTRA"));
        return new SlurmConfig(blank(env.get("ISOBENCH_SLURM_PARTITION")), blank(env.get("ISOBENCH_SLURM_ACCOUNT")),
                num(env, "ISOBENCH_SLURM_CPUS_PER_GPU", d.cpusPerGpu()), num(env, "ISOBENCH_SLURM_CPUS", d.cpusMin()),
                num(env, "ISOBENCH_SLURM_MEM_PER_GPU_MB", d.memPerGpuMb()),
                num(env, "ISOBENCH_SLURM_MEM_MB", d.memMinMb()),
                "1".equals(env.get("ISOBENCH_SLURM_CPU_ONLY")),
                blank(env.get("ISOBENCH_SLURM_SERVER_BIND")) == null ? d.serverBind()
                        : env.get("ISOBENCH_SLURM_SERVER_BIND").strip(),
                dir == null ? null : Path.of(dir).toAbsolutePath(),
                num(env, "ISOBENCH_SLURM_PENDING_S", d.pendingLimitS()),
                extra == null ? List.of() : Arrays.stream(extra.split(";")).map(String::strip)
                        .filter(s -> !s.isEmpty()).toList());
    }

    /** GPUs requested for a job that needs {@code gpus}. */
    int gpusFor(int gpus) {
        return cpuOnly ? 0 : gpus;
    }

    int cpusFor(int gpus) {
        return Math.max(cpusMin, gpusFor(gpus) * cpusPerGpu);
    }

    int memMbFor(int gpus) {
        return Math.max(memMinMb, gpusFor(gpus) * memPerGpuMb);
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    private static int num(Map<String, String> env, String name, int dflt) {
        String v = blank(env.get(name));
        if (v == null) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new io.isobench.IsobenchException.BadInput(name + "=" + v + ": use a whole number >= 0");
        }
    }
}
