package io.isobench.legacy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One row of the 3-way table (legacy-import.md "The 3-way table", a contract). Values are the decimal strings as
 * parsed (null = undefined); deltas are percent, positive = better (null = undefined). Build one with
 * {@link #builder(String, String)}.
 *
 * @param commit          8-hex commit
 * @param status          complete_3way_same_run | same_run_3_values_delta_undefined | same_run_3_values_with_issues |
 *                        cross_run_3_values_not_comparable | incomplete | no_metrics
 * @param pipeline        rerun_4_fixable | docker_3way | modal | run_2026-01-18/19 | separate
 * @param mode            serving | throughput | latency | prefix_caching, or null
 * @param metric          canonical primary metric name, or null
 * @param unit            its unit, or null
 * @param better          lower | higher, or null
 * @param baselineValue   baseline value as written, or null
 * @param humanValue      human value as written, or null
 * @param agentValue      agent value as written, or null
 * @param humanDeltaPct   human vs baseline, or null
 * @param agentDeltaPct   agent vs baseline, or null
 * @param agentVsHumanPct agent vs human, or null
 * @param comparability   same_run | same_run_with_issues | cross_run, or null when no arm has a value
 * @param issues          {@code ; }-separated issues, or null
 * @param origins         origin of each value (raw | json | null), baseline/human/agent
 * @param runIds          the runs the three values came from (null where none), baseline/human/agent
 */
public record ThreeWayRow(
        String commit,
        String status,
        String pipeline,
        String mode,
        String metric,
        String unit,
        String better,
        String baselineValue,
        String humanValue,
        String agentValue,
        Double humanDeltaPct,
        Double agentDeltaPct,
        Double agentVsHumanPct,
        String comparability,
        String issues,
        List<String> origins,
        List<String> runIds) {

    /** The contract columns, in order. */
    public static final List<String> COLUMNS = List.of("commit", "status", "pipeline", "mode", "metric", "unit",
            "better", "baseline_value", "human_value", "agent_value", "human_delta_pct", "agent_delta_pct",
            "agent_vs_human_pct", "comparability", "issues");

    public ThreeWayRow {
        origins = origins == null ? Arrays.asList(null, null, null) : Collections.unmodifiableList(
                new ArrayList<>(origins));
        runIds = runIds == null ? Arrays.asList(null, null, null) : Collections.unmodifiableList(
                new ArrayList<>(runIds));
    }

    /** True for the rows the headline tables count (DESIGN.md §12). */
    public boolean comparable() {
        return "complete_3way_same_run".equals(status);
    }

    /** A builder for the row of {@code commit} with {@code status}; everything not set is null. */
    public static Builder builder(String commit, String status) {
        return new Builder(commit, status);
    }

    /** Builds a {@link ThreeWayRow} by column groups. */
    public static final class Builder {
        private final String commit;
        private final String status;
        private String pipeline;
        private String mode;
        private String metric;
        private String unit;
        private String better;
        private final String[] values = new String[3];
        private final Double[] deltas = new Double[3];
        private String comparability;
        private String issues;
        private List<String> origins;
        private List<String> runIds;

        private Builder(String commit, String status) {
            this.commit = commit;
            this.status = status;
        }

        public Builder pipeline(String v) {
            pipeline = v;
            return this;
        }

        /** The mode label and its primary metric: name, unit and which direction is better. */
        public Builder metric(String modeLabel, String name, String metricUnit, String betterDirection) {
            mode = modeLabel;
            metric = name;
            unit = metricUnit;
            better = betterDirection;
            return this;
        }

        /** The baseline, human and agent values as written. */
        public Builder values(String baseline, String human, String agent) {
            values[0] = baseline;
            values[1] = human;
            values[2] = agent;
            return this;
        }

        /** Human vs baseline, agent vs baseline, agent vs human, in percent. */
        public Builder deltas(Double human, Double agent, Double agentVsHuman) {
            deltas[0] = human;
            deltas[1] = agent;
            deltas[2] = agentVsHuman;
            return this;
        }

        public Builder comparability(String v) {
            comparability = v;
            return this;
        }

        public Builder issues(String v) {
            issues = v;
            return this;
        }

        /** Origin of each value, baseline/human/agent. */
        public Builder origins(List<String> v) {
            origins = v;
            return this;
        }

        /** The runs the three values came from, baseline/human/agent. */
        public Builder runIds(List<String> v) {
            runIds = v;
            return this;
        }

        public ThreeWayRow build() {
            return new ThreeWayRow(commit, status, pipeline, mode, metric, unit, better, values[0], values[1],
                    values[2], deltas[0], deltas[1], deltas[2], comparability, issues, origins, runIds);
        }
    }
}
