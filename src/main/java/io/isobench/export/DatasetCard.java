package io.isobench.export;

import io.isobench.Arm;

import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.Leaderboard;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes the dataset card ({@code README.md}) in the style of the published schema-v5 card, with a method section. */
final class DatasetCard {

    /** Facts about the exported table, read from the staging table. */
    record Stats(Size size, List<String[]> agents, Counts counts, int maxRounds, List<String> rules,
                 NoiseFloor noiseFloor, List<String[]> leaderboard) {
    }

    /** Rows, commits, bytes of the Parquet file, and the rows with comparable values. */
    record Size(long rows, long commits, long parquetBytes, long comparableRows) {
    }

    /** Rows per data source, per mode and per status. */
    record Counts(Map<String, Long> dataSources, Map<String, Long> modes, Map<String, Long> statuses) {
    }

    /** The rows with a noise floor and its median (percent; null without one). */
    record NoiseFloor(long rows, Double medianPct) {
    }

    /**
     * The native leaderboard from the exported rows, by the rule of analysis.Leaderboard: one row per (task, commit,
     * hardware, agent), the latest session (session ids sort by their start time); replay-valid tasks only; verdicts
     * vs baseline apart; tests = comparisons with a verdict about speed (the false wins expected come from the
     * analysis' Leaderboard, simulated per task).
     */
    static final String LEADERBOARD_SQL = """
            WITH latest AS (
              SELECT * FROM hf_out WHERE isobench_data_source = 'native' AND isobench_agent IS NOT NULL
              QUALIFY row_number() OVER (PARTITION BY commit_hash, isobench_task_id, isobench_hardware, isobench_agent
                                         ORDER BY isobench_session_id DESC) = 1)
            SELECT isobench_agent, count(*) AS tasks,
                   count(*) FILTER (isobench_replay_validity = 'valid') AS valid,
                   count(*) FILTER (isobench_replay_validity = 'valid' AND isobench_agent_verdict = 'better'),
                   count(*) FILTER (isobench_replay_validity = 'valid' AND isobench_agent_verdict = 'equivalent'),
                   count(*) FILTER (isobench_replay_validity = 'valid' AND isobench_agent_verdict = 'worse'),
                   count(*) FILTER (isobench_replay_validity = 'valid' AND isobench_agent_verdict = 'inconclusive'),
                   count(*) FILTER (isobench_replay_validity = 'valid'
                                    AND coalesce(isobench_agent_verdict, 'failed') = 'failed'),
                   count(*) FILTER (isobench_replay_validity = 'valid' AND isobench_agent_verdict = 'incorrect'),
                   count(*) FILTER (isobench_opt_base),
                   count(*) FILTER (isobench_opt_human)
            FROM latest GROUP BY 1 ORDER BY 1""";

    private DatasetCard() {
    }

