package io.isobench.session;

import io.isobench.plan.Planner;
import io.isobench.plan.JobRole;
import io.isobench.store.Pipeline;
import io.isobench.Arm;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.exec.JobResult;
import io.isobench.guard.Secrets;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.plan.Job;
import io.isobench.probe.CorrectnessRules;
import io.isobench.probe.Divergence;
import io.isobench.probe.Greedy;
import io.isobench.probe.OutputDiff;
import io.isobench.probe.Probe;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.task.TaskSpec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.isobench.session.RunRecorder.json;

/**
 * The correctness gate of a session's check runs: the probe outputs of the baseline (the reference), its repeat check
 * (the tolerance's calibration) and the human, kept in a reference map keyed by {@link ReferenceKey} (task, role), and each other arm's
 * probes compared with them by {@link CorrectnessRules}.
 */
final class CorrectnessGate {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Store store;

    CorrectnessGate(Store store) {
        this.store = store;
    }

    /** What the correctness gate decided for one check run. */
    record Gate(Failure failure, List<Metric> metrics) {
    }

    /**
     * The correctness gate of a check run: stores the probe outputs of both passes (extra_json {@code outputs}/{@code
     * probe} for the sequential pass, {@code probe_batched}/{@code probe_batch_size} for the concurrent one, and the
     * artifact {@code probe_outputs}). The baseline's check is the reference; its repeat check (a second server start)
     * calibrates the tolerance's floor and never replaces the reference; the human and the agents are judged by
     * {@link CorrectnessRules} against the baseline (gating) and the human, and exact-match rate, first divergence
     * and logprob drift are recorded as metrics.
     */
    Gate gate(Job job, TaskSpec task, JobResult result, Map<ReferenceKey, Greedy.ProbeRun> reference,
                      Map<String, Object> extra) {
        TaskSpec.Correctness c = task.correctness() != null ? task.correctness() : TaskSpec.Correctness.DEFAULT;
        Map<String, Object> corr = new LinkedHashMap<>();
        Map<String, Object> thresholds = new LinkedHashMap<>();
        thresholds.put("tolerance", c.tolerance());
        thresholds.put("max_logprob_drift", c.maxLogprobDrift());
        thresholds.put("prompts", c.prompts());
        thresholds.put("max_tokens", c.maxTokens());
        thresholds.put("probe", job.generic() ? "command" : c.offlineCommand() != null ? "offline" : "server");
        corr.put("thresholds", thresholds);
        extra.put("correctness", corr);
        if (!result.success()) {
            String kind = result.probeFailure();
            corr.put("outcome", kind != null ? kind : "CHECK_FAILED");
            corr.put("reason", (job.repeatCheck() ? "the baseline's second check failed, so the tolerance is not"
                    + " calibrated (floor 0): " : "") + result.failure().detail());
            return new Gate(null, List.of());
        }
        Greedy.ProbeRun run = probeRun(result);
        putProbes(job, c, run, extra);
        String taskId = job.taskId();
        Greedy.ProbeRun base = referenceRun(reference, taskId, Reference.BASELINE);
        if (job.repeatCheck()) {
            putReference(reference, taskId, Reference.BASELINE_REPEAT, run);
            if (base == null) {
                corr.put("outcome", "NO_REFERENCE");
                corr.put("reason", "the baseline's first check has no probe outputs: nothing to calibrate against"
                        + " (floor 0)");
            } else {
                CorrectnessRules.Calibration cal = CorrectnessRules.calibrate(base, run);
                corr.put("outcome", "CALIBRATION");
                corr.put("reason", cal.describe());
                corr.put("calibration", cal.toMap());
            }
            return new Gate(null, List.of());
        }
        if (job.arm().equals(Arm.BASELINE)) {
            putReference(reference, taskId, Reference.BASELINE, run);
            corr.put("outcome", "REFERENCE");
            corr.put("reason", "the baseline's outputs are the reference");
            return new Gate(null, List.of());
        }
        CorrectnessRules.Thresholds th = new CorrectnessRules.Thresholds(c.tolerance(), c.maxLogprobDrift(),
                calibration(reference, taskId));
        corr.put("floor", th.calibration().floor());
        corr.put("tolerance_effective", th.effectiveTolerance());
        if (c.maxLogprobDrift() != null) {
            corr.put("max_logprob_drift_effective", th.effectiveMaxDrift());
        }
        List<Metric> metrics = new ArrayList<>();
        Greedy.ProbeRun human = referenceRun(reference, taskId, Reference.HUMAN);
        CorrectnessRules.Comparison vh = null;
        if (!job.arm().equals(Arm.HUMAN) && human != null) {
            vh = CorrectnessRules.compare(human, run);
            putComparison(corr, Reference.HUMAN, vh);
            metrics.addAll(diffMetrics(vh.sequential().diff(), Reference.HUMAN));
        }
        Failure failure = null;
        if (base == null) {
            corr.put("outcome", "NO_REFERENCE");
            corr.put("reason", "the baseline's probe outputs are missing (its check failed): nothing to compare with");
        } else {
            CorrectnessRules.Comparison vb = CorrectnessRules.compare(base, run);
            putComparison(corr, Reference.BASELINE, vb);
            metrics.addAll(diffMetrics(vb.sequential().diff(), Reference.BASELINE));
            extra.put("mismatch_fraction", vb.mismatch());
            CorrectnessRules.Decision d = job.arm().equals(Arm.HUMAN) ? CorrectnessRules.human(vb, th)
                    : CorrectnessRules.agent(vb, vh, human == null ? null : CorrectnessRules.compare(base, human), th);
            corr.put("outcome", d.outcome().name());
            corr.put("rule", d.rule() == null ? null : d.rule().label());
            corr.put("reason", d.reason());
            if (d.fails()) {
                failure = new Failure(FailureCategory.OUTPUT_MISMATCH, d.reason(), List.of(firstDiff(vb)));
            }
        }
        if (job.arm().equals(Arm.HUMAN)) {
            putReference(reference, taskId, Reference.HUMAN, run);
        }
        return new Gate(failure, metrics);
    }

