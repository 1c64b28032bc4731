package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import io.isobench.parse.MetricResolution;
import io.isobench.plan.JobRole;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
     * @param armOrder   the arms in plan order (baseline, its A/A twin, human, agents): typed, compared by kind; the
     *                   maps below are keyed by them (a writer prints {@link Arm#label()})
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
    public record TaskResult(String taskId, String mode, String commit, List<Arm> armOrder, TaskAnalysis analysis,
                             Map<Arm, Map<String, Integer>> outcomes, Set<Arm> incorrect,
                             Map<Arm, List<String>> findings, Map<Arm, Integer> runs,
                             Map<Arm, ArmCorrectness> correctness, String hardware,
                             Map<String, Object> calibration, String unit, SecondaryMetrics secondary,
                             SweepAnalysis sweep, Resolution resolution) {

        public TaskResult {
            armOrder = List.copyOf(armOrder);
            calibration = Collections.unmodifiableMap(new LinkedHashMap<>(calibration));
        }

        /** The agent arms in plan order. */
        public List<Arm> agentArms() {
            return armOrder.stream().filter(a -> a.kind() == Arm.Kind.AGENT).toList();
        }

        /**
         * A task known only by its analysis (no runs, outcomes or gates): what a simulated leaderboard counts
         * ({@link BoardSimulation}).
         */
        static TaskResult of(String taskId, String commit, String hardware, List<Arm> arms, TaskAnalysis analysis) {
            return new TaskResult(taskId, null, commit, arms, analysis, Map.of(), Set.of(), Map.of(), Map.of(),
                    Map.of(), hardware, Map.of(), null, SecondaryMetrics.NONE, null, null);
        }

        /** The arm's correctness record (empty when nothing was checked). */
        public ArmCorrectness correctness(Arm arm) {
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
        Map<String, List<TaskRuns.Run>> byTask = new LinkedHashMap<>();
        // with metrics: the secondary metrics (server /metrics, GPU telemetry) and a sweep's curves are run metrics
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.MEASURED)).inSession(sessionId)
                .loadingMetrics(), r -> {
            RunDetails x = r.details();
            if (x.hasTask()) {
                // the role stored with the run; a run recorded before roles were stored: JobRole's one old rule
                byTask.computeIfAbsent(x.task(), k -> new ArrayList<>())
                        .add(new TaskRuns.Run(r, x, x.jobIndex(Integer.MAX_VALUE), JobRole.ofStored(x.role(),
                                r.pipeline() == null ? null : r.pipeline().label(), x.job()).orElse(null)));
            }
        });
        Reading reading = new Reading(clockRule, design, roundsCap);
        List<TaskResult> out = new ArrayList<>();
        for (Map.Entry<String, List<TaskRuns.Run>> e : byTask.entrySet()) {
            out.add(task(e.getKey(), TaskRuns.of(e.getValue(), clockRule, roundsCap), config, reading));
        }
        out.sort(Comparator.comparingInt(t -> firstIndex(byTask.get(t.taskId()))));
        return new SessionAnalysis(sessionId, out, config);
    }

    /** How a session's runs are read: its clock rule and its rounds design (null: fixed, every round run). */
    private record Reading(ClockRule clockRule, SequentialDesign design, int roundsCap) {

        /** The design the verdicts read: the session's, else fixed at the rounds run. */
        SequentialDesign designFor(int roundsRun) {
            return design != null ? design : SequentialDesign.fixed(Math.max(1, roundsRun));
        }
    }

    private static int firstIndex(List<TaskRuns.Run> runs) {
        return runs.stream().mapToInt(TaskRuns.Run::jobIndex).min().orElse(0);
    }

    /**
     * One task's result from its runs grouped by arm: the gates' verdicts per arm, the primary metric's comparisons
     * (or a sweep's capacities), the secondary metrics over the same rounds, and the metric's resolution.
     */
    private static TaskResult task(String taskId, TaskRuns runs, StatsConfig config, Reading reading) {
        Map<Arm, ArmCorrectness> correctness = runs.correctness(); // first: it adds the arms the gates fail
        Rounds.Valid valid = runs.rounds.valid();
        TaskAnalysis analysis = null;
        SecondaryMetrics secondary = SecondaryMetrics.NONE;
        if (runs.metric != null && runs.better() != Better.NONE && runs.hasBaselineAndHuman()) {
            analysis = comparisons(runs, valid, config, reading.designFor(runs.roundsRun));
            int upTo = analysis.stopping().lookRounds(); // the rounds the verdicts read: the secondary metrics' too
            secondary = SecondaryMetrics.of(counted(runs.arms, valid, runs.byRound, upTo), valid.exclusions()
                    .stream().filter(e -> e.round() < upTo).toList(), config);
        }
        PilotTable.of(runs.pilotRuns).ifPresent(runs.sweep::pilots);
        SweepAnalysis swept = runs.sweep.isEmpty() ? null : runs.sweep.analyse(runs.arms, runs.incorrect, config,
                reading.designFor(runs.roundsRun), runs.roundsRun);
        MetricDictionary.Definition definition = runs.definition();
        String unit = definition != null ? definition.unit() : null;
        if (swept != null) {
            analysis = swept.verdicts();
            unit = swept.axis().unit();
        }
        MetricResolution coarsest = runs.coarsest;
        Resolution resolution = coarsest == null || analysis == null ? null : Resolution.of(runs.metric, coarsest
                .resolution(), coarsest.source(), analysis.summaries().containsKey(Arm.BASELINE)
                ? analysis.summaries().get(Arm.BASELINE).median() : null, config);
        return new TaskResult(taskId, runs.mode, runs.commit, runs.arms, analysis, runs.outcomes, runs.incorrect,
                runs.findings, runs.measured, correctness, valid.hardware(), runs.calibration == null ? Map.of()
                : runs.calibration, unit, secondary, swept, resolution);
    }

    /** The primary metric's comparisons: baseline, its A/A twin, human and every agent arm over the valid rounds. */
    private static TaskAnalysis comparisons(TaskRuns runs, Rounds.Valid valid, StatsConfig config,
                                            SequentialDesign design) {
        Set<Arm> incorrect = runs.incorrect;
        List<ArmSamples> agents = new ArrayList<>();
        for (Arm a : runs.arms) {
            if (a.kind() == Arm.Kind.AGENT) {
                agents.add(valid.samples(a, incorrect));
            }
        }
        ArmSamples aa = runs.arms.contains(Arm.BASELINE_AA) ? valid.samples(Arm.BASELINE_AA, incorrect) : null;
        return TaskAnalysis.analyse(TaskAnalysis.Input.of(runs.metric, runs.better(),
                valid.samples(Arm.BASELINE, incorrect), valid.samples(Arm.HUMAN, incorrect))
                .withBaselineAa(aa).withAgents(agents).withExclusions(valid.exclusions()), design, runs.roundsRun,
                config);
    }

    /** Per arm (plan order) the runs whose primary value counts, by round: the rounds the verdict uses. */
    private static Map<Arm, TreeMap<Integer, RunRecord>> counted(List<Arm> arms, Rounds.Valid valid,
                                                                 Map<Arm, TreeMap<Integer, RunRecord>> byRound,
                                                                 int upTo) {
        Map<Arm, TreeMap<Integer, RunRecord>> out = new LinkedHashMap<>();
        for (Arm a : arms) {
            TreeMap<Integer, RunRecord> runs = new TreeMap<>();
            for (Integer round : valid.values().getOrDefault(a.label(), new TreeMap<>()).headMap(upTo).keySet()) {
                runs.put(round, byRound.get(a).get(round));
            }
            out.put(a, runs);
        }
        return out;
    }
}
