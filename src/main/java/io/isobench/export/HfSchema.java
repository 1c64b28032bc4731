package io.isobench.export;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The published HuggingFace table as data: the 76 columns of schema v5 ({@code seeds/hf-dataset-card.md}, same
 * names, order and types) followed by the additive {@code isobench_} columns. Import, export and the dataset card
 * all read this one definition.
 */
public final class HfSchema {

    /** Column types: the card's dtypes plus a 32-bit integer for additive counts. */
    public enum Type {
        STRING("string", "VARCHAR"),
        LIST_STRING("list<string>", "VARCHAR[]"),
        BOOL("bool", "BOOLEAN"),
        FLOAT64("float64", "DOUBLE"),
        INT32("int32", "INTEGER");

        private final String label;
        private final String duckdbType;

        Type(String label, String duckdbType) {
            this.label = label;
            this.duckdbType = duckdbType;
        }

        /** Human-readable type as used in messages and docs (the card's dtype, list as {@code list<string>}). */
        public String label() {
            return label;
        }

        /** DuckDB column type; DuckDB writes these to parquet as string, list of string, boolean, double, int32. */
        public String duckdbType() {
            return duckdbType;
        }
    }

    /** One column: name and type. */
    public record Column(String name, Type type, String description) {
    }

    /** The 11 per-arm metric suffixes of schema v5, in order. */
    public static final List<String> ARM_METRICS = List.of(
            "ttft_mean", "ttft_median", "ttft_p99", "tpot_mean", "tpot_median", "tpot_p99",
            "itl_mean", "itl_median", "itl_p99", "latency_avg", "throughput");

    /** Schema version of the 76 published columns. */
    public static final String VERSION = "v5";

    /** The 76 schema-v5 columns, in the card's order. */
    public static final List<Column> V5;

    /** Additive columns written by isobench after the 76 (never read back on import). */
    public static final List<Column> ISOBENCH;

    /**
     * The tail of {@link #ISOBENCH} that only native sessions fill (statistics of DESIGN §6 beyond CI and verdict,
     * correctness, build and recipes, the agent attempt, how the verdicts were read); null in legacy and imported rows.
     */
    public static final List<Column> SESSION;

    /** V5 followed by ISOBENCH: the full exported table. */
    public static final List<Column> EXPORT;

    private static final Map<String, Integer> V5_INDEX;

    /** The three arms of a row, in column order. */
    private static final List<String> ARMS = List.of("baseline", "human", "agent");
    /** The three comparisons of a row (vs baseline, vs baseline, agent vs human), in column order. */
    private static final List<String> COMPARISONS = List.of("human", "agent", "agent_vs_human");

