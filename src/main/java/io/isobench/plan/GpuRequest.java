package io.isobench.plan;

import java.util.List;
import java.util.Map;

/**
 * A job's GPU count as the cluster executors pass it on: Slurm and Kubernetes choose the physical GPUs themselves,
 * so they get only the count ({@code --gpus=N}, {@code nvidia.com/gpu: N}). Local and docker executors get concrete
 * ids from {@link GpuSlots} instead.
 *
 * @param count GPUs the job needs (0: none)
 */
public record GpuRequest(int count) {

    public static final String KUBERNETES_RESOURCE = "nvidia.com/gpu";

    public GpuRequest {
        if (count < 0) {
            throw new IllegalArgumentException("GPU count must be >= 0: " + count);
        }
    }

    /** {@code sbatch}/{@code srun} arguments: {@code --gpus=N}; none for a job without GPUs. */
    public List<String> slurmArgs() {
        return count == 0 ? List.of() : List.of("--gpus=" + count);
    }

    /** Container {@code resources.limits} entries: {@code nvidia.com/gpu: "N"}; empty for a job without GPUs. */
    public Map<String, String> kubernetesLimits() {
        return count == 0 ? Map.of() : Map.of(KUBERNETES_RESOURCE, Integer.toString(count));
    }

    /**
     * Plan-time check against a target with {@code targetGpus} GPUs (a node, or the largest node of a cluster):
     * throws {@link GpuSlots.Insufficient} ({@code RESOURCES_INSUFFICIENT}) when the job can never run there.
     */
    public void requireFits(int targetGpus) {
        if (count > targetGpus) {
            throw new GpuSlots.Insufficient(count, targetGpus);
        }
    }
}
