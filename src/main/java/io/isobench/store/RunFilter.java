package io.isobench.store;

import java.util.Locale;
import java.util.Set;

/**
 * Which runs to read. Null fields do not filter. Built by name: {@link #runs()} or {@link #all()}, then narrowed
 * ({@code RunFilter.runs().ofKinds(kinds).inSession(id).loadingMetrics()}).
 *
 * @param agent       runs of this agent's suite/tree ({@code -}/{@code _} insensitive)
 * @param kinds       run kinds to include, or null for all
 * @param withMetrics whether to load each run's metrics (costly on big stores; tables only need primary values)
 * @param commit      runs of this commit: a hex prefix of 4–40 characters, matched against the stored id whichever
 *                    of the two is longer (an 8-character id and the full hash name the same commit)
 * @param status      only runs with this status
 * @param category    only failed runs with this failure category (DESIGN.md §7 name)
 * @param scope       session, pipeline, arm and source of the runs ({@link Scope#ANY}: every one)
 */
public record RunFilter(String agent, Set<RunRecord.RunKind> kinds, boolean withMetrics,
                        String commit, RunRecord.RunStatus status, String category, Scope scope) {

    /** The agent name that selects the runs whose source names no agent ({@code runs --agent unknown}). */
    public static final String UNKNOWN_AGENT = "unknown";

    /**
     * Where runs come from. Null fields do not filter.
     *
     * @param sessionId    only this session
     * @param pipeline     the stored pipeline label ({@code modal}, {@code native}, …)
     * @param arm          an arm label ({@code baseline}, {@code human}, {@code agent:NAME}, {@code attempt}…);
     *                     {@code agent} alone is every agent arm
     * @param sourcePrefix the start of the run's source as {@code isobench runs} shows it (a legacy file's path
     *                     relative to the imported root, {@code SESSION/job} of a native run, an HF table's file)
     */
    public record Scope(String sessionId, String pipeline, String arm, String sourcePrefix) {

        public static final Scope ANY = new Scope(null, null, null, null);

        public Scope {
            pipeline = blankToNull(pipeline);
            arm = blankToNull(arm);
            sourcePrefix = sourcePrefix == null || sourcePrefix.isEmpty() ? null : sourcePrefix;
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s.strip();
        }
    }

    public RunFilter {
        scope = scope == null ? Scope.ANY : scope;
        if (commit != null) {
            commit = commit.strip().toLowerCase(Locale.ROOT);
            if (!commit.matches("[0-9a-f]{4,40}")) {
                throw new IllegalArgumentException("commit (" + commit + ") must be 4 to 40 hex characters");
            }
        }
    }

    /** Runs of {@code agent} and {@code kinds} in session {@code sessionId} (tests; code names what it filters). */
    public RunFilter(String agent, Set<RunRecord.RunKind> kinds, String sessionId, boolean withMetrics) {
        this(agent, kinds, withMetrics, null, null, null, new Scope(sessionId, null, null, null));
    }

    /** Only this session's runs, or null. */
    public String sessionId() {
        return scope.sessionId();
    }

    /** This filter restricted to {@code pipeline}, {@code arm} and {@code sourcePrefix} (its session kept). */
    public RunFilter within(String pipeline, String arm, String sourcePrefix) {
        return new RunFilter(agent, kinds, withMetrics, commit, status, category,
                new Scope(scope.sessionId(), pipeline, arm, sourcePrefix));
    }

    /** Every run with its metrics. */
    public static RunFilter all() {
        return runs().loadingMetrics();
    }

    /** Every run, without metrics: the start of a filter narrowed by the methods below, each of which returns a copy. */
    public static RunFilter runs() {
        return new RunFilter(null, null, false, null, null, null, Scope.ANY);
    }

    /** Only runs of these kinds (null: every kind). */
    public RunFilter ofKinds(Set<RunRecord.RunKind> only) {
        return new RunFilter(agent, only, withMetrics, commit, status, category, scope);
    }

    /** Only runs of this agent's suite/tree (null: any). */
    public RunFilter ofAgent(String name) {
        return new RunFilter(name, kinds, withMetrics, commit, status, category, scope);
    }

    /** Only this session's runs (null: every session); the rest of the scope is kept. */
    public RunFilter inSession(String id) {
        return new RunFilter(agent, kinds, withMetrics, commit, status, category,
                new Scope(id, scope.pipeline(), scope.arm(), scope.sourcePrefix()));
    }

    /** Each run with its metrics. */
    public RunFilter loadingMetrics() {
        return new RunFilter(agent, kinds, true, commit, status, category, scope);
    }

    /** Only runs of this commit (a hex prefix of 4–40 characters; null: any). */
    public RunFilter ofCommit(String prefix) {
        return new RunFilter(agent, kinds, withMetrics, prefix, status, category, scope);
    }

    /** Only runs with this status (null: any). */
    public RunFilter withStatus(RunRecord.RunStatus only) {
        return new RunFilter(agent, kinds, withMetrics, commit, only, category, scope);
    }

    /** Only failed runs with this failure category (null: any). */
    public RunFilter inCategory(String name) {
        return new RunFilter(agent, kinds, withMetrics, commit, status, name, scope);
    }
}
