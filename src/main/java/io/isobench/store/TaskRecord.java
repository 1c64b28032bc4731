package io.isobench.store;

/**
 * A task: one performance commit of an engine.
 * Build one with {@link #builder(String)}.
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

    /** A builder for task {@code taskId}; everything not set is null. */
    public static Builder builder(String taskId) {
        return new Builder(taskId);
    }

    /** Builds a {@link TaskRecord} field by field. */
    public static final class Builder {
        private final String taskId;
        private String repo;
        private String commit;
        private String parentCommit;
        private String subject;
        private String perfCommand;
        private String model;
        private String gpuConfig;
        private Integer gpuCount;

        private Builder(String taskId) {
            this.taskId = taskId;
        }

        public Builder repo(String v) {
            repo = v;
            return this;
        }

        /** The human commit and its parent. */
        public Builder commit(String human, String parent) {
            commit = human;
            parentCommit = parent;
            return this;
        }

        public Builder subject(String v) {
            subject = v;
            return this;
        }

        public Builder perfCommand(String v) {
            perfCommand = v;
            return this;
        }

        public Builder model(String v) {
            model = v;
            return this;
        }

        /** The GPU configuration as given and the GPUs a run needs. */
        public Builder gpus(String config, Integer count) {
            gpuConfig = config;
            gpuCount = count;
            return this;
        }

        public TaskRecord build() {
            return new TaskRecord(taskId, repo, commit, parentCommit, subject, perfCommand, model, gpuConfig,
                    gpuCount);
        }
    }
}
