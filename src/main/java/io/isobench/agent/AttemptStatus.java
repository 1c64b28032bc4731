package io.isobench.agent;

/**
 * How an attempt ended (docs/agents.md). Every status but {@link #OK} is a failure category of the taxonomy
 * (docs/parsing.md, DESIGN §7) with the same name.
 */
public enum AttemptStatus {
    /** The agent finished and left a non-empty patch. */
    OK,
    /** Wall time ran out: isobench killed the attempt. */
    AGENT_TIMEOUT,
    /** Turns, tokens or USD passed the budget: the CLI stopped itself, or isobench killed it. */
    BUDGET_EXCEEDED,
    /** The agent exited with an error (non-zero status, an error result, no result at all). */
    AGENT_CRASH,
    /** The agent finished but changed nothing that counts as a patch. */
    EMPTY_PATCH,
    /** The agent's stdout or stderr passed {@link AttemptLimits#outputBytes()}: isobench killed it. */
    OUTPUT_TOO_LARGE,
    /** The patch (or a file it would carry, by apparent size) passed {@link AttemptLimits#patchBytes()}. */
    PATCH_TOO_LARGE,
    /**
     * The patch holds one of the attempt's own secret values: stored with the value masked, never written beside the
     * suite nor measured (masking would change the patch, and the secret must not leave the attempt).
     */
    PATCH_HAS_SECRET,
    /** isobench itself failed while running or collecting the attempt (the reason is recorded; never rerun). */
    ATTEMPT_CRASHED,
    /**
     * isobench had to stop the attempt (budget, wall time) and could not prove its sandbox stopped: the container
     * still ran after every verified kill; it is removed when isobench ends or at the next sandbox's start.
     */
    SANDBOX_UNSTOPPABLE
}
