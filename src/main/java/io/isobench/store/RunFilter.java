package io.isobench.store;

import java.util.Set;

/**
 * Which runs to read. Null fields do not filter.
 *
 * @param agent     runs of this agent's suite/tree ({@code -}/{@code _} insensitive)
 * @param kinds     run kinds to include, or null for all
 * @param sessionId only this session
 * @param withMetrics whether to load each run's metrics (costly on big stores; tables only need primary values)
 */
public record RunFilter(String agent, Set<RunRecord.RunKind> kinds, String sessionId, boolean withMetrics) {

    public static RunFilter all() {
        return new RunFilter(null, null, null, true);
    }
}
