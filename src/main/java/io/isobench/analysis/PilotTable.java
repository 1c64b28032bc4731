package io.isobench.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.parse.Metric;
import io.isobench.plan.AutoSweep;
import io.isobench.store.RunRecord;
import io.isobench.task.Sweep;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code sweep: auto} task's pilot phase as stored (docs/statistics.md, section 17): its pilot runs against the
 * baseline, in order, read back into {@link AutoSweep}'s rule, and the points the rule decided from them. The same
 * stored runs always give the same table and points: the session reads its points back this way on {@code --resume},
 * and the report prints the table.
 *
 * @param rows          one per pilot, in the order they ran
 * @param points        the points decided; empty while the rule wants another pilot
 * @param saturationRps the saturation rate found; null while undecided
 * @param why           the rule's last step, one line
 * @param rule          the rule with its settings, one line ({@link AutoSweep#ruleText})
 */
public record PilotTable(List<Row> rows, List<Double> points, Double saturationRps, String why, String rule) {

    /** The key of a pilot run's details that holds its place in the phase and the rule's settings. */
    public static final String DETAILS_KEY = "pilot";

    public PilotTable {
        rows = List.copyOf(rows);
        points = List.copyOf(points);
    }

    /**
     * One pilot run.
     *
     * @param n            its place in the phase (1-based)
     * @param offeredRps   the request rate offered
     * @param achievedRps  the request throughput achieved (0 when the run gave none)
     * @param goodFraction the share of requests that met every SLO target; null when the run had none
     * @param sloMet       the good fraction is at least the sweep's {@code min_good_fraction}
     * @param growth       achieved throughput over the previous pilot's, minus 1 (0.1 = +10 %); null for the first
     * @param runId        the stored run
     */
    public record Row(int n, double offeredRps, double achievedRps, Double goodFraction, boolean sloMet, Double growth,
                      String runId) {
    }

    /** Whether the rule has decided the points. */
    public boolean decided() {
        return !points.isEmpty();
    }

    /** The rule's input from a stored pilot run at {@code rateRps}: achieved req/s and good fraction. */
    public static AutoSweep.Pilot pilotOf(RunRecord r, double rateRps) {
        Map<String, Double> m = new HashMap<>();
        for (Metric x : r.metrics()) {
            m.put(x.name(), x.value());
        }
        Double achieved = m.get("request_throughput_rps");
        return new AutoSweep.Pilot(rateRps, achieved == null ? 0 : achieved, CapacityRule.goodFraction(
                m.get("request_goodput_rps"), achieved, m.get("completed_requests"), m.get("failed_requests")));
    }

    /** The details section a pilot run stores: its place and the rule's settings, so the table rebuilds alone. */
    public static Map<String, Object> detailsOf(int n, double rateRps, Sweep auto) {
        AutoSweep.Settings s = AutoSweep.settingsOf(auto);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", n);
        m.put("rate_rps", rateRps);
        m.put("start_rps", s.startRps());
        m.put("max_pilots", s.maxPilots());
        m.put("min_good_fraction", auto.minGoodFraction());
        return m;
    }

    /**
     * The table of a task's finished pilot runs (any order; runs without the {@link #DETAILS_KEY} section and
     * unfinished ones are ignored); empty when there are none.
     */
    public static Optional<PilotTable> of(List<RunRecord> pilotRuns) {
        List<RunRecord> runs = new ArrayList<>(pilotRuns.stream().filter(r -> r.status() != RunRecord.RunStatus.NOT_RUN
                && r.details().section(DETAILS_KEY) != null).toList());
        if (runs.isEmpty()) {
            return Optional.empty();
        }
        runs.sort(Comparator.comparingInt(r -> r.details().section(DETAILS_KEY).path("n").asInt()));
        JsonNode first = runs.get(0).details().section(DETAILS_KEY);
        double minGood = first.path("min_good_fraction").asDouble(Sweep.DEFAULT_MIN_GOOD_FRACTION);
        Sweep auto = new Sweep(Sweep.Kind.AUTO, List.of(), minGood, new Sweep.Pilots(
                first.path("start_rps").asDouble(1), first.path("max_pilots").asInt(8)));
        AutoSweep.Settings settings = AutoSweep.settingsOf(auto);
        List<AutoSweep.Pilot> pilots = new ArrayList<>();
        List<Row> rows = new ArrayList<>();
        for (RunRecord r : runs) {
            JsonNode d = r.details().section(DETAILS_KEY);
            AutoSweep.Pilot p = pilotOf(r, d.path("rate_rps").asDouble());
            Double growth = pilots.isEmpty() || !(pilots.get(pilots.size() - 1).achievedRps() > 0) ? null
                    : p.achievedRps() / pilots.get(pilots.size() - 1).achievedRps() - 1;
            pilots.add(p);
            rows.add(new Row(d.path("n").asInt(), p.rateRps(), p.achievedRps(), p.goodFraction(),
                    CapacityRule.met(p.goodFraction(), minGood), growth, r.runId()));
        }
        AutoSweep.Step step = AutoSweep.next(pilots, minGood, settings);
        return Optional.of(new PilotTable(rows, step.points(), step.saturationRps(), step.why(),
                AutoSweep.ruleText(settings, minGood)));
    }
}
