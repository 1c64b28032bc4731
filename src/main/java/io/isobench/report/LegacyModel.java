package io.isobench.report;

import io.isobench.store.Pipeline;
import io.isobench.Arm;
import io.isobench.analysis.SingleRunRule;
import io.isobench.analysis.SingleRunRule.Outcome;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.parse.FailureCategory;
import io.isobench.report.Rows.Cell;
import io.isobench.report.Rows.CellBuilder;
import io.isobench.report.Rows.Column;
import io.isobench.report.Rows.Row;
import io.isobench.report.Rows.Table;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The imported-data part of the {@link ReportModel}: the 3-way rows of legacy and HF runs, collected in one streaming
 * pass over the store (one commit at a time), with the failure counts, corrections and caveat counters. Rows are
 * spooled, typed ({@link Rows}: the Markdown and the HTML report render the same rows), to temporary files
 * ({@link Spool}); only counters stay in memory. The tables' headers are the constants below.
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

    /** The comparable 3-way rows of an agent (win/tie/loss on a ±{@code band} % band). */
    static Table comparableTable(String band) {
        return Table.of(Column.text("commit"), Column.text("mode"), Column.text("metric"), Column.num("baseline"),
                Column.num("human"), Column.num("agent"), Column.num("human Δ %"), Column.num("agent Δ %"),
                Column.num("agent vs human %"), Column.text("vs baseline (±" + band + " %)"),
                Column.text("vs human (±" + band + " %)"));
    }

    /** The executive summary's table of imported data: one row per agent ({@link AgentSection#summaryRow}). */
    static Table summaryTable(String band) {
        return Table.of(Column.text("agent"), Column.num("commits"), Column.num("comparable (same run)"),
                Column.text("agent vs baseline win / tie / loss (±" + band + " %)"),
                Column.text("agent vs human win / tie / loss (±" + band + " %)"), Column.num("Δ undefined"),
                Column.num("same run, with issues"), Column.num("cross-run (not comparable)"), Column.num("incomplete"),
                Column.num("no metrics"), Column.num("agent failures"));
    }

    static final Table UNDEFINED_TABLE = Table.of(Column.text("commit"), Column.text("mode"), Column.text("metric"),
            Column.num("baseline"), Column.num("human"), Column.num("agent"), Column.num("human Δ %"),
            Column.num("agent Δ %"), Column.text("why"));

    static final Table ISSUES_TABLE = Table.of(Column.text("commit"), Column.text("pipeline"), Column.text("mode"),
            Column.text("metric"), Column.num("baseline"), Column.num("human"), Column.num("agent"),
            Column.num("human Δ %"), Column.num("agent Δ %"), Column.text("issues"));

    static final Table CROSS_RUN_TABLE = Table.of(Column.text("commit"), Column.text("pipeline"), Column.text("mode"),
            Column.text("metric"), Column.num("baseline"), Column.num("human"), Column.num("agent"),
            Column.text("why not comparable"));

    static final Table INCOMPLETE_TABLE = Table.of(Column.text("commit"), Column.text("status"),
            Column.text("pipeline"), Column.text("mode"), Column.text("values (B / H / A)"),
            Column.text("missing arms: failure"));

    static final Table TODO_TABLE = Table.of(Column.text("commit"), Column.text("agent"), Column.text("status"),
            Column.text("action"), Column.text("why"));

    static final Table CORRECTIONS_TABLE = Table.of(Column.text("commit"), Column.text("agent"),
            Column.text("comparison"), Column.text("published metric"), Column.num("published Δ %"),
            Column.text("isobench metric"), Column.num("isobench Δ %"), Column.text("why they differ"),
            Column.text("published in"));

    /** The agent comparison on shared commits: one Δ % column per agent. */
    Table sharedTable() {
        List<Column> cols = new ArrayList<>(List.of(Column.text("commit"), Column.text("mode"), Column.text("metric")));
        for (String a : agents.keySet()) {
            cols.add(Column.num(a + " Δ %"));
        }
        return new Table(cols);
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
                    EnumSet.of(RunRecord.RunKind.LEGACY_SINGLE_VERSION)), null);
            m.superseded = store.countRuns(filter(agent,
                    EnumSet.of(RunRecord.RunKind.LEGACY_SUPERSEDED)), null);
            m.substituted = store.countRuns(filter(agent, null), "substitute model");
            m.truncated = store.countRuns(filter(agent, null), "truncat");
            m.correctedStatus = store.countRuns(filter(agent, null), "status corrected");
            List<RunRecord> group = new ArrayList<>();
            String[] commit = {null};
            store.forEachRun(filter(m.opts.agent(), EnumSet.of(RunRecord.RunKind.LEGACY,
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
                corrections.add(Row.of(Cell.code(commit), Cell.text(e.getKey()), Cell.text(c.comparison()),
                        Cell.text(c.metric()), Cell.pct(c.published()), Cell.text(row.metric()),
                        Cell.pct(c.isobench()), Cell.text(c.reason()), Cell.text(c.source())));
            }
            if (row.comparable()) {
                comparableDelta.put(e.getKey(), row.agentDeltaPct());
                modeMetric[0] = row.mode();
                modeMetric[1] = row.metric();
            }
        }
        if (comparableDelta.size() >= 2) {
            List<Cell> cells = new ArrayList<>(List.of(Cell.code(commit), Cell.text(modeMetric[0]),
                    Cell.text(modeMetric[1])));
            for (String a : agents.keySet()) {
                cells.add(comparableDelta.containsKey(a) ? Cell.pct(comparableDelta.get(a)) : Cell.text(""));
            }
            shared.add(new Row(cells));
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
    static final Set<RunRecord.RunKind> FAILURE_KINDS =
            EnumSet.complementOf(EnumSet.of(RunRecord.RunKind.LEGACY_SUPERSEDED, RunRecord.RunKind.AGENT_ATTEMPT));

    static RunFilter filter(String agent, Set<RunRecord.RunKind> kinds) {
        return RunFilter.runs().ofAgent(agent == null ? null : Arm.normalizeAgent(agent)).ofKinds(kinds);
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
            Cell c = Cell.code(row.commit());
            String issues = row.issues() == null ? "" : row.issues();
            if (issues.contains("model mismatch")) {
                m.modelMismatch++;
            }
            if (issues.contains("workload mismatch")) {
                m.workloadMismatch++;
            }
            Cell mode = Cell.text(row.mode());
            Cell metric = Cell.text(row.metric());
            Cell[] values = {Cell.value(row.baselineValue()), Cell.value(row.humanValue()),
                    Cell.value(row.agentValue())};
            switch (row.status()) {
                case "complete_3way_same_run" -> {
                    Outcome vb = SingleRunRule.classify(row.agentDeltaPct(), m.opts.bandPct());
                    Outcome vh = SingleRunRule.classify(row.agentVsHumanPct(), m.opts.bandPct());
                    count(vsBaseline, vb);
                    count(vsHuman, vh);
                    comparable.add(Row.of(c, mode, Cell.text(row.metric() + " (" + row.unit() + ", " + row.better()
                                    + " is better)"), values[0], values[1], values[2], Cell.pct(row.humanDeltaPct()),
                            Cell.pct(row.agentDeltaPct()), Cell.pct(row.agentVsHumanPct()), Cell.text(vb.label()),
                            Cell.text(vh.label())));
                }
                case "same_run_3_values_delta_undefined" -> undefinedDelta.add(Row.of(c, mode, metric, values[0],
                        values[1], values[2], Cell.pct(row.humanDeltaPct()), Cell.pct(row.agentDeltaPct()),
                        Cell.text("a baseline value of 0 or a missing value leaves the Δ undefined")));
                case "same_run_3_values_with_issues" -> withIssues.add(Row.of(c, Cell.text(row.pipeline()), mode,
                        metric, values[0], values[1], values[2], Cell.pct(row.humanDeltaPct()),
                        Cell.pct(row.agentDeltaPct()), Cell.text(issues)));
                case "cross_run_3_values_not_comparable" -> {
                    crossRun.add(Row.of(c, Cell.text(row.pipeline()), mode, metric, values[0], values[1], values[2],
                            Cell.text("arms measured in separate invocations" + (issues.isEmpty() ? "" : "; " + issues))));
                    m.todo.add(Row.of(c, Cell.text(agent), Cell.text(row.status()),
                            Cell.text("rerun all three arms in one session"), Cell.text("values come from separate "
                                    + "invocations" + (issues.isEmpty() ? "" : " (" + issues + ")"))));
                }
                default -> incomplete(row, runs, m);
            }
            if (!row.comparable() && !"cross_run_3_values_not_comparable".equals(row.status())
                    && !"incomplete".equals(row.status()) && !"no_metrics".equals(row.status())) {
                m.todo.add(Row.of(c, Cell.text(agent), Cell.text(row.status()),
                        Cell.text("rerun in one session with the same model and workload"),
                        Cell.text(issues.isEmpty() ? "the Δ is undefined" : issues)));
            }
        }

        private void incomplete(ThreeWayRow row, List<RunRecord> runs, LegacyModel m) {
            String[] values = {row.baselineValue(), row.humanValue(), row.agentValue()};
            String[] arms = {"baseline", "human", "agent"};
            List<Cell> missing = new ArrayList<>();
            LinkedHashSet<Cell> actions = new LinkedHashSet<>();
            List<Cell> why = new ArrayList<>();
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
                    missing.add(Cell.text(zero + " (shown as missing)"));
                    actions.add(Cell.text("check the " + arms[i] + " arm's workload (a latency of 0: e.g. one output"
                            + " token per request), then rerun it"));
                    why.add(Cell.text(zero));
                    continue;
                }
                RunRecord.FailureInfo f = failureOf(runs, arms[i], row.pipeline());
                String cat = f == null ? null : f.category();
                if (i == 2 && otherHasValue && cat != null) {
                    agentFailures++;
                    agentFailureCategories.merge(cat, 1, Integer::sum);
                }
                String notRunReason = cat == null ? notRunReason(runs, arms[i], row.pipeline()) : null;
                if (notRunReason != null) {
                    missing.add(Cell.text(arms[i] + ": " + notRunReason));
                    notRun.add(arms[i]);
                } else if (cat == null) {
                    Cell elsewhere = failureElsewhere(runs, arms[i], row.pipeline());
                    if (elsewhere == null) {
                        missing.add(Cell.text(arms[i] + ": no value, no failure recorded"));
                        noValue.add(arms[i]);
                    } else {
                        // pointed at, not charged: the other pipeline's failure does not say why this source lacks
                        // the value, so it is neither counted nor this row's cause
                        String here = row.pipeline();
                        missing.add(new CellBuilder().text(arms[i] + ": no value in " + here + "; ").cell(elsewhere)
                                .build());
                        actions.add(Cell.text("run " + arms[i] + " (another pipeline's run of it failed)"));
                        why.add(new CellBuilder().text(arms[i] + ": no value in " + here + ", ").cell(elsewhere)
                                .build());
                    }
                } else {
                    missing.add(new CellBuilder().text(arms[i] + ": " + cat + " ").code(firstLine(f)).build());
                    actions.add(TodoAction.of(cat, arms[i]));
                    why.add(Cell.text(arms[i] + " failed: " + cat));
                }
            }
            RunRecord.FailureInfo attempt = notRun.isEmpty() ? null : failureOf(runs, "attempt", row.pipeline());
            if (attempt != null) { // a harness event outside any arm (docs/parsing.md): the attempt's own failure
                actions.add(TodoAction.of(attempt.category(), "attempt"));
                why.add(Cell.text("attempt failed: " + attempt.category()));
            }
            if (!notRun.isEmpty()) {
                actions.add(Cell.text("run " + String.join(", ", notRun) + " once the failure above is fixed"));
                why.add(Cell.text(String.join(", ", notRun) + ": not run"));
            }
            if (!noValue.isEmpty()) {
                actions.add(Cell.text("run " + String.join(", ", noValue) + " (never ran here or produced nothing)"));
                why.add(Cell.text(String.join(", ", noValue) + ": no value, no failure recorded"));
            }
            m.todo.add(Row.of(Cell.code(row.commit()), Cell.text(agent), Cell.text(row.status()),
                    new CellBuilder().join(new ArrayList<>(actions), "; ").build(),
                    new CellBuilder().join(why, "; ").build()));
            incomplete.add(Row.of(Cell.code(row.commit()), Cell.text(row.status()), Cell.text(Md.orDash(row.pipeline())),
                    Cell.text(Md.orDash(row.mode())), Cell.text(Md.orDash(row.baselineValue()) + " / "
                            + Md.orDash(row.humanValue()) + " / " + Md.orDash(row.agentValue())),
                    new CellBuilder().join(missing, "; ").build()));
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
        private static Cell failureElsewhere(List<RunRecord> runs, String arm, String pipeline) {
            for (RunRecord r : runs) {
                String p = Pipeline.labelOf(r.pipeline());
                if (armMatches(r, arm) && r.failure() != null && r.failure().category() != null && p != null
                        && !p.equals(pipeline)) {
                    return new CellBuilder().text("the " + p + " run failed: " + r.failure().category() + " ")
                            .code(firstLine(r.failure())).build();
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

        /** This agent's row of {@link #summaryTable}; the agent links to its section of {@code legacy.html}. */
        Row summaryRow() {
            return Row.of(Cell.of(new Rows.ArmLabel(agent, "legacy.html#agent-" + Html.slug(agent))), Cell.num(commits),
                    Cell.num(count("complete_3way_same_run")), Cell.text(Md.wtl(vsBaseline)), Cell.text(Md.wtl(vsHuman)),
                    Cell.num(count("same_run_3_values_delta_undefined")), Cell.num(count("same_run_3_values_with_issues")),
                    Cell.num(count("cross_run_3_values_not_comparable")), Cell.num(count("incomplete")),
                    Cell.num(count("no_metrics")), Cell.num(agentFailures));
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
