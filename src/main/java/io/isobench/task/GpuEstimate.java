package io.isobench.task;

/**
 * GPU needs of a task, for the planner and {@code plan simulate} (DESIGN.md §11). A job requests {@link #gpus()}:
 * the GPUs its command uses ({@code --tensor-parallel-size} × pipeline × data parallel) or the task's declared count,
 * whichever is larger. {@link #modelGpus()} is the estimate from the model name (~2 bytes/param + 20 % headroom
 * against 80 GB per H100) — an estimate, stated as such; when the weights alone exceed what the command's GPUs
 * hold, {@link #fits()} is false and lint reports {@code MODEL_TOO_LARGE} (the planner's
 * {@code RESOURCES_INSUFFICIENT}).
 *
 * @param gpus         GPUs to request
 * @param commandGpus  GPUs the command uses
 * @param declaredGpus the task's own count ({@code gpus:} / {@code gpu_config}); null when absent
 * @param modelGpus    GPUs the model needs by the size estimate (power of two); null when the name gives no hint
 * @param fits         false when the estimated weights exceed the memory of the GPUs one replica spans
 * @param basis        how the numbers were derived, for plans and reports
 */
public record GpuEstimate(int gpus, int commandGpus, Integer declaredGpus, Integer modelGpus, boolean fits,
                          String basis) {

    public GpuEstimate {
        if (gpus < 1 || commandGpus < 1) {
            throw new IllegalArgumentException("gpus (" + gpus + ") and commandGpus (" + commandGpus + ") must be >= 1");
        }
    }

    public static GpuEstimate forTask(TaskSpec task) {
        return of(task.parsedCommand(), task.gpus());
    }

    /** For raw ISO-Bench rows: a perf_command, the row's model and its gpu_config ({@code H100:4}); any may be null. */
    public static GpuEstimate forCommand(String perfCommand, String model, String gpuConfig) {
        Integer declared = IsoBenchRows.parseGpuConfig(gpuConfig);
        return of(PerfCommand.parse(perfCommand, new PerfCommand.Hints(model, null, declared)), declared);
    }

    public static GpuEstimate of(ParsedPerfCommand p, Integer declaredGpus) {
        int cmd = p.gpus();
        int request = declaredGpus != null && declaredGpus > cmd ? declaredGpus : cmd;
        ModelSize size = p.modelSize();
        Integer modelGpus = size == null ? null : size.gpusNeeded();
        boolean fits = size == null || size.weightsGb() <= p.gpusPerReplica() * ModelSize.H100_MEMORY_GB;
        StringBuilder basis = new StringBuilder();
        basis.append("command uses ").append(cmd).append(" GPU(s)");
        if (p.tensorParallelSize() > 1) {
            basis.append(" (tensor-parallel-size ").append(p.tensorParallelSize()).append(')');
        }
        if (declaredGpus != null) {
            basis.append("; task declares ").append(declaredGpus);
        }
        if (size != null) {
            basis.append("; model needs ~").append(modelGpus).append(" × ")
                    .append(ModelSize.fmt(ModelSize.H100_MEMORY_GB)).append(" GB (estimate from the name: ")
                    .append(ModelSize.fmt(size.paramsB())).append("B params × ")
                    .append(ModelSize.fmt(size.bytesPerParam())).append(" B/param + ")
                    .append(Math.round((ModelSize.HEADROOM - 1) * 100)).append("% headroom)");
        } else if (p.model() != null) {
            basis.append("; model size unknown");
        }
        return new GpuEstimate(request, cmd, declaredGpus, modelGpus, fits, basis.toString());
    }
}
