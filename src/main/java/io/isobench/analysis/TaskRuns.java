package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.parse.MetricResolution;
import io.isobench.plan.JobRole;
import io.isobench.store.GateResult;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One task's runs of a native session, read once in plan order and grouped by arm: each run does what its stored
 * {@link JobRole} says (a pilot is shown, a check or accuracy run feeds the arm's gate, the baseline's repeat check
 * calibrates the tolerance, a measured round is a sample or a sweep point), and every failure counts as an outcome of
 * its arm. Arms are the runs' typed {@link Arm}s (compared by kind, never by their label's text), and so are the keys
 * of the maps it hands out ({@link SessionAnalysis.TaskResult}).
 */
final class TaskRuns {

    /** A run with its details, its index in the plan and its stored role (null: none, e.g. an imported pipeline). */
    record Run(RunRecord run, RunDetails details, int jobIndex, JobRole role) {
    }

    /** Probe outcomes that say the arm's server answered, but not with usable greedy outputs. */
    private static final Set<String> PROBE_FAILURES = Set.of("PROBE_REJECTED", "NO_GREEDY_SUPPORT",
            "OFFLINE_PROBE_FAILED");

    /** Mutable collector for {@link SessionAnalysis.ArmCorrectness}. */
    private static final class Gate {
        String outcome;
        String reason;
        Double emB;
        Double emH;
        Double div;
        String accOutcome;
        Double accScore;
        String accReason;
        String rule;
        final List<String> reviewFailing = new ArrayList<>();

        SessionAnalysis.ArmCorrectness done(List<String> gateFailures) {
            return new SessionAnalysis.ArmCorrectness(outcome, reason, emB, emH, div, accOutcome, accScore, accReason,
                    List.copyOf(reviewFailing), List.copyOf(gateFailures), rule);
        }
    }

    final List<Arm> arms = new ArrayList<>();
    final Rounds rounds;
    final Map<Arm, TreeMap<Integer, RunRecord>> byRound = new LinkedHashMap<>(); // what the secondary metrics read
    final SweepAnalysis.Collector sweep;
    final Map<Arm, Map<String, Integer>> outcomes = new LinkedHashMap<>();
    final Map<Arm, List<String>> findings = new LinkedHashMap<>();
    final Map<Arm, Integer> measured = new LinkedHashMap<>();
    final Set<Arm> incorrect = new LinkedHashSet<>();
    final List<RunRecord> pilotRuns = new ArrayList<>();
    private final Map<Arm, Gate> gates = new LinkedHashMap<>();
    Map<String, Object> calibration;
    String mode;
    String commit;
    String metric;
    int roundsRun;
    MetricResolution coarsest; // the primary metric's coarsest recorded resolution
    private MetricDictionary.Definition declared; // a generic engine's primary metric: unit and direction as declared

    private TaskRuns(ClockRule clockRule) {
        this.rounds = new Rounds(clockRule);
        this.sweep = new SweepAnalysis.Collector(clockRule);
    }

    /**
     * The task's runs read in plan order; arms in the order baseline, its A/A twin, human, then the agents in plan
     * order; rounds counted up to {@code roundsCap}.
     */
    static TaskRuns of(List<Run> runs, ClockRule clockRule, int roundsCap) {
        TaskRuns t = new TaskRuns(clockRule);
        runs.sort(Comparator.comparingInt(Run::jobIndex));
        for (Run r : runs) {
            t.add(r);
        }
        if (t.metric == null && t.mode != null) {
            t.metric = Mode.fromLabel(t.mode).map(MetricDictionary::primaryMetric).orElse(null);
        }
        t.roundsRun = Math.min(t.roundsRun, roundsCap);
        t.arms.sort(Comparator.comparingInt(a -> switch (a.kind()) {
            case BASELINE -> 0;
            case BASELINE_AA -> 1;
            case HUMAN -> 2;
            default -> 3;
        }));
        return t;
    }

    /** True when the task has runs of both the baseline and the human arm: what a comparison needs. */
    boolean hasBaselineAndHuman() {
        return arms.contains(Arm.BASELINE) && arms.contains(Arm.HUMAN);
    }

    /** The primary metric's definition: the dictionary's, else the one a generic engine's rule declared; or null. */
    MetricDictionary.Definition definition() {
        MetricDictionary.Definition known = metric == null ? null : MetricDictionary.lookup(metric);
        return known != null ? known : declared;
    }

    /** The direction of the primary metric ({@link Better#NONE} when unknown). */
    Better better() {
        MetricDictionary.Definition d = definition();
        return d == null ? Better.NONE : d.better();
    }

    private void add(Run p) {
        RunRecord r = p.run();
        JobRole role = p.role();
        if (role == JobRole.PILOT) {
            pilotRuns.add(r); // sweep: auto's pilots chose the points: shown, never measured or counted
            return;
        }
        Arm armOf = r.arm();
        if (!arms.contains(armOf)) {
            arms.add(armOf);
        }
        mode = mode == null && r.mode() != null ? r.mode().label() : mode;
        commit = commit == null ? r.commit() : commit;
        RunDetails x = p.details();
        for (String f : x.reviewFindings()) {
            List<String> l = findings.computeIfAbsent(armOf, k -> new ArrayList<>());
            if (!l.contains(f)) {
                l.add(f);
            }
        }
        if (r.status() == RunRecord.RunStatus.NOT_RUN) {
            return; // interrupted, not finished
        }
        for (String f : x.reviewFailing()) {
            Gate g = gates.computeIfAbsent(armOf, k -> new Gate());
            if (!g.reviewFailing.contains(f)) {
                g.reviewFailing.add(f);
            }
        }
        if (role == JobRole.CHECK_REPEAT) {
            // the baseline's second check: it calibrates the tolerance, it is not the baseline's gate
            calibrate(x, r);
            return;
        }
        if (role == JobRole.CHECK) {
            check(gates.computeIfAbsent(armOf, k -> new Gate()), x, r);
        } else if (role == JobRole.ACCURACY) {
            Gate g = gates.computeIfAbsent(armOf, k -> new Gate());
            RunDetails.AccuracyResult a = x.accuracy();
            g.accOutcome = a == null ? null : a.outcome();
            g.accReason = a == null ? null : a.reason();
            g.accScore = a == null ? null : a.score();
        }
        if (r.failure() != null) {
            if ("OUTPUT_MISMATCH".equals(r.failure().category())) {
                incorrect.add(armOf);
            }
            outcomes.computeIfAbsent(armOf, k -> new TreeMap<>()).merge(r.failure().category(), 1, Integer::sum);
        }
        if (role == JobRole.MEASURE) {
            measure(r, x, armOf);
        }
    }

