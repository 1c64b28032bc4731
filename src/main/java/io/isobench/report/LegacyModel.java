package io.isobench.report;

import io.isobench.store.Pipeline;
import io.isobench.Arm;
import io.isobench.analysis.SingleRunRule;
import io.isobench.analysis.SingleRunRule.Outcome;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.parse.FailureCategory;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The imported-data part of the {@link ReportModel}: the 3-way rows of legacy and HF runs, collected in one streaming
 * pass over the store (one commit at a time), with the failure counts, corrections and caveat counters. Row text is
 * spooled, as Markdown table rows ({@link Md}), to temporary files ({@link Spool}); only counters stay in memory.
 */
final class LegacyModel implements AutoCloseable {

    private static final int EXAMPLE_COMMITS = 5;

    private final Options opts;
    private final TreeMap<String, AgentSection> agents = new TreeMap<>();
    private List<Store.FailureCount> failures = List.of();
    private final List<Spool> spools = new ArrayList<>();
    private final Spool todo;
    private final Spool shared;
    private final Spool corrections;
    private List<SourceRecord> sources = List.of();
    private int modelMismatch;
    private int workloadMismatch;
    private long singleVersion;
    private long substituted;
    private long truncated;
    private long correctedStatus;
    private long superseded;

    private record Options(double bandPct, String agent) {
    }

    private LegacyModel(String agent, double bandPct) {
        this.opts = new Options(bandPct, agent == null ? null : Arm.normalizeAgent(agent));
        this.todo = spool();
        this.shared = spool();
        this.corrections = spool();
    }

    /** No imported data (a report of one native session). */
    static LegacyModel empty(double bandPct) {
        return new LegacyModel(null, bandPct);
    }

    /**
     * Collects the model of one agent's imported data ({@code agentName} null: every agent's), single runs judged on a
     * ±{@code bandPct} % band.
     */
    static LegacyModel collect(Store store, String agentName, double bandPct) {
        LegacyModel m = new LegacyModel(agentName, bandPct);
        try {
            m.sources = store.sources();
            // counters and failures are aggregated in the database: the report never streams every run
            String agent = m.opts.agent();
            m.failures = store.failureCounts(filter(agent, FAILURE_KINDS),
                    EXAMPLE_COMMITS);
            m.singleVersion = store.countRuns(filter(agent,
                    java.util.EnumSet.of(RunRecord.RunKind.LEGACY_SINGLE_VERSION)), null);
            m.superseded = store.countRuns(filter(agent,
                    java.util.EnumSet.of(RunRecord.RunKind.LEGACY_SUPERSEDED)), null);
            m.substituted = store.countRuns(filter(agent, null), "substitute model");
            m.truncated = store.countRuns(filter(agent, null), "truncat");
            m.correctedStatus = store.countRuns(filter(agent, null), "status corrected");
            List<RunRecord> group = new ArrayList<>();
            String[] commit = {null};
            store.forEachRun(filter(m.opts.agent(), java.util.EnumSet.of(RunRecord.RunKind.LEGACY,
                    RunRecord.RunKind.HF_IMPORT)), r -> {
                String c = r.commitShort() == null ? "" : r.commitShort();
                if (commit[0] != null && !commit[0].equals(c)) {
                    m.commit(commit[0], group);
                    group.clear();
                }
                commit[0] = c;
                group.add(r);
            });
            if (commit[0] != null) {
                m.commit(commit[0], group);
            }
            return m;
        } catch (RuntimeException e) {
            m.close();
            throw e;
        }
    }

