package io.isobench.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.parse.MetricResolution;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A run's details beyond its columns (the {@code extra_json} column), read through typed accessors: the job it
 * belongs to, the correctness gate ({@link GateResult}), the accuracy outcome, the patch review summary, the
 * environment's commits, and the facts of a legacy or HF source (published values, recovered, subject,
 * perf_command). Sections that are free-form by nature (build, recipes, published table, primary_by_mode, probe
 * objects, a process group's identity) come back as read-only JSON through {@link #section(String)}.
 * Immutable; built from the writer's ordered map ({@link #of(Map)}) or tree ({@link #of(ObjectNode)}), read and
 * written only by {@link RunDetailsCodec}, so the column's text is byte-for-byte what the writer produced.
 */
public final class RunDetails {

    /** The key of {@link #resolutionSection}. */
    public static final String METRIC_RESOLUTION = "metric_resolution";

    /** The key of a serving run's client self-check ({@link #clientCheck()}, {@link #clientCheckSection}). */
    public static final String CLIENT_CHECK = "client_check";

    /**
     * The key of a serving run's attempts that were measured again because their client was saturated (docs/statistics.md,
     * "Which rounds count"): a list of {attempt, duration_ms, client_check, metrics}; absent when there were none.
     */
    public static final String SATURATED_ATTEMPTS = "client_saturated_attempts";

    /** The key of a serving run's schedule fidelity ({@link #schedule()}, {@link #scheduleSection}). */
    public static final String SCHEDULE = "schedule";

    /** No details: the column is NULL. */
    public static final RunDetails NONE = new RunDetails(null);

    private final String text;
    private volatile ObjectNode parsed;

    RunDetails(String text) {
        this.text = text;
    }

    /** The JSON object, read once on first use (text that is not a JSON object reads as empty). */
    private ObjectNode tree() {
        ObjectNode t = parsed;
        if (t == null) {
            t = RunDetailsCodec.parse(text);
            parsed = t;
        }
        return t;
    }

    /** Details from an ordered map (keys in the order written), as the native writers build them. */
    public static RunDetails of(Map<String, ?> fields) {
        return RunDetailsCodec.decode(RunDetailsCodec.write(fields));
    }

    /** The details a native session writes for a run, typed ({@link RunDetailsCodec#write(NativeDetails)}). */
    public static RunDetails of(NativeDetails details) {
        return RunDetailsCodec.decode(RunDetailsCodec.write(details));
    }

    /** Details from a JSON object (copied), as the importers build them. */
    public static RunDetails of(ObjectNode fields) {
        return RunDetailsCodec.decode(fields.toString());
    }

    /** These details with {@code key} removed. */
    public RunDetails without(String key) {
        ObjectNode t = tree().deepCopy();
        t.remove(key);
        return RunDetailsCodec.decode(t.toString());
    }

    /** These details with {@code key} set to a text value (appended when new, in place when present). */
    public RunDetails with(String key, String value) {
        ObjectNode t = tree().deepCopy();
        t.put(key, value);
        return RunDetailsCodec.decode(t.toString());
    }

    String text() {
        return text;
    }

    /** True when the column is NULL. */
    public boolean isNone() {
        return text == null;
    }

    /** True when {@code key} is present (even as JSON null). */
    public boolean has(String key) {
        return tree().has(key);
    }

    // ---- the job --------------------------------------------------------------------------------------------

    /** The task id of a native run; null for imported data. */
    public String task() {
        return string("task");
    }

    /** True when the task id was written as text (every native run). */
    public boolean hasTask() {
        return tree().path("task").isTextual();
    }

    /** The plan's job id ({@code task/arm/...}); null for arm-level runs and imported data. */
    public String job() {
        return string("job");
    }

    /**
     * The job's role as recorded ({@code role}: measure, check, check-repeat, accuracy, pilot); null for runs recorded
     * before roles were stored, arm-level runs and imported data ({@code plan.JobRole.ofStored} derives the old ones).
     */
    public String role() {
        JsonNode r = tree().path("role");
        return r.isTextual() ? r.asText() : null;
    }

    /** The job's index in the plan, or {@code fallback} when absent. */
    public int jobIndex(int fallback) {
        return tree().path("job_index").asInt(fallback);
    }

    /** The hardware the run ran on (a hardware fact's id), or null. */
    public String hardwareId() {
        JsonNode hw = tree().path("hardware_id");
        return hw.isTextual() ? hw.asText() : null;
    }

    /** The process group a placeholder recorded ({@code pgid}), or 0. */
    public long pgid() {
        return tree().path("pgid").asLong(0);
    }

    /** True when a placeholder still records a process group ({@code pgid} or {@code group}). */
    public boolean recordsGroup() {
        return tree().hasNonNull("pgid") || tree().hasNonNull("group");
    }

    /** The agent's model (native agent arms, legacy and HF rows), or null. */
    public String agentModel() {
        return string("agent_model");
    }

    /** The commit the arm's environment was meant to have, or null. */
    public String intendedCommit() {
        return string("intended_commit");
    }

    /** The commit verified in the arm's environment, or null. */
    public String verifiedCommit() {
        return string("verified_commit");
    }

    /** The sha256 of the agent's patch, or null. */
    public String patchSha256() {
        return string("patch_sha256");
    }

    /**
     * A sweep task's measured run: its load point ({@code sweep}: kind, value, index, points, min_good_fraction);
     * null for every other run.
     */
    public SweepPoint sweepPoint() {
        JsonNode s = tree().path("sweep");
        if (!s.isObject() || !s.path("value").isNumber() || !s.path("kind").isTextual()) {
            return null;
        }
        return new SweepPoint(s.path("kind").asText(), s.path("value").asDouble(), s.path("index").asInt(0),
                s.path("min_good_fraction").asDouble(0.9));
    }

    /** The generic engine's declared primary metric, or null when none was declared. */
    public PrimaryDefinition primaryDefinition() {
        JsonNode pd = tree().path("primary_definition");
        return pd.isObject() ? new PrimaryDefinition(pd.path("name").asText(""), pd.path("unit").asText(),
                pd.path("better").asText()) : null;
    }

    /**
     * The {@code metric_resolution} section of a run's details: per metric isobench measured itself, its resolution
     * (in the metric's unit) and source, keys in name order so the text is the same in every JVM.
     */
    public static Map<String, Object> resolutionSection(Map<String, MetricResolution> resolutions) {
        Map<String, Object> out = new TreeMap<>();
        resolutions.forEach((metric, r) -> {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("resolution", r.resolution());
            one.put("source", r.source());
            out.put(metric, one);
        });
        return out;
    }

    /**
     * How finely {@code metric} was measured and by what ({@code metric_resolution}, written by native generic runs
     * since the per-run cgroup clock); null when the run does not say (older stores, metrics read from the engine's
     * own output, imported data).
     */
    public MetricResolution metricResolution(String metric) {
        JsonNode r = tree().path(METRIC_RESOLUTION).path(metric == null ? "" : metric);
        double step = r.path("resolution").asDouble(0);
        if (!r.path("resolution").isNumber() || !r.path("source").isTextual() || !(step > 0) || Double.isInfinite(step)) {
            return null;
        }
        return new MetricResolution(step, r.path("source").asText());
    }

    /**
     * The {@code client_check} section of a serving run's details (docs/loadgen.md, "Client self-check"): saturated,
     * reasons, cpu_busy_pct, loop_lag_ms_p99, loop_lag_ms_max, send_lag_ms_p99 (null: no arrival schedule).
     */
    public static Map<String, Object> clientCheckSection(ClientCheck c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("saturated", c.saturated());
        m.put("reasons", c.reasons());
        m.put("cpu_busy_pct", c.cpuBusyPct());
        m.put("loop_lag_ms_p99", c.loopLagMsP99());
        m.put("loop_lag_ms_max", c.loopLagMsMax());
        m.put("send_lag_ms_p99", c.sendLagMsP99());
        return m;
    }

    /**
     * The {@code schedule} section of a serving run's details (docs/loadgen.md, "Schedule fidelity"): requests,
     * lag_ms_p50/p99/max, late_threshold_ms, late_pct, configured_rate_rps, delivered_rate_rps,
     * configured_max_concurrency, delivered_concurrency_mean (a configured value null when not defined).
     */
    public static Map<String, Object> scheduleSection(Schedule s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests", s.requests());
        m.put("lag_ms_p50", s.lagMsP50());
        m.put("lag_ms_p99", s.lagMsP99());
        m.put("lag_ms_max", s.lagMsMax());
        m.put("late_threshold_ms", s.lateThresholdMs());
        m.put("late_pct", s.latePct());
        m.put("configured_rate_rps", s.configuredRateRps());
        m.put("delivered_rate_rps", s.deliveredRateRps());
        m.put("configured_max_concurrency", s.configuredMaxConcurrency());
        m.put("delivered_concurrency_mean", s.deliveredConcurrencyMean());
        return m;
    }

    /**
     * The load generator's check of itself in this run ({@value #CLIENT_CHECK}); null when the run has none (older
     * stores, offline and imported runs, clients that do not check themselves): such a run is never judged saturated.
     */
    public ClientCheck clientCheck() {
        JsonNode c = tree().path(CLIENT_CHECK);
        if (!c.isObject()) {
            return null;
        }
        List<String> reasons = new ArrayList<>();
        c.path("reasons").forEach(n -> reasons.add(n.asText()));
        return new ClientCheck(c.path("saturated").asBoolean(false), reasons, number(c.path("cpu_busy_pct")),
                number(c.path("loop_lag_ms_p99")), number(c.path("loop_lag_ms_max")), number(c.path("send_lag_ms_p99")));
    }

    /** How many earlier attempts of this run were replaced because their client was saturated ({@value #SATURATED_ATTEMPTS}). */
    public int saturatedAttempts() {
        return tree().path(SATURATED_ATTEMPTS).size();
    }

    /** The run's schedule fidelity ({@value #SCHEDULE}); null when the run has none (no arrival schedule, older). */
    public Schedule schedule() {
        JsonNode s = tree().path(SCHEDULE);
        if (!s.isObject()) {
            return null;
        }
        return new Schedule(s.path("requests").asInt(0), number(s.path("lag_ms_p50")), number(s.path("lag_ms_p99")),
                number(s.path("lag_ms_max")), number(s.path("late_threshold_ms")), number(s.path("late_pct")),
                number(s.path("configured_rate_rps")), number(s.path("delivered_rate_rps")),
                s.path("configured_max_concurrency").isNumber() ? s.path("configured_max_concurrency").asInt() : null,
                number(s.path("delivered_concurrency_mean")));
    }

    /** Fraction of probes whose output differs from the baseline's, or null. */
    public Double mismatchFraction() {
        return number(tree().path("mismatch_fraction"));
    }

    // ---- correctness, accuracy, review ------------------------------------------------------------------------

    /** The correctness gate of a check run; null when the run carries none. */
    public GateResult gate() {
        if (!tree().has("correctness")) {
            return null;
        }
        JsonNode c = tree().path("correctness");
        JsonNode outcome = c.path("outcome");
        Map<String, Object> calibration = null;
        if (c.path("calibration").isObject()) {
            calibration = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : c.path("calibration").properties()) {
                JsonNode v = e.getValue();
                calibration.put(e.getKey(), v.isNumber() ? v.asDouble() : v.isTextual() ? v.asText() : v.toString());
            }
        }
        return new GateResult(c.isObject(), outcome.isTextual() ? outcome.asText() : null,
                new GateResult.Why(c.path("rule").asText(null), c.path("reason").asText(null)),
                new GateResult.Rates(number(c.path("vs_baseline").path("exact_match_rate")),
                        number(c.path("vs_human").path("exact_match_rate")),
                        number(c.path("vs_baseline").path("first_divergence_char"))),
                calibration);
    }

    /**
     * The gate's outcome as text, whatever the store's age: the {@code outcome} of the gate object, or the gate
     * itself when an older store wrote it as a plain string; null when none.
     */
    public String gateOutcomeText() {
        JsonNode c = tree().path("correctness");
        return valueText(c.isObject() ? c.path("outcome") : c);
    }

    /**
     * The exact-match rate against the baseline, whatever the store's age: the gate's {@code vs_baseline} rate,
     * else a top-level {@code exact_match_rate}, else 1 − {@code mismatch_fraction}; null when none.
     */
    public Double exactMatchRate() {
        JsonNode rate = tree().path("correctness").path("vs_baseline").path("exact_match_rate");
        if (!rate.isNumber()) {
            rate = tree().path("exact_match_rate");
        }
        if (rate.isNumber()) {
            return rate.asDouble();
        }
        Double mismatch = mismatchFraction();
        return mismatch == null ? null : 1.0 - mismatch;
    }

    private static String valueText(JsonNode v) {
        return v.isValueNode() && !v.isNull() ? v.asText() : null;
    }

    /** The texts of a check's probe outputs (sequential pass); empty when none. */
    public List<String> outputs() {
        return strings("outputs");
    }

    /** The accuracy outcome of an accuracy run; null when the run carries none. */
    public AccuracyResult accuracy() {
        JsonNode a = tree().path("accuracy");
        if (a.isMissingNode()) {
            return null;
        }
        return new AccuracyResult(a.path("outcome").asText(null), a.path("reason").asText(null),
                number(a.path("score")));
    }

    /** One line per patch-review finding (SUSPICIOUS_PATCH reasons); empty when the review found nothing. */
    public List<String> reviewFindings() {
        return strings("review_findings");
    }

    /** The findings the suite marks as failing the arm. */
    public List<String> reviewFailing() {
        return strings("review_failing");
    }

    // ---- imported sources ---------------------------------------------------------------------------------------

    /** True when a legacy run was recovered from a file other than its own. */
    public boolean recovered() {
        return tree().has("recovered") && "true".equals(tree().path("recovered").asText(null));
    }

    /** The commit subject of an imported run, or null. */
    public String subject() {
        return string("subject");
    }

    /** The benchmark command of an imported run, or null. */
    public String perfCommand() {
        return string("perf_command");
    }

    /** The published values of an HF row ({@code published}), or null. */
    public JsonNode published() {
        JsonNode p = tree().get("published");
        return p == null ? null : p.deepCopy();
    }

    /**
     * A free-form section (read-only copy), missing when absent: {@code build}, {@code recipes}, {@code group},
     * {@code probe}, {@code probe_batched}, {@code primary_by_mode}, {@code timings_ms}, …
     */
    public JsonNode section(String key) {
        JsonNode n = tree().get(key);
        return n == null ? MissingNode.getInstance() : n.deepCopy();
    }

    /**
     * A text field as written ({@code null} when absent or JSON null; numbers and booleans as their text): the
     * source facts of imported runs ({@code path}, {@code root_path}, {@code hf_file}, {@code hf_row_number},
     * {@code not_run_reason}, {@code skip_reason}, {@code data_source}, …).
     */
    public String string(String key) {
        return tree().path(key).asText(null);
    }

    /** A yes/no field ({@code recovered}, {@code serving_block}, …): false when absent or not true. */
    public boolean flag(String key) {
        return tree().path(key).asBoolean(false);
    }

    /** A numeric field, or null when absent or not a number. */
    public Double number(String key) {
        return number(tree().path(key));
    }

    private static Double number(JsonNode n) {
        return n != null && n.isNumber() ? Double.valueOf(n.asDouble()) : null;
    }

    private List<String> strings(String key) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : tree().path(key)) {
            out.add(n.asText());
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RunDetails d && Objects.equals(text, d.text);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(text);
    }

    @Override
    public String toString() {
        return text == null ? "(none)" : text;
    }

    /**
     * A run's load point of its task's sweep.
     *
     * @param kind            {@code request_rate} or {@code max_concurrency}
     * @param value           the load (req/s or concurrent requests)
     * @param index           the point's position in the sweep (0-based, ascending load)
     * @param minGoodFraction the share of requests that must meet the SLO targets for the point to be met
     */
    public record SweepPoint(String kind, double value, int index, double minGoodFraction) {
    }

    /** A generic engine's primary metric as declared: name, unit and direction ({@code higher}|{@code lower}). */
    public record PrimaryDefinition(String name, String unit, String better) {
    }

    /** An accuracy run's outcome (REFERENCE, OK, ACCURACY_REGRESSION, ACCURACY_FAILED, …), reason and score. */
    public record AccuracyResult(String outcome, String reason, Double score) {
    }

    /**
     * A serving run's client self-check as stored (the load generator's {@code LoadFidelity.ClientCheck}).
     *
     * @param saturated    the client was the bottleneck: the run's round is excluded (docs/statistics.md)
     * @param reasons      one line per crossed threshold, with the number and the threshold; empty when not saturated
     * @param cpuBusyPct   the client's CPU over the measured phase, % of its allowed cores; null when not recorded
     * @param loopLagMsP99 event-loop lag, 99th percentile (ms); null when not recorded
     * @param loopLagMsMax event-loop lag, maximum (ms); null when not recorded
     * @param sendLagMsP99 schedule lag p99 (ms); null without an arrival schedule
     */
    public record ClientCheck(boolean saturated, List<String> reasons, Double cpuBusyPct, Double loopLagMsP99,
                              Double loopLagMsMax, Double sendLagMsP99) {
        public ClientCheck {
            reasons = List.copyOf(reasons);
        }
    }

    /**
     * A serving run's schedule fidelity as stored (the load generator's {@code LoadFidelity.Schedule}): intended
     * against actual send times.
     *
     * @param requests                 measured requests with an intended send time
     * @param lagMsP50                 schedule lag, median (ms)
     * @param lagMsP99                 schedule lag, 99th percentile (ms)
     * @param lagMsMax                 schedule lag, maximum (ms)
     * @param lateThresholdMs          a request is late when its lag exceeds this (ms)
     * @param latePct                  share of requests that were late (%)
     * @param configuredRateRps        the intended request rate (req/s); null when not defined
     * @param deliveredRateRps         the rate actually sent (req/s)
     * @param configuredMaxConcurrency {@code --max-concurrency}; null when none
     * @param deliveredConcurrencyMean time-weighted mean of requests in flight
     */
    public record Schedule(int requests, Double lagMsP50, Double lagMsP99, Double lagMsMax, Double lateThresholdMs,
                           Double latePct, Double configuredRateRps, Double deliveredRateRps,
                           Integer configuredMaxConcurrency, Double deliveredConcurrencyMean) {
    }
}
