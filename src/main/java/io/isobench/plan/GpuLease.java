package io.isobench.plan;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Concrete GPUs held by one job, handed out by {@link GpuSlots} and given back with {@link GpuSlots#release}.
 *
 * @param ids GPU indexes (as {@code nvidia-smi} numbers them), ascending; empty for a job that needs no GPU
 */
public record GpuLease(List<Integer> ids) {

    public GpuLease {
        ids = List.copyOf(ids);
    }

    public int count() {
        return ids.size();
    }

    /** The value for {@code CUDA_VISIBLE_DEVICES}: {@code 0,1,2,3}; empty for no GPU (hides all GPUs). */
    public String cudaVisibleDevices() {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /**
     * The value of {@code docker run --gpus}: {@code "device=0,1"} (with the quotes docker needs for a list, as one argv
     * element). Null when the lease is empty (then no {@code --gpus} flag is passed).
     */
    public String dockerGpus() {
        return ids.isEmpty() ? null : String.format(Locale.ROOT, "\"device=%s\"", cudaVisibleDevices());
    }

    /** The docker argv fragment: {@code ["--gpus", "\"device=0,1\""]}, or an empty list for no GPU. */
    public List<String> dockerArgs() {
        return ids.isEmpty() ? List.of() : List.of("--gpus", dockerGpus());
    }
}
