package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import io.isobench.store.RunRecord.RunKind;
import io.isobench.store.RunRecord.RunStatus;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.isobench.legacy.FailedArm.notRun;
import static io.isobench.legacy.LegacyJson.firstNonNull;
import static io.isobench.legacy.LegacyJson.firstNumber;
import static io.isobench.legacy.LegacyJson.firstText;
import static io.isobench.legacy.LegacyJson.hasAny;
import static io.isobench.legacy.LegacyJson.hasNumericTopLevel;
import static io.isobench.legacy.LegacyJson.isSuccess;
import static io.isobench.legacy.LegacyJson.join;
import static io.isobench.legacy.LegacyJson.lastLine;
import static io.isobench.legacy.LegacyJson.obj;
import static io.isobench.legacy.LegacyJson.putIfText;
import static io.isobench.legacy.LegacyJson.seconds;
import static io.isobench.legacy.LegacyJson.text;
import static io.isobench.legacy.Published.publishedAnalysis;
import static io.isobench.legacy.Published.publishedModal;

/**
 * Turns one parsed legacy file into runs (legacy-import.md: formats, mode rules, primary-metric contract table).
 * Pure: no store, no I/O.
 */
final class Extractor {

    static final String[] ARMS = {"baseline", "human", "agent"};

    /** Contract table: JSON fallback keys per mode (first non-null wins). */
    private static final String[] SERVING_KEYS = {"tpot_mean", "tpot_mean_ms", "mean_tpot_ms", "metrics.tpot_mean_ms",
            "metrics.mean_tpot_ms", "metrics.tpot_mean"};
    private static final String[] LATENCY_KEYS = {"latency_avg", "latency_avg_ms", "metrics.latency_avg_ms",
            "metrics.latency_avg", "avg_latency_s"};
    private static final String[] THROUGHPUT_KEYS = {"total_throughput", "metrics.total_throughput",
            "total_token_throughput_tok_s", "metrics.total_token_throughput_tok_s"};
    private static final String[] PREFIX_KEYS = {"output_throughput", "metrics.output_throughput"};
    private static final String[] OUTPUT_KEYS = {"output_throughput", "output_token_throughput_tok_s",
            "output_throughput_tok_s", "metrics.output_throughput", "metrics.output_token_throughput_tok_s",
            "metrics.output_throughput_tok_s"};

    /** Task facts found in a file (nulls when absent). */
    record TaskInfo(String commit, String parent, String subject, String perfCommand, String model, String gpuConfig,
                    String repo) {

        /** Only the commit, its parent (null when the file does not say) and the engine repository. */
        static TaskInfo commits(String commit, String parent, String repo) {
            return new TaskInfo(commit, parent, null, null, null, null, repo);
        }
    }

    /** What one file yields. */
    record Extracted(List<RunDraft> runs, TaskInfo task, String pipeline, List<String> notes) {
    }

    /** The file is not what its path says; the message is the reason. */
    static final class WrongShape extends Exception {
        WrongShape(String message) {
            super(message);
        }
    }

    private Extractor() {
    }

