package io.isobench.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which measured rounds of a task count (docs/statistics.md, "Which rounds count"): a run's value is a sample only
 * when it succeeded, lost no request, ran on the task's hardware (fingerprint of the most baseline rounds), did the
 * same work as the baseline's run of its round (workload fingerprint) and its load generator was not saturated (its
 * {@code client_check}; a run without one is not judged). Everything else that ran is a
 * {@link RoundExclusion} with its reason; failed runs are outcomes and never samples.
 */
final class Rounds {

    /** Keys of a workload record that describe the run, not the work: never compared. */
    private static final Set<String> NOT_WORK = Set.of("failures_by_reason");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One finished measured run. */
    private record Run(Arm arm, int round, Double value, Outcome outcome, JsonNode workload, String hardware,
                       Clocks clocks, RunDetails.ClientCheck client) {
        boolean success() {
            return outcome.success();
        }

        String failureCategory() {
            return outcome.failureCategory();
        }

        String failureDetail() {
            return outcome.failureDetail();
        }
    }

    /** How a run ended: success, else the failure's category and detail (null when the run has none). */
    private record Outcome(boolean success, String failureCategory, String failureDetail) {
    }

    /** A run's GPU clocks from its {@code gpu_telemetry} details (nulls when it recorded none). */
    private record Clocks(Double sm, Double throttle) {
        static Clocks of(JsonNode t) {
            return new Clocks(t.path("gpu_sm_clock_mhz_mean").isNumber() ? t.get("gpu_sm_clock_mhz_mean").asDouble()
                    : null, t.path("gpu_throttle_share").isNumber() ? t.get("gpu_throttle_share").asDouble() : null);
        }
    }

    private final List<Run> runs = new ArrayList<>();
    private final ClockRule clockRule;

    Rounds() {
        this(ClockRule.defaults());
    }

    Rounds(ClockRule clockRule) {
        this.clockRule = Objects.requireNonNull(clockRule, "clockRule");
    }

    /** A finished measured run (not a placeholder). */
    void add(RunRecord r) {
        runs.add(new Run(r.arm(), r.round(), r.primaryValue(), new Outcome(r.status() == RunRecord.RunStatus.SUCCESS,
                r.failure() == null ? null : r.failure().category(), r.failure() == null ? null : r.failure().detail()),
                parse(r.workload()), r.details().hardwareId(), Clocks.of(r.details().section("gpu_telemetry")),
                r.details().clientCheck()));
    }

    /** The valid samples of every arm, the exclusions, and the hardware the task's rounds are judged on. */
    Valid valid() {
        String hardware = taskHardware();
        Map<Integer, JsonNode> baselineWork = new TreeMap<>();
        Map<Integer, Clocks> baselineClocks = new TreeMap<>();
        for (Run r : runs) {
            if (r.arm().equals(Arm.BASELINE) && r.success() && r.value() != null
                    && Objects.equals(r.hardware(), hardware)) {
                baselineClocks.put(r.round(), r.clocks());
                if (r.workload() != null) {
                    baselineWork.put(r.round(), r.workload());
                }
            }
        }
        JsonNode usual = mostCommon(baselineWork.values());
        Map<String, TreeMap<Integer, Double>> values = new LinkedHashMap<>();
        List<RoundExclusion> exclusions = new ArrayList<>();
        for (Run r : runs) {
            if ("REQUESTS_FAILED".equals(r.failureCategory())) {
                exclusions.add(new RoundExclusion(r.arm().label(), r.round(), RoundExclusion.Cause.REQUESTS_FAILED,
                        r.failureDetail()));
                continue;
            }
            if (!r.success() || r.value() == null) {
                continue; // a failure: counted as an outcome, never a sample
            }
            if (!Objects.equals(r.hardware(), hardware)) {
                exclusions.add(new RoundExclusion(r.arm().label(), r.round(), RoundExclusion.Cause.HARDWARE_MISMATCH,
                        "ran on " + r.hardware() + ", the task is judged on " + hardware));
                continue;
            }
            JsonNode ref = baselineWork.getOrDefault(r.round(), usual);
            String diff = ref == null || r.workload() == null ? null : difference(r.workload(), ref);
            if (r.workload() == null && ref != null) {
                diff = "no workload fingerprint recorded";
            }
            if (diff != null) {
                exclusions.add(new RoundExclusion(r.arm().label(), r.round(), RoundExclusion.Cause.WORKLOAD_MISMATCH,
                        diff + (baselineWork.containsKey(r.round()) ? "" : " (vs the baseline's usual workload: its"
                                + " run of this round has none)")));
                continue;
            }
            if (r.client() != null && r.client().saturated()) {
                exclusions.add(new RoundExclusion(r.arm().label(), r.round(), RoundExclusion.Cause.CLIENT_SATURATED,
                        r.client().reasons().isEmpty() ? "the load generator was the bottleneck"
                                : String.join("; ", r.client().reasons())));
                continue;
            }
            Clocks refClocks = r.arm().equals(Arm.BASELINE) ? null : baselineClocks.get(r.round());
            String clocks = refClocks == null ? null
                    : clockRule.difference(r.clocks().sm(), r.clocks().throttle(), refClocks.sm(),
                    refClocks.throttle());
            if (clocks != null) {
                exclusions.add(new RoundExclusion(r.arm().label(), r.round(), RoundExclusion.Cause.CLOCK_MISMATCH,
                        clocks + " (vs the baseline's run of this round)", clockRule.excludeOnMismatch()));
                if (clockRule.excludeOnMismatch()) {
                    continue;
                }
            }
            values.computeIfAbsent(r.arm().label(), k -> new TreeMap<>()).put(r.round(), r.value());
        }
        exclusions.sort(Comparator.comparingInt(RoundExclusion::round).thenComparing(RoundExclusion::arm));
        return new Valid(values, exclusions, hardware);
    }

