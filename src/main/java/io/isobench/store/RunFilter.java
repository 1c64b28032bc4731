package io.isobench.store;

import java.util.Locale;
import java.util.Set;

/**
 * Which runs to read. Null fields do not filter.
 *
 * @param agent       runs of this agent's suite/tree ({@code -}/{@code _} insensitive)
 * @param kinds       run kinds to include, or null for all
 * @param sessionId   only this session
 * @param withMetrics whether to load each run's metrics (costly on big stores; tables only need primary values)
 * @param commit      runs of this commit: a hex prefix of 4–40 characters, matched against the stored id whichever
 *                    of the two is longer (an 8-character id and the full hash name the same commit)
 * @param status      only runs with this status
 * @param category    only failed runs with this failure category (DESIGN.md §7 name)
 */
public record RunFilter(String agent, Set<RunRecord.RunKind> kinds, String sessionId, boolean withMetrics,
                        String commit, RunRecord.RunStatus status, String category) {

    public RunFilter {
        if (commit != null) {
            commit = commit.strip().toLowerCase(Locale.ROOT);
            if (!commit.matches("[0-9a-f]{4,40}")) {
                throw new IllegalArgumentException("commit (" + commit + ") must be 4 to 40 hex characters");
            }
        }
    }

    public RunFilter(String agent, Set<RunRecord.RunKind> kinds, String sessionId, boolean withMetrics) {
        this(agent, kinds, sessionId, withMetrics, null, null, null);
    }

    public static RunFilter all() {
        return new RunFilter(null, null, null, true);
    }
}