    /** One commit: per-run bookkeeping, then one 3-way row per agent. */
    private void commit(String commit, List<RunRecord> runs) {
        Map<String, List<RunRecord>> byAgent = new TreeMap<>();
        for (RunRecord r : runs) {
            if ((r.kind() == RunRecord.RunKind.LEGACY || r.kind() == RunRecord.RunKind.HF_IMPORT) && r.agent() != null) {
                byAgent.computeIfAbsent(Arm.normalizeAgent(r.agent()), k -> new ArrayList<>()).add(r);
            }
        }
        Map<String, Double> comparableDelta = new LinkedHashMap<>();
        String[] modeMetric = {null, null};
        for (Map.Entry<String, List<RunRecord>> e : byAgent.entrySet()) {
            ThreeWayRow row = rowFor(commit, e.getValue());
            if (row == null) {
                continue;
            }
            AgentSection a = agents.computeIfAbsent(e.getKey(), k -> new AgentSection(k, this));
            a.add(row, e.getValue(), this);
            for (Corrections.Correction c : Corrections.of(row, e.getValue())) {
                corrections.add("| " + Md.code(commit) + " | " + Md.text(e.getKey()) + " | "
                        + Md.text(c.comparison()) + " | " + Md.text(c.metric()) + " | "
                        + Md.pct(c.published()) + " | " + Md.text(row.metric()) + " | "
                        + Md.pct(c.isobench()) + " | " + Md.text(c.reason()) + " | "
                        + Md.text(c.source()) + " |");
            }
            if (row.comparable()) {
                comparableDelta.put(e.getKey(), row.agentDeltaPct());
                modeMetric[0] = row.mode();
                modeMetric[1] = row.metric();
            }
        }
        if (comparableDelta.size() >= 2) {
            StringBuilder sb = new StringBuilder("| ").append(Md.code(commit)).append(" | ")
                    .append(Md.text(modeMetric[0])).append(" | ").append(Md.text(modeMetric[1])).append(" |");
            for (String a : agents.keySet()) {
                sb.append(' ').append(comparableDelta.containsKey(a) ? Md.pct(comparableDelta.get(a)) : "")
                        .append(" |");
            }
            shared.add(sb.toString());
        }
    }

    private Spool spool() {
        Spool s = new Spool();
        spools.add(s);
        return s;
    }

    TreeMap<String, AgentSection> agents() {
        return agents;
    }

    List<Store.FailureCount> failures() {
        return failures;
    }

    Spool todo() {
        return todo;
    }

    Spool shared() {
        return shared;
    }

    Spool corrections() {
        return corrections;
    }

    List<SourceRecord> sources() {
        return sources;
    }

    int modelMismatch() {
        return modelMismatch;
    }

    int workloadMismatch() {
        return workloadMismatch;
    }

    long singleVersion() {
        return singleVersion;
    }

    long truncated() {
        return truncated;
    }

    long correctedStatus() {
        return correctedStatus;
    }

    long substituted() {
        return substituted;
    }

    long superseded() {
        return superseded;
    }

    /**
     * Run kinds whose failures the report counts: the runs {@code isobench runs} lists by default (final attempts),
     * except agent attempts, which have a section of their own. Superseded attempts are kept, not counted.
     */
    static final java.util.Set<RunRecord.RunKind> FAILURE_KINDS =
            EnumSet.complementOf(EnumSet.of(RunRecord.RunKind.LEGACY_SUPERSEDED, RunRecord.RunKind.AGENT_ATTEMPT));

    static RunFilter filter(String agent, java.util.Set<RunRecord.RunKind> kinds) {
        return new RunFilter(agent == null ? null : Arm.normalizeAgent(agent), kinds, null, false);
    }

    static ThreeWayRow rowFor(String commit, List<RunRecord> runs) {
        return ThreeWayTable.row(commit, runs).orElse(null);
    }

    @Override
    public void close() {
        for (Spool s : spools) {
            s.close();
        }
    }

    /** One agent's rows and counters. */
    static final class AgentSection {
        private final String agent;
        private final Map<String, Integer> statusCounts = new HashMap<>();
        private final int[] vsBaseline = new int[3];
        private final int[] vsHuman = new int[3];
        private final TreeMap<String, Integer> agentFailureCategories = new TreeMap<>();
        private int commits;
        private int agentFailures;
        private final Spool comparable;
        private final Spool undefinedDelta;
        private final Spool withIssues;
        private final Spool crossRun;
        private final Spool incomplete;

        AgentSection(String agent, LegacyModel m) {
            this.agent = agent;
            comparable = m.spool();
            undefinedDelta = m.spool();
            withIssues = m.spool();
            crossRun = m.spool();
            incomplete = m.spool();
        }