    /**
     * The reference map rebuilt from a session's stored check runs (on {@code --resume}): the baseline's and the
     * human's probes, and the baseline's repeat check kept apart (it calibrates the tolerance, it never replaces the
     * baseline's reference).
     */
    static Map<ReferenceKey, Greedy.ProbeRun> references(Collection<RunRecord> previous) {
        Map<ReferenceKey, Greedy.ProbeRun> reference = new HashMap<>();
        for (RunRecord r : previous) {
            if (Pipeline.NATIVE_CHECK.equals(r.pipeline()) && (Arm.BASELINE.equals(r.arm()) || Arm.HUMAN.equals(r.arm()))
                    && (r.status() == RunRecord.RunStatus.SUCCESS || Arm.HUMAN.equals(r.arm()) && r.failure() != null
                    && "OUTPUT_MISMATCH".equals(r.failure().category()))) {
                putReference(reference, taskOf(r), referenceOf(r), probeRunOf(r));
            }
        }
        return reference;
    }

    /**
     * Whose probe outputs a check is compared with, and the name they go by: the key suffix in the reference map, the
     * {@code vs_<name>} sections and {@code *_vs_<name>} metrics of a check's run.
     */
    enum Reference {
        BASELINE("baseline"),
        HUMAN("human"),
        /** The baseline's repeat check: it calibrates the tolerance, it is never the baseline's reference. */
        BASELINE_REPEAT("baseline/" + Planner.REPEAT_CHECK);

        final String key;

        Reference(String key) {
            this.key = key;
        }
    }

    /**
     * The reference a stored check run of the baseline or the human gave: the baseline's repeat check by its stored
     * role ({@link JobRole#ofStored}: an old run's by its job id), else its arm's.
     */
    private static Reference referenceOf(RunRecord r) {
        RunDetails x = r.details();
        boolean repeat = JobRole.ofStored(x.role(), r.pipeline() == null ? null : r.pipeline().label(),
                x.job() != null ? x.job() : r.runId()).orElse(null) == JobRole.CHECK_REPEAT;
        return repeat ? Reference.BASELINE_REPEAT : r.arm().equals(Arm.HUMAN) ? Reference.HUMAN : Reference.BASELINE;
    }

    /** A check's probe run; its plain texts when the executor returned no probe JSON. */
    private static Greedy.ProbeRun probeRun(JobResult result) {
        Greedy.ProbeRun run = Greedy.ProbeRun.fromJson(result.probeJson());
        return run.sequential().isEmpty()
                ? Greedy.ProbeRun.sequentialOnly(result.outputs().stream().map(Probe::text).toList()) : run;
    }

