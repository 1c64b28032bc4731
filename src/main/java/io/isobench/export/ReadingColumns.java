package io.isobench.export;

import io.isobench.analysis.Comparison;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.Stopping;
import io.isobench.analysis.TaskAnalysis;

import java.math.BigDecimal;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How a native session row's verdicts were read (docs/hf-export.md, docs/statistics.md §6, §17, §19): the margin the
 * verdicts used, the level and method of the CI columns (a t interval from the arm's own paired rounds, or none: the
 * sign test of a sweep's capacity at the grid's resolution, with the grid), and the rounds — run, read at the look, the
 * design's maximum — with why the task stopped. Appended after the attempt columns; null on every other row.
 */
final class ReadingColumns {

    /** The CI method of a continuous metric: a Student t interval from the arm's own paired log ratios. */
    static final String PAIRED_T = "paired_t_own_pairs";
    /** The method of an ordinal metric (a sweep's capacity): no interval, the exact sign test at the grid's resolution. */
    static final String SIGN_TEST = "ordinal_sign_test";

    static final List<HfSchema.Column> COLUMNS = List.of(
            new HfSchema.Column("isobench_margin_pct", HfSchema.Type.FLOAT64, "the margin the verdicts used, percent:"
                    + " better needs speedup > 1 + margin, worse < 1 / (1 + margin), equivalent the TOST interval"
                    + " inside ±margin (the configured minimum effect; the A/A band never widens it)"),
            new HfSchema.Column("isobench_ci_level", HfSchema.Type.FLOAT64, "coverage of the isobench_*_ci_low /"
                    + " _ci_high bounds: 0.95 with fixed rounds, the repeated CI's nominal level (e.g. 0.9986) at the"
                    + " look an adaptive task stopped at; null for ordinal rows (no interval)"),
            new HfSchema.Column("isobench_ci_method", HfSchema.Type.STRING, PAIRED_T + " (t interval from the arm's"
                    + " own paired rounds against the baseline's run of the round) | " + SIGN_TEST + " (a sweep's"
                    + " capacity: no interval, the exact sign test over the paired rounds at the grid's resolution)"),
            new HfSchema.Column("isobench_sweep_grid", HfSchema.Type.STRING, "capacity rows: the sweep's load points,"
                    + " comma-separated (e.g. 1,2,4,8,16), the resolution the sign test decides at; null otherwise"),
            new HfSchema.Column("isobench_rounds_run", HfSchema.Type.INT32, "rounds the session ran for the task"),
            new HfSchema.Column("isobench_look_rounds", HfSchema.Type.INT32, "the look the verdicts were read at"
                    + " (rounds; the rounds run with fixed rounds)"),
            new HfSchema.Column("isobench_max_rounds", HfSchema.Type.INT32, "the design's maximum: the fixed rounds, or"
                    + " an adaptive design's last look"),
            new HfSchema.Column("isobench_stop_reason", HfSchema.Type.STRING, "why the task stopped there: fixed |"
                    + " decided (every gating comparison decided) | futile (the rest not expected to decide) |"
                    + " max_rounds (the last look) | running (unfinished)"));

    private ReadingColumns() {
    }

    /** Fills the columns of {@code values} (a row in {@link HfSchema#EXPORT} order) from the task's analysis. */
    static void fill(Object[] values, SessionAnalysis.TaskResult t) {
        TaskAnalysis ta = t.analysis();
        if (ta == null) {
            return;
        }
        Comparison hb = ta.humanVsBaseline();
        boolean ordinal = hb.variance() == Comparison.Variance.ORDINAL;
        set(values, "isobench_margin_pct", hb.marginPct());
        set(values, "isobench_ci_level", ordinal ? null : hb.read().ciConfidence());
        set(values, "isobench_ci_method", ordinal ? SIGN_TEST : PAIRED_T);
        if (ordinal && t.sweep() != null) {
            set(values, "isobench_sweep_grid", t.sweep().axis().points().stream()
                    .map(p -> BigDecimal.valueOf(p).stripTrailingZeros().toPlainString())
                    .collect(Collectors.joining(",")));
        }
        Stopping s = ta.stopping();
        set(values, "isobench_rounds_run", s.roundsRun());
        set(values, "isobench_look_rounds", s.lookRounds());
        set(values, "isobench_max_rounds", s.maxRounds());
        set(values, "isobench_stop_reason", s.reason().key());
    }

    private static void set(Object[] values, String column, Object v) {
        values[HfSchema.V5.size() + RowBuilder.isoIndex(column)] = v;
    }
}