        void add(ThreeWayRow row, List<RunRecord> runs, LegacyModel m) {
            commits++;
            statusCounts.merge(row.status(), 1, Integer::sum);
            String c = Md.code(row.commit());
            String issues = row.issues() == null ? "" : Md.text(row.issues());
            String agent = Md.text(this.agent);
            if (issues.contains("model mismatch")) {
                m.modelMismatch++;
            }
            if (issues.contains("workload mismatch")) {
                m.workloadMismatch++;
            }
            switch (row.status()) {
                case "complete_3way_same_run" -> {
                    Outcome vb = SingleRunRule.classify(row.agentDeltaPct(), m.opts.bandPct());
                    Outcome vh = SingleRunRule.classify(row.agentVsHumanPct(), m.opts.bandPct());
                    count(vsBaseline, vb);
                    count(vsHuman, vh);
                    comparable.add("| " + c + " | " + Md.text(row.mode()) + " | " + Md.text(row.metric()) + " (" + Md.text(row.unit()) + ", "
                            + Md.text(row.better()) + " is better) | " + Md.val(row.baselineValue()) + " | "
                            + Md.val(row.humanValue()) + " | " + Md.val(row.agentValue())
                            + " | " + Md.pct(row.humanDeltaPct()) + " | "
                            + Md.pct(row.agentDeltaPct()) + " | "
                            + Md.pct(row.agentVsHumanPct()) + " | " + vb.label() + " | " + vh.label()
                            + " |");
                }
                case "same_run_3_values_delta_undefined" -> undefinedDelta.add("| " + c + " | " + Md.text(row.mode()) + " | "
                        + Md.text(row.metric()) + " | " + Md.val(row.baselineValue()) + " | "
                        + Md.val(row.humanValue()) + " | " + Md.val(row.agentValue()) + " | "
                        + Md.pct(row.humanDeltaPct()) + " | " + Md.pct(row.agentDeltaPct())
                        + " | a baseline value of 0 or a missing value leaves the Δ undefined |");
                case "same_run_3_values_with_issues" -> withIssues.add("| " + c + " | " + Md.text(row.pipeline()) + " | "
                        + Md.text(row.mode()) + " | " + Md.text(row.metric()) + " | " + Md.val(row.baselineValue()) + " | "
                        + Md.val(row.humanValue()) + " | " + Md.val(row.agentValue()) + " | "
                        + Md.pct(row.humanDeltaPct()) + " | " + Md.pct(row.agentDeltaPct())
                        + " | " + issues + " |");
                case "cross_run_3_values_not_comparable" -> {
                    crossRun.add("| " + c + " | " + Md.text(row.pipeline()) + " | " + Md.text(row.mode()) + " | " + Md.text(row.metric())
                            + " | " + Md.val(row.baselineValue()) + " | "
                            + Md.val(row.humanValue()) + " | " + Md.val(row.agentValue())
                            + " | arms measured in separate invocations" + (issues.isEmpty() ? "" : "; " + issues)
                            + " |");
                    m.todo.add("| " + c + " | " + agent + " | " + Md.text(row.status()) + " | rerun all three arms in one "
                            + "session | values come from separate invocations"
                            + (issues.isEmpty() ? "" : " (" + issues + ")") + " |");
                }
                default -> incomplete(row, runs, m);
            }
            if (!row.comparable() && !"cross_run_3_values_not_comparable".equals(row.status())
                    && !"incomplete".equals(row.status()) && !"no_metrics".equals(row.status())) {
                m.todo.add("| " + c + " | " + agent + " | " + Md.text(row.status()) + " | rerun in one session with the same "
                        + "model and workload | " + (issues.isEmpty() ? "the Δ is undefined" : issues) + " |");
            }
        }

