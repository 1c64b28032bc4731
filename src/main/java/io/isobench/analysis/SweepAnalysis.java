package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.task.Sweep;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A load sweep's statistics for one task (docs/statistics.md, "Load sweeps and capacity"): per arm and load point the
 * metric distributions over the session's rounds (median with its bootstrap CI: throughput, goodput, the good
 * fraction, TTFT/TPOT/E2E median and p99), each arm's capacity at the SLO ({@link CapacityRule} per round; the median
 * over rounds with its CI) and the verdict on capacity, computed like any metric's ({@link TaskAnalysis} on the
 * per-round capacities: paired rounds, the A/A band, the same thresholds). The validity rules of
 * {@link Rounds} apply per point: a run is compared with the baseline's run of the same point and round.
 *
 * @param axis       what was swept: the points, their kind and unit, the SLO share
 * @param curves     per arm (plan order), one entry per point in ascending load
 * @param capacity   per arm: its capacity over rounds
 * @param verdicts   the verdict on capacity (metric {@link #metricName}); null without baseline and human arms
 * @param pilots     a {@code sweep: auto} task's pilot phase, where its points came from; null for listed points
 */
public record SweepAnalysis(Axis axis, Map<String, List<PointStats>> curves, Map<String, Capacity> capacity,
                            TaskAnalysis verdicts, PilotTable pilots) {

    /** The metrics drawn per point, in this order (names of the metric dictionary; good_fraction computed). */
    public static final List<String> CURVE_METRICS = List.of("request_throughput_rps", "output_throughput_tok_s",
            "request_goodput_rps", "good_fraction", "ttft_ms_median", "ttft_ms_p99", "tpot_ms_median", "tpot_ms_p99",
            "e2el_ms_median", "e2el_ms_p99");

    /**
     * What a sweep varies.
     *
     * @param kind            {@code request_rate} or {@code max_concurrency}
     * @param points          the load points, ascending
     * @param minGoodFraction the share of requests that must meet the SLO for a point to be met
     */
    public record Axis(String kind, List<Double> points, double minGoodFraction) {
        public Axis {
            points = List.copyOf(points);
        }

        /** The unit of a point: req/s or concurrent requests. */
        public String unit() {
            return "request_rate".equals(kind) ? "req/s" : "concurrent requests";
        }
    }

    /**
     * One arm at one load point.
     *
     * @param load    the point's load
     * @param runs    valid runs (rounds) at this point
     * @param met     rounds in which the point was met
     * @param metrics per {@link #CURVE_METRICS} name present in the runs: median over rounds with its CI
     */
    public record PointStats(double load, int runs, int met, Map<String, MedianCi> metrics) {
        public PointStats {
            metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
        }
    }

    /**
     * One arm's capacity.
     *
     * @param perRound    round → the capacity sample ({@link CapacityRule#sample}); rounds without one are absent
     * @param belowLowest rounds in which not even the lowest point was met
     * @param atHighest   rounds in which every point was met (the capacity is at least the highest point)
     * @param value       median over rounds with its bootstrap CI; null when no round has a sample
     */
    public record Capacity(Map<Integer, Double> perRound, int belowLowest, int atHighest, MedianCi value) {
        public Capacity {
            perRound = Collections.unmodifiableMap(new TreeMap<>(perRound));
        }
    }

    /** The name of the capacity metric of a sweep kind: {@code capacity_request_rate_rps} or {@code capacity_max_concurrency}. */
    public static String metricName(String kind) {
        return "request_rate".equals(kind) ? "capacity_request_rate_rps" : "capacity_max_concurrency";
    }

    /** One arm's capacity in words: {@code 4 req/s}, {@code ≥ 8 req/s (every point met)}, {@code < 1 req/s (…)}. */
    public String capacityText(String arm) {
        Capacity c = capacity.get(arm);
        if (c == null || c.value() == null) {
            return "–";
        }
        List<Double> p = axis.points();
        double m = c.value().median();
        String unit = " " + axis.unit();
        if (m >= p.get(p.size() - 1)) {
            return "≥ " + num(p.get(p.size() - 1)) + unit + " (highest point met)";
        }
        if (m < p.get(0)) {
            return "< " + num(p.get(0)) + unit + " (lowest point not met)";
        }
        return num(m) + unit;
    }

    private static String num(double v) {
        return Sweep.text(Math.round(v * 1000) / 1000.0);
    }

    /**
     * The verdicts on an ordinal metric (a capacity) read look by look under {@code design}: at each look the shared
     * rules over the rounds before it, then the sign rule ({@link OrdinalVerdicts}) over the same rounds.
     *
     * @param perRound arm label → round → value (the rounds the verdict counts)
     * @param gridStep the ratio between neighbouring points of the grid
     */
    static TaskAnalysis ordinalReplay(TaskAnalysis.Input input, Map<String, Map<Integer, Double>> perRound,
                                      double gridStep, SequentialDesign design, int roundsRun, StatsConfig config) {
        return SequentialAnalysis.replay(design, roundsRun, config, n -> {
            LookLevels look = LookLevels.of(design, n, config);
            Map<String, Map<Integer, Double>> before = new LinkedHashMap<>();
            perRound.forEach((arm, v) -> before.put(arm, new TreeMap<>(v).headMap(n)));
            return OrdinalVerdicts.apply(TaskAnalysis.at(input.before(n), look, config), before, gridStep, design,
                    look);
        });
    }

    /** Collects a sweep task's measured runs, then analyses them. */
    static final class Collector {
        private final Map<Integer, Rounds> byPoint = new TreeMap<>();
        private final Map<Integer, Double> loads = new TreeMap<>();
        private final Map<String, RunRecord> runs = new LinkedHashMap<>();
        private String kind;
        private double minGoodFraction = 0.9;
        private PilotTable pilots;
        private final ClockRule clockRule;

        Collector(ClockRule clockRule) {
            this.clockRule = clockRule;
        }

        boolean isEmpty() {
            return runs.isEmpty();
        }

        /** The task's {@code sweep: auto} pilot phase (its points came from it). */
        void pilots(PilotTable table) {
            pilots = table;
        }

        /** A finished measured run of a sweep task at its point. */
        void add(RunRecord r, RunDetails.SweepPoint p) {
            kind = p.kind();
            minGoodFraction = p.minGoodFraction();
            loads.put(p.index(), p.value());
            byPoint.computeIfAbsent(p.index(), k -> new Rounds(clockRule)).add(r);
            runs.put(key(r.arm().label(), r.round(), p.index()), r);
        }

        private static String key(String arm, int round, int point) {
            return arm + "|" + round + "|" + point;
        }

        /**
         * The analysis.
         *
         * @param arms      the task's arms, plan order
         * @param incorrect arms that failed a correctness gate
         */
        SweepAnalysis analyse(List<Arm> arms, Set<Arm> incorrect, StatsConfig config, SequentialDesign design,
                              int roundsRun) {
            List<Integer> idx = new ArrayList<>(loads.keySet());
            List<Double> points = idx.stream().map(loads::get).toList();
            Map<Integer, Rounds.Valid> valid = new TreeMap<>();
            List<RoundExclusion> exclusions = new ArrayList<>();
            for (int k : idx) {
                Rounds.Valid v = byPoint.get(k).valid();
                valid.put(k, v);
                String name = Sweep.text(loads.get(k));
                for (RoundExclusion e : v.exclusions()) {
                    exclusions.add(new RoundExclusion(e.arm(), e.round(), e.cause(), kind + "=" + name
                            + (e.detail() == null ? "" : ": " + e.detail()), e.excluded()));
                }
            }
            Set<Integer> rounds = new TreeSet<>();
            runs.values().forEach(r -> rounds.add(r.round()));
            Map<String, List<PointStats>> curves = new LinkedHashMap<>();
            Map<String, Capacity> capacity = new LinkedHashMap<>();
            for (Arm typed : arms) {
                String arm = typed.label();
                List<PointStats> curve = new ArrayList<>();
                Map<Integer, boolean[]> metByRound = new TreeMap<>();
                Set<Integer> unknownRounds = new TreeSet<>();
                Set<Integer> ranRounds = new TreeSet<>();
                for (int pi = 0; pi < idx.size(); pi++) {
                    int k = idx.get(pi);
                    Map<Integer, Double> armValid = valid.get(k).values().getOrDefault(arm, new TreeMap<>());
                    Map<String, List<Double>> values = new LinkedHashMap<>();
                    int met = 0;
                    for (int round : rounds) {
                        RunRecord r = runs.get(key(arm, round, k));
                        if (r != null && (r.status() == RunRecord.RunStatus.SUCCESS || r.failure() != null
                                && "REQUESTS_FAILED".equals(r.failure().category()))) {
                            ranRounds.add(round);
                        }
                        boolean[] m = metByRound.computeIfAbsent(round, x -> new boolean[idx.size()]);
                        if (r == null || !armValid.containsKey(round)) {
                            if (r != null && excludedOtherwise(valid.get(k), arm, round)) {
                                unknownRounds.add(round); // not comparable (workload, hardware, clocks): no sample
                            }
                            continue;
                        }
                        Map<String, Double> mv = metricValues(r);
                        for (String name : CURVE_METRICS) {
                            if (mv.get(name) != null) {
                                values.computeIfAbsent(name, x -> new ArrayList<>()).add(mv.get(name));
                            }
                        }
                        m[pi] = CapacityRule.met(mv.get("good_fraction"), minGoodFraction);
                        met += m[pi] ? 1 : 0;
                    }
                    Map<String, MedianCi> stats = new LinkedHashMap<>();
                    values.forEach((name, l) -> stats.put(name, MedianCi.of(l.stream().mapToDouble(Double::doubleValue)
                            .toArray(), config)));
                    curve.add(new PointStats(loads.get(k), armValid.size(), met, stats));
                }
                Map<Integer, Double> perRound = new TreeMap<>();
                int below = 0;
                int top = 0;
                for (Map.Entry<Integer, boolean[]> e : metByRound.entrySet()) {
                    if (unknownRounds.contains(e.getKey()) || !ranRounds.contains(e.getKey())) {
                        continue;
                    }
                    int c = CapacityRule.capacityIndex(e.getValue());
                    below += c < 0 ? 1 : 0;
                    top += c == idx.size() - 1 ? 1 : 0;
                    perRound.put(e.getKey(), CapacityRule.sample(points, c));
                }
                curves.put(arm, curve);
                capacity.put(arm, new Capacity(perRound, below, top, perRound.isEmpty() ? null
                        : MedianCi.of(perRound.values().stream().mapToDouble(Double::doubleValue).toArray(), config)));
            }
            Axis axis = new Axis(kind, points, minGoodFraction);
            return new SweepAnalysis(axis, curves, capacity, verdicts(axis, arms, capacity, incorrect, exclusions,
                    new Reading(config, design, roundsRun)), pilots);
        }

        /** The point's run of this arm and round was kept out for another reason than lost requests. */
        private static boolean excludedOtherwise(Rounds.Valid v, String arm, int round) {
            return v.exclusions().stream().anyMatch(e -> e.arm().equals(arm) && e.round() == round && e.excluded()
                    && e.cause() != RoundExclusion.Cause.REQUESTS_FAILED);
        }

        /** How the verdicts are read: the method, the session's design, the rounds it ran. */
        private record Reading(StatsConfig config, SequentialDesign design, int roundsRun) {
        }

        private static TaskAnalysis verdicts(Axis axis, List<Arm> arms, Map<String, Capacity> capacity,
                                             Set<Arm> incorrect, List<RoundExclusion> exclusions, Reading how) {
            if (!arms.contains(Arm.BASELINE) || !arms.contains(Arm.HUMAN)) {
                return null;
            }
            List<ArmSamples> agents = new ArrayList<>();
            for (Arm a : arms) {
                if (a.kind() == Arm.Kind.AGENT) {
                    agents.add(samples(a, capacity, incorrect));
                }
            }
            ArmSamples aa = arms.contains(Arm.BASELINE_AA)
                    ? samples(Arm.BASELINE_AA, capacity, incorrect) : null;
            TaskAnalysis.Input input = TaskAnalysis.Input.of(metricName(axis.kind()), Better.HIGHER,
                    samples(Arm.BASELINE, capacity, incorrect), samples(Arm.HUMAN, capacity, incorrect))
                    .withBaselineAa(aa).withAgents(agents).withExclusions(exclusions);
            // capacity takes only the sweep's points: decided by the sign test over the paired rounds, look by look
            Map<String, Map<Integer, Double>> perRound = new LinkedHashMap<>();
            capacity.forEach((arm, c) -> perRound.put(arm, c.perRound()));
            return ordinalReplay(input, perRound, gridStep(axis.points()), how.design(), how.roundsRun(),
                    how.config());
        }

        /** The smallest ratio between neighbouring points of the grid (the sweep's resolution); +inf for one point. */
        static double gridStep(List<Double> points) {
            double step = Double.POSITIVE_INFINITY;
            for (int i = 1; i < points.size(); i++) {
                if (points.get(i - 1) > 0) {
                    step = Math.min(step, points.get(i) / points.get(i - 1));
                }
            }
            return step;
        }

        /** The arm's capacities by round as samples (capacities are kept by the arm's label). */
        private static ArmSamples samples(Arm arm, Map<String, Capacity> capacity, Set<Arm> incorrect) {
            Capacity c = capacity.get(arm.label());
            return ArmSamples.byRound(arm, new TreeMap<>(c != null ? c.perRound() : Map.of()), incorrect);
        }

        /** The run's curve metrics by name, with its good fraction ({@link CapacityRule#goodFraction}). */
        private static Map<String, Double> metricValues(RunRecord r) {
            Map<String, Double> m = new LinkedHashMap<>();
            for (Metric x : r.metrics()) {
                m.put(x.name(), x.value());
            }
            m.put("good_fraction", CapacityRule.goodFraction(m.get("request_goodput_rps"),
                    m.get("request_throughput_rps"), m.get("completed_requests"), m.get("failed_requests")));
            return m;
        }
    }
}
