package io.isobench.export;

import io.isobench.Arm;
import io.isobench.analysis.SingleRunRule;
import io.isobench.store.Pipeline;
import io.isobench.Mode;
import io.isobench.parse.Better;
import io.isobench.legacy.ThreeWayRow;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunRecord;

import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static io.isobench.export.RowBuilder.LEGACY_BAND_PCT;
import static io.isobench.export.RowBuilder.PRECEDENCE;
import static io.isobench.export.RowBuilder.ROUNDS_RULE;
import static io.isobench.export.RowBuilder.SINGLE_RUN_RULE;
import static io.isobench.export.RowBuilder.extra;
import static io.isobench.export.RowBuilder.set;

/** The runs of one (commit, agent, pipeline): per arm, the runs over rounds. */
final class RunGroup {

    private static final Set<String> ONE_INVOCATION = Set.of("rerun_4_fixable", "docker_3way", "modal");

    final String pipeline;
    /** Arms in a fixed order (baseline, human, agent, then others as met) so "first" means the same everywhere. */
    final Map<String, List<RunRecord>> byArm = new LinkedHashMap<>();
    final Mode mode;
    /** Set for published rows, whose comparability follows from their data source. */
    String forcedComparability;
    /** Set for legacy rows: the 3-way row of {@code isobench table}, whose rules decide the isobench columns. */
    ThreeWayRow legacy;

