package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.parse.MetricResolution;
import io.isobench.plan.JobRole;
import io.isobench.store.GateResult;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The statistics of one native session: per task, its primary metric's {@link TaskAnalysis} over the measured
 * rounds that count ({@link Rounds}: same work as the baseline's run of the round, no failed request, the task's
 * hardware), which arms failed the correctness gate, and each arm's failure outcomes counted by category. Computed
 * from the stored runs (derived and recomputable; one pass over the session's runs).
 */
public record SessionAnalysis(String sessionId, List<TaskResult> tasks, StatsConfig config) {

    /**
     * One task.
     *
     * @param taskId     the task
     * @param mode       its mode
     * @param commit     the human commit
     * @param arms       arm labels in plan order (baseline, human, agents)
     * @param analysis   statistics and verdicts of the primary metric; null when baseline or human has no arm rows
     * @param outcomes   per arm: failure category → runs (agent outcomes such as PATCH_FAILED, SERVER_CRASHED…)
     * @param incorrect  arms whose greedy outputs failed the gate
     * @param findings   per arm: patch-review findings (e.g. SUSPICIOUS_PATCH: touches benchmarks/)
     * @param runs       per arm: measured runs
     * @param correctness per arm: the correctness gate, accuracy hook and review verdict
     * @param hardware   the hardware fingerprint id the task's rounds are judged on (null when none was recorded)
     * @param calibration the tolerance calibration of the baseline's two checks (mismatch across server starts and
     *                   batch sizes, the floor it sets); empty when not measured
     * @param unit       the primary metric's unit (the dictionary's, or the one a generic engine's rule declared and
     *                   every run stored); null when unknown
     * @param secondary  server-metric and GPU-telemetry deltas and the TTFT cross-check over the rounds that count
     *                   for the primary metric (descriptive: never part of a verdict)
     * @param sweep      a sweep task's curves and capacities (its {@code analysis} is then the verdict on capacity);
     *                   null for every other task
     * @param resolution how finely the primary metric was measured, against the margin; null when no run recorded it
     */
    public record TaskResult(String taskId, String mode, String commit, List<String> arms, TaskAnalysis analysis,
                             Map<String, Map<String, Integer>> outcomes, Set<String> incorrect,
                             Map<String, List<String>> findings, Map<String, Integer> runs,
                             Map<String, ArmCorrectness> correctness, String hardware,
                             Map<String, Object> calibration, String unit, SecondaryMetrics secondary,
                             SweepAnalysis sweep, Resolution resolution) {

        public TaskResult {
            calibration = Collections.unmodifiableMap(new LinkedHashMap<>(calibration));
        }

        /**
         * A task known only by its analysis (no runs, outcomes or gates): what a simulated leaderboard counts
         * ({@link BoardSimulation}).
         */
        static TaskResult of(String taskId, String commit, String hardware, List<String> arms, TaskAnalysis analysis) {
            return new TaskResult(taskId, null, commit, arms, analysis, Map.of(), Set.of(), Map.of(), Map.of(),
                    Map.of(), hardware, Map.of(), null, SecondaryMetrics.NONE, null, null);
        }

        /** The arm's correctness record (empty when nothing was checked). */
        public ArmCorrectness correctness(String arm) {
            return correctness.getOrDefault(arm, ArmCorrectness.NONE);
        }
    }

    /**
     * What the gates said about one arm.
     *
     * @param outcome            greedy-output gate: REFERENCE (baseline), MATCH, OUTPUT_MISMATCH, PROBE_REJECTED,
     *                           NO_GREEDY_SUPPORT, OFFLINE_PROBE_FAILED, NO_REFERENCE, CHECK_FAILED; null: unchecked
     * @param reason             one line: why
     * @param exactMatchVsBaseline exact-match rate of the greedy probes vs the baseline's (0..1); null when not compared
     * @param exactMatchVsHuman  the same vs the human arm's
     * @param firstDivergenceChar smallest character offset where a probe differs from the baseline's
     * @param accuracyOutcome    accuracy hook: REFERENCE, OK, ACCURACY_REGRESSION, ACCURACY_FAILED, NO_REFERENCE; null
     *                           when the task has none
     * @param accuracyScore      the arm's accuracy_score
     * @param accuracyReason     one line
     * @param reviewFailing      review findings the suite marks as failing the arm
     * @param gateFailures       why the arm is {@code incorrect} (empty when it is not)
     * @param rule               which rule decided a passing gate: {@code baseline} (matches the baseline),
     *                           {@code human} (matches the human, whose commit changes outputs), {@code logprob_drift};
     *                           null when not recorded
     */
    public record ArmCorrectness(String outcome, String reason, Double exactMatchVsBaseline, Double exactMatchVsHuman,
                                 Double firstDivergenceChar, String accuracyOutcome, Double accuracyScore,
                                 String accuracyReason, List<String> reviewFailing, List<String> gateFailures,
                                 String rule) {
        public static final ArmCorrectness NONE = new ArmCorrectness(null, null, null, null, null, null, null, null,
                List.of(), List.of(), null);

        /** Short label for tables: the gate outcome, with the accuracy outcome when it is not OK. */
        public String label() {
            String o = outcome == null ? "unchecked" : outcome;
            if (accuracyOutcome != null && !accuracyOutcome.equals("OK") && !accuracyOutcome.equals("REFERENCE")) {
                o += ", " + accuracyOutcome;
            }
            if (!reviewFailing.isEmpty()) {
                o += ", SUSPICIOUS_PATCH (fails the arm)";
            }
            return o;
        }
    }

    /** Mutable collector for {@link ArmCorrectness}. */
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

        ArmCorrectness done(List<String> gateFailures) {
            return new ArmCorrectness(outcome, reason, emB, emH, div, accOutcome, accScore, accReason,
                    List.copyOf(reviewFailing), List.copyOf(gateFailures), rule);
        }
    }

    /** Probe outcomes that say the arm's server answered, but not with usable greedy outputs. */
    private static final Set<String> PROBE_FAILURES = Set.of("PROBE_REJECTED", "NO_GREEDY_SUPPORT",
            "OFFLINE_PROBE_FAILED");


    public static SessionAnalysis of(Store store, String sessionId, StatsConfig config) {
        return of(store, sessionId, config, Integer.MAX_VALUE);
    }

    /**
     * The session read as if it had run at most {@code roundsCap} rounds per task: what a running adaptive session
     * looks at before its next round (later rounds of an earlier attempt are not seen by that look).
     */
    public static SessionAnalysis of(Store store, String sessionId, StatsConfig config, int roundsCap) {
        // the clock rule the session was run with (run.exclude_on_clock_mismatch, …), stored with it
        ClockRule clockRule = store.session(sessionId).map(s -> ClockRule.ofSettings(s.statsConfigJson()))
                .orElse(ClockRule.defaults());
        // the rounds design the session ran with (adaptive looks and their levels), stored with it; none: fixed rounds
        SequentialDesign design = store.session(sessionId).map(s -> SequentialDesign.ofSettings(s.statsConfigJson()))
                .orElse(null);
        Map<String, List<Parsed>> byTask = new LinkedHashMap<>();
        // with metrics: the secondary metrics (server /metrics, GPU telemetry) and a sweep's curves are run metrics
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.MEASURED)).inSession(sessionId)
                .loadingMetrics(), r -> {
            RunDetails x = r.details();
            if (x.hasTask()) {
                byTask.computeIfAbsent(x.task(), k -> new ArrayList<>())
                        .add(new Parsed(r, x, x.jobIndex(Integer.MAX_VALUE), JobRole.ofStored(x.role(),
                                r.pipeline() == null ? null : r.pipeline().label(), x.job()).orElse(null)));
            }
        });
        List<TaskResult> out = new ArrayList<>();
        for (Map.Entry<String, List<Parsed>> e : byTask.entrySet()) {
            out.add(task(e.getKey(), e.getValue(), config, new Reading(clockRule, design, roundsCap)));
        }
        out.sort(Comparator.comparingInt(t -> firstIndex(byTask.get(t.taskId()))));
        return new SessionAnalysis(sessionId, out, config);
    }

    /** How a session's runs are read: its clock rule and its rounds design (null: fixed, every round run). */
    private record Reading(ClockRule clockRule, SequentialDesign design, int roundsCap) {
    }

    /** A run with its details, its index in the plan and its role (null: none, e.g. an imported pipeline). */
    private record Parsed(RunRecord run, RunDetails extra, int jobIndex, JobRole role) {
    }

    private static int firstIndex(List<Parsed> runs) {
        return runs.stream().mapToInt(Parsed::jobIndex).min().orElse(0);
    }

    private static TaskResult task(String taskId, List<Parsed> runs, StatsConfig config, Reading reading) {
        ClockRule clockRule = reading.clockRule();
        runs.sort(Comparator.comparingInt(Parsed::jobIndex));
        int roundsRun = 0;
        MetricResolution coarsest = null; // the primary metric's coarsest recorded resolution
        List<String> arms = new ArrayList<>();
        Map<String, Arm> armOf = new LinkedHashMap<>(); // each label's arm: compared by kind, never by text
        Rounds rounds = new Rounds(clockRule);
        Map<String, TreeMap<Integer, RunRecord>> byRound = new LinkedHashMap<>(); // what the secondary metrics read
        SweepAnalysis.Collector sweep = new SweepAnalysis.Collector(clockRule);
        Map<String, Map<String, Integer>> outcomes = new LinkedHashMap<>();
        Map<String, List<String>> findings = new LinkedHashMap<>();
        Map<String, Integer> measured = new LinkedHashMap<>();
        Set<String> incorrect = new LinkedHashSet<>();
        Map<String, Gate> gates = new LinkedHashMap<>();
        Map<String, Object> calibration = null;
        String mode = null;
        String commit = null;
        String metric = null;
        MetricDictionary.Definition declared = null; // a generic engine's primary metric: unit and direction as declared
        List<RunRecord> pilotRuns = new ArrayList<>();
        for (Parsed p : runs) {
            RunRecord r = p.run();
            JobRole role = p.role();
            if (role == JobRole.PILOT) {
                pilotRuns.add(r); // sweep: auto's pilots chose the points: shown, never measured or counted
                continue;
            }
            String arm = r.arm().label();
            if (!arms.contains(arm)) {
                arms.add(arm);
                armOf.put(arm, r.arm());
            }
            mode = mode == null && r.mode() != null ? r.mode().label() : mode;
            commit = commit == null ? r.commit() : commit;
            RunDetails x = p.extra();
            for (String f : x.reviewFindings()) {
                List<String> l = findings.computeIfAbsent(arm, k -> new ArrayList<>());
                if (!l.contains(f)) {
                    l.add(f);
                }
            }
            if (r.status() == RunRecord.RunStatus.NOT_RUN) {
                continue; // interrupted, not finished
            }
            for (String f : x.reviewFailing()) {
                Gate g = gates.computeIfAbsent(arm, k -> new Gate());
                if (!g.reviewFailing.contains(f)) {
                    g.reviewFailing.add(f);
                }
            }
            if (role == JobRole.CHECK_REPEAT) {
                // the baseline's second check: it calibrates the tolerance, it is not the baseline's gate
                calibration = calibrationOf(x, r, calibration);
                continue;
            }
            if (role == JobRole.CHECK) {
                Gate g = gates.computeIfAbsent(arm, k -> new Gate());
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
                    g.div = c.rates().firstDivergenceVsBaseline() != null ? c.rates().firstDivergenceVsBaseline()
                            : g.div;
                }
                if (c != null && c.calibration() != null && r.arm().equals(Arm.BASELINE)) {
                    calibration = calibrationOf(x, r, calibration);
                }
            } else if (role == JobRole.ACCURACY) {
                Gate g = gates.computeIfAbsent(arm, k -> new Gate());
                RunDetails.AccuracyResult a = x.accuracy();
                g.accOutcome = a == null ? null : a.outcome();
                g.accReason = a == null ? null : a.reason();
                g.accScore = a == null ? null : a.score();
            }
            if (r.failure() != null) {
                if ("OUTPUT_MISMATCH".equals(r.failure().category())) {
                    incorrect.add(arm);
                }
                outcomes.computeIfAbsent(arm, k -> new TreeMap<>()).merge(r.failure().category(), 1, Integer::sum);
            }
            if (role != JobRole.MEASURE) {
                continue;
            }
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
                continue;
            }
            rounds.add(r);
            MetricResolution res = r.status() == RunRecord.RunStatus.SUCCESS
                    ? r.primaryResolution() : null;
            if (res != null && (coarsest == null || res.resolution() > coarsest.resolution())) {
                coarsest = res;
            }
            if (r.status() == RunRecord.RunStatus.SUCCESS && r.primaryValue() != null) {
                byRound.computeIfAbsent(arm, k -> new TreeMap<>()).put(r.round(), r);
            }
        }
        if (metric == null && mode != null) {
            metric = Mode.fromLabel(mode).map(MetricDictionary::primaryMetric).orElse(null);
        }
        roundsRun = Math.min(roundsRun, reading.roundsCap());
        // baseline, its A/A twin, human, then the agents in plan order
        arms.sort(Comparator.comparingInt(a -> switch (armOf.get(a).kind()) {
            case BASELINE -> 0;
            case BASELINE_AA -> 1;
            case HUMAN -> 2;
            default -> 3;
        }));
        Gate base = gates.getOrDefault(Arm.BASELINE.label(), new Gate());
        Map<String, ArmCorrectness> correctness = new LinkedHashMap<>();
        for (String a : arms) {
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
            correctness.put(a, g.done(why));
        }
        TaskAnalysis analysis = null;
        SecondaryMetrics secondary = SecondaryMetrics.NONE;
        Rounds.Valid valid = rounds.valid();
        MetricDictionary.Definition known = metric == null ? null : MetricDictionary.lookup(metric);
        Better better = known != null ? known.better() : declared != null ? declared.better() : Better.NONE;
        if (metric != null && better != Better.NONE && armOf.containsValue(Arm.BASELINE)
                && armOf.containsValue(Arm.HUMAN)) {
            List<ArmSamples> agents = new ArrayList<>();
            for (String a : arms) {
                if (armOf.get(a).kind() == Arm.Kind.AGENT) {
                    agents.add(valid.samples(a, incorrect));
                }
            }
            ArmSamples aa = armOf.containsValue(Arm.BASELINE_AA)
                    ? valid.samples(Arm.BASELINE_AA.label(), incorrect) : null;
            SequentialDesign design = reading.design() != null ? reading.design() : SequentialDesign.fixed(
                    Math.max(1, roundsRun));
            analysis = TaskAnalysis.analyse(new TaskAnalysis.Input(metric, better,
                    valid.samples(Arm.BASELINE.label(), incorrect), aa, valid.samples(Arm.HUMAN.label(), incorrect),
                    agents, valid.exclusions()), design, roundsRun, config);
            int upTo = analysis.stopping().lookRounds(); // the rounds the verdicts read: the secondary metrics' too
            secondary = SecondaryMetrics.of(counted(arms, valid, byRound, upTo), valid.exclusions().stream()
                    .filter(e -> e.round() < upTo).toList(), config);
        }
        PilotTable.of(pilotRuns).ifPresent(sweep::pilots);
        SweepAnalysis swept = sweep.isEmpty() ? null : sweep.analyse(arms, incorrect, config,
                reading.design() != null ? reading.design() : SequentialDesign.fixed(Math.max(1, roundsRun)),
                roundsRun);
        String unit = known != null ? known.unit() : declared != null ? declared.unit() : null;
        if (swept != null) {
            analysis = swept.verdicts();
            unit = swept.axis().unit();
        }
        Resolution resolution = coarsest == null || analysis == null ? null : Resolution.of(metric, coarsest
                .resolution(), coarsest.source(), analysis.summaries().containsKey(Arm.BASELINE.label())
                ? analysis.summaries().get(Arm.BASELINE.label()).median() : null, config);
        return new TaskResult(taskId, mode, commit, arms, analysis, outcomes, incorrect, findings, measured,
                correctness, valid.hardware(), calibration == null ? Map.of() : calibration, unit, secondary, swept,
                resolution);
    }

    /** Per arm (plan order) the runs whose primary value counts, by round: the rounds the verdict uses. */
    private static Map<String, TreeMap<Integer, RunRecord>> counted(List<String> arms, Rounds.Valid valid,
                                                                    Map<String, TreeMap<Integer, RunRecord>> byRound,
                                                                    int upTo) {
        Map<String, TreeMap<Integer, RunRecord>> out = new LinkedHashMap<>();
        for (String a : arms) {
            TreeMap<Integer, RunRecord> runs = new TreeMap<>();
            for (Integer round : valid.values().getOrDefault(a, new TreeMap<>()).headMap(upTo).keySet()) {
                runs.put(round, byRound.get(a).get(round));
            }
            out.put(a, runs);
        }
        return out;
    }

    /** The tolerance calibration a baseline check recorded (its {@code correctness.calibration}), merged. */
    private static Map<String, Object> calibrationOf(RunDetails extra, RunRecord r, Map<String, Object> sofar) {
        Map<String, Object> out = sofar == null ? new LinkedHashMap<>() : sofar;
        GateResult c = extra.gate();
        if (c != null && c.calibration() != null) {
            out.putAll(c.calibration());
        }
        if (r.failure() != null) {
            out.put("repeat_check_failure", r.failure().category() + ": " + r.failure().detail());
        }
        return out;
    }
}