    /** extra_json {@code outputs}, {@code probe}, {@code probe_batched}, {@code probe_batch_size}, and the artifact. */
    private void putProbes(Job job, TaskSpec.Correctness c, Greedy.ProbeRun run, Map<String, Object> extra) {
        extra.put("outputs", run.texts());
        extra.put("probe", run.sequential().stream().map(Probe::toMap).toList());
        extra.put("probe_batched", run.batched().stream().map(Probe::toMap).toList());
        extra.put("probe_batch_size", run.hasBatched() ? run.batchSize() : null);
        Map<String, Object> art = new LinkedHashMap<>();
        art.put("task", job.taskId());
        art.put("arm", job.arm().label());
        art.put("prompts", Greedy.prompts(c.prompts()));
        art.put("max_tokens", c.maxTokens());
        art.put("outputs", run.sequential().stream().map(Probe::toMap).toList());
        art.put("outputs_batched", run.batched().stream().map(Probe::toMap).toList());
        art.put("batch_size", run.hasBatched() ? run.batchSize() : null);
        extra.put("probe_artifact_sha256", store.putArtifact("probe_outputs",
                Secrets.redact(json(art)).getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code vs_<ref>} (sequential pass) and {@code vs_<ref>_batched} (concurrent pass, when both sides ran one). */
    private static void putComparison(Map<String, Object> corr, Reference ref, CorrectnessRules.Comparison c) {
        corr.put("vs_" + ref.key, c.sequential().diff().toMap());
        if (c.batched() != null) {
            corr.put("vs_" + ref.key + "_batched", c.batched().diff().toMap());
        }
    }

    /** A key of the reference map: whose probe outputs ({@code role}) of which task. */
    record ReferenceKey(String taskId, Reference role) {
    }

    /**
     * The reference map holds each role's probe run under its {@link ReferenceKey}: the sequential pass, and the
     * batched one with the batch size its probe count gives (sequential only when it has none).
     */
    private static void putReference(Map<ReferenceKey, Greedy.ProbeRun> reference, String taskId, Reference role,
                                     Greedy.ProbeRun run) {
        List<Probe> batched = run.batched();
        reference.put(new ReferenceKey(taskId, role), batched.isEmpty() ? Greedy.ProbeRun.sequentialOnly(
                run.sequential()) : new Greedy.ProbeRun(run.sequential(), batched, Greedy.batchSize(batched.size())));
    }

    /** The probe run stored for a reference; null when none. */
    static Greedy.ProbeRun referenceRun(Map<ReferenceKey, Greedy.ProbeRun> reference, String taskId, Reference role) {
        return reference.get(new ReferenceKey(taskId, role));
    }

    /** The task's calibration from the baseline's two checks; {@code NONE} (floor 0) when either has no probes. */
    private static CorrectnessRules.Calibration calibration(Map<ReferenceKey, Greedy.ProbeRun> reference, String taskId) {
        Greedy.ProbeRun first = referenceRun(reference, taskId, Reference.BASELINE);
        Greedy.ProbeRun repeat = referenceRun(reference, taskId, Reference.BASELINE_REPEAT);
        return first == null || repeat == null ? CorrectnessRules.Calibration.NONE
                : CorrectnessRules.calibrate(first, repeat);
    }

    private static List<Metric> diffMetrics(OutputDiff d, Reference ref) {
        String vs = ref.key;
        List<Metric> out = new ArrayList<>();
        out.add(Metric.of("exact_match_rate_vs_" + vs, d.exactMatchRate()));
        if (d.firstDivergenceChar() != null) {
            out.add(Metric.of("first_divergence_char_vs_" + vs, d.firstDivergenceChar()));
        }
        if (d.firstDivergenceToken() != null) {
            out.add(Metric.of("first_divergence_token_vs_" + vs, d.firstDivergenceToken()));
        }
        if (d.maxLogprobDrift() != null) {
            out.add(Metric.of("logprob_drift_max_vs_" + vs, d.maxLogprobDrift()));
        }
        return out;
    }

    /** Evidence of an output mismatch: the first differing probe, sequential unless only the batched pass differs. */
    private static String firstDiff(CorrectnessRules.Comparison c) {
        CorrectnessRules.ProbePair p = c.batched() != null && c.sequential().diff().mismatchFraction() == 0
                ? c.batched() : c.sequential();
        return firstDiff(p.reference().stream().map(Probe::text).toList(), p.arm().stream().map(Probe::text).toList())
                + (p.batchSize() > 1 ? " (" + p.batchSize() + " requests at once)" : "");
    }

    private static String firstDiff(List<String> ref, List<String> got) {
        Divergence d = Divergence.of(ref, got);
        return d != null ? d.describe("expected") : "output count " + got.size() + " vs " + ref.size();
    }

    static String taskOf(RunRecord r) {
        return r.details().task();
    }

    /**
     * The probes a check run stored: details {@code probe} (with token ids/logprobs when present; else its plain
     * {@code outputs}) and {@code probe_batched} (absent in runs stored before the concurrent pass).
     */
    static Greedy.ProbeRun probeRunOf(RunRecord r) {
        List<Probe> seq = null;
        List<Probe> batched = new ArrayList<>();
        try {
            JsonNode probes = r.details().section("probe");
            if (probes.isArray() && !probes.isEmpty()) {
                seq = new ArrayList<>();
                for (JsonNode n : probes) {
                    seq.add(Probe.of(n));
                }
            }
            for (JsonNode n : r.details().section("probe_batched")) {
                batched.add(Probe.of(n));
            }
        } catch (RuntimeException e) {
            // fall back to the texts
        }
        if (seq == null) {
            seq = outputsOf(r).stream().map(Probe::text).toList();
        }
        return batched.isEmpty() ? Greedy.ProbeRun.sequentialOnly(seq)
                : new Greedy.ProbeRun(seq, batched, Greedy.batchSize(batched.size()));
    }

    static List<String> outputsOf(RunRecord r) {
        return r.details().outputs();
    }
}
