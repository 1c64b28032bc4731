package io.isobench.report;

import io.isobench.Arm;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The failures by category as the report counts and shows them (docs/html-report.md, "Counting failures"): the
 * store's counts per run, with two corrections. First, a failure to prepare an arm counts once: a native session
 * prepares each arm of a task once (its worktree, the agent patch, the build, the fix recipes, a prebuilt artifact);
 * when that fails, every job of the arm (its check and each round) is recorded with the same failure, although one
 * thing failed. Rule: a failed run of a native session whose category is a preparation category ({@link #CATEGORIES})
 * counts once per arm per session — per (session, task, arm, category) — in the failures table, the failure counts
 * and an arm's outcomes; the other failures count per run, and imported runs (each its own invocation) per run.
 * Second, an output mismatch's example evidence shows where the texts diverge (probe.Divergence) instead of two cut
 * prefixes, where the model has both texts.
 */
final class FailureCounts {

    /** Categories of a failure to prepare an arm's environment. */
    static final Set<String> CATEGORIES = Set.of("PATCH_FAILED", "EMPTY_PATCH", "PATCH_REJECTED", "ENV_MISSING",
            "ENV_MISMATCH", "BUILD_FAILED", "DEPENDENCY_CONFLICT", "GIT_ERROR");

    /** The rule as the reports state it. */
    static final String RULE = "a failure to prepare an arm (" + String.join(", ", CATEGORIES.stream().sorted()
            .toList()) + ": its patch, build, recipes or environment) is recorded on every job of the arm but counts"
            + " once per arm per session; every other failure counts per run";

    private FailureCounts() {
    }

    /**
     * One category's failed runs as the report counts them, per arm column (the A/A arm with the baseline; "no arm":
     * a harness event charged to no arm), with an example evidence line and example commits.
     */
    record Count(String category, long baselineRuns, long humanRuns, long agentRuns, long noArmRuns,
                 String exampleEvidence, List<String> exampleCommits, boolean moreCommits) {

        long runs() {
            return baselineRuns + humanRuns + agentRuns + noArmRuns;
        }
    }

    static boolean isPrepare(String category) {
        return category != null && CATEGORIES.contains(category);
    }

    /** What an arm's outcome count of one session shows: 1 for a preparation failure, else its runs. */
    static int counted(String category, int runs) {
        return isPrepare(category) && runs > 0 ? 1 : runs;
    }

    /**
     * The store's failure counts (per run) as the report shows them: each native arm's preparation failure counted
     * once — for every (session, task, arm, category) of the model's native tasks with n &gt; 1 such runs, n − 1 runs
     * fewer in the arm's column — and an output mismatch's example evidence replaced by its divergence
     * (probe.Divergence) where a native task of the model has that failure and both texts. {@code agent}: the
     * report's agent filter (the store counted only that agent's runs), or null.
     */
    static List<Count> of(List<Store.FailureCount> counts, List<NativeTask> tasks, String agent) {
        Map<String, long[]> extra = new HashMap<>();
        String wanted = agent == null ? null : Arm.normalizeAgent(agent);
        for (NativeTask t : tasks) {
            Map<String, Integer> runs = new HashMap<>();
            for (NativeTask.RunFailure f : t.extra().failures) {
                if (isPrepare(f.category()) && counts(f.arm(), wanted)) {
                    runs.merge(f.arm() + "|" + f.category(), 1, Integer::sum);
                }
            }
            runs.forEach((key, n) -> {
                if (n > 1) {
                    int bar = key.indexOf('|');
                    long[] e = extra.computeIfAbsent(key.substring(bar + 1), k -> new long[4]);
                    e[column(key.substring(0, bar))] += n - 1;
                }
            });
        }
        Map<String, String> shown = new HashMap<>();
        tasks.forEach(t -> t.extra().divergences.forEach(shown::putIfAbsent));
        List<Count> out = new ArrayList<>();
        for (Store.FailureCount f : counts) {
            long[] e = extra.getOrDefault(f.category(), new long[4]);
            String evidence = f.exampleEvidence() == null ? null : shown.get(f.exampleEvidence());
            out.add(new Count(f.category(), Math.max(0, f.baselineRuns() - e[0]),
                    Math.max(0, f.humanRuns() - e[1]), Math.max(0, f.agentRuns() - e[2]),
                    Math.max(0, f.noArmRuns() - e[3]), evidence == null ? f.exampleEvidence() : evidence,
                    f.exampleCommits(), f.moreCommits()));
        }
        return out;
    }

    /** Whether the store counted this arm's runs under the agent filter. */
    private static boolean counts(String arm, String agent) {
        if (agent == null) {
            return true;
        }
        String name = Arm.ofStored(arm).agentName();
        return name != null && agent.equals(Arm.normalizeAgent(name));
    }

    /** The failures table's column of an arm: baseline (and its A/A arm), human, agent, no arm. */
    private static int column(String arm) {
        return switch (Arm.ofStored(arm).kind()) {
            case BASELINE, BASELINE_AA -> 0;
            case HUMAN -> 1;
            case AGENT -> 2;
            case OTHER -> 3;
        };
    }
}