    /** The valid values per arm and round, the exclusions, the task's hardware. */
    record Valid(Map<String, TreeMap<Integer, Double>> values, List<RoundExclusion> exclusions, String hardware) {

        /** The arm's valid values as samples (its rounds are kept by label, as the runs stored them). */
        ArmSamples samples(Arm arm, Set<Arm> incorrect) {
            return ArmSamples.byRound(arm, values.getOrDefault(arm.label(), new TreeMap<>()), incorrect);
        }
    }

    /** The hardware of the most baseline rounds (ties: the earliest round's); null when none was recorded. */
    private String taskHardware() {
        Map<String, Integer> count = new LinkedHashMap<>();
        runs.stream().filter(r -> r.arm().equals(Arm.BASELINE) && r.hardware() != null)
                .sorted(Comparator.comparingInt(Run::round))
                .forEach(r -> count.merge(r.hardware(), 1, Integer::sum));
        if (count.isEmpty()) {
            runs.stream().filter(r -> r.hardware() != null).sorted(Comparator.comparingInt(Run::round))
                    .forEach(r -> count.merge(r.hardware(), 1, Integer::sum));
        }
        String best = null;
        int n = 0;
        for (Map.Entry<String, Integer> e : count.entrySet()) {
            if (e.getValue() > n) {
                best = e.getKey();
                n = e.getValue();
            }
        }
        return best;
    }

    private static JsonNode mostCommon(Collection<JsonNode> works) {
        Map<String, Integer> count = new LinkedHashMap<>();
        Map<String, JsonNode> byKey = new LinkedHashMap<>();
        for (JsonNode w : works) {
            String k = w.toString();
            count.merge(k, 1, Integer::sum);
            byKey.putIfAbsent(k, w);
        }
        return count.entrySet().stream().max(Map.Entry.comparingByValue()).map(e -> byKey.get(e.getKey()))
                .orElse(null);
    }

    /**
     * What differs between two workload fingerprints, one line ({@code output_tokens 1000 vs 1024}); null when they
     * describe the same work. Every key counts except {@link #NOT_WORK}; a key present on one side only differs.
     */
    static String difference(JsonNode run, JsonNode reference) {
        List<String> out = new ArrayList<>();
        Set<String> keys = new TreeSet<>();
        run.fieldNames().forEachRemaining(keys::add);
        reference.fieldNames().forEachRemaining(keys::add);
        for (Iterator<String> it = keys.iterator(); it.hasNext(); ) {
            String k = it.next();
            if (NOT_WORK.contains(k)) {
                continue;
            }
            JsonNode a = run.get(k);
            JsonNode b = reference.get(k);
            if (!Objects.equals(a, b) && !(a != null && b != null && a.isNumber() && b.isNumber()
                    && a.asDouble() == b.asDouble())) {
                out.add(k + " " + text(a) + " vs " + text(b));
            }
        }
        return out.isEmpty() ? null : String.join(", ", out);
    }

    private static String text(JsonNode n) {
        if (n == null || n.isNull()) {
            return "none";
        }
        String s = n.isTextual() ? n.asText() : n.toString();
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }

    private static JsonNode parse(String workload) {
        if (workload == null || workload.isBlank()) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(workload);
            return n != null && n.isObject() ? n : null;
        } catch (Exception e) {
            return null;
        }
    }
}
