package io.isobench.report;

import io.isobench.Arm;
import io.isobench.parse.Metric;
import io.isobench.probe.Divergence;
import io.isobench.store.Pipeline;
import io.isobench.analysis.AgentAttempts;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.isobench.report.Html.nz;

/**
 * A native task of the report model: its session, the analysis, and what a task page shows beyond the statistics
 * ({@link TaskExtra}), with the name of its page.
 */
record NativeTask(SessionRecord session, SessionAnalysis.TaskResult result, TaskExtra extra, String page) {

    /** Metrics kept per task (the primary one first, with statistics; the others descriptive). */
    static final int MAX_METRICS = 24;

    /** A failed run of a native task ({@code logArtifact}: its full log in the store, or null). */
    record RunFailure(String arm, int round, String category, String detail, String evidence, boolean retryable,
                      String logArtifact) {
    }

    /** Per task: samples per arm in round order, failures, fingerprint, environment and provenance. */
    static final class TaskExtra {
        final Map<String, TreeMap<Integer, Double>> samples = new LinkedHashMap<>();
        /** Every metric of the successful native rounds: metric → arm → round → value. */
        final Map<String, Map<String, TreeMap<Integer, Double>>> metrics = new TreeMap<>();
        final Map<String, Metric> metricInfo = new LinkedHashMap<>();
        final List<RunFailure> failures = new ArrayList<>();
        final Map<String, String> env = new LinkedHashMap<>();
        final Map<String, String> argv = new LinkedHashMap<>();
        final Map<String, String> patch = new LinkedHashMap<>();
        /** Per arm label: the stored attempt its runs measured ({@link AgentAttempts#attemptRunOf}), when recorded. */
        final Map<String, String> attemptRun = new LinkedHashMap<>();
        final Set<String> workloads = new LinkedHashSet<>();
        String intended;
        String verified;
        Instant first;
        Instant last;
        /** The baseline's check outputs (its gate outcome REFERENCE), or null. */
        List<String> reference;
        /** Per arm: the outputs of its check that failed with OUTPUT_MISMATCH. */
        final Map<String, List<String>> mismatched = new LinkedHashMap<>();
        /** Stored evidence of an output mismatch → the divergence shown instead ({@link Divergence}). */
        final Map<String, String> divergences = new LinkedHashMap<>();
        /** What the correctness check ran ({@code correctness.thresholds} of a check run), or null. */
        CheckSettings check;
        /** The primary metric the task's runs declare (a generic engine's rules), or null. */
        RunDetails.PrimaryDefinition declared;
        /** Per run whose client measured it: the load's fidelity ({@link FidelitySection}). */
        final List<FidelitySection.RunFidelity> fidelity = new ArrayList<>();
    }

    /**
     * What a task's correctness check compared, as its check runs record it ({@code correctness.thresholds}).
     *
     * @param probe     {@code command} (the task's own command, its stdout), {@code offline} or {@code server}
     *                  (greedy probes: temperature 0)
     * @param prompts   probe prompts (greedy probes only)
     * @param maxTokens tokens per probe (greedy probes only)
     */
    record CheckSettings(String probe, int prompts, int maxTokens) {

        /** Whether the check decoded greedily (temperature 0): its own probes, not the task's command. */
        boolean greedy() {
            return !"command".equals(probe);
        }

        /** What was compared, for a reader: {@code the command's outputs (stdout, …)} or the greedy probes. */
        String describe() {
            return greedy() ? "greedy outputs (temperature 0) of " + prompts + " probe prompt(s), up to " + maxTokens
                    + " tokens each, through the arm's " + ("offline".equals(probe) ? "offline command" : "server")
                    : "the outputs of the task's own command (its stdout, one run per arm, sampled as the command's "
                    + "own settings say: not greedy decoding)";
        }

        /** A stored reason in this check's words: "greedy outputs" where the check compared command outputs. */
        String reword(String reason) {
            return reason == null || greedy() ? reason : reason.replace("greedy outputs", "command outputs");
        }
    }

    /** How this task's primary metric is shown: a declared metric's mode is "offline command", not a vLLM mode. */
    String modeShown() {
        return extra.declared != null && "throughput".equals(result.mode()) ? "offline command" : result.mode();
    }

    /** The primary metric with its unit: {@code command_cpu_s (s)}; the bare name when no unit is known. */
    String metricShown() {
        String metric = result.analysis() == null ? extra.declared == null ? null : extra.declared.name()
                : result.analysis().metric();
        String unit = result.unit() != null ? result.unit() : extra.declared == null ? null : extra.declared.unit();
        return metric == null ? "—" : unit == null || unit.isBlank() ? metric : metric + " (" + unit + ")";
    }