    /**
     * The runs of one file.
     *
     * @param sidecars the whole text of the {@code stdout.txt} / {@code stderr.txt} beside the file, by name (runner
     *                 results read them as part of the same result)
     */
    static Extracted extract(FormatDetector.Detection det, JsonNode root, Map<String, String> sidecars)
            throws WrongShape {
        if (!root.isObject()) {
            throw new WrongShape("expected a JSON object, found " + root.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return switch (det.format()) {
            case R1 -> det.schema() == FormatDetector.Schema.MODAL_FLAT ? r9(det, root) : r1(det, root);
            case R2 -> r2(det, root);
            case R3, R4, R5 -> perVersion(det, root);
            case R6 -> r6(det, root);
            case R7 -> r7(det, root);
            case R8 -> r8(det, root);
            case R9 -> r9(det, root);
            case R11, R12 -> RunnerResult.runner(det, root, sidecars);
            default -> throw new IllegalArgumentException("no extractor for " + det.format());
        };
    }

    // ---------------------------------------------------------------- R1 / R2 / R9 (modal schema)

    private static Extracted r1(FormatDetector.Detection det, JsonNode root) throws WrongShape {
        JsonNode result = root.get("result");
        if (result == null || !result.isObject()) {
            throw new WrongShape("not an R1 file: no 'result' object");
        }
        JsonNode instance = obj(root, "instance");
        List<String> notes = new ArrayList<>();
        String resultCmd = text(result, "perf_command");
        String instanceCmd = text(instance, "perf_command");
        if (resultCmd != null && instanceCmd != null && !resultCmd.strip().equals(instanceCmd.strip())) {
            notes.add("result.perf_command differs from instance.perf_command");
        }
        List<RunDraft> runs = modalArms(det, result, instance, 0, RunKind.LEGACY, true);
        runs.forEach(r -> r.notes.addAll(notes));
        TaskInfo task = new TaskInfo(firstText(result, "full_commit", "commit_hash", "commit")
                == null ? text(instance, "commit_hash") : firstText(result, "full_commit", "commit_hash", "commit"),
                text(result, "parent_commit"),
                firstNonNull(text(instance, "commit_subject"), text(result, "subject")),
                firstNonNull(instanceCmd, resultCmd), text(result, "model"), text(result, "gpu_config"), "vllm");
        return new Extracted(runs, task, "modal", notes);
    }

    private static Extracted r2(FormatDetector.Detection det, JsonNode root) throws WrongShape {
        JsonNode results = root.get("results");
        if (results == null || !results.isArray()) {
            throw new WrongShape("not an R2 progress log: no 'results' array");
        }
        List<RunDraft> runs = new ArrayList<>();
        int i = 0;
        for (JsonNode entry : results) {
            if (entry.isObject()) {
                // final until Attempts.resolve has seen every attempt of the commit in the store
                runs.addAll(modalArms(det, entry, null, i, RunKind.LEGACY_ATTEMPT, true));
            }
            i++;
        }
        // the invocation's start: the time of each of its attempts the source has (attempt_at)
        Instant at = Timestamps.parse(text(root, "timestamp"));
        for (RunDraft r : runs) {
            r.startedAt = at;
            r.extra.put(Attempts.INDEX, r.index);
            r.notes.add("attempt from a progress log (" + text(root, "timestamp") + ")");
        }
        return new Extracted(runs, null, "modal", List.of());
    }

    private static Extracted r9(FormatDetector.Detection det, JsonNode root) {
        if (!det.engine().equals("sglang")) {
            // the modal schema without its wrapper, in a vLLM tree: a modal 3-way source like R1
            List<RunDraft> runs = modalArms(det, root, null, 0, RunKind.LEGACY, true);
            TaskInfo task = new TaskInfo(firstText(root, "full_commit", "commit_hash", "commit"),
                    text(root, "parent_commit"), text(root, "subject"), text(root, "perf_command"), text(root, "model"),
                    text(root, "gpu_config"), "vllm");
            return new Extracted(runs, task, "modal", List.of());
        }
        List<RunDraft> runs = modalArms(det, root, null, 0, RunKind.LEGACY_SINGLE_VERSION, true);
        // SGLang results are human-only runs of the engine (no baseline, no agent patch): keep the human arm.
        runs.removeIf(r -> !r.arm.equals("human") && !r.arm.equals(FailedArm.ATTEMPT));
        runs.forEach(r -> r.notes.add("SGLang engine run"));
        TaskInfo task = new TaskInfo(firstText(root, "full_commit", "commit"), text(root, "parent_commit"),
                text(root, "subject"), text(root, "perf_command"), text(root, "model"), text(root, "gpu_config"),
                "sglang");
        return new Extracted(runs, task, "sglang", List.of());
    }

    /** The three arms of a modal-schema result object (R1 result, R2 entry, R9 root). Raws are head-truncated. */
    private static List<RunDraft> modalArms(FormatDetector.Detection det, JsonNode result, JsonNode instance,
                                            int index, RunKind kind, boolean headTruncated) {
        String perf = firstNonNull(text(result, "perf_command"), text(instance, "perf_command"));
        Mode mode = Mode.ofCommand(perf).orElse(null);
        String status = text(result, "status");
        String error = firstText(result, "error", "error_message");
        String commit = firstNonNull(firstText(result, "full_commit", "commit_hash", "commit"),
                text(instance, "commit_hash"), det.commit());
        List<RunDraft> runs = new ArrayList<>();
        List<ArmOutcomes.ArmFacts> facts = new ArrayList<>();
        for (String arm : ARMS) {
            RunDraft d = new RunDraft();
            d.arm = arm;
            d.index = index;
            d.kind = kind;
            d.commit = commit;
            d.mode = mode;
            d.model = text(result, "model");
            d.engine = RunDraft.engineOf(perf);
            String metricsKey = arm + "_metrics";
            JsonNode metrics = result.get(metricsKey);
            if (metrics == null && arm.equals("agent") && result.has("patched_metrics")) {
                metrics = result.get("patched_metrics"); // older sub-schema
            }
            metrics = metrics == null || metrics.isNull() ? null : metrics;
            String raw = text(result, arm + "_raw");
            d.raw = raw;
            RawText rt = new RawText(raw, headTruncated);
            d.truncation = headTruncated ? OutputParser.Truncation.HEAD_KEPT : OutputParser.Truncation.NONE;
            evaluate(d, metrics, rt, mode);
            String armError = text(result, arm + "_error");
            d.sourceStatus = status;
            d.sourceError = armError != null ? armError : error;
            d.engineVersion = lastLine(text(result, arm + "_version"));
            d.envRef = text(result, arm + "_install_method");
            d.durationMs = null; // one duration for the whole invocation: kept in extra
            putIfText(d, "perf_command", perf);
            putIfText(d, "instance_perf_command", text(instance, "perf_command"));
            putIfText(d, "subject", firstNonNull(text(instance, "commit_subject"), text(result, "subject")));
            putIfText(d, "benchmark_mode", text(result, "benchmark_mode"));
            putIfText(d, "gpu_config", text(result, "gpu_config"));
            ObjectNode published = publishedModal(result);
            if (published != null) {
                d.extra.set("published", published);
            }
            putIfText(d, "source_status", status);
            putIfText(d, "source_error", error);
            putIfText(d, "arm_error", armError);
            if (result.hasNonNull("duration_s")) {
                d.extra.set("invocation_duration_s", result.get("duration_s"));
            }
            runs.add(d);
            facts.add(new ArmOutcomes.ArmFacts(d, metrics, armError));
        }
        // Status: whose failure the invocation's event is (one arm, or the attempt), then each arm's own outcome.
        RunDraft attempt = ArmOutcomes.decide(status, error, facts, runs.get(0));
        if (attempt != null) {
            runs.add(attempt);
        }
        return runs;
    }

    // ---------------------------------------------------------------- R3 / R4 / R5 (one file per arm)

    private static Extracted perVersion(FormatDetector.Detection det, JsonNode root) {
        RunDraft d = new RunDraft();
        d.arm = det.arm();
        d.commit = firstNonNull(firstText(root, "human_commit_full", "commit_full", "commit_hash", "human_commit",
                "commit_short"), det.commit());
        d.model = text(root, "model");
        String raw = text(root, "raw_output");
        d.raw = raw;
        d.truncation = OutputParser.Truncation.TAIL_KEPT;
        RawText rt = new RawText(raw, false);
        Mode mode = rt.mode();
        if (mode == null) {
            mode = Mode.fromLabel(text(root, "benchmark_type")).filter(m -> m != Mode.MICRO).orElse(null);
        }
        if (mode == null) {
            if (hasAny(root, "tpot_mean", "tpot_mean_ms", "mean_tpot_ms", "metrics.tpot_mean_ms",
                    "metrics.mean_tpot_ms", "metrics.tpot_mean")) {
                mode = Mode.SERVING;
            } else if (hasAny(root, LATENCY_KEYS)) {
                mode = Mode.LATENCY;
            }
        }
        d.mode = mode;
        evaluate(d, root, rt, mode);
        String status = text(root, "status");
        String error = firstText(root, "error", "error_message", "skip_reason");
        d.sourceStatus = status;
        d.sourceError = error;
        d.durationMs = seconds(root, "duration_s");
        d.startedAt = Timestamps.parse(text(root, "timestamp"));
        putIfText(d, "source_status", status);
        putIfText(d, "source_error", error);
        putIfText(d, "skip_reason", text(root, "skip_reason"));
        putIfText(d, "docker_image", text(root, "docker_image"));
        putIfText(d, "benchmark_type", text(root, "benchmark_type"));
        if (root.has("fix_applied")) {
            d.extra.set("fix_applied", root.get("fix_applied"));
        }
        if (root.has("parameters")) {
            d.extra.set("parameters", root.get("parameters"));
        }
        d.status = perFileStatus(d, status, root, raw);
        d.failureError = error;
        TaskInfo task = new TaskInfo(d.commit, firstText(root, "parent_commit", "parent_hash", "parent_short"), null,
                null, d.arm.equals("human") ? d.model : null, null, "vllm");
        String pipeline = det.format() == LegacyFormat.R3 ? "run_2026-01-18/19" : "separate";
        return new Extracted(List.of(d), task, pipeline, List.of());
    }

    /** Status of a one-arm object that carries its own {@code status} (R3/R4/R5/R7/R8). */
    private static RunStatus perFileStatus(RunDraft d, String status, JsonNode armObj, String raw) {
        String s = status == null ? "" : status.toLowerCase(Locale.ROOT);
        if (d.primary != null) {
            if (!isSuccess(status) && "raw".equals(d.primary.origin())) {
                d.notes.add("status corrected: the source said '" + status + "'"
                        + (d.sourceError == null ? "" : " (" + d.sourceError + ")")
                        + " but the raw text holds a valid " + d.mode + " line; the old status was wrong");
                d.extra.put("status_corrected", true);
            } else if (!isSuccess(status) && status != null) {
                d.notes.add("the source said '" + status + "' but its stored metrics hold a value");
            }
            return RunStatus.SUCCESS;
        }
        if (s.equals("skipped")) {
            return RunStatus.SKIPPED;
        }
        if (isSuccess(status)) {
            JsonNode m = armObj.get("metrics");
            boolean anyMetric = m != null && m.isObject() && hasNumericTopLevel(m);
            if (anyMetric || ArmOutcomes.parsed(d, armObj)) {
                ArmOutcomes.succeededWithoutPrimary(d, armObj);
                return d.status;
            }
            d.notes.add("the source said 'success' but no primary metric was found");
            return RunStatus.FAILED;
        }
        if (status == null && (raw == null || raw.isBlank()) && armObj.get("metrics") == null) {
            d.notRunReason = "the file records neither a status nor output for this arm";
            return RunStatus.NOT_RUN;
        }
        return RunStatus.FAILED;
    }

    // ---------------------------------------------------------------- R6 / R7 / R8

    private static Extracted r6(FormatDetector.Detection det, JsonNode root) {
        RunDraft d = new RunDraft();
        d.arm = "human";
        d.kind = RunKind.LEGACY_SINGLE_VERSION;
        d.commit = firstNonNull(text(root, "commit_hash"), det.commit());
        d.model = text(root, "model");
        Mode mode = Mode.fromLabel(text(root, "benchmark_type")).filter(m -> m != Mode.MICRO).orElse(null);
        d.mode = mode;
        evaluate(d, root, new RawText(text(root, "raw_output"), false), mode);
        String status = text(root, "status");
        d.sourceStatus = status;
        d.sourceError = firstText(root, "error", "error_message");
        d.startedAt = Timestamps.parse(text(root, "timestamp"));
        d.raw = text(root, "raw_output");
        putIfText(d, "source_status", status);
        putIfText(d, "original_model", text(root, "original_model"));
        putIfText(d, "benchmark_type", text(root, "benchmark_type"));
        if (root.has("fix_applied")) {
            d.extra.set("fix_applied", root.get("fix_applied"));
        }
        d.notes.add("single-version run: the version is not recorded (stored as the task commit, arm human)");
        if (text(root, "original_model") != null && d.model != null && !d.model.equals(text(root, "original_model"))) {
            d.notes.add("substitute model " + d.model + " for " + text(root, "original_model"));
        }
        d.status = perFileStatus(d, status, root, d.raw);
        d.failureError = d.sourceError;
        return new Extracted(List.of(d), TaskInfo.commits(d.commit, null, "vllm"),
                "docker_single", List.of());
    }

    private static Extracted r7(FormatDetector.Detection det, JsonNode root) throws WrongShape {
        JsonNode results = root.get("results");
        if (results == null || !results.isObject()) {
            throw new WrongShape("not an R7 file: no 'results' object");
        }
        String commit = firstNonNull(text(root, "commit"), det.commit());
        List<RunDraft> runs = new ArrayList<>();
        Mode common = commonMode(results);
        for (String arm : ARMS) {
            JsonNode a = results.get(arm);
            RunDraft d = new RunDraft();
            d.arm = arm;
            d.commit = commit; // the task's commit: an arm's own commit_hash may name the version it ran
            putIfText(d, "arm_commit_hash", text(a, "commit_hash"));
            if (a == null || !a.isObject()) {
                notRun(d, "the file has no record of this arm", null, null);
                d.mode = common;
                runs.add(d);
                continue;
            }
            Mode mode = Mode.fromLabel(text(a, "benchmark_type")).filter(m -> m != Mode.MICRO).orElse(common);
            d.mode = mode;
            d.model = text(a, "model");
            d.raw = text(a, "raw_output");
            armRecorded(d, a, root, mode);
            putIfText(d, "benchmark_type", text(a, "benchmark_type"));
            armStatus(d, a);
            runs.add(d);
        }
        return new Extracted(runs, TaskInfo.commits(commit, null, "vllm"), "docker_3way",
                List.of());
    }

    private static Mode commonMode(JsonNode results) {
        for (String arm : ARMS) {
            Mode m = Mode.fromLabel(text(results.get(arm), "benchmark_type")).filter(x -> x != Mode.MICRO).orElse(null);
            if (m != null) {
                return m;
            }
        }
        return null;
    }

    private static Extracted r8(FormatDetector.Detection det, JsonNode root) {
        String commit = firstNonNull(firstText(root, "commit_full", "commit_short"), det.commit());
        Mode mode = Mode.fromLabel(text(root, "benchmark_type")).filter(m -> m != Mode.MICRO).orElse(null);
        List<RunDraft> runs = new ArrayList<>();
        for (String arm : ARMS) {
            JsonNode a = root.get(arm);
            RunDraft d = new RunDraft();
            d.arm = arm;
            d.commit = commit;
            d.mode = mode;
            d.model = text(root, "model");
            putIfText(d, "issue", text(root, "issue"));
            putIfText(d, "fix", text(root, "fix"));
            ObjectNode published = publishedAnalysis(root.get("analysis"));
            if (published != null) {
                d.extra.set("published", published);
            }
            String command = text(root, arm.equals("baseline") ? "baseline_command" : "test_command");
            putIfText(d, "perf_command", command);
            d.engine = RunDraft.engineOf(command);
            putIfText(d, "task_id", text(root, "task_id"));
            if (a == null || !a.isObject()) {
                notRun(d, "the file has no record of this arm", null, null);
                runs.add(d);
                continue;
            }
            d.raw = text(a, "raw_output");
            d.truncation = OutputParser.Truncation.TAIL_KEPT;
            armRecorded(d, a, root, mode);
            armStatus(d, a);
            runs.add(d);
        }
        TaskInfo task = new TaskInfo(commit, text(root, "parent_hash"), text(root, "description"),
                text(root, "test_command"), text(root, "model"), null, "vllm");
        return new Extracted(runs, task, "rerun_4_fixable", List.of());
    }

    /**
     * An arm a 3-way file recorded (its raw output already in {@code d.raw}): its metrics, then the file's status,
     * error, duration and start time, kept in the run's extra as {@code source_status} and {@code source_error}.
     */
    private static void armRecorded(RunDraft d, JsonNode a, JsonNode root, Mode mode) {
        evaluate(d, a, new RawText(d.raw, false), mode);
        d.sourceStatus = text(a, "status");
        d.sourceError = firstText(a, "error", "error_message");
        d.durationMs = seconds(a, "duration_s");
        d.startedAt = Timestamps.parse(text(root, "timestamp"));
        putIfText(d, "source_status", d.sourceStatus);
        putIfText(d, "source_error", d.sourceError);
    }

    /** The status of an arm a 3-way file recorded, from its own status, error and raw output. */
    private static void armStatus(RunDraft d, JsonNode a) {
        d.status = perFileStatus(d, d.sourceStatus, a, d.raw);
        d.failureError = d.sourceError;
    }

    // ---------------------------------------------------------------- shared evaluation

    /**
     * Fills the per-mode primary candidates (raw text first, stored JSON only when the raw line is absent), the
     * primary value for {@code mode}, the serving workload and the other metrics.
     */
    static void evaluate(RunDraft d, JsonNode armObj, RawText rt, Mode mode) {
        for (Mode m : new Mode[] {Mode.SERVING, Mode.LATENCY, Mode.THROUGHPUT, Mode.PREFIX_CACHING}) {
            RawText.Found f = rt.primary(m);
            if (f != null) {
                d.byMode.put(m, new RunDraft.Value(f, "raw"));
                continue;
            }
            RawText.Found j = jsonFallback(armObj, m);
            if (j != null) {
                d.byMode.put(m, new RunDraft.Value(j, "json"));
            }
        }
        d.primary = mode == null ? null : d.byMode.get(mode);
        d.servingBlock = rt.hasServingBlock();
        d.workload = rt.workload();
        if (mode == Mode.SERVING) {
            RawText.Found out = rt.servingOutputTokS();
            if (out == null) {
                out = firstNumber(armObj, OUTPUT_KEYS);
            }
            d.outputTokS = out;
        }
        collectMetrics(d, rt, mode);
    }

    static RawText.Found jsonFallback(JsonNode armObj, Mode mode) {
        if (armObj == null) {
            return null;
        }
        return switch (mode) {
            case SERVING -> firstNumber(armObj, SERVING_KEYS);
            case LATENCY -> {
                RawText.Found f = firstNumber(armObj, "latency_avg", "latency_avg_ms", "metrics.latency_avg_ms",
                        "metrics.latency_avg");
                if (f != null) {
                    yield f;
                }
                RawText.Found s = firstNumber(armObj, "avg_latency_s");
                yield s == null ? null : RawText.scaled(s, 3);
            }
            case THROUGHPUT -> firstNumber(armObj, THROUGHPUT_KEYS);
            case PREFIX_CACHING -> firstNumber(armObj, PREFIX_KEYS);
            case MICRO -> null;
        };
    }

    private static void collectMetrics(RunDraft d, RawText rt, Mode mode) {
        if (!rt.isEmpty()) {
            ParsedOutput parsed = d.engine.readConsole(rt.text(), d.truncation);
            for (Metric m : parsed.metrics()) {
                d.metrics.putIfAbsent(m.name(), m.value());
            }
            if (!parsed.warnings().isEmpty()) {
                d.extra.set("parse_warnings", LenientJson.MAPPER.valueToTree(parsed.warnings()));
            }
        }
        // The contract's primary value wins over whatever a general parser read.
        if (mode != null && mode != Mode.MICRO && d.primary != null) {
            d.metrics.put(MetricDictionary.primaryMetric(mode), d.primary.found().value().doubleValue());
        }
    }
}
