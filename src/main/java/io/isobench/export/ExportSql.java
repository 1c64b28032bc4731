package io.isobench.export;

import io.isobench.store.RunDetailsCodec;
import io.isobench.store.RunDetailsCodec.SqlKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL text of the computed export rows ({@link SqlRows} runs it): the working steps (x_mine, x_arm, x_val, x_grp,
 * x_modes) and the last step that makes the rows, in {@link HfSchema#EXPORT} order.
 */
final class ExportSql {

    private ExportSql() {
    }

    private static final List<String> FIXED = List.of("ttft_mean", "ttft_median", "ttft_p99", "tpot_mean",
            "tpot_median", "tpot_p99", "itl_mean", "itl_median", "itl_p99", "latency_avg");

    private static String metricName(String v) {
        return switch (v) {
            case "latency_avg" -> "latency_ms_avg";
            case "out_tput" -> "output_throughput_tok_s";
            case "tot_tput" -> "total_throughput_tok_s";
            default -> v.replace("_mean", "_ms_mean").replace("_median", "_ms_median").replace("_p99", "_ms_p99");
        };
    }

    private static List<String> valueCols() {
        List<String> l = new ArrayList<>(FIXED);
        l.add("out_tput");
        l.add("tot_tput");
        return l;
    }

    /**
     * Where two (commit, agent, pipeline, arm) keys share a hash (practically never: 64 bits), every key gets a dense
     * number instead, in x_mine and x_arm, before x_val groups by it.
     */
    static final String UNIQUE_GID = "UNIQUE GID";

    static final List<String> RENUMBER = List.of(
            "CREATE OR REPLACE TEMP TABLE x_key AS SELECT commit_short, agent, pipeline, arm_key,"
                    + " row_number() OVER () AS gid FROM x_arm",
            "CREATE OR REPLACE TEMP TABLE x_mine AS SELECT x_mine.* REPLACE (k.gid AS gid) FROM x_mine JOIN x_key k"
                    + " USING (commit_short, agent, pipeline, arm_key)",
            "CREATE OR REPLACE TEMP TABLE x_arm AS SELECT x_arm.* REPLACE (k.gid AS gid) FROM x_arm JOIN x_key k"
                    + " USING (commit_short, agent, pipeline, arm_key)",
            "DROP TABLE x_key");

    private static String norm(String x) {
        return "replace(lower(trim(" + x + ")), '-', '_')";
    }

    private static String metricList() {
        StringBuilder sb = new StringBuilder();
        for (String v : valueCols()) {
            sb.append(sb.isEmpty() ? "" : ", ").append('\'').append(metricName(v)).append('\'');
        }
        return sb.toString();
    }

    static List<String> statements(boolean shared) {
        return statements(shared, "x_rows");
    }

    /** @param rowsTable where the last step puts the rows: {@code x_rows} (a temp table) or a qualified name */
    static List<String> statements(boolean shared, String rowsTable) {
        List<String> out = workSteps(shared);
        out.add(rowsStatement(rowsTable, null));
        return out;
    }

    /** The steps before the last: the working tables x_mine, x_arm, x_val, x_grp, x_modes (temp tables). */
    static List<String> workSteps(boolean shared) {
        List<String> out = new ArrayList<>();
        out.add("""
                CREATE OR REPLACE TEMP MACRO impr(lower_better, b, x) AS CASE
                    WHEN b IS NULL OR x IS NULL OR b = 0 OR isnan(b) OR isnan(x) OR isinf(b) OR isinf(x) THEN NULL
                    WHEN lower_better THEN (b - x) / b * 100.0 ELSE (x - b) / b * 100.0 END""");
        // Runs of each (commit, agent): legacy runs belong to their tree's agent (as in isobench table), native runs
        // to the agent of their arm; runs without an agent are shared by every agent of the commit. Recovered legacy
        // files are never sources.
        String runs = "SELECT run_id, commit_short, commit_id, kind, session_id, status, failure_category, mode, model,"
                + " coalesce(pipeline, 'native') AS pipeline, pipeline AS pipeline_raw, round, started_at, primary_metric,"
                + " primary_value, CASE WHEN " + has(SqlKey.SUBJECT) + " OR " + has(SqlKey.PERF_COMMAND)
                + " OR " + has(SqlKey.AGENT_MODEL) + " THEN extra_json END AS extra_json,"
                + " CASE WHEN arm LIKE 'agent:%' THEN 'agent' ELSE arm END AS arm_key,"
                + " CASE arm WHEN 'baseline' THEN 0 WHEN 'human' THEN 1 ELSE 2 END AS arm_order,"
                + " CASE WHEN kind = 'LEGACY' THEN " + norm("agent") + " WHEN arm LIKE 'agent:%' THEN " + norm("substr(arm, 7)")
                + " ELSE " + norm("agent") + " END AS agent_key"
                + " FROM run WHERE kind IN ('LEGACY', 'MEASURED') AND commit_short IS NOT NULL"
                + " AND NOT (kind = 'LEGACY' AND coalesce(" + has(SqlKey.RECOVERED) + ", false)"
                + " AND coalesce(" + RunDetailsCodec.sqlText("extra_json", SqlKey.RECOVERED) + ", '') = 'true')";
        // gid: one number per (commit, agent, pipeline, arm), so the metric join and the medians group by a number
        // instead of four strings (a hash: the step after x_arm checks it is unique and re-numbers if it is not)
        out.add("CREATE OR REPLACE TEMP TABLE x_mine AS WITH r AS (" + runs + "), m AS ("
                + " SELECT agent_key AS agent, * EXCLUDE (agent_key) FROM r WHERE agent_key IS NOT NULL"
                + (shared ? " UNION ALL SELECT a.agent, r.* EXCLUDE (agent_key) FROM (SELECT DISTINCT commit_short, agent_key AS agent FROM r"
                + " WHERE agent_key IS NOT NULL) a JOIN r ON r.commit_short = a.commit_short AND r.agent_key IS NULL" : "")
                + ") SELECT *, hash(commit_short, agent, pipeline, arm_key) AS gid FROM m");
        out.add("CREATE OR REPLACE TEMP TABLE x_arm AS SELECT commit_short, agent, pipeline, arm_key, any_value(gid) AS gid,"
                // distinct rounds as a bit set for rounds 0-63 (count(DISTINCT) costs half of this step), exact beyond
                + " bit_count(bit_or(CASE WHEN round BETWEEN 0 AND 63 THEN 1::UBIGINT << round ELSE 0::UBIGINT END))"
                + " + count(DISTINCT round) FILTER (WHERE round NOT BETWEEN 0 AND 63) AS n_rounds,"
                + " bool_or(status = 'SUCCESS') AS any_success,"
                + " arg_max(lower(status), {'r': round, 'id': run_id}) AS last_status,"
                + " arg_max(failure_category, {'r': round, 'id': run_id}) FILTER (WHERE failure_category IS NOT NULL) AS last_failure"
                + " FROM x_mine GROUP BY commit_short, agent, pipeline, arm_key");
        // per (commit, agent, pipeline, arm) = gid: medians over successful rounds, straight from the metric table; a
        // legacy run without the metric contributes its primary value when that is the metric (native runs always
        // store their primary metric among their metrics). One filtered median per metric, grouped by gid.
        StringBuilder val = new StringBuilder("CREATE OR REPLACE TEMP TABLE x_val AS WITH v AS ("
                + " SELECT r.gid, m.name, m.value FROM metric m"
                + " JOIN x_mine r ON m.run_id = r.run_id WHERE r.status = 'SUCCESS' AND m.name IN (" + metricList() + ")"
                + " UNION ALL SELECT r.gid, r.primary_metric, r.primary_value"
                + " FROM x_mine r WHERE r.kind = 'LEGACY' AND r.status = 'SUCCESS' AND r.primary_metric IN (" + metricList() + ")"
                + " AND r.primary_value IS NOT NULL AND NOT EXISTS (SELECT 1 FROM metric m WHERE m.run_id = r.run_id"
                + " AND m.name = r.primary_metric))"
                + " SELECT gid");
        for (String v : valueCols()) {
            val.append(", median(value) FILTER (WHERE name = '").append(metricName(v)).append("') AS ").append(v);
        }
        val.append(" FROM v GROUP BY gid");
        out.add(UNIQUE_GID);
        out.add(val.toString());
        String first = "{'a': arm_order, 'r': round, 'id': run_id}";
        out.add("CREATE OR REPLACE TEMP TABLE x_grp AS SELECT commit_short, agent, pipeline, min(pipeline_raw) AS pipeline_raw,"
                + " bool_and(pipeline_raw IS NULL) AS raw_null,"
                // only "more than one" matters for models, modes and sessions: min <> max says it without DISTINCT
                + " CASE WHEN min(model) <> max(model) THEN 2 WHEN count(model) > 0 THEN 1 ELSE 0 END AS n_models,"
                + " bool_and(kind = 'MEASURED' AND session_id IS NOT NULL) AND min(session_id) = max(session_id) AS same_session,"
                + " arg_min(kind, arm_order) AS k0,"
                + " arg_min(model, " + first + ") FILTER (WHERE model IS NOT NULL) AS model,"
                + firstText(first, SqlKey.SUBJECT) + " AS subject,"
                + firstText(first, SqlKey.PERF_COMMAND) + " AS perf_command,"
                + firstText(first, SqlKey.AGENT_MODEL) + " AS agent_model,"
                + " arg_max(commit_id, length(commit_id)) AS commit_id, CAST(CAST(min(started_at) AS DATE) AS VARCHAR) AS bdate,"
                + " CASE WHEN min(mode) <> max(mode) THEN 2 WHEN count(mode) > 0 THEN 1 ELSE 0 END AS n_modes, min(mode) AS mode1"
                + " FROM x_mine GROUP BY commit_short, agent, pipeline");
        // the most frequent mode (ties: alphabetically first), computed only where the runs disagree
        out.add("CREATE OR REPLACE TEMP TABLE x_modes AS SELECT commit_short, agent, pipeline, mode FROM ("
                + " SELECT commit_short, agent, pipeline, mode, row_number() OVER (PARTITION BY commit_short, agent, pipeline"
                + " ORDER BY count(*) DESC, mode ASC) AS rn FROM x_mine"
                + " WHERE mode IS NOT NULL AND (commit_short, agent, pipeline) IN (SELECT (commit_short, agent, pipeline)"
                + " FROM x_grp WHERE n_modes > 1) GROUP BY commit_short, agent, pipeline, mode) WHERE rn = 1");

        return out;
    }

    /**
     * The last step: the export rows of the groups (commit, agent, pipeline) of x_grp, in HfSchema.EXPORT order plus
     * _commit and _agent, sorted by them.
     *
     * @param rowsTable where the rows go (created)
     * @param commitRange null for every group, else a condition on commit_short: the rows of those commits only
     */
    static String rowsStatement(String rowsTable, String commitRange) {
        // per group (commit, agent, pipeline): mode, arms pivoted, comparability inputs, first values
        StringBuilder g = new StringBuilder("SELECT grp.*,"
                + " greatest(coalesce(b.n_rounds, 0), coalesce(h.n_rounds, 0), coalesce(a.n_rounds, 0)) AS n_rounds,"
                + " CASE WHEN coalesce(m.mode, grp.mode1) IN ('serving', 'throughput', 'latency', 'prefix_caching', 'micro')"
                + " THEN coalesce(m.mode, grp.mode1) END AS mode");
        for (String arm : List.of("baseline", "human", "agent")) {
            String a = arm.substring(0, 1);
            g.append(", ").append(a).append(".arm_key IS NOT NULL AS ").append(a).append("_present");
            for (String col : valueCols()) {
                g.append(", ").append(a).append("v.").append(col).append(" AS ").append(a).append('_').append(col);
            }
            g.append(", CASE WHEN ").append(a).append(".arm_key IS NULL THEN NULL WHEN ").append(a)
                    .append(".any_success THEN 'success' ELSE ").append(a).append(".last_status END AS ").append(a).append("_status");
            g.append(", CASE WHEN ").append(a).append(".arm_key IS NULL OR ").append(a).append(".any_success THEN NULL ELSE ")
                    .append(a).append(".last_failure END AS ").append(a).append("_failure");
        }
        g.append(" FROM ").append(commitRange == null ? "x_grp" : "(SELECT * FROM x_grp WHERE " + commitRange + ")")
                .append(" grp LEFT JOIN x_modes m ON m.commit_short = grp.commit_short AND m.agent = grp.agent"
                + " AND m.pipeline = grp.pipeline");
        for (String arm : List.of("baseline", "human", "agent")) {
            String a = arm.substring(0, 1);
            g.append(" LEFT JOIN x_arm ").append(a).append(" ON ").append(a)
                    .append(".commit_short = grp.commit_short AND ").append(a).append(".agent = grp.agent AND ")
                    .append(a).append(".pipeline = grp.pipeline AND ").append(a).append(".arm_key = '")
                    .append(arm).append('\'');
            g.append(" LEFT JOIN x_val ").append(a).append("v ON ").append(a).append("v.gid = ").append(a).append(".gid");
        }
        // primary values, comparability, choice. Legacy groups take everything that decides the row from x_lg (the
        // rules of isobench table) and exist only for the pipeline it chose; native groups are computed here.
        StringBuilder ch = new StringBuilder("p AS (SELECT x_g.* REPLACE ("
                + " CASE WHEN x_g.k0 = 'LEGACY' THEN lg.mode ELSE x_g.mode END AS mode),"
                + " lg.commit_short IS NOT NULL AS is_legacy, lg.status AS lg_status, lg.comparability AS lg_comparability,"
                + " lg.bv, lg.hv, lg.av, lg.hd AS lg_hd, lg.ad AS lg_ad, lg.avh AS lg_avh, lg.issues AS lg_issues"
                + " FROM x_g LEFT JOIN x_lg lg ON lg.commit_short = x_g.commit_short"
                + " AND lg.agent = x_g.agent AND lg.pipeline = x_g.pipeline"
                + " WHERE x_g.k0 <> 'LEGACY' OR lg.commit_short IS NOT NULL),"
                + " p2 AS (SELECT *, CASE mode WHEN 'serving' THEN 'tpot_ms_mean' WHEN 'latency' THEN 'latency_ms_avg'"
                + " WHEN 'throughput' THEN 'total_throughput_tok_s' WHEN 'prefix_caching' THEN 'output_throughput_tok_s'"
                + " WHEN 'micro' THEN 'micro_avg_ms' END AS primary_metric,"
                + " mode IN ('serving', 'latency') AS lower_better");
        for (String a : List.of("b", "h", "a")) {
            ch.append(", CASE WHEN is_legacy THEN ").append(a).append("v ELSE CASE mode WHEN 'serving' THEN ").append(a)
                    .append("_tpot_mean WHEN 'latency' THEN ").append(a)
                    .append("_latency_avg WHEN 'throughput' THEN ").append(a).append("_tot_tput WHEN 'prefix_caching' THEN ")
                    .append(a).append("_out_tput END END AS ").append(a).append("_val");
            ch.append(", CASE WHEN mode IN ('serving', 'prefix_caching') THEN ").append(a).append("_out_tput WHEN mode = 'throughput' THEN ")
                    .append(a).append("_tot_tput END AS ").append(a).append("_throughput");
        }
        ch.append(" FROM p), q AS (SELECT *, (b_val IS NOT NULL)::INT + (h_val IS NOT NULL)::INT + (a_val IS NOT NULL)::INT AS vp,"
                + " CASE WHEN is_legacy THEN lg_hd WHEN mode IS NULL OR mode = 'micro' THEN NULL ELSE impr(lower_better, b_val, h_val) END AS hd,"
                + " CASE WHEN is_legacy THEN lg_ad WHEN mode IS NULL OR mode = 'micro' THEN NULL ELSE impr(lower_better, b_val, a_val) END AS ad,"
                + " CASE WHEN is_legacy THEN lg_avh WHEN mode IS NULL OR mode = 'micro' THEN NULL ELSE impr(lower_better, h_val, a_val) END AS avh,"
                + " list_position(['rerun_4_fixable', 'docker_3way', 'modal', 'run_2026-01-18/19', 'run_2026-01-18',"
                + " 'run_2026-01-19', 'separate'], pipeline) AS prank FROM p2),"
                + " c AS (SELECT *, CASE WHEN is_legacy THEN lg_comparability WHEN vp = 0 THEN NULL"
                + " WHEN NOT (pipeline IN ('rerun_4_fixable', 'docker_3way', 'modal') OR same_session) THEN 'cross_run'"
                + " WHEN n_models > 1 THEN 'same_run_with_issues' ELSE 'same_run' END AS comparability FROM q),"
                + " s AS MATERIALIZED (SELECT *, CASE WHEN is_legacy THEN lg_status WHEN vp = 3 THEN CASE WHEN comparability = 'same_run'"
                + " THEN CASE WHEN hd IS NOT NULL AND ad IS NOT NULL THEN 'complete_3way_same_run' ELSE 'same_run_3_values_delta_undefined' END"
                + " WHEN comparability = 'same_run_with_issues' THEN 'same_run_3_values_with_issues'"
                + " ELSE 'cross_run_3_values_not_comparable' END WHEN vp = 0 THEN 'no_metrics' ELSE 'incomplete' END AS status,"
                + " CASE WHEN is_legacy THEN lg_issues WHEN comparability = 'cross_run' THEN 'cross-run'"
                + " WHEN comparability = 'same_run_with_issues' THEN 'model mismatch' END AS issues FROM c),"
                // native: the first pipeline with three same-run values and defined deltas, else three values, else
                // the most values; then legacy against native (RowBuilder.prefer)
                // (arg_min over a struct key, in the order of the rules, not a window: a hash aggregate, no sort; a
                // condition that is NULL ranks after false, as NULLS LAST would)
                + " n AS (SELECT commit_short, agent, is_legacy, arg_min({'pipeline': pipeline, 'status': status, 'vp': vp},"
                + " {'a': CASE WHEN vp = 3 AND comparability LIKE 'same_run%' AND hd IS NOT NULL AND ad IS NOT NULL THEN 0"
                + " WHEN NOT (vp = 3 AND comparability LIKE 'same_run%' AND hd IS NOT NULL AND ad IS NOT NULL) THEN 1 ELSE 2 END,"
                + " 'b': vp <> 3, 'c': -vp, 'd': coalesce(prank, 99), 'e': raw_null, 'f': pipeline_raw}) AS w"
                + " FROM s GROUP BY commit_short, agent, is_legacy),"
                + " k AS (SELECT commit_short, agent, arg_min(w.pipeline, {'a': CASE WHEN w.status = 'complete_3way_same_run'"
                + " THEN 0 WHEN w.status <> 'complete_3way_same_run' THEN 1 ELSE 2 END, 'b': -w.vp, 'c': NOT is_legacy}) AS pipeline"
                + " FROM n GROUP BY commit_short, agent)"
                + ", x_choice AS (SELECT s.* FROM s SEMI JOIN k ON k.commit_short = s.commit_short AND k.agent = s.agent"
                + " AND k.pipeline = s.pipeline)");

        // the export rows, in HfSchema.EXPORT order, with the task's fields joined in
        Map<String, String> cols = new LinkedHashMap<>();
        add(cols, "CASE WHEN length(t.commit_id) > length(coalesce(x.commit_id, x.commit_short)) THEN t.commit_id"
                + " WHEN length(x.commit_id) > length(x.commit_short) THEN x.commit_id ELSE x.commit_short END AS commit_hash");
        add(cols, "x.commit_short AS commit_short");
        add(cols, "coalesce(x.subject, t.subject) AS commit_subject");
        add(cols, "t.repo AS repo");
        add(cols, "coalesce(x.perf_command, t.perf_command) AS perf_command");
        add(cols, "CAST(NULL AS VARCHAR[]) AS files_changed");
        add(cols, "CAST(NULL AS VARCHAR) AS pr_url");
        add(cols, "CAST(NULL AS VARCHAR[]) AS models");
        add(cols, "t.parent_commit AS parent_commit");
        add(cols, "t.gpu_config AS gpu_config");
        add(cols, "CASE x.mode WHEN 'serving' THEN 'serving' WHEN 'prefix_caching' THEN 'prefix_caching'"
                + " WHEN 'throughput' THEN 'standalone' WHEN 'latency' THEN 'standalone' END AS benchmark_mode");
        add(cols, "x.agent AS agent_name");
        add(cols, "x.agent_model AS agent_model");
        add(cols, "x.bdate AS benchmark_date");
        add(cols, "coalesce(x.model, t.model) AS model");
        add(cols, "CASE WHEN x.a_present THEN coalesce(x.a_failure, '') <> 'EMPTY_PATCH' END AS has_agent_patch");
        add(cols, "CAST(NULL AS VARCHAR) AS patch_path");
        for (String a : List.of("b", "h", "a")) {
            for (String f : FIXED) {
                add(cols, "x." + a + "_" + f + " AS " + prefix(a) + "_" + f);
            }
            add(cols, "x." + a + "_throughput AS " + prefix(a) + "_throughput");
        }
        for (String stat : List.of("ttft_mean", "tpot_mean", "itl_mean", "ttft_median", "ttft_p99", "latency_avg", "throughput")) {
            String lower = stat.equals("throughput") ? "false" : "true";
            add(cols, "impr(" + lower + ", x.b_" + stat + ", x.h_" + stat + ") AS human_improvement_" + stat);
            add(cols, "impr(" + lower + ", x.b_" + stat + ", x.a_" + stat + ") AS agent_improvement_" + stat);
            add(cols, "impr(" + lower + ", x.h_" + stat + ", x.a_" + stat + ") AS agent_vs_human_" + stat);
        }
        for (String raw : List.of("baseline_raw", "human_raw", "agent_raw", "test_script")) {
            add(cols, "CAST(NULL AS VARCHAR) AS " + raw);
        }
        add(cols, "x.pipeline AS data_source");
        // isobench columns
        add(cols, "x.agent AS isobench_agent");
        add(cols, "CAST(NULL AS VARCHAR) AS isobench_agent_model");
        add(cols, "x.mode AS isobench_mode");
        add(cols, "x.pipeline AS isobench_pipeline");
        add(cols, "CASE x.k0 WHEN 'HF_IMPORT' THEN 'hf_import' WHEN 'MEASURED' THEN 'native' ELSE 'legacy' END AS isobench_data_source");
        add(cols, "x.comparability AS isobench_comparability");
        add(cols, "x.status AS isobench_status");
        for (String a : List.of("b", "h", "a")) {
            add(cols, "x." + a + "_status AS isobench_status_" + prefix(a));
            add(cols, "x." + a + "_failure AS isobench_failure_" + prefix(a));
        }
        add(cols, "CASE WHEN x.n_rounds = 0 THEN NULL ELSE CAST(x.n_rounds AS INTEGER) END AS isobench_n_rounds");
        add(cols, "x.primary_metric AS isobench_primary_metric");
        add(cols, "x.b_val AS isobench_baseline_value");
        add(cols, "x.h_val AS isobench_human_value");
        add(cols, "x.a_val AS isobench_agent_value");
        add(cols, "x.hd AS isobench_human_delta_pct");
        add(cols, "x.ad AS isobench_agent_delta_pct");
        add(cols, "x.avh AS isobench_agent_vs_human_pct");
        String[][] cmp = {{"human", "hd", "h"}, {"agent", "ad", "a"}, {"agent_vs_human", "avh", "a"}};
        for (String[] cv : cmp) {
            add(cols, "CAST(NULL AS DOUBLE) AS isobench_" + cv[0] + "_ci_low");
            add(cols, "CAST(NULL AS DOUBLE) AS isobench_" + cv[0] + "_ci_high");
            String rounds = cv[0].equals("agent_vs_human") ? "NULL"
                    : "CASE WHEN x." + cv[2] + "_present AND x." + cv[2] + "_val IS NULL THEN 'failed' END";
            add(cols, "CAST(CASE WHEN x.n_rounds <= 1 THEN NULL ELSE " + rounds + " END AS VARCHAR) AS isobench_" + cv[0]
                    + "_verdict");
        }
        for (String[] cv : cmp) {
            // single runs: win / tie / loss under the stated band (analysis.SingleRunRule), never a verdict
            String single = "CASE WHEN x." + cv[1] + " IS NULL THEN NULL WHEN x." + cv[1] + " > "
                    + RowBuilder.LEGACY_BAND_PCT + " THEN 'win' WHEN x." + cv[1] + " < -" + RowBuilder.LEGACY_BAND_PCT
                    + " THEN 'loss' ELSE 'tie' END";
            add(cols, "CASE WHEN x.n_rounds <= 1 THEN " + single + " END AS isobench_legacy_" + cv[0] + "_result");
        }
        add(cols, "CASE WHEN x.n_rounds <= 1 THEN CAST(" + RowBuilder.LEGACY_BAND_PCT
                + " AS DOUBLE) END AS isobench_legacy_band_pct");
        add(cols, "CAST(NULL AS DOUBLE) AS isobench_noise_floor_pct");
        add(cols, "CASE WHEN x.n_rounds <= 1 THEN '" + RowBuilder.SINGLE_RUN_RULE + "' ELSE '" + RowBuilder.ROUNDS_RULE
                + "' END AS isobench_verdict_rule");
        add(cols, "x.issues AS isobench_issues");
        add(cols, "x.commit_short AS _commit");
        add(cols, "x.agent AS _agent");
        for (HfSchema.Column col : HfSchema.SESSION) {
            // filled by the native-session pass (SessionRows), null here
            cols.putIfAbsent(col.name(), "CAST(NULL AS " + col.type().duckdbType() + ")");
        }
        List<String> select = new ArrayList<>();
        for (HfSchema.Column col : HfSchema.EXPORT) {
            String e = cols.remove(col.name());
            if (e == null) {
                throw new IllegalStateException("no SQL expression for export column " + col.name());
            }
            select.add(e + " AS " + HfExporter.quote(col.name()));
        }
        for (Map.Entry<String, String> e : cols.entrySet()) {
            select.add(e.getValue() + " AS " + e.getKey());
        }
        return "CREATE OR REPLACE " + (rowsTable.equals("x_rows") ? "TEMP TABLE x_rows" : "TABLE " + rowsTable)
                // x_g, x_choice and the rows in one statement: materialising the two ~100k-row tables between them
                // cost more than computing them (each is one DuckDB row group, scanned by one thread)
                + " AS WITH x_g AS (" + g + "), " + ch
                + " SELECT " + String.join(", ", select)
                + " FROM x_choice x LEFT JOIN task t ON t.task_id = x.commit_short ORDER BY _commit, _agent NULLS FIRST";
    }

    /** Adds "EXPR AS name" under its name. */
    private static void add(Map<String, String> cols, String exprAsName) {
        int i = exprAsName.lastIndexOf(" AS ");
        cols.put(exprAsName.substring(i + 4).trim(), exprAsName.substring(0, i));
    }

    private static String prefix(String a) {
        return switch (a) {
            case "b" -> "baseline";
            case "h" -> "human";
            default -> "agent";
        };
    }

    private static String has(SqlKey key) {
        return RunDetailsCodec.sqlHas("extra_json", key);
    }

    /** The first run's (by {@code order}) text of {@code key} among the runs that have it. */
    private static String firstText(String order, SqlKey key) {
        return " " + RunDetailsCodec.sqlText("arg_min(extra_json, " + order + ") FILTER (WHERE " + has(key)
                + " AND " + RunDetailsCodec.sqlText("extra_json", key) + " IS NOT NULL)", key);
    }
}
