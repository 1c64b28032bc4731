package io.isobench.export;

import io.isobench.Arm;
import io.isobench.plan.JobRole;
import io.isobench.store.Pipeline;
import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.analysis.AgentAttempts;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.ArmSummary;
import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.Leaderboard;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The native-session pass of the HF export: one row per (task, agent) of every native session, with the statistics
 * of {@link SessionAnalysis} (the numbers of the Markdown report), the greedy-output gate, the build step and the fix
 * recipes. A small pass after the bulk rows ({@link SqlRows}, {@link RowBuilder}): it reads only the runs of the
 * sessions in the store's {@code session} table (thousands at most), and costs nothing in a store without any.
 *
 * <p>A (commit, agent) measured in several sessions gets the latest session's row. A session row replaces the
 * computed row of the same (commit, agent) when that row is native, or when the session row is
 * {@code complete_3way_same_run} (a legacy row otherwise stays, and the session row is not added).
 */
final class SessionRows {

    /** One row: the full export column values in {@link HfSchema#EXPORT} order. */
    record Row(String commitShort, String agent, Object[] values) {
    }

    private SessionRows() {
    }

    /**
     * What the native sessions give the export, from one analysis of each: the rows, and the spread between sessions
     * the dataset card states.
     *
     * @param rows    the rows of every native session, latest session first per (commit, agent); sorted by commit,
     *                agent
     * @param between the comparisons measured in two or more sessions on the same hardware, pooled
     * @param falseWins per agent arm label ({@code agent:NAME}) the false wins the native leaderboard expects by chance
     *                  (docs/statistics.md §10: simulated from each counted task's own noise and design)
     */
    record Native(List<Row> rows, BetweenSessions between, Map<String, Double> falseWins) {
        Native {
            falseWins = Map.copyOf(falseWins);
        }
    }

    /** The rows of every native session and the spread between sessions. */
    static Native compute(Store store) {
        List<SessionRecord> sessions = new ArrayList<>(store.sessions());
        sessions.removeIf(SessionRecord::isAgentsRun);
        if (sessions.isEmpty()) {
            return new Native(List.of(), BetweenSessions.NONE, Map.of());
        }
        sessions.sort(Comparator.comparing(SessionRecord::startedAt, Comparator.nullsFirst(Comparator.naturalOrder()))
                .reversed());
        Map<String, Row> byKey = new LinkedHashMap<>();
        AgentAttempts attempts = AgentAttempts.read(store);
        StatsConfig config = StatsConfig.defaults();
        List<Leaderboard.Session> analysed = new ArrayList<>();
        for (SessionRecord s : sessions) {
            SessionAnalysis analysis = SessionAnalysis.of(store, s.sessionId(), config);
            analysed.add(new Leaderboard.Session(s.sessionId(), s.startedAt(), "complete".equals(s.status()), analysis));
            for (Row r : session(store, s, attempts, analysis)) {
                byKey.putIfAbsent(r.commitShort() + "\u0000" + r.agent(), r);
            }
        }
        List<Row> out = new ArrayList<>(byKey.values());
        out.sort(Comparator.comparing(Row::commitShort).thenComparing(Row::agent));
        Map<String, Double> falseWins = new LinkedHashMap<>();
        for (Leaderboard.AgentRow a : Leaderboard.of(analysed, config).agents()) {
            falseWins.put(a.agent(), a.expectedFalseWins());
        }
        return new Native(out, BetweenSessions.of(analysed, config), falseWins);
    }

    /** A run of the session with its details. */
    private record Parsed(RunRecord run, RunDetails extra) {
        String task() {
            return extra.task();
        }

        /** The run's role as stored (an old run's: {@link JobRole#ofStored}'s rule); null when it has none. */
        JobRole role() {
            return JobRole.ofStored(extra.role(), run.pipeline() == null ? null : run.pipeline().label(), extra.job())
                    .orElse(null);
        }
    }

