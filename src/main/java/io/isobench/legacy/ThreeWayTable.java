package io.isobench.legacy;

import io.isobench.store.Pipeline;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The 3-way rules of legacy-import.md ("Turning old files into 3-way rows", a contract) as a pure function over runs
 * read back from the store. {@link #rows} streams runs ordered by commit and holds one commit at a time, so it works
 * on stores of any size.
 */
public final class ThreeWayTable {

    /** Candidate sources in precedence order (the {@code pipeline} values). */
    public static final List<String> PIPELINES =
            List.of("rerun_4_fixable", "docker_3way", "modal", "run_2026-01-18/19", "separate");
    /**
     * Rows of a published HF table ({@code isobench import hf}): the last candidate, after every legacy source. A
     * published row does not say whether its arms ran together: only single-invocation data sources (modal, docker,
     * rerun) are same_run.
     */
    public static final String HF_PIPELINE = "hf_import";
    private static final Set<String> ONE_INVOCATION = Set.of("rerun_4_fixable", "docker_3way", "modal");
    private static final String[] ARMS = {"baseline", "human", "agent"};
    /** The note of a run that succeeded without its primary metric (docs/parsing.md, "Success without a primary metric"). */
    private static final String NO_PRIMARY = "no primary metric: ";

    private ThreeWayTable() {
    }

    /** Streams the rows for one agent, sorted by commit, to {@code sink}. */
    public static void rows(Store store, String agent, Consumer<ThreeWayRow> sink) {
        String wanted = Arm.normalizeAgent(agent);
        RunFilter filter = RunFilter.runs().ofAgent(wanted)
                .ofKinds(EnumSet.of(RunRecord.RunKind.LEGACY, RunRecord.RunKind.HF_IMPORT));
        List<RunRecord> current = new ArrayList<>();
        String[] commit = {null};
        store.forEachRun(filter, r -> {
            if (r.commitShort() == null || r.agent() == null || !Arm.normalizeAgent(r.agent()).equals(wanted)
                    || r.kind() != RunRecord.RunKind.LEGACY && r.kind() != RunRecord.RunKind.HF_IMPORT) {
                return;
            }
            if (commit[0] != null && !commit[0].equals(r.commitShort())) {
                row(commit[0], current).ifPresent(sink);
                current.clear();
            }
            commit[0] = r.commitShort();
            current.add(r);
        });
        if (commit[0] != null) {
            row(commit[0], current).ifPresent(sink);
        }
    }

    /** A run as the rules see it. */
    private record View(RunRecord run, String arm, Mode mode, JsonNode byMode, String workload, RunDetails extra) {

        String model() {
            return run.model();
        }

        boolean outputTokS() {
            return extra.string("output_tok_s") != null;
        }

        String path() {
            return extra.string("path") == null ? "" : extra.string("path");
        }

        /**
         * The arm's value for mode {@code m}, or null; a value of exactly 0 of a lower-is-better primary metric (a TPOT
         * of 0.00 when every request produced one token, a latency of 0) is no measurement and reads as none
         * ({@link #zeroLatency}).
         */
        Value value(Mode m) {
            Value v = parsedValue(m);
            return v != null && v.number() == 0.0 && lowerIsBetter(m) ? null : v;
        }

        /** True when the arm's value for {@code m} is a 0 of a lower-is-better metric: shown as missing, with why. */
        boolean zeroLatency(Mode m) {
            Value v = parsedValue(m);
            return v != null && v.number() == 0.0 && lowerIsBetter(m);
        }

        private static boolean lowerIsBetter(Mode m) {
            return MetricDictionary.require(MetricDictionary.primaryMetric(m)).better() == Better.LOWER;
        }

        private Value parsedValue(Mode m) {
            if (m == null) {
                return null;
            }
            if (byMode == null) {
                // Runs stored without per-mode candidates (other writers, synthetic stores): their own primary value
                // counts for their own mode.
                if (m != mode || run.primaryValue() == null || !Double.isFinite(run.primaryValue())) {
                    return null;
                }
                String text = BigDecimal.valueOf(run.primaryValue()).toPlainString();
                return new Value(text, run.primaryValue(), run.primaryOrigin(), run.runId());
            }
            JsonNode v = byMode.get(m.label());
            if (v == null || !v.hasNonNull("value")) {
                return null;
            }
            String text = v.get("value").asText();
            try {
                return new Value(text, Double.parseDouble(text), v.path("origin").asText(null), run.runId());
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    private record Value(String text, double number, String origin, String runId) {
    }

    /** How comparable a candidate's values are, and the issues behind it (a list the row may still add to). */
    private record Fit(String comparability, List<String> issues) {
    }

    /** The deltas of a candidate: human and agent vs baseline, agent vs human (null = undefined). */
    private record Deltas(Double human, Double agent, Double agentVsHuman) {
    }

    /** One candidate source evaluated. */
    private record Candidate(int precedence, String pipeline, Mode mode, Value[] values, int outputArms, Fit fit,
                             Deltas deltas) {

        String comparability() {
            return fit.comparability();
        }

        List<String> issues() {
            return fit.issues();
        }

        Double hDelta() {
            return deltas.human();
        }

        Double aDelta() {
            return deltas.agent();
        }

        Double avh() {
            return deltas.agentVsHuman();
        }

        int count() {
            int n = 0;
            for (Value v : values) {
                if (v != null) {
                    n++;
                }
            }
            return n;
        }
    }

    /**
     * The row for one commit from its runs (any order, any pipelines; recovered files, other kinds and unknown
     * pipelines are ignored). Empty when no candidate source exists.
     */
    public static Optional<ThreeWayRow> row(String commitShort, List<RunRecord> runs) {
        List<Candidate> candidates = new ArrayList<>();
        for (int p = 0; p < PIPELINES.size(); p++) {
            String pipeline = PIPELINES.get(p);
            View[] arms = new View[3];
            for (RunRecord r : runs) {
                if (!pipeline.equals(Pipeline.labelOf(r.pipeline())) || r.kind() != RunRecord.RunKind.LEGACY) {
                    continue;
                }
                View v = view(r);
                if (v == null) {
                    continue;
                }
                int i = Arrays.asList(ARMS).indexOf(v.arm());
                arms[i] = prefer(arms[i], v);
            }
            if (arms[0] == null && arms[1] == null && arms[2] == null) {
                continue;
            }
            candidates.add(evaluate(p, pipeline, arms, ONE_INVOCATION.contains(pipeline)));
        }
        Candidate hf = publishedRow(runs);
        if (hf != null) {
            candidates.add(hf);
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        Candidate chosen = null;
        String status = null;
        for (Candidate c : candidates) {
            if (c.count() == 3 && "same_run".equals(c.comparability()) && c.hDelta() != null && c.aDelta() != null) {
                chosen = c;
                status = "complete_3way_same_run";
                break;
            }
        }
        if (chosen == null) {
            chosen = first(candidates, c -> c.count() == 3 && "same_run".equals(c.comparability()));
            status = "same_run_3_values_delta_undefined";
        }
        if (chosen == null) {
            chosen = first(candidates, c -> c.count() == 3 && "same_run_with_issues".equals(c.comparability()));
            status = "same_run_3_values_with_issues";
        }
        if (chosen == null) {
            chosen = first(candidates, c -> c.count() == 3);
            status = "cross_run_3_values_not_comparable";
        }
        if (chosen == null) {
            chosen = candidates.stream().filter(c -> c.count() > 0)
                    .max(Comparator.comparingInt(Candidate::count).thenComparingInt(Candidate::outputArms)
                            .thenComparing(Comparator.comparingInt(Candidate::precedence).reversed()))
                    .orElse(null);
            status = "incomplete";
        }
        if (chosen == null) {
            Candidate c = candidates.get(0);
            return Optional.of(ThreeWayRow.builder(commitShort, "no_metrics").pipeline(c.pipeline())
                    .metric(label(c.mode()), metric(c.mode()), unit(c.mode()), better(c.mode()))
                    .issues(c.issues().isEmpty() ? null : String.join("; ", c.issues())).build());
        }
        Value[] v = chosen.values();
        return Optional.of(ThreeWayRow.builder(commitShort, status).pipeline(chosen.pipeline())
                .metric(label(chosen.mode()), metric(chosen.mode()), unit(chosen.mode()), better(chosen.mode()))
                .values(text(v[0]), text(v[1]), text(v[2])).deltas(chosen.hDelta(), chosen.aDelta(), chosen.avh())
                .comparability(chosen.comparability())
                .issues(chosen.issues().isEmpty() ? null : String.join("; ", chosen.issues()))
                .origins(Arrays.asList(origin(v[0]), origin(v[1]), origin(v[2])))
                .runIds(Arrays.asList(id(v[0]), id(v[1]), id(v[2]))).build());
    }

    /**
     * The candidate from rows imported with {@code import hf}: the arms of one published row (one {@code hf_key}),
     * the row with the most values when an agent has several (e.g. one per agent model), with an issue saying so.
     */
    private static Candidate publishedRow(List<RunRecord> runs) {
        Map<String, View[]> byKey = new TreeMap<>();
        for (RunRecord r : runs) {
            if (r.kind() != RunRecord.RunKind.HF_IMPORT) {
                continue;
            }
            View v = view(r);
            if (v == null) {
                continue;
            }
            String key = v.extra().string("hf_key") == null ? "" : v.extra().string("hf_key");
            View[] arms = byKey.computeIfAbsent(key, k -> new View[3]);
            int i = Arrays.asList(ARMS).indexOf(v.arm());
            arms[i] = prefer(arms[i], v);
        }
        Candidate best = null;
        String bestModel = null;
        TreeSet<String> models = new TreeSet<>();
        for (View[] arms : byKey.values()) {
            String dataSource = null;
            String model = null;
            for (View a : arms) {
                if (a != null) {
                    dataSource = dataSource != null ? dataSource : a.extra().string("data_source");
                    model = model != null ? model : a.extra().agentModel();
                }
            }
            if (model != null) {
                models.add(model);
            }
            Candidate c = evaluate(PIPELINES.size(), HF_PIPELINE, arms, oneInvocation(dataSource));
            if (best == null || c.count() > best.count()) {
                best = c;
                bestModel = model;
            }
        }
        if (best != null && byKey.size() > 1) {
            best.issues().add(byKey.size() + " published rows for this agent (agent models " + String.join(", ", models)
                    + "); shown: " + (bestModel == null ? "the one with the most values" : bestModel));
        }
        return best;
    }

    /** Published rows say only their data source; the single-invocation ones (modal, docker, rerun) are same-run. */
    public static boolean oneInvocation(String dataSource) {
        if (dataSource == null) {
            return false;
        }
        String d = dataSource.toLowerCase(Locale.ROOT);
        return d.equals("modal") || d.startsWith("docker") || d.contains("rerun");
    }

    private static Candidate evaluate(int precedence, String pipeline, View[] arms, boolean oneInvocation) {
        List<String> issues = new ArrayList<>();
        // Mode: the arms' common mode; if they differ, serving if any says serving, else the alphabetically first.
        TreeSet<String> modes = new TreeSet<>();
        for (View a : arms) {
            if (a != null && a.mode() != null) {
                modes.add(a.mode().label());
            }
        }
        Mode mode = null;
        if (modes.size() == 1) {
            mode = Mode.fromLabel(modes.first()).orElse(null);
        } else if (modes.size() > 1) {
            mode = modes.contains("serving") ? Mode.SERVING : Mode.fromLabel(modes.first()).orElse(null);
            issues.add("modes differ across files");
        }
        Value[] values = new Value[3];
        int outputArms = 0;
        for (int i = 0; i < 3; i++) {
            if (arms[i] != null) {
                values[i] = arms[i].value(mode);
                if (arms[i].outputTokS()) {
                    outputArms++;
                }
            }
        }
        for (int i = 0; i < 3; i++) {
            if (arms[i] != null && arms[i].zeroLatency(mode)) {
                issues.add(zeroIssue(ARMS[i], mode));
            }
        }
        boolean anyValue = values[0] != null || values[1] != null || values[2] != null;
        Set<String> models = new LinkedHashSet<>();
        Set<String> workloads = new LinkedHashSet<>();
        for (View a : arms) {
            if (a == null) {
                continue;
            }
            if (a.model() != null && !a.model().isBlank()) {
                models.add(a.model());
            }
            if (a.workload() != null) {
                workloads.add(a.workload());
            }
        }
        List<String> mismatch = new ArrayList<>();
        if (models.size() > 1) {
            mismatch.add("model mismatch");
        }
        if (workloads.size() > 1) {
            mismatch.add("workload mismatch");
        }
        String comparability = null;
        if (anyValue) {
            if (oneInvocation) {
                comparability = mismatch.isEmpty() ? "same_run" : "same_run_with_issues";
            } else {
                comparability = "cross_run";
                issues.add(0, "cross-run");
            }
        }
        issues.addAll(mismatch);
        for (int i = 0; i < 3; i++) {
            String why = arms[i] == null || values[i] != null ? null : noPrimary(arms[i].run());
            if (why != null) {
                issues.add(ARMS[i] + ": no primary metric (" + why + ")");
            }
        }
        Better better = mode == null ? Better.NONE : MetricDictionary.require(MetricDictionary.primaryMetric(mode)).better();
        Double h = delta(better, values[0], values[1]);
        Double a = delta(better, values[0], values[2]);
        Double avh = delta(better, values[1], values[2]);
        return new Candidate(precedence, pipeline, mode, values, outputArms, new Fit(comparability, issues),
                new Deltas(h, a, avh));
    }

    /** The reason a successful run has no primary metric (its "no primary metric: …" note), or null. */
    private static String noPrimary(RunRecord r) {
        if (r.status() != RunRecord.RunStatus.SUCCESS || r.notes() == null) {
            return null;
        }
        for (String n : r.notes().split("; ")) {
            if (n.startsWith(NO_PRIMARY)) {
                return n.substring(NO_PRIMARY.length());
            }
        }
        return null;
    }

    private static Double delta(Better better, Value base, Value x) {
        if (base == null || x == null) {
            return null;
        }
        return MetricDictionary.improvementPct(better, base.number(), x.number());
    }

    private static View view(RunRecord r) {
        String arm = switch (r.arm().kind()) {
            case BASELINE -> "baseline";
            case HUMAN -> "human";
            case AGENT -> "agent";
            case BASELINE_AA, OTHER -> null; // the A/A arm is the noise band, not a column of the 3-way table
        };
        if (arm == null) {
            return null;
        }
        RunDetails extra = r.details();
        if (extra.flag("recovered")) {
            return null; // recovered files are never 3-way sources
        }
        Mode mode = r.mode() == Mode.MICRO ? null : r.mode();
        JsonNode byMode = extra.section("primary_by_mode");
        if (!byMode.isObject()) {
            byMode = null;
        }
        String workload = null;
        if (r.workload() != null && extra.flag("serving_block")) {
            try {
                JsonNode w = LenientJson.MAPPER.readTree(r.workload());
                // Only a complete fingerprint is compared (a head-truncated raw may have lost a row).
                if (w.hasNonNull("successful_requests") && w.hasNonNull("total_input_tokens")) {
                    workload = w.path("successful_requests").asText("-") + "/" + w.path("total_input_tokens").asText("-");
                }
            } catch (JsonProcessingException e) {
                workload = null;
            }
        }
        return new View(r, arm, mode, byMode, workload, extra);
    }

    /** Two runs for one arm of one pipeline (e.g. the same tree imported from two places): keep one, deterministically. */
    private static View prefer(View old, View neu) {
        if (old == null) {
            return neu;
        }
        boolean oldHas = old.value(old.mode()) != null;
        boolean newHas = neu.value(neu.mode()) != null;
        if (oldHas != newHas) {
            return newHas ? neu : old;
        }
        return neu.path().compareTo(old.path()) < 0 ? neu : old;
    }

    /**
     * The issue a row gets for an arm whose lower-is-better primary value is exactly 0: no measurement (the arm reads
     * as missing: never a value, never the base of a Δ).
     */
    public static String zeroIssue(String arm, Mode mode) {
        return arm + " " + MetricDictionary.primaryMetric(mode) + " = 0 is not a measurement";
    }

    private static Candidate first(List<Candidate> list, Predicate<Candidate> p) {
        for (Candidate c : list) {
            if (p.test(c)) {
                return c;
            }
        }
        return null;
    }

    private static String label(Mode m) {
        return m == null ? null : m.label();
    }

    private static String metric(Mode m) {
        return m == null ? null : MetricDictionary.primaryMetric(m);
    }

    private static String unit(Mode m) {
        return m == null ? null : MetricDictionary.require(MetricDictionary.primaryMetric(m)).unit();
    }

    private static String better(Mode m) {
        return m == null ? null : MetricDictionary.require(MetricDictionary.primaryMetric(m)).better().label();
    }

    private static String text(Value v) {
        return v == null ? null : v.text();
    }

    private static String origin(Value v) {
        return v == null ? null : v.origin();
    }

    private static String id(Value v) {
        return v == null ? null : v.runId();
    }
}