        private void incomplete(ThreeWayRow row, List<RunRecord> runs, LegacyModel m) {
            String[] values = {row.baselineValue(), row.humanValue(), row.agentValue()};
            String[] arms = {"baseline", "human", "agent"};
            List<String> missing = new ArrayList<>();
            java.util.LinkedHashSet<String> actions = new java.util.LinkedHashSet<>();
            List<String> why = new ArrayList<>();
            List<String> noValue = new ArrayList<>();
            List<String> notRun = new ArrayList<>();
            boolean otherHasValue = false;
            for (int i = 0; i < 3; i++) {
                if (values[i] != null) {
                    otherHasValue = true;
                }
            }
            for (int i = 0; i < 3; i++) {
                if (values[i] != null) {
                    continue;
                }
                String zero = zeroValue(row, arms[i]);
                if (zero != null) {
                    missing.add(zero + " (shown as missing)");
                    actions.add("check the " + arms[i] + " arm's workload (a latency of 0: e.g. one output token per"
                            + " request), then rerun it");
                    why.add(zero);
                    continue;
                }
                RunRecord.FailureInfo f = failureOf(runs, arms[i], row.pipeline());
                String cat = f == null ? null : f.category();
                missing.add(arms[i] + ": " + (cat == null ? "no value, no failure recorded"
                        : cat + " " + Md.code(firstLine(f))));
                if (i == 2 && otherHasValue && cat != null) {
                    agentFailures++;
                    agentFailureCategories.merge(cat, 1, Integer::sum);
                }
                String notRunReason = cat == null ? notRunReason(runs, arms[i], row.pipeline()) : null;
                if (notRunReason != null) {
                    missing.set(missing.size() - 1, arms[i] + ": " + notRunReason.replace("|", "\\|"));
                    notRun.add(arms[i]);
                } else if (cat == null) {
                    String elsewhere = failureElsewhere(runs, arms[i], row.pipeline());
                    if (elsewhere == null) {
                        noValue.add(arms[i]);
                    } else {
                        // pointed at, not charged: the other pipeline's failure does not say why this source lacks
                        // the value, so it is neither counted nor this row's cause
                        String here = Md.text(row.pipeline());
                        missing.set(missing.size() - 1, arms[i] + ": no value in " + here + "; " + elsewhere);
                        actions.add("run " + arms[i] + " (another pipeline's run of it failed)");
                        why.add(arms[i] + ": no value in " + here + ", " + elsewhere);
                    }
                } else {
                    actions.add(action(cat, arms[i]));
                    why.add(arms[i] + " failed: " + cat);
                }
            }
            RunRecord.FailureInfo attempt = notRun.isEmpty() ? null : failureOf(runs, "attempt", row.pipeline());
            if (attempt != null) { // a harness event outside any arm (docs/parsing.md): the attempt's own failure
                actions.add(action(attempt.category(), "attempt"));
                why.add("attempt failed: " + attempt.category());
            }
            if (!notRun.isEmpty()) {
                actions.add("run " + String.join(", ", notRun) + " once the failure above is fixed");
                why.add(String.join(", ", notRun) + ": not run");
            }
            if (!noValue.isEmpty()) {
                actions.add("run " + String.join(", ", noValue) + " (never ran here or produced nothing)");
                why.add(String.join(", ", noValue) + ": no value, no failure recorded");
            }
            m.todo.add("| " + Md.code(row.commit()) + " | " + Md.text(agent) + " | " + Md.text(row.status()) + " | "
                    + String.join("; ", actions) + " | " + String.join("; ", why) + " |");
            incomplete.add("| " + Md.code(row.commit()) + " | " + Md.text(row.status()) + " | " + Md.val(row.pipeline())
                    + " | " + Md.val(row.mode()) + " | " + Md.val(row.baselineValue()) + " / "
                    + Md.val(row.humanValue()) + " / " + Md.val(row.agentValue()) + " | "
                    + String.join("; ", missing) + " |");
        }

        /**
         * Why an arm never ran, when its records in the row's pipeline say so (another arm's failure stopped the
         * invocation); null when the arm ran there or has no record there.
         */
        private static String notRunReason(List<RunRecord> runs, String arm, String pipeline) {
            String why = null;
            for (RunRecord r : runs) {
                if (!armMatches(r, arm) || pipeline != null && !pipeline.equals(Pipeline.labelOf(r.pipeline()))) {
                    continue;
                }
                if (r.status() != RunRecord.RunStatus.NOT_RUN) {
                    return null;
                }
                if (why == null) {
                    why = reasonOf(r);
                }
            }
            return why;
        }

        private static String reasonOf(RunRecord r) {
            if (r.notes() != null) {
                for (String n : r.notes().split("; ")) {
                    if (n.startsWith("not run: ")) {
                        return n;
                    }
                }
            }
            return "not run (the invocation stopped before it)";
        }

        private static boolean armMatches(RunRecord r, String arm) {
            return arm.equals("agent") ? r.arm().label().startsWith("agent") : arm.equals(r.arm().label());
        }

        private static String firstLine(RunRecord.FailureInfo f) {
            String ev = f.evidence();
            if (ev == null || ev.isBlank()) {
                return f.detail();
            }
            return ev.lines().findFirst().orElse(ev);
        }

        /**
         * The failure of an arm in the row's own pipeline, or null: a failure from another source or pipeline is never
         * borrowed (it says nothing about why this source lacks the value).
         */
        private static RunRecord.FailureInfo failureOf(List<RunRecord> runs, String arm, String pipeline) {
            for (RunRecord r : runs) {
                if (armMatches(r, arm) && r.failure() != null && r.failure().category() != null
                        && (pipeline == null || pipeline.equals(Pipeline.labelOf(r.pipeline())))) {
                    return r.failure();
                }
            }
            return null;
        }

        /**
         * A failure of the arm recorded by another pipeline of the same commit ("the modal run failed: CAT `line`"),
         * or null: shown where the row's own source has no value and no failure, never counted as the row's.
         */
        private static String failureElsewhere(List<RunRecord> runs, String arm, String pipeline) {
            for (RunRecord r : runs) {
                String p = Pipeline.labelOf(r.pipeline());
                if (armMatches(r, arm) && r.failure() != null && r.failure().category() != null && p != null
                        && !p.equals(pipeline)) {
                    return "the " + Md.text(p) + " run failed: " + r.failure().category() + " " + Md.code(firstLine(r.failure()));
                }
            }
            return null;
        }