    /**
     * The rows of one analysed session; an agent row whose patch came from a stored attempt gets its attempt columns.
     */
    private static List<Row> session(Store store, SessionRecord s, AgentAttempts attempts, SessionAnalysis analysis) {
        StatsConfig config = analysis.config();
        if (analysis.tasks().isEmpty()) {
            return List.of();
        }
        Map<String, List<Parsed>> byTask = new HashMap<>();
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.MEASURED)).inSession(s.sessionId())
                .loadingMetrics(), r -> {
            if (r.status() == RunRecord.RunStatus.NOT_RUN) {
                return;
            }
            Parsed p = new Parsed(r, r.details());
            if (p.task() != null) {
                byTask.computeIfAbsent(p.task(), k -> new ArrayList<>()).add(p);
            }
        });
        Map<String, String> patches = patchPaths(s.suiteJson());
        List<Row> out = new ArrayList<>();
        for (SessionAnalysis.TaskResult t : analysis.tasks()) {
            List<Parsed> runs = byTask.getOrDefault(t.taskId(), List.of());
            Optional<TaskRecord> task = store.task(t.taskId());
            List<RunRecord> taskRuns = runs.stream().map(Parsed::run).toList();
            for (Arm arm : t.agentArms()) {
                Row row = row(s, t, arm, runs, task.orElse(null), patches, config);
                AttemptColumns.fill(row.values(), attempts.forArm(arm, t.taskId(), taskRuns), store::artifact);
                ReadingColumns.fill(row.values(), t);
                out.add(row);
            }
        }
        return out;
    }

    /** A row's per-arm columns: the column infix ({@code isobench_n_baseline}, …) and the arm it reads. */
    private record ArmColumn(String column, Arm arm) {
    }

    private static Row row(SessionRecord s, SessionAnalysis.TaskResult t, Arm agentArm, List<Parsed> runs,
                           TaskRecord task, Map<String, String> patches, StatsConfig config) {
        String agent = agentArm.agentName();
        List<ArmColumn> armCols = List.of(new ArmColumn("baseline", Arm.BASELINE), new ArmColumn("human", Arm.HUMAN),
                new ArmColumn("agent", agentArm));
        List<Arm> arms = armCols.stream().map(ArmColumn::arm).toList();
        List<RunRecord> measured = new ArrayList<>();
        String agentModel = null;
        String parentSha = null;
        for (Parsed p : runs) {
            RunRecord r = p.run();
            if (!arms.contains(r.arm())) {
                continue;
            }
            if (agentModel == null && r.arm().equals(agentArm)) {
                agentModel = p.extra().agentModel();
            }
            if (parentSha == null && r.arm().equals(Arm.BASELINE)) {
                parentSha = p.extra().verifiedCommit();
            }
            if (Pipeline.NATIVE.equals(r.pipeline())) {
                measured.add(r);
            }
        }
        RunGroup g = RunGroup.of(measured, "native");
        String commitShort = shortOf(t.commit());
        Object[] v5 = g.v5(commitShort, agent);
        Object[] iso = g.isobench(agent, agentModel);
        // schema-v5 fields the runs do not carry: from the task and the plan
        put(v5, "agent_model", agentModel);
        if (task != null) {
            putIfNull(v5, "repo", task.repo());
            putIfNull(v5, "perf_command", task.perfCommand());
            putIfNull(v5, "commit_subject", task.subject());
            putIfNull(v5, "model", task.model());
            putIfNull(v5, "gpu_config", task.gpuConfig());
        }
        putIfNull(v5, "parent_commit", parentSha != null ? parentSha : task == null ? null : task.parentCommit());
        put(v5, "patch_path", patches.get(t.taskId() + "|" + agentArm.label()));
        if (s.startedAt() != null) {
            put(v5, "benchmark_date", s.startedAt().atOffset(ZoneOffset.UTC).toLocalDate().toString());
        }

        TaskAnalysis ta = t.analysis();
        set(iso, "isobench_session_id", s.sessionId());
        set(iso, "isobench_task_id", t.taskId());
        if (ta != null) {
            set(iso, "isobench_primary_metric", ta.metric());
            set(iso, "isobench_noise_floor_pct", ta.noiseBand().bandPct());
            set(iso, "isobench_verdict_rule", rule(config));
            set(iso, "isobench_replay_validity", ta.replayValidity().label());
            set(iso, "isobench_aa_verdict", ta.aa() == null ? null : ta.aa().verdict().label());
            set(iso, "isobench_hardware", t.hardware());
            set(iso, "isobench_excluded_rounds", ta.exclusions().size());
            comparison(iso, "human", "isobench_human_delta_pct", ta.humanVsBaseline());
            Optional<AgentOutcome> o = ta.agent(agentArm.label());
            if (o.isPresent()) {
                comparison(iso, "agent", "isobench_agent_delta_pct", o.get().vsBaseline());
                comparison(iso, "agent_vs_human", "isobench_agent_vs_human_pct", o.get().vsHuman());
                set(iso, "isobench_opt_base", o.get().optBase());
                set(iso, "isobench_opt_human", o.get().optHuman());
            }
            for (ArmColumn a : armCols) {
                ArmSummary sum = ta.summaries().get(a.arm());
                set(iso, "isobench_n_" + a.column(), sum == null ? 0 : sum.n());
                set(iso, "isobench_" + a.column() + "_value", sum == null ? null : sum.median());
            }
        }
        // correctness gate, build, recipes: from the arms' runs
        Set<String> recipes = new LinkedHashSet<>();
        Map<String, String> builds = new LinkedHashMap<>();
        for (ArmColumn a : armCols) {
            Parsed check = null;
            Parsed any = null;
            for (Parsed p : runs) {
                if (!p.run().arm().equals(a.arm())) {
                    continue;
                }
                if (Pipeline.NATIVE_CHECK.equals(p.run().pipeline()) && p.role() == JobRole.CHECK) {
                    check = p; // the baseline's repeat check calibrates the tolerance: it is not the arm's gate
                }
                if (any == null) {
                    any = p;
                }
            }
            String outcome;
            Double exact = null;
            if (check == null) {
                outcome = "not_checked";
            } else if (a.arm().equals(Arm.BASELINE)) {
                outcome = check.run().status() == RunRecord.RunStatus.SUCCESS ? "reference" : "check_failed";
                exact = outcome.equals("reference") ? 1.0 : null;
            } else {
                String c = check.extra().gateOutcomeText();
                outcome = c != null ? c.toLowerCase(Locale.ROOT) : "check_failed";
                exact = check.extra().exactMatchRate();
            }
            set(iso, "isobench_correctness_" + a.column(), outcome);
            set(iso, "isobench_exact_match_" + a.column(), exact);
            if (any != null) {
                JsonNode b = any.extra().section("build");
                if (b.isObject()) {
                    builds.put(a.column(), b.path("status").asText("?"));
                } else if (any.run().failure() != null) {
                    builds.put(a.column(), "not_reached");
                }
                for (JsonNode r : any.extra().section("recipes")) {
                    recipes.add(r.path("name").asText() + " (" + r.path("kind").asText() + ")"
                            + (r.path("ok").asBoolean(true) ? "" : " FAILED") + " [" + a.column() + "]");
                }
            }
        }
        set(iso, "isobench_recipes", recipes.isEmpty() ? null : mergeArms(recipes));
        if (builds.values().stream().anyMatch(v -> !v.equals("not_reached"))) {
            boolean allOk = builds.size() == 3 && builds.values().stream().allMatch("ok"::equals);
            List<String> parts = new ArrayList<>();
            builds.forEach((k, v) -> parts.add(k + "=" + v));
            set(iso, "isobench_build", allOk ? "ok" : String.join("; ", parts));
        }
        if (t.incorrect().contains(agentArm)) {
            String issues = (String) iso[RowBuilder.isoIndex("isobench_issues")];
            set(iso, "isobench_issues", (issues == null ? "" : issues + "; ") + "agent outputs failed the correctness gate");
        }
        Object[] values = new Object[HfSchema.EXPORT.size()];
        System.arraycopy(v5, 0, values, 0, v5.length);
        System.arraycopy(iso, 0, values, v5.length, iso.length);
        return new Row(commitShort, agent, values);
    }

    private static void comparison(Object[] iso, String cmp, String deltaColumn, Comparison c) {
        if (c == null) {
            return;
        }
        set(iso, "isobench_" + cmp + "_ci_low", c.ciLowSpeedup());
        set(iso, "isobench_" + cmp + "_ci_high", c.ciHighSpeedup());
        set(iso, "isobench_" + cmp + "_verdict", c.verdict().label());
        set(iso, "isobench_" + cmp + "_speedup", c.speedup());
        set(iso, "isobench_" + cmp + "_p_value", c.pValue());
        set(iso, "isobench_" + cmp + "_inconclusive_reason", c.inconclusiveReason() == null ? null
                : c.inconclusiveReason().label());
        set(iso, "isobench_" + cmp + "_pairs", c.pairs());
        set(iso, deltaColumn, c.deltaPct());
    }

    /** "a (env) [baseline]; a (env) [human]" → "a (env) [baseline, human]". */
    private static String mergeArms(Set<String> entries) {
        Map<String, List<String>> byRecipe = new LinkedHashMap<>();
        for (String e : entries) {
            int i = e.lastIndexOf(" [");
            byRecipe.computeIfAbsent(e.substring(0, i), k -> new ArrayList<>()).add(e.substring(i + 2, e.length() - 1));
        }
        List<String> out = new ArrayList<>();
        byRecipe.forEach((k, v) -> out.add(k + " [" + String.join(", ", v) + "]"));
        return String.join("; ", out);
    }

    /** The statistical rule of native rows, short (the full receipt is StatsConfig.describe()). */
    static String rule(StatsConfig c) {
        return "rounds: " + c.shortText();
    }


    /** task|arm → patch path, from the plan stored on the session. */
    private static Map<String, String> patchPaths(String planJson) {
        Map<String, String> out = new HashMap<>();
        JsonNode plan = json(planJson);
        for (JsonNode a : plan.path("arms")) {
            if (a.path("patch").isTextual()) {
                out.put(a.path("task").asText() + "|" + Arm.fromLabel(a.path("arm").asText()).label(),
                        a.path("patch").asText());
            }
        }
        return out;
    }

    /**
     * Puts the rows into {@code table} (a table with the {@link HfSchema#EXPORT} columns, plus the exporter's hidden
     * columns when {@code hidden}), replacing computed rows of the same (commit, agent) as the class comment says.
     * Returns the rows added.
     */
    static long replaceInto(Connection c, String table, boolean hidden, List<Row> rows) throws SQLException {
        if (rows.isEmpty()) {
            return 0;
        }
        try (Statement st = c.createStatement()) {
            st.execute("CREATE OR REPLACE TEMP TABLE session_rows (" + HfExporter.columnsDdl() + ")");
        }
        try (DuckDBAppender app = ((DuckDBConnection) c).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "session_rows")) {
            for (Row r : rows) {
                app.beginRow();
                for (int i = 0; i < HfSchema.EXPORT.size(); i++) {
                    HfExporter.appendValue(app, r.values()[i], HfSchema.EXPORT.get(i).type());
                }
                app.endRow();
            }
        }
        String imported = hidden ? " AND t._hf_row IS NULL" : "";
        String same = "s.commit_short = t.commit_short AND s.isobench_agent = t.isobench_agent";
        long added;
        try (Statement st = c.createStatement()) {
            // a legacy row that is complete keeps its place against an incomplete session row
            st.execute("DELETE FROM session_rows s WHERE s.isobench_status IS DISTINCT FROM 'complete_3way_same_run'"
                    + " AND EXISTS (SELECT 1 FROM " + table + " t WHERE " + same + imported
                    + " AND t.isobench_data_source IS DISTINCT FROM 'native')");
            st.execute("DELETE FROM " + table + " t WHERE EXISTS (SELECT 1 FROM session_rows s WHERE " + same + ")"
                    + imported);
            String cols = HfExporter.columnList();
            st.execute("INSERT INTO " + table + " SELECT " + cols + (hidden ? ", commit_short, isobench_agent, -1, NULL" : "")
                    + " FROM session_rows");
            try (var rs = st.executeQuery("SELECT count(*) FROM session_rows")) {
                rs.next();
                added = rs.getLong(1);
            }
            st.execute("DROP TABLE session_rows");
        }
        return added;
    }

    private static void put(Object[] v5, String col, Object value) {
        v5[HfSchema.require(col)] = value;
    }

    private static void putIfNull(Object[] v5, String col, Object value) {
        int i = HfSchema.require(col);
        if (v5[i] == null) {
            v5[i] = value;
        }
    }

    private static void set(Object[] iso, String col, Object value) {
        iso[RowBuilder.isoIndex(col)] = value;
    }

    private static String shortOf(String commit) {
        return commit == null ? null : commit.length() <= 8 ? commit : commit.substring(0, 8);
    }

    private static JsonNode json(String text) {
        if (text == null) {
            return HfMapping.JSON.missingNode();
        }
        try {
            JsonNode n = HfMapping.JSON.readTree(text);
            return n == null ? HfMapping.JSON.missingNode() : n;
        } catch (IOException e) {
            return HfMapping.JSON.missingNode();
        }
    }
}