    /**
     * The tasks of one analysed session ({@code sIndex}: its 1-based place among the store's sessions, for the page
     * names), with one pass over its measured runs; the log artifacts of its failed runs go to {@code failedLogs}.
     */
    static List<NativeTask> collect(Store store, SessionRecord s, SessionAnalysis a, int sIndex,
                                    Set<String> failedLogs) {
        List<NativeTask> out = new ArrayList<>();
        Map<String, String> metricOf = new LinkedHashMap<>();
        Map<String, TaskExtra> extras = new LinkedHashMap<>();
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            metricOf.put(t.taskId(), t.analysis() == null ? null : t.analysis().metric());
            extras.put(t.taskId(), new TaskExtra());
        }
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.MEASURED)).inSession(a.sessionId())
                .loadingMetrics(), r -> {
            RunDetails x = r.details();
            TaskExtra e = extras.get(x.task() == null ? "" : x.task());
            if (e == null) {
                return;
            }
            add(r, x, e, metricOf.get(x.task()));
            if (r.failure() != null && r.logArtifact() != null) {
                failedLogs.add(r.logArtifact());
            }
        });
        extras.values().forEach(NativeTask::divergences);
        int tIndex = 0;
        for (SessionAnalysis.TaskResult t : a.tasks()) {
            tIndex++;
            out.add(new NativeTask(s, t, extras.get(t.taskId()), "task-" + sIndex + "-" + tIndex + ".html"));
        }
        return out;
    }

    /**
     * Each failure as the report shows it: an output mismatch's evidence replaced by its divergence from the baseline's
     * check outputs ({@link Divergence}), a detail in the words of what the check compared ({@link CheckSettings}).
     */
    private static void divergences(TaskExtra e) {
        for (int i = 0; i < e.failures.size(); i++) {
            RunFailure f = e.failures.get(i);
            List<String> outputs = e.mismatched.get(f.arm());
            Divergence d = "OUTPUT_MISMATCH".equals(f.category()) && outputs != null && e.reference != null
                    ? Divergence.of(e.reference, outputs) : null;
            String evidence = f.evidence();
            if (d != null) {
                evidence = d.describe("baseline");
                if (f.evidence() != null) {
                    e.divergences.put(f.evidence(), evidence);
                }
            }
            String detail = e.check == null ? f.detail() : e.check.reword(f.detail());
            e.failures.set(i, new RunFailure(f.arm(), f.round(), f.category(), detail, evidence, f.retryable(),
                    f.logArtifact()));
        }
    }

    private static void add(RunRecord r, RunDetails x, TaskExtra e, String metric) {
        if (e.declared == null) {
            e.declared = x.primaryDefinition();
        }
        if (Pipeline.NATIVE_CHECK.equals(r.pipeline())) {
            check(r, x, e);
        }
        if (r.startedAt() != null) {
            e.first = e.first == null || r.startedAt().isBefore(e.first) ? r.startedAt() : e.first;
            e.last = e.last == null || r.startedAt().isAfter(e.last) ? r.startedAt() : e.last;
        }
        if (r.workload() != null) {
            e.workloads.add(r.workload());
        }
        e.env.putIfAbsent(r.arm().label(), "engine " + nz(r.engineVersion()) + "; env " + nz(r.envRef()) + "; model "
                + nz(r.model()));
        if (r.argvJson() != null) {
            e.argv.putIfAbsent(r.arm().label(), r.argvJson());
        }
        if (x.intendedCommit() != null && e.intended == null) {
            e.intended = x.intendedCommit();
        }
        if (x.verifiedCommit() != null && !r.arm().equals(Arm.BASELINE) && e.verified == null) {
            e.verified = x.verifiedCommit();
        }
        if (x.patchSha256() != null) {
            e.patch.putIfAbsent(r.arm().label(), x.patchSha256());
        }
        String attempt = AgentAttempts.attemptRunOf(x);
        if (attempt != null) {
            e.attemptRun.putIfAbsent(r.arm().label(), attempt);
        }
        if (r.status() == RunRecord.RunStatus.NOT_RUN) {
            return;
        }
        if (Pipeline.NATIVE.equals(r.pipeline()) && (x.has(RunDetails.CLIENT_CHECK) || x.has(RunDetails.SCHEDULE))) {
            e.fidelity.add(new FidelitySection.RunFidelity(r.arm().label(), r.round(), x.schedule(), x.clientCheck(),
                    x.saturatedAttempts()));
        }
        if (r.failure() != null) {
            e.failures.add(new RunFailure(r.arm().label(), r.round(), r.failure().category(), r.failure().detail(),
                    r.failure().evidence(), r.failure().retryable(), r.logArtifact()));
        }
        // the same samples SessionAnalysis analyses: successful native rounds of the task's primary metric
        if (Pipeline.NATIVE.equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS && r.primaryValue() != null
                && (metric == null || metric.equals(r.primaryMetric()))) {
            e.samples.computeIfAbsent(r.arm().label(), k -> new TreeMap<>()).put(r.round(), r.primaryValue());
        }
        if (Pipeline.NATIVE.equals(r.pipeline()) && r.status() == RunRecord.RunStatus.SUCCESS) {
            for (Metric mt : r.metrics()) {
                if (Double.isFinite(mt.value()) && (e.metrics.containsKey(mt.name()) || e.metrics.size() < MAX_METRICS)) {
                    e.metricInfo.putIfAbsent(mt.name(), mt);
                    e.metrics.computeIfAbsent(mt.name(), k -> new LinkedHashMap<>())
                            .computeIfAbsent(r.arm().label(), k -> new TreeMap<>()).put(r.round(), mt.value());
                }
            }
        }
    }

    /** A check run: what the check ran, the baseline's reference outputs, an arm's mismatching outputs. */
    private static void check(RunRecord r, RunDetails x, TaskExtra e) {
        com.fasterxml.jackson.databind.JsonNode th = x.section("correctness").path("thresholds");
        if (e.check == null && th.path("probe").isTextual()) {
            e.check = new CheckSettings(th.path("probe").asText(), th.path("prompts").asInt(0),
                    th.path("max_tokens").asInt(0));
        }
        List<String> outputs = x.outputs();
        if (outputs.isEmpty()) {
            return;
        }
        if ("REFERENCE".equals(x.gateOutcomeText()) && e.reference == null) {
            e.reference = outputs;
        } else if (r.failure() != null && "OUTPUT_MISMATCH".equals(r.failure().category())) {
            e.mismatched.putIfAbsent(r.arm().label(), outputs);
        }
    }
}