    private RunGroup(String pipeline, List<RunRecord> runs) {
        this.pipeline = pipeline;
        byArm.put("baseline", new ArrayList<>());
        byArm.put("human", new ArrayList<>());
        byArm.put("agent", new ArrayList<>());
        for (RunRecord r : runs) {
            String arm = r.arm().kind() == Arm.Kind.AGENT ? "agent" : r.arm().label();
            byArm.computeIfAbsent(arm, k -> new ArrayList<>()).add(r);
        }
        byArm.values().removeIf(List::isEmpty);
        Map<String, Integer> modes = new HashMap<>();
        for (RunRecord r : runs) {
            if (r.mode() != null) {
                modes.merge(r.mode().label(), 1, Integer::sum);
            }
        }
        this.mode = modes.entrySet().stream()
                .max(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder())))
                .flatMap(e -> Mode.fromLabel(e.getKey())).orElse(null);
    }

    static RunGroup of(List<RunRecord> runs, String pipeline) {
        return new RunGroup(pipeline, runs);
    }

    /** The pipeline whose runs make the best row (the legacy precedence rule, compactly). */
    static RunGroup choose(List<RunRecord> runs) {
        Map<String, List<RunRecord>> byPipeline = new LinkedHashMap<>();
        for (RunRecord r : runs) {
            byPipeline.computeIfAbsent(r.pipeline() == null ? Pipeline.NATIVE.label() : r.pipeline().label(), k -> new ArrayList<>()).add(r);
        }
        List<RunGroup> groups = new ArrayList<>();
        for (Map.Entry<String, List<RunRecord>> e : byPipeline.entrySet()) {
            groups.add(new RunGroup(e.getKey(), e.getValue()));
        }
        groups.sort(Comparator.comparingInt(g -> rank(g.pipeline)));
        for (RunGroup g : groups) {
            if (g.valuesPresent() == 3 && g.comparability() != null && g.comparability().startsWith("same_run")
                    && g.deltasDefined()) {
                return g;
            }
        }
        for (RunGroup g : groups) {
            if (g.valuesPresent() == 3) {
                return g;
            }
        }
        RunGroup best = groups.get(0);
        for (RunGroup g : groups) {
            if (g.valuesPresent() > best.valuesPresent()) {
                best = g;
            }
        }
        return best;
    }

    private static int rank(String pipeline) {
        int i = PRECEDENCE.indexOf(pipeline);
        return i < 0 ? PRECEDENCE.size() : i;
    }

    String primary() {
        Mode mode = mode();
        return mode == null ? null : MetricDictionary.primaryMetric(mode);
    }

    List<RunRecord> valid(String arm) {
        List<RunRecord> out = new ArrayList<>();
        for (RunRecord r : byArm.getOrDefault(arm, List.of())) {
            if (r.status() == RunRecord.RunStatus.SUCCESS) {
                out.add(r);
            }
        }
        return out;
    }

    /** Median over the arm's successful rounds of a canonical metric, or null. */
    Double median(String arm, String metric) {
        if (metric == null) {
            return null;
        }
        List<Double> xs = new ArrayList<>();
        for (RunRecord r : valid(arm)) {
            Double v = null;
            for (Metric m : r.metrics()) {
                if (m.name().equals(metric)) {
                    v = m.value();
                    break;
                }
            }
            if (v == null && r.kind() != RunRecord.RunKind.MEASURED && metric.equals(r.primaryMetric())) {
                v = r.primaryValue();
            }
            if (v != null) {
                xs.add(v);
            }
        }
        if (xs.isEmpty()) {
            return null;
        }
        double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        int n = a.length;
        return n % 2 == 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2.0;
    }

    Double value(String arm) {
        if (legacy != null) {
            String v = switch (arm) {
                case "baseline" -> legacy.baselineValue();
                case "human" -> legacy.humanValue();
                default -> legacy.agentValue();
            };
            return v == null ? null : Double.valueOf(v);
        }
        return median(arm, primary());
    }

    Mode mode() {
        return legacy != null ? Mode.fromLabel(legacy.mode()).orElse(null) : mode;
    }

    int valuesPresent() {
        int n = 0;
        for (String arm : List.of("baseline", "human", "agent")) {
            if (value(arm) != null) {
                n++;
            }
        }
        return n;
    }

    Better better() {
        String p = primary();
        return p == null ? Better.NONE : MetricDictionary.require(p).better();
    }

    boolean deltasDefined() {
        return MetricDictionary.improvementPct(better(), value("baseline"), value("human")) != null
                && MetricDictionary.improvementPct(better(), value("baseline"), value("agent")) != null;
    }

    String comparability() {
        if (legacy != null) {
            return legacy.comparability();
        }
        if (valuesPresent() == 0) {
            return null;
        }
        if (forcedComparability != null) {
            return forcedComparability;
        }
        boolean oneInvocation = ONE_INVOCATION.contains(pipeline) || sameSession();
        if (!oneInvocation) {
            return "cross_run";
        }
        Set<String> models = new LinkedHashSet<>();
        for (List<RunRecord> rs : byArm.values()) {
            for (RunRecord r : rs) {
                if (r.model() != null) {
                    models.add(r.model());
                }
            }
        }
        return models.size() > 1 ? "same_run_with_issues" : "same_run";
    }

    private boolean sameSession() {
        Set<String> sessions = new LinkedHashSet<>();
        for (List<RunRecord> rs : byArm.values()) {
            for (RunRecord r : rs) {
                if (r.kind() != RunRecord.RunKind.MEASURED || r.sessionId() == null) {
                    return false;
                }
                sessions.add(r.sessionId());
            }
        }
        return sessions.size() == 1;
    }

    String status(String comparability) {
        if (legacy != null) {
            return legacy.status();
        }
        int n = valuesPresent();
        if (n == 3) {
            if ("same_run".equals(comparability)) {
                return deltasDefined() ? "complete_3way_same_run" : "same_run_3_values_delta_undefined";
            }
            if ("same_run_with_issues".equals(comparability)) {
                return "same_run_3_values_with_issues";
            }
            return "cross_run_3_values_not_comparable";
        }
        return n == 0 ? "no_metrics" : "incomplete";
    }

    int rounds() {
        int max = 0;
        for (List<RunRecord> rs : byArm.values()) {
            Set<Integer> rounds = new LinkedHashSet<>();
            for (RunRecord r : rs) {
                rounds.add(r.round());
            }
            max = Math.max(max, rounds.size());
        }
        return max;
    }

    String armStatus(String arm) {
        List<RunRecord> rs = byArm.get(arm);
        if (rs == null || rs.isEmpty()) {
            return null;
        }
        for (RunRecord r : rs) {
            if (r.status() == RunRecord.RunStatus.SUCCESS) {
                return "success";
            }
        }
        return rs.get(rs.size() - 1).status().name().toLowerCase(Locale.ROOT);
    }

    String armFailure(String arm) {
        List<RunRecord> rs = byArm.get(arm);
        if (rs == null || "success".equals(armStatus(arm))) {
            return null;
        }
        for (int i = rs.size() - 1; i >= 0; i--) {
            if (rs.get(i).failure() != null) {
                return rs.get(i).failure().category();
            }
        }
        return null;
    }

    /** The isobench_ columns of this group. */
    Object[] isobench(String agent, String agentModel) {
        Object[] iso = new Object[HfSchema.ISOBENCH.size()];
        String comparability = comparability();
        int rounds = rounds();
        Double b = value("baseline");
        Double h = value("human");
        Double a = value("agent");
        Better better = better();
        Double hd = legacy != null ? legacy.humanDeltaPct() : MetricDictionary.improvementPct(better, b, h);
        Double ad = legacy != null ? legacy.agentDeltaPct() : MetricDictionary.improvementPct(better, b, a);
        Double avh = legacy != null ? legacy.agentVsHumanPct() : MetricDictionary.improvementPct(better, h, a);
        Mode mode = mode();
        set(iso, "isobench_agent", agent);
        set(iso, "isobench_agent_model", agentModel);
        set(iso, "isobench_mode", mode == null ? null : mode.label());
        set(iso, "isobench_pipeline", pipeline);
        set(iso, "isobench_data_source", dataSource());
        set(iso, "isobench_comparability", comparability);
        set(iso, "isobench_status", status(comparability));
        for (String arm : List.of("baseline", "human", "agent")) {
            set(iso, "isobench_status_" + arm, armStatus(arm));
            set(iso, "isobench_failure_" + arm, armFailure(arm));
        }
        set(iso, "isobench_n_rounds", rounds == 0 ? null : rounds);
        set(iso, "isobench_primary_metric", primary());
        set(iso, "isobench_baseline_value", b);
        set(iso, "isobench_human_value", h);
        set(iso, "isobench_agent_value", a);
        set(iso, "isobench_human_delta_pct", hd);
        set(iso, "isobench_agent_delta_pct", ad);
        set(iso, "isobench_agent_vs_human_pct", avh);
        if (rounds <= 1) {
            // single runs: their own vocabulary, never in the verdict columns of rows with rounds
            set(iso, "isobench_legacy_human_result", bandResult(hd));
            set(iso, "isobench_legacy_agent_result", bandResult(ad));
            set(iso, "isobench_legacy_agent_vs_human_result", bandResult(avh));
            set(iso, "isobench_legacy_band_pct", LEGACY_BAND_PCT);
            set(iso, "isobench_verdict_rule", SINGLE_RUN_RULE);
        } else {
            // Rounds: CI and verdicts come from the analysis package (bootstrap, noise floor); until it is wired
            // here, only arms without valid runs get a verdict and the rule says so.
            set(iso, "isobench_human_verdict", value("human") == null && byArm.containsKey("human") ? "failed" : null);
            set(iso, "isobench_agent_verdict", value("agent") == null && byArm.containsKey("agent") ? "failed" : null);
            set(iso, "isobench_verdict_rule", ROUNDS_RULE);
        }
        List<String> issues = new ArrayList<>();
        if ("cross_run".equals(comparability)) {
            issues.add("cross-run");
        }
        if ("same_run_with_issues".equals(comparability)) {
            issues.add("model mismatch");
        }
        set(iso, "isobench_issues", legacy != null ? legacy.issues() : issues.isEmpty() ? null : String.join("; ", issues));
        return iso;
    }

    private static String bandResult(Double delta) {
        return delta == null ? null : SingleRunRule.classify(delta, LEGACY_BAND_PCT).label();
    }

    private String dataSource() {
        for (List<RunRecord> rs : byArm.values()) {
            for (RunRecord r : rs) {
                return switch (r.kind()) {
                    case HF_IMPORT -> "hf_import";
                    case MEASURED -> "native";
                    default -> "legacy";
                };
            }
        }
        return null;
    }

    /** Schema-v5 values computed from runs (for rows that were not imported from an HF table). */
    Object[] v5(String commitShort, String agent) {
        Object[] v = new Object[HfSchema.V5.size()];
        String commit = commitShort;
        String model = null;
        String subject = null;
        String perfCommand = null;
        String date = null;
        String agentModel = null;
        for (List<RunRecord> rs : byArm.values()) {
            for (RunRecord r : rs) {
                if (r.commit() != null && r.commit().length() > commit.length()) {
                    commit = r.commit();
                }
                if (model == null) {
                    model = r.model();
                }
                if (subject == null) {
                    subject = extra(r, "subject");
                }
                if (perfCommand == null) {
                    perfCommand = extra(r, "perf_command");
                }
                if (agentModel == null) {
                    agentModel = extra(r, "agent_model");
                }
                if (r.startedAt() != null) {
                    String d = r.startedAt().atOffset(ZoneOffset.UTC).toLocalDate().toString();
                    if (date == null || d.compareTo(date) < 0) {
                        date = d;
                    }
                }
            }
        }
        put(v, "commit_hash", commit);
        put(v, "commit_short", commitShort);
        put(v, "commit_subject", subject);
        put(v, "perf_command", perfCommand);
        Mode mode = mode();
        put(v, "benchmark_mode", HfMapping.benchmarkModeLabel(mode));
        put(v, "agent_name", agent);
        put(v, "agent_model", agentModel);
        put(v, "benchmark_date", date);
        put(v, "model", model);
        put(v, "has_agent_patch", byArm.containsKey("agent") ? Boolean.valueOf(!"EMPTY_PATCH".equals(armFailure("agent"))) : null);
        String tput = HfMapping.throughputMetric(mode);
        for (String arm : List.of("baseline", "human", "agent")) {
            for (Map.Entry<String, String> e : HfMapping.FIXED_METRICS.entrySet()) {
                put(v, arm + "_" + e.getKey(), median(arm, e.getValue()));
            }
            put(v, arm + "_throughput", median(arm, tput));
        }
        Better tputBetter = Better.HIGHER;
        for (String stat : List.of("ttft_mean", "tpot_mean", "itl_mean", "ttft_median", "ttft_p99", "latency_avg", "throughput")) {
            Better bt = stat.equals("throughput") ? tputBetter : Better.LOWER;
            Double b = (Double) v[HfSchema.require("baseline_" + stat)];
            Double h = (Double) v[HfSchema.require("human_" + stat)];
            Double a = (Double) v[HfSchema.require("agent_" + stat)];
            put(v, "human_improvement_" + stat, MetricDictionary.improvementPct(bt, b, h));
            put(v, "agent_improvement_" + stat, MetricDictionary.improvementPct(bt, b, a));
            put(v, "agent_vs_human_" + stat, MetricDictionary.improvementPct(bt, h, a));
        }
        put(v, "data_source", pipeline);
        return v;
    }

    private static void put(Object[] v, String column, Object value) {
        v[HfSchema.require(column)] = value;
    }
}