        /** Why an arm's lower-is-better value of 0 was left out of the row (its issue), or null. */
        private static String zeroValue(ThreeWayRow row, String arm) {
            if (row.issues() == null || row.mode() == null) {
                return null;
            }
            String issue = io.isobench.Mode.fromLabel(row.mode()).map(m -> ThreeWayTable.zeroIssue(arm, m)).orElse(null);
            return issue != null && row.issues().contains(issue) ? issue : null;
        }

        static String action(String category, String arm) {
            FailureCategory c;
            try {
                c = FailureCategory.valueOf(category);
            } catch (IllegalArgumentException e) {
                return "investigate the " + arm + " arm";
            }
            return switch (c) {
                case INFRA_TRANSIENT, PORT_CONFLICT, GIT_ERROR -> "retry the " + arm + " arm (transient)";
                case DISK_FULL -> "free disk space, then rerun the " + arm + " arm";
                case ENV_MISSING -> "build or publish the " + arm + " environment (image/wheel), then rerun";
                case ENV_MISMATCH -> "point the " + arm + " arm at the artifact of its own commit (version, sha256),"
                        + " then rerun";
                case BUILD_FAILED -> "fix the " + arm + " build, then rerun";
                case DEPENDENCY_CONFLICT -> "add a fix recipe (dependency pin), then rerun the " + arm + " arm";
                case MODEL_UNSUPPORTED -> "pick a model this engine version supports, then rerun all arms";
                case MODEL_ACCESS -> "provide an HF token with access to the model, then rerun";
                case GPU_OOM -> "rerun the " + arm + " arm with memory flags (smaller batch/max-model-len) or more GPUs";
                case RESOURCES_INSUFFICIENT -> "run on a machine with enough GPUs";
                case BAD_PERF_COMMAND, NO_PERF_COMMAND -> "fix the task's perf_command, then rerun all arms";
                case NO_METRICS -> "check the benchmark client/output of the " + arm + " arm, then rerun";
                case REQUESTS_FAILED -> "read the server log of the " + arm + " arm: requests failed, so the run did "
                        + "less work than the others";
                case TIMEOUT, SERVER_START_TIMEOUT -> "rerun the " + arm + " arm with a longer timeout";
                case SERVER_CRASHED, CUDA_ERROR -> arm.equals("agent") ? "agent outcome (patch breaks the engine)"
                        : "investigate the " + arm + " crash";
                case PATCH_FAILED, EMPTY_PATCH, PATCH_REJECTED, OUTPUT_MISMATCH -> "agent outcome (nothing to rerun)";
                case AGENT_TIMEOUT, BUDGET_EXCEEDED, AGENT_CRASH, OUTPUT_TOO_LARGE, PATCH_TOO_LARGE, PATCH_HAS_SECRET,
                     ATTEMPT_CRASHED -> "agent outcome of `isobench agents run` (a new"
                        + " attempt, or a larger budget)";
                case TREE_CHANGED -> arm.equals("agent") ? "agent outcome (its run rewrote its own tracked files)"
                        : "investigate the " + arm + " arm: a run rewrote its tracked files";
                case SANDBOX_UNSTOPPABLE -> "check the docker host: an agent container could not be stopped";
                case HARNESS_ERROR -> "rerun the task: the old harness failed, not an arm";
                case CANCELLED -> "rerun the task: it was cancelled";
                case UNKNOWN -> "investigate the " + arm + " log";
            };
        }

        private static void count(int[] c, Outcome o) {
            switch (o) {
                case WIN -> c[0]++;
                case TIE -> c[1]++;
                case LOSS -> c[2]++;
                case UNDEFINED -> {
                }
            }
        }

        String agent() {
            return agent;
        }

        int commits() {
            return commits;
        }

        int count(String status) {
            return statusCounts.getOrDefault(status, 0);
        }

        int[] vsBaseline() {
            return vsBaseline;
        }

        int[] vsHuman() {
            return vsHuman;
        }

        int agentFailures() {
            return agentFailures;
        }

        TreeMap<String, Integer> agentFailureCategories() {
            return agentFailureCategories;
        }

        Spool comparable() {
            return comparable;
        }

        Spool undefinedDelta() {
            return undefinedDelta;
        }

        Spool withIssues() {
            return withIssues;
        }

        Spool crossRun() {
            return crossRun;
        }

        Spool incomplete() {
            return incomplete;
        }
    }
}