    /** An arm's correctness check: its gate's outcome and rates; the baseline's calibrates the tolerance. */
    private void check(Gate g, RunDetails x, RunRecord r) {
        GateResult c = x.gate();
        if (c != null && c.outcome() != null) {
            g.outcome = c.outcome();
            g.reason = c.why().reason();
            g.rule = c.why().rule();
        } else if (r.failure() != null) {
            g.outcome = "OUTPUT_MISMATCH".equals(r.failure().category()) ? "OUTPUT_MISMATCH" : "CHECK_FAILED";
            g.reason = r.failure().detail();
        } else if (c != null) {
            g.outcome = "MATCH";
        }
        if (c != null) {
            g.emB = c.rates().exactMatchVsBaseline() != null ? c.rates().exactMatchVsBaseline() : g.emB;
            g.emH = c.rates().exactMatchVsHuman() != null ? c.rates().exactMatchVsHuman() : g.emH;
            g.div = c.rates().firstDivergenceVsBaseline() != null ? c.rates().firstDivergenceVsBaseline() : g.div;
        }
        if (c != null && c.calibration() != null && r.arm().equals(Arm.BASELINE)) {
            calibrate(x, r);
        }
    }

    /** A measured round: a sample of its arm (or a sweep's load point), its metric and resolution. */
    private void measure(RunRecord r, RunDetails x, Arm arm) {
        measured.merge(arm, 1, Integer::sum);
        roundsRun = Math.max(roundsRun, r.round() + 1);
        if (r.primaryMetric() != null) {
            metric = r.primaryMetric();
            RunDetails.PrimaryDefinition pd = x.primaryDefinition();
            if (pd != null && pd.name().equals(metric)) {
                declared = new MetricDictionary.Definition(metric, pd.unit(),
                        "higher".equals(pd.better()) ? Better.HIGHER : Better.LOWER);
            }
        }
        if (x.sweepPoint() != null) {
            sweep.add(r, x.sweepPoint()); // a load point of a sweep: judged by capacity, not the primary metric
            return;
        }
        rounds.add(r);
        MetricResolution res = r.status() == RunRecord.RunStatus.SUCCESS ? r.primaryResolution() : null;
        if (res != null && (coarsest == null || res.resolution() > coarsest.resolution())) {
            coarsest = res;
        }
        if (r.status() == RunRecord.RunStatus.SUCCESS && r.primaryValue() != null) {
            byRound.computeIfAbsent(arm, k -> new TreeMap<>()).put(r.round(), r);
        }
    }

    /** The tolerance calibration a baseline check recorded (its {@code correctness.calibration}), merged. */
    private void calibrate(RunDetails extra, RunRecord r) {
        Map<String, Object> out = calibration == null ? new LinkedHashMap<>() : calibration;
        GateResult c = extra.gate();
        if (c != null && c.calibration() != null) {
            out.putAll(c.calibration());
        }
        if (r.failure() != null) {
            out.put("repeat_check_failure", r.failure().category() + ": " + r.failure().detail());
        }
        calibration = out;
    }

    /**
     * Per arm (in order) what the gates said, and why a failing arm is incorrect (added to {@link #incorrect}): an
     * output mismatch, a probe failure where the baseline answered the same probes, an accuracy regression, an
     * accuracy command that failed where the baseline's succeeded, review findings that fail the arm.
     */
    Map<Arm, SessionAnalysis.ArmCorrectness> correctness() {
        Gate base = gates.getOrDefault(Arm.BASELINE, new Gate());
        Map<Arm, SessionAnalysis.ArmCorrectness> out = new LinkedHashMap<>();
        for (Arm a : arms) {
            Gate g = gates.get(a);
            if (g == null) {
                continue;
            }
            List<String> why = new ArrayList<>();
            if ("OUTPUT_MISMATCH".equals(g.outcome)) {
                why.add("OUTPUT_MISMATCH: " + g.reason);
            } else if (g.outcome != null && PROBE_FAILURES.contains(g.outcome) && "REFERENCE".equals(base.outcome)) {
                why.add(g.outcome + ": " + g.reason + " (the baseline answered the same probes)");
            }
            if ("ACCURACY_REGRESSION".equals(g.accOutcome)) {
                why.add("ACCURACY_REGRESSION: " + g.accReason);
            } else if ("ACCURACY_FAILED".equals(g.accOutcome) && "REFERENCE".equals(base.accOutcome)) {
                why.add(g.accReason + " (the baseline's accuracy command succeeded)");
            }
            for (String f : g.reviewFailing) {
                why.add("SUSPICIOUS_PATCH (fails the arm): " + f);
            }
            if (!why.isEmpty()) {
                incorrect.add(a);
            }
            out.put(a, g.done(why));
        }
        return out;
    }
}