    static {
        List<Column> v5 = new ArrayList<>();
        for (String n : List.of("commit_hash", "commit_short", "commit_subject", "repo", "perf_command")) {
            v5.add(new Column(n, Type.STRING, null));
        }
        v5.add(new Column("files_changed", Type.LIST_STRING, null));
        v5.add(new Column("pr_url", Type.STRING, null));
        v5.add(new Column("models", Type.LIST_STRING, null));
        for (String n : List.of("parent_commit", "gpu_config", "benchmark_mode", "agent_name", "agent_model",
                "benchmark_date", "model")) {
            v5.add(new Column(n, Type.STRING, null));
        }
        v5.add(new Column("has_agent_patch", Type.BOOL, null));
        v5.add(new Column("patch_path", Type.STRING, null));
        for (String arm : ARMS) {
            for (String m : ARM_METRICS) {
                v5.add(new Column(arm + "_" + m, Type.FLOAT64, null));
            }
        }
        for (String n : List.of(
                "human_improvement_ttft_mean", "human_improvement_tpot_mean", "human_improvement_itl_mean",
                "agent_improvement_ttft_mean", "agent_improvement_tpot_mean", "agent_improvement_itl_mean",
                "agent_vs_human_ttft_mean", "agent_vs_human_tpot_mean", "agent_vs_human_itl_mean",
                "human_improvement_ttft_median", "human_improvement_ttft_p99",
                "agent_improvement_ttft_median", "agent_improvement_ttft_p99",
                "agent_vs_human_ttft_median", "agent_vs_human_ttft_p99",
                "human_improvement_latency_avg", "human_improvement_throughput",
                "agent_improvement_latency_avg", "agent_improvement_throughput",
                "agent_vs_human_latency_avg", "agent_vs_human_throughput")) {
            v5.add(new Column(n, Type.FLOAT64, null));
        }
        for (String n : List.of("baseline_raw", "human_raw", "agent_raw", "test_script", "data_source")) {
            v5.add(new Column(n, Type.STRING, null));
        }
        if (v5.size() != 76) {
            throw new IllegalStateException("schema v5 must have 76 columns, has " + v5.size());
        }
        V5 = Collections.unmodifiableList(v5);

        List<Column> ib = new ArrayList<>();
        ib.add(new Column("isobench_agent", Type.STRING, "agent, normalised (`-` = `_`, lower case)"));
        ib.add(new Column("isobench_agent_model", Type.STRING, "model the agent used, as recorded"));
        ib.add(new Column("isobench_mode", Type.STRING, "serving | throughput | latency | prefix_caching"));
        ib.add(new Column("isobench_pipeline", Type.STRING, "pipeline the values came from (legacy pipeline id, hf_import, native)"));
        ib.add(new Column("isobench_data_source", Type.STRING, "hf_import | legacy | native"));
        ib.add(new Column("isobench_comparability", Type.STRING, "same_run | same_run_with_issues | cross_run | session (native); null when no arm has a value"));
        ib.add(new Column("isobench_status", Type.STRING, "3-way status of the row (complete_3way_same_run, incomplete, no_metrics, ...)"));
        for (String arm : ARMS) {
            ib.add(new Column("isobench_status_" + arm, Type.STRING, arm + " outcome: success | failed | skipped | not_run; null when the arm has no run"));
            ib.add(new Column("isobench_failure_" + arm, Type.STRING, arm + " failure category (DESIGN.md §7), or null"));
        }
        ib.add(new Column("isobench_n_rounds", Type.INT32, "measured rounds (1 for single-run imported data)"));
        ib.add(new Column("isobench_primary_metric", Type.STRING, "canonical primary metric of the mode (DESIGN.md §5)"));
        for (String arm : ARMS) {
            ib.add(new Column("isobench_" + arm + "_value", Type.FLOAT64, arm + " primary value (median over rounds)"));
        }
        ib.add(new Column("isobench_human_delta_pct", Type.FLOAT64, "human vs baseline, percent, positive = better"));
        ib.add(new Column("isobench_agent_delta_pct", Type.FLOAT64, "agent vs baseline, percent, positive = better"));
        ib.add(new Column("isobench_agent_vs_human_pct", Type.FLOAT64, "agent vs human, percent, positive = agent better"));
        for (String cmp : COMPARISONS) {
            ib.add(new Column("isobench_" + cmp + "_ci_low", Type.FLOAT64, cmp + ": lower bound of the speedup's CI at"
                    + " isobench_ci_level (95 % with fixed rounds, a repeated CI at an adaptive look); null for"
                    + " single-run data and ordinal rows (isobench_ci_method ordinal_sign_test: no interval)"));
            ib.add(new Column("isobench_" + cmp + "_ci_high", Type.FLOAT64, cmp + ": upper bound of that CI; null as"
                    + " the lower bound"));
            ib.add(new Column("isobench_" + cmp + "_verdict", Type.STRING, cmp + ", measured over rounds: better | worse"
                    + " | equivalent | inconclusive | failed | incorrect (docs/statistics.md); null for single-run rows"));
        }
        for (String cmp : COMPARISONS) {
            ib.add(new Column("isobench_legacy_" + cmp + "_result", Type.STRING, cmp + ", single-run (legacy) rows only:"
                    + " win | tie | loss of the improvement under ±isobench_legacy_band_pct; null for rows with rounds and"
                    + " when a value is missing"));
        }
        ib.add(new Column("isobench_legacy_band_pct", Type.FLOAT64, "the band of the single-run results (5, the final"
                + " ISO-Bench analysis's); null for rows with rounds"));
        ib.add(new Column("isobench_noise_floor_pct", Type.FLOAT64, "A/A band of the task in percent (|A/A speedup"
                + " - 1| of the baseline-aa arm paired with the baseline): a check shown beside the verdicts, never"
                + " the margin; null when not measured"));
        ib.add(new Column("isobench_verdict_rule", Type.STRING, "how the verdicts were decided (e.g. single-run ±5 % band)"));
        ib.add(new Column("isobench_issues", Type.STRING, "free text, '; '-separated"));
        int sessionStart = ib.size();
        ib.add(new Column("isobench_session_id", Type.STRING, "native session whose statistics fill the columns below (null for other rows)"));
        ib.add(new Column("isobench_task_id", Type.STRING, "task id in the suite of that session"));
        for (String cmp : COMPARISONS) {
            ib.add(new Column("isobench_" + cmp + "_speedup", Type.FLOAT64, cmp + ": geometric mean of the per-round ratios"
                    + " against the same round's reference, oriented so > 1 is better (reference/X for lower-is-better"
                    + " metrics, X/reference for higher-is-better); the CI bounds are of this ratio"));
            ib.add(new Column("isobench_" + cmp + "_p_value", Type.FLOAT64, cmp + ": two-sided Mann-Whitney U p-value (reported, not gating)"));
            ib.add(new Column("isobench_" + cmp + "_inconclusive_reason", Type.STRING, cmp + ": why the verdict is"
                    + " inconclusive: too few rounds | workload mismatch | noisy | wide CI | no reference | undefined |"
                    + " A/A unstable | futile | below the sweep's resolution"));
            ib.add(new Column("isobench_" + cmp + "_pairs", Type.INT32, cmp + ": valid paired rounds the estimate uses"));
        }
        ib.add(new Column("isobench_aa_verdict", Type.STRING, "the A/A check, the A/A arm (baseline-aa) vs the"
                + " baseline: equivalent when the machine repeats itself; better | worse: unstable, and every speed"
                + " verdict of the task is inconclusive (A/A unstable)"));
        ib.add(new Column("isobench_hardware", Type.STRING, "hardware fingerprint id of the task's rounds (hw-...; the"
                + " session's machine record has its fields)"));
        ib.add(new Column("isobench_excluded_rounds", Type.INT32, "rounds of the task kept out (workload mismatch, failed"
                + " requests, other hardware)"));
        ib.add(new Column("isobench_replay_validity", Type.STRING, "valid (human better than baseline) | reversed (human"
                + " worse) | low_signal"));
        ib.add(new Column("isobench_opt_base", Type.BOOL, "the agent's verdict vs baseline is better; null when the"
                + " task's replay is not valid"));
        ib.add(new Column("isobench_opt_human", Type.BOOL, "opt_base and agent speedup >= 0.95 x human speedup; null when"
                + " the task's replay is not valid"));
        for (String arm : ARMS) {
            ib.add(new Column("isobench_n_" + arm, Type.INT32, arm + ": valid measured rounds (samples)"));
        }
        for (String arm : ARMS) {
            ib.add(new Column("isobench_correctness_" + arm, Type.STRING, arm + ": greedy-output gate: reference (baseline) | match | changes_outputs (human) | output_mismatch"
                    + " | no_reference | probe_rejected | no_greedy_support | offline_probe_failed | check_failed | not_checked"));
            ib.add(new Column("isobench_exact_match_" + arm, Type.FLOAT64, arm + ": fraction of the gate's greedy outputs identical to the baseline's (0..1)"));
        }
        ib.add(new Column("isobench_build", Type.STRING, "build step of the arms' environments: ok (every arm built), else arm=status"
                + " per arm ('; '-separated; ok | failed | timeout); null when the suite has none"));
        ib.add(new Column("isobench_recipes", Type.STRING, "fix recipes applied to the row's arms: name (kind) [arms], '; '-separated; FAILED marks one that failed"));
        ib.addAll(AttemptColumns.COLUMNS);
        ib.addAll(ReadingColumns.COLUMNS);
        ISOBENCH = Collections.unmodifiableList(ib);
        SESSION = ISOBENCH.subList(sessionStart, ISOBENCH.size());

        List<Column> all = new ArrayList<>(V5);
        all.addAll(ISOBENCH);
        EXPORT = Collections.unmodifiableList(all);

        Map<String, Integer> idx = new HashMap<>();
        for (int i = 0; i < V5.size(); i++) {
            idx.put(V5.get(i).name(), i);
        }
        V5_INDEX = Map.copyOf(idx);
    }

    private HfSchema() {
    }

    /** Index of a schema-v5 column, or -1. */
    public static int v5Index(String name) {
        Integer i = V5_INDEX.get(name);
        return i == null ? -1 : i;
    }

    /** Index of a schema-v5 column; fails for unknown names (a programming error). */
    public static int require(String name) {
        int i = v5Index(name);
        if (i < 0) {
            throw new IllegalArgumentException("'" + name + "' is not a schema v5 column");
        }
        return i;
    }
}
