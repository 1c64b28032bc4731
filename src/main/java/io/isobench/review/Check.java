package io.isobench.review;

/** The static integrity checks run on every patch; each finding names one of them. */
public enum Check {
    BENCHMARK_EDIT("edits a benchmark script"),
    TEST_EDIT("edits a test"),
    PERF_INPUT_EDIT("edits a file that the perf_command names"),
    WORKLOAD_DEFINITION_EDIT("edits an isobench probe or workload definition"),
    WORK_SHRINKING_DEFAULT("lowers a work-size default or forces sampling settings"),
    PROMPT_KEYED_CACHE("adds a cache keyed on prompts or request inputs"),
    DISABLED_CODE_PATH("disables a code path"),
    IMPORT_TIME_SIDE_EFFECT("reads the whole environment, spawns processes, opens sockets or writes files at import"),
    WRITE_OUTSIDE_TREE("writes to an absolute path outside the repository"),
    OUTSIDE_SOURCE_TREE("changes a file outside the engine's source tree"),
    BINARY_FILE("adds or changes a binary file"),
    SYMLINK("creates or retargets a symbolic link"),
    OVERSIZED_PATCH("is larger than the review threshold");

    private final String summary;

    Check(String summary) {
        this.summary = summary;
    }

    /** One phrase for reports: "edits a benchmark script". */
    public String summary() {
        return summary;
    }
}
