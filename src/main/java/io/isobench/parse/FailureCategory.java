package io.isobench.parse;

import java.util.Locale;

/**
 * Failure taxonomy (DESIGN.md §7, a contract for the names). Every failed run gets exactly one category.
 * Declaration order is irrelevant; precedence between signatures is {@link #precedence()}.
 */
public enum FailureCategory {
    INFRA_TRANSIENT(Retry.YES, 1),
    DISK_FULL(Retry.AFTER_CLEANUP, 1),
    ENV_MISSING(Retry.NO, 1),
    /**
     * The arm's environment is not the one it should be: a prebuilt artifact whose sha256 differs from the suite's,
     * or whose installed version does not match the arm (docs/suite-format.md, "Prebuilt-artifact arms").
     */
    ENV_MISMATCH(Retry.NO, 1),
    BUILD_FAILED(Retry.NO, 1),
    DEPENDENCY_CONFLICT(Retry.FIX_RECIPE, 1),
    MODEL_UNSUPPORTED(Retry.NO, 1),
    MODEL_ACCESS(Retry.NO, 1),
    GPU_OOM(Retry.MAYBE, 1),
    RESOURCES_INSUFFICIENT(Retry.NO, 1),
    PORT_CONFLICT(Retry.YES, 1),
    BAD_PERF_COMMAND(Retry.NO, 1),
    NO_PERF_COMMAND(Retry.NO, 1),
    PATCH_FAILED(Retry.NO, 1),
    EMPTY_PATCH(Retry.NO, 1),
    /**
     * The patch review failed the arm (a finding whose check is in {@code fail_on}, docs/patch-review.md): the patch
     * was never applied, built or measured.
     */
    PATCH_REJECTED(Retry.NO, 1),
    /** An agent attempt ran out of wall time and was killed (docs/agents.md). */
    AGENT_TIMEOUT(Retry.MAYBE, 1),
    /** An agent attempt passed its turns, tokens or USD budget (docs/agents.md). */
    BUDGET_EXCEEDED(Retry.NO, 1),
    /** An agent exited with an error or without a result (docs/agents.md). */
    AGENT_CRASH(Retry.MAYBE, 1),
    /** An agent's stdout or stderr passed the runner's output limit (docs/agents.md, "Limits"). */
    OUTPUT_TOO_LARGE(Retry.NO, 1),
    /** An agent's patch passed the runner's patch limit (docs/agents.md, "Limits"). */
    PATCH_TOO_LARGE(Retry.NO, 1),
    /** An agent's patch holds its own API key: masked in the store, never measured (docs/agents.md). */
    PATCH_HAS_SECRET(Retry.NO, 1),
    /** isobench failed while running an agent attempt; recorded so a resumed run does not repeat it. */
    ATTEMPT_CRASHED(Retry.MAYBE, 1),
    /** An agent attempt isobench had to stop whose container it could not prove stopped (docs/agents.md). */
    SANDBOX_UNSTOPPABLE(Retry.NO, 1),
    OUTPUT_MISMATCH(Retry.NO, 1),
    /**
     * The harness itself failed, not an arm: its own bug (a NameError in its script), a refusal of its own (an engine
     * version it will not run), its cloud function missing, an exception it raised outside any arm's output
     * (docs/parsing.md, "Whose failure is it: arm or harness"). Rerunning the task with a working harness may succeed.
     */
    HARNESS_ERROR(Retry.MAYBE, 1),
    /** Someone stopped the run on purpose (a user cancel): nothing failed; a rerun needs no change, but not automatically. */
    CANCELLED(Retry.MAYBE, 1),
    CUDA_ERROR(Retry.NO, 1),
    GIT_ERROR(Retry.YES, 1),
    SERVER_START_TIMEOUT(Retry.MAYBE, 2),
    SERVER_CRASHED(Retry.MAYBE, 2),
    /**
     * An arm's tracked files changed while it was measured: one of its runs rewrote its own code or benchmark
     * (docs/security.md, "Measured arms"); nothing measured after that counts.
     */
    TREE_CHANGED(Retry.NO, 3),
    NO_METRICS(Retry.NO, 3),
    /** A measured run lost requests (HTTP errors, timeouts): it did less work than the others (docs/statistics.md). */
    REQUESTS_FAILED(Retry.NO, 3),
    TIMEOUT(Retry.MAYBE, 3),
    UNKNOWN(Retry.NO, 4);

    /** Whether (and how) a failure of this category is worth retrying. */
    public enum Retry {
        YES, NO, MAYBE, AFTER_CLEANUP, FIX_RECIPE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Retry retry;
    private final int precedence;

    FailureCategory(Retry retry, int precedence) {
        this.retry = retry;
        this.precedence = precedence;
    }

    public Retry retry() {
        return retry;
    }

    /** True when an automatic retry may succeed without changing anything (bounded backoff). */
    public boolean retryable() {
        return retry == Retry.YES;
    }

    /** True when a rerun can succeed after a fix (cleanup, recipe, flags) rather than never. */
    public boolean fixable() {
        return retry != Retry.NO;
    }

    /** Lower wins: specific root causes (1) beat server crash/timeout (2), beat no-metrics/timeout (3), beat unknown (4). */
    public int precedence() {
        return precedence;
    }

    /** True for outcomes that belong to the agent's patch itself rather than the infrastructure. */
    public boolean agentOutcome() {
        return this == PATCH_FAILED || this == EMPTY_PATCH || this == PATCH_REJECTED || this == OUTPUT_MISMATCH;
    }
}
