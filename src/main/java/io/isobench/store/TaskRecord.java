package io.isobench.store;

/**
 * A task: one performance commit of an engine.
 *
 * @param taskId       stable id (the 8-hex commit for ISO-Bench tasks, or the suite's task id)
 * @param repo         engine repository (vllm, sglang, a local path…)
 * @param commit       human commit as known (8–40 hex)
 * @param parentCommit parent commit, or null
 * @param subject      commit subject, or null
 * @param perfCommand  the task's perf_command, or null
 * @param model        model named by the task, or null
 * @param gpuConfig    GPU configuration as given (e.g. H100:1), or null
 * @param gpuCount     GPUs a run needs, or null
 */
public record TaskRecord(
        String taskId,
        String repo,
        String commit,
        String parentCommit,
        String subject,
        String perfCommand,
        String model,
        String gpuConfig,
        Integer gpuCount) {
}
