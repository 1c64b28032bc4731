package io.isobench.parse;

/**
 * Workload fingerprint of a serving run, as the serving block (or {@code --save-result} JSON) reports it: two arms
 * ran the same workload only if these agree. Any component may be null when the output does not show it.
 *
 * @param completedRequests  "Successful requests" / {@code completed}
 * @param totalInputTokens   "Total input tokens" / {@code total_input_tokens}
 * @param totalOutputTokens  "Total generated tokens" / {@code total_output_tokens}
 */
public record Workload(Long completedRequests, Long totalInputTokens, Long totalOutputTokens) {

    /** Null when all three are unknown, so that "no fingerprint" is never an all-null object. */
    static Workload ofNullable(Long completed, Long input, Long output) {
        return completed == null && input == null && output == null ? null : new Workload(completed, input, output);
    }

    /** Same workload: every component known on both sides agrees, and at least one is known on both. */
    public boolean sameAs(Workload other) {
        if (other == null) {
            return false;
        }
        int compared = 0;
        Long[][] pairs = {{completedRequests, other.completedRequests}, {totalInputTokens, other.totalInputTokens},
                {totalOutputTokens, other.totalOutputTokens}};
        for (Long[] p : pairs) {
            if (p[0] != null && p[1] != null) {
                if (!p[0].equals(p[1])) {
                    return false;
                }
                compared++;
            }
        }
        return compared > 0;
    }
}