    static Stats stats(Statement st, long rows, long parquetBytes) throws SQLException {
        long commits = single(st, "SELECT count(DISTINCT commit_short) FROM hf_out");
        List<String[]> agents = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SELECT coalesce(isobench_agent, '(none)'), coalesce(isobench_agent_model, ''),"
                + " count(*) FROM hf_out GROUP BY ALL ORDER BY 1, 2")) {
            while (rs.next()) {
                agents.add(new String[] {rs.getString(1), rs.getString(2), Long.toString(rs.getLong(3))});
            }
        }
        int maxRounds = (int) single(st, "SELECT coalesce(max(isobench_n_rounds), 0) FROM hf_out");
        List<String> rules = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SELECT DISTINCT isobench_verdict_rule FROM hf_out WHERE isobench_verdict_rule IS NOT NULL ORDER BY 1")) {
            while (rs.next()) {
                rules.add(rs.getString(1));
            }
        }
        long nfRows = single(st, "SELECT count(isobench_noise_floor_pct) FROM hf_out");
        Double nfMedian = null;
        if (nfRows > 0) {
            try (ResultSet rs = st.executeQuery("SELECT median(isobench_noise_floor_pct) FROM hf_out")) {
                rs.next();
                nfMedian = rs.getDouble(1);
            }
        }
        long comparable = single(st, "SELECT count(*) FROM hf_out WHERE isobench_status = 'complete_3way_same_run'");
        List<String[]> board = new ArrayList<>();
        try (ResultSet rs = st.executeQuery(LEADERBOARD_SQL)) {
            while (rs.next()) {
                String[] row = new String[11];
                row[0] = rs.getString(1);
                for (int i = 1; i < 11; i++) {
                    row[i] = Long.toString(rs.getLong(i + 1));
                }
                board.add(row);
            }
        }
        return new Stats(new Size(rows, commits, parquetBytes, comparable), agents,
                new Counts(counts(st, "isobench_data_source"), counts(st, "isobench_mode"), counts(st, "isobench_status")),
                maxRounds, rules, new NoiseFloor(nfRows, nfMedian), board);
    }

    private static Map<String, Long> counts(Statement st, String column) throws SQLException {
        Map<String, Long> m = new LinkedHashMap<>();
        try (ResultSet rs = st.executeQuery("SELECT coalesce(" + column + ", '(unknown)'), count(*) FROM hf_out GROUP BY 1 ORDER BY 2 DESC, 1")) {
            while (rs.next()) {
                m.put(rs.getString(1), rs.getLong(2));
            }
        }
        return m;
    }

    private static long single(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static String sizeCategory(long n) {
        if (n < 1_000) {
            return "n<1K";
        }
        if (n < 10_000) {
            return "1K<n<10K";
        }
        if (n < 100_000) {
            return "10K<n<100K";
        }
        if (n < 1_000_000) {
            return "100K<n<1M";
        }
        return "1M<n<10M";
    }

    /** The card; {@code between}: the spread between sessions its method section states. */
    /**
     * @param falseWins per agent arm label ({@code agent:NAME}) the native leaderboard's expected false wins
     *                  ({@link io.isobench.analysis.Leaderboard}); an agent without one (rows imported, not measured
     *                  here) shows the nominal floor, marked as such
     */
    static String render(Stats s, BetweenSessions between, Map<String, Double> falseWins) {
        return render(s, between, falseWins, HfChanges.Staged.NONE);
    }

    /** The card, with the {@code changes} config when the store has tracks ({@link HfChanges}). */
    static String render(Stats s, BetweenSessions between, Map<String, Double> falseWins, HfChanges.Staged changes) {
        StringBuilder b = new StringBuilder();
        b.append("---\n");
        b.append("license: apache-2.0\n");
        b.append("task_categories:\n- text-generation\n");
        b.append("language:\n- en\n");
        b.append("tags:\n- benchmark\n- performance\n- vllm\n- llm-inference\n- optimization\n- isobench\n");
        b.append("pretty_name: isobench vLLM Performance Benchmarks\n");
        b.append("size_categories:\n- ").append(sizeCategory(s.size().rows())).append('\n');
        b.append("configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/train-*.parquet\n");
        if (changes.tracks()) {
            b.append("- config_name: changes\n  data_files:\n  - split: train\n    path: data/changes-*.parquet\n");
        }
        b.append("dataset_info:\n  features:\n");
        for (HfSchema.Column c : HfSchema.EXPORT) {
            b.append("  - name: ").append(c.name()).append('\n');
            if (c.type() == HfSchema.Type.LIST_STRING) {
                b.append("    list: string\n");
            } else {
                b.append("    dtype: ").append(c.type().label()).append('\n');
            }
        }
        b.append("  splits:\n  - name: train\n    num_examples: ").append(s.size().rows()).append('\n');
        b.append("  download_size: ").append(s.size().parquetBytes()).append('\n');
        b.append("---\n\n");

        b.append("# isobench vLLM Performance Benchmarks\n\n");
        b.append("Performance of vLLM commits: the human change against its parent (baseline) and AI coding agents'")
                .append(" patches for the same task. One row per (commit, agent). Generated by `isobench export hf`.\n\n");
        b.append("## Overview\n\n| Metric | Value |\n|--------|-------|\n");
        b.append("| **Rows** | ").append(s.size().rows()).append(" |\n");
        b.append("| **Unique commits** | ").append(s.size().commits()).append(" |\n");
        b.append("| **Schema** | v5 (76 columns) + ").append(HfSchema.ISOBENCH.size()).append(" `isobench_` columns |\n");
        b.append("| **Comparable rows** (`complete_3way_same_run`) | ").append(s.size().comparableRows()).append(" |\n\n");

        b.append("## Agents\n\n| Agent | Agent model | Rows |\n|-------|-------------|------|\n");
        for (String[] a : s.agents()) {
            b.append("| `").append(a[0]).append("` | ").append(a[1].isEmpty() ? "—" : "`" + a[1] + "`").append(" | ")
                    .append(a[2]).append(" |\n");
        }
        b.append('\n');
        table(b, "Data sources", "isobench_data_source", s.counts().dataSources());
        table(b, "Modes", "isobench_mode", s.counts().modes());
        table(b, "3-way status", "isobench_status", s.counts().statuses());

        b.append("## Method\n\n");
        boolean imported = s.counts().dataSources().containsKey("hf_import") || s.counts().dataSources().containsKey("legacy");
        boolean nativeRuns = s.counts().dataSources().containsKey("native");
        b.append("- **Machine.** ");
        if (imported) {
            b.append("Imported rows were measured by the earlier ISO-Bench harness, not re-run by isobench; the GPU is")
                    .append(" the row's `gpu_config` (H100 in the published data). ");
        }
        if (nativeRuns) {
            b.append("Native rows were measured by isobench; each session's machine fingerprint (host, CPU, GPU model,")
                    .append(" driver, CUDA) is recorded in the store beside the runs.");
        }
        b.append('\n');
        b.append("- **Rounds.** ");
        if (s.maxRounds() <= 1) {
            b.append("One run per arm (single-run data).\n");
        } else {
            b.append("Up to ").append(s.maxRounds()).append(" interleaved rounds per arm (`isobench_n_rounds`);")
                    .append(" each arm's value is the median over its valid rounds.");
            if (s.counts().dataSources().containsKey("native")) {
                b.append(" A native session runs a fixed number of rounds or an adaptive design that stops a task")
                        .append(" once every gating comparison is decided: each native row records the rounds run,")
                        .append(" the look its verdicts read, the design's maximum and why the task stopped")
                        .append(" (`isobench_rounds_run`, `isobench_look_rounds`, `isobench_max_rounds`,")
                        .append(" `isobench_stop_reason`), and the level of its CI columns (`isobench_ci_level`: 0.95")
                        .append(" with fixed rounds, a repeated CI's nominal level at an adaptive look).");
            }
            b.append('\n');
        }
        b.append("- **Statistical rule.** ");
        if (s.rules().isEmpty()) {
            b.append("No verdicts (no arm had a value).\n");
        } else {
            b.append(String.join("; ", s.rules())).append(". ");
            if (s.rules().contains(RowBuilder.SINGLE_RUN_RULE)) {
                b.append("Single-run rows are classified in their own columns (`isobench_legacy_*_result`): `win` /")
                        .append(" `loss` when the improvement exceeds ±5 % (`isobench_legacy_band_pct`, the band the final")
                        .append(" ISO-Bench analysis used), else `tie`; their verdict columns stay empty. ");
            }
            if (s.counts().dataSources().containsKey("native")) {
                b.append("Rows with rounds carry verdicts (`isobench_*_verdict`): `better`, `worse`, `equivalent`,")
                        .append(" `inconclusive` (with `isobench_*_inconclusive_reason`), `failed`, `incorrect` —")
                        .append(" docs/statistics.md of isobench states each rule.");
            }
            b.append('\n');
        }
        b.append("- **Noise band.** ");
        if (s.noiseFloor().rows() == 0) {
            b.append(imported ? "Not measured: single-run legacy data, ±5 % band.\n" : "Not measured.\n");
        } else {
            b.append(String.format(Locale.ROOT, "A/A band (the baseline started again in every round, paired with the"
                    + " baseline) measured for %d rows, median %.2f %% (`isobench_noise_floor_pct`). It is a check, never"
                    + " the margin (`isobench_margin_pct`, the minimum effect): when the A/A comparison is itself better"
                    + " or worse (`isobench_aa_verdict`), every speed verdict of its task is `inconclusive` (`A/A"
                    + " unstable`).\n", s.noiseFloor().rows(), s.noiseFloor().medianPct()));
        }
        b.append("- **Between sessions.** ").append(between.statement()).append('\n');
        b.append("- **Improvement.** Percent, positive = better: `(B − X)/B × 100` for lower-is-better metrics,")
                .append(" `(X − B)/B × 100` for higher-is-better; agent vs human uses the human value as B; null when a value")
                .append(" is missing or B = 0.\n\n");

        if (!s.leaderboard().isEmpty()) {
            b.append("## Agent leaderboard (native rows)\n\n");
            b.append("One entry per task per hardware fingerprint (the latest session; sessions are not pooled); only")
                    .append(" replay-valid tasks (human better than baseline) count; failed and incorrect arms are")
                    .append(" outcomes, never wins. ").append(Leaderboard.FALSE_WINS)
                    .append(" (docs/statistics.md §10). An agent with no native session here shows `≥` tests × 0.025,")
                    .append(" the nominal one-sided rate of one verdict: a floor, since a counted task's human was better")
                    .append(" and both comparisons share the baseline's runs.\n\n");
            b.append("| Agent | Tasks | Valid tasks | better | equivalent | worse | inconclusive | failed | incorrect |")
                    .append(" False wins expected | opt_base | opt_human |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (String[] r : s.leaderboard()) {
                long tests = Long.parseLong(r[3]) + Long.parseLong(r[4]) + Long.parseLong(r[5]) + Long.parseLong(r[6]);
                b.append("| `").append(r[0]).append("` | ").append(r[1]).append(" | ").append(r[2]);
                for (int i = 3; i <= 8; i++) {
                    b.append(" | ").append(r[i]);
                }
                Double simulated = falseWins.get(agentLabel(r[0]));
                b.append(simulated != null ? String.format(Locale.ROOT, " | %.2f (of %d)", simulated, tests)
                        : String.format(Locale.ROOT, " | ≥ %.2f (of %d, nominal floor)", tests * 0.025, tests));
                b.append(String.format(Locale.ROOT, " | %s | %s |%n", r[9], r[10]));
            }
            b.append('\n');
        }
        b.append("## Columns\n\n");
        b.append("The first 76 columns are schema v5 of the published ISO-Bench table, with the same names, order and")
                .append(" types. Rows imported from a published table keep the source's own values verbatim (labels")
                .append(" such as `benchmark_mode` or `agent_name` are not corrected there). `benchmark_mode` is")
                .append(" `serving`, `standalone` or `prefix_caching`; `*_throughput` is output tok/s for serving and prefix")
                .append(" caching, total tok/s for throughput runs, null for latency-only runs. Everything isobench adds")
                .append(" or corrects is in the columns after them:\n\n");
        b.append("| Column | Type | Meaning |\n|--------|------|---------|\n");
        for (HfSchema.Column c : HfSchema.ISOBENCH) {
            b.append("| `").append(c.name()).append("` | ").append(c.type().label()).append(" | ")
                    .append(c.description() == null ? "" : c.description().replace("|", "\\|")).append(" |\n");
        }
        b.append("\nAn agent row whose patch was made by `isobench agents run` (agent `NAME@k`: attempt k of agent NAME)")
                .append(" carries that attempt in the `isobench_agent_*` attempt columns, its normalised trajectory")
                .append(" included (secrets redacted); Opt@K, mean-of-K and best-of-K over attempts are defined in")
                .append(" isobench's docs/statistics.md §18.\n");
        b.append("\nA sweep's capacity takes only the sweep's load points: its rows keep no interval (the CI columns")
                .append(" are null, `isobench_ci_method` is `ordinal_sign_test`) and are decided by the exact sign test")
                .append(" at the grid's resolution (`isobench_sweep_grid`); every other native row's CI is a t interval")
                .append(" from the arm's own paired rounds (`paired_t_own_pairs`).\n");
        if (changes.tracks()) {
            changesSection(b, changes);
        }
        b.append("\n## Files\n\n");
        b.append("- `data/train-00000-of-00001.parquet` — the table (read it with `datasets`, pandas or DuckDB).\n");
        b.append("- `data/train-00000-of-00001.jsonl` — the same rows and columns, one JSON object per line.\n");
        if (changes.tracks()) {
            b.append("- `").append(HfChanges.PARQUET).append("` and `").append(HfChanges.JSONL)
                    .append("` — the `changes` config: confirmed changes of the engine's history.\n");
        }
        b.append('\n');
        b.append("## License\n\nApache 2.0\n");
        return b.toString();
    }

    /** The {@code changes} config: what a row is, the rule that confirmed it, its columns. */
    private static void changesSection(StringBuilder b, HfChanges.Staged changes) {
        b.append("\n## Changes (config `changes`)\n\n");
        b.append("The confirmed changes of an engine's history (`isobench track`): ").append(changes.rows())
                .append(" row(s), one per confirmed change. A track measures a commit range's first-parent commits")
                .append(" (every N-th, K runs each, interleaved with an anchor commit); change points found in the")
                .append(" series by E-divisive means on log values are candidates until a paired session of the")
                .append(" commit against the earlier measured commit (A/A arm, adaptive rounds) confirms them in the")
                .append(" same direction; only confirmed ones are rows here (rejected candidates stay in the store:")
                .append(" `isobench changes --status rejected`). A confirmed change between two measured commits is")
                .append(" bisected with paired sessions to its first commit, skipping commits that do not build.")
                .append(" isobench's docs/statistics.md §21 states every rule. Load it with")
                .append(" `load_dataset(REPO, \"changes\")`.\n\n");
        b.append("| Column | Type | Meaning |\n|--------|------|---------|\n");
        for (HfChanges.Column c : HfChanges.COLUMNS) {
            b.append("| `").append(c.name()).append("` | ").append("DOUBLE".equals(c.duckdbType()) ? "float64" : "string")
                    .append(" | ").append(c.description().replace("|", "\\|")).append(" |\n");
        }
    }

    private static void table(StringBuilder b, String title, String column, Map<String, Long> counts) {
        b.append("### ").append(title).append(" (`").append(column).append("`)\n\n| Value | Rows |\n|-------|------|\n");
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            b.append("| `").append(e.getKey()).append("` | ").append(e.getValue()).append(" |\n");
        }
        b.append('\n');
    }

    /** The arm label ({@code agent:NAME}) of an exported agent cell: a bare name as the table has it, or a label. */
    private static String agentLabel(String cell) {
        if (cell == null || cell.isBlank()) {
            return cell;
        }
        Arm a = Arm.ofStored(cell);
        return a.kind() == Arm.Kind.AGENT ? a.label() : new Arm(Arm.Kind.AGENT, cell).label();
    }

}
