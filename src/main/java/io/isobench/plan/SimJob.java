package io.isobench.plan;

import java.util.Objects;

/**
 * One job for the {@link PackingSimulator}: one arm of one task in one round.
 *
 * @param id        unique, e.g. {@code 6d0734c5/human/r2}
 * @param taskId    the task it belongs to
 * @param gpus      GPUs it holds for its whole duration (from {@link io.isobench.task.GpuEstimate})
 * @param durationS estimated wall time in seconds
 * @param basis     where gpus and duration came from (stated in reports; both are estimates)
 */
public record SimJob(String id, String taskId, int gpus, double durationS, String basis) {

    public SimJob {
        Objects.requireNonNull(id, "id");
        if (gpus < 0) {
            throw new IllegalArgumentException(id + ": gpus (" + gpus + ") must be >= 0");
        }
        if (!(durationS >= 0) || Double.isInfinite(durationS)) {
            throw new IllegalArgumentException(id + ": durationS (" + durationS + ") must be finite and >= 0");
        }
    }

    public SimJob(String id, int gpus, double durationS) {
        this(id, id, gpus, durationS, "");
    }

    public double gpuSeconds() {
        return gpus * durationS;
    }
}
