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

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    private static final Pattern ARM_WORD = Pattern.compile("\\b(baseline|human|agent|patched)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern ARM_STATUS = Pattern.compile("^(baseline|human|agent|patched)_", Pattern.CASE_INSENSITIVE);
    /**
     * Statuses of a task the harness could not even set up: nothing ran. The first arm (baseline) carries the failure,
     * the others did not run (unless the error names another arm, as in "No wheel for human …").
     */
    private static final java.util.Set<String> SETUP_STATUSES =
            java.util.Set.of("no_wheel", "wheel_install_failed", "no_perf_command", "install_failed", "build_failed");
    /** Section headers the native runner writes into its stdout.txt / stderr.txt, one per arm. */
    private static final Pattern SECTION = Pattern.compile("^=== (BASELINE|HUMAN|AGENT|PATCHED)\\b[^\\n]*===\\s*$",
            Pattern.MULTILINE | Pattern.CASE_INSENSITIVE);
    private static final Pattern PATCH_AGENT = Pattern.compile("/runs/[^/]+/([^/]+)/");

    /** Task facts found in a file (nulls when absent). */
    record TaskInfo(String commit, String parent, String subject, String perfCommand, String model, String gpuConfig,
                    String repo) {
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
            case R11, R12 -> runner(det, root, sidecars);
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
                runs.addAll(modalArms(det, entry, null, i, RunKind.LEGACY_SUPERSEDED, true));
            }
            i++;
        }
        runs.forEach(r -> r.notes.add("superseded attempt from a progress log (" + text(root, "timestamp") + ")"));
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
        runs.removeIf(r -> !r.arm.equals("human"));
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
        String namedArm = failingArm(status, error);
        List<RunDraft> runs = new ArrayList<>();
        for (String arm : ARMS) {
            RunDraft d = new RunDraft();
            d.arm = arm;
            d.index = index;
            d.kind = kind;
            d.commit = commit;
            d.mode = mode;
            d.model = text(result, "model");
            String metricsKey = arm + "_metrics";
            JsonNode metrics = result.get(metricsKey);
            if (metrics == null && arm.equals("agent") && result.has("patched_metrics")) {
                metrics = result.get("patched_metrics"); // older sub-schema
            }
            String raw = text(result, arm + "_raw");
            d.raw = raw;
            RawText rt = new RawText(raw, headTruncated);
            d.truncation = headTruncated ? OutputParser.Truncation.HEAD_KEPT : OutputParser.Truncation.NONE;
            evaluate(d, metrics == null || metrics.isNull() ? null : metrics, rt, mode);
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
            // Status: a value is a success; otherwise decide from the invocation's outcome.
            boolean ran = metrics != null && !metrics.isNull() || (raw != null && !raw.isBlank()) || armError != null;
            if (d.primary != null) {
                d.status = RunStatus.SUCCESS;
            } else if (metrics != null && metrics.isObject() && metrics.size() > 0 && armError == null
                    && mode == null) {
                d.status = RunStatus.SUCCESS;
                d.notes.add("no primary metric: the mode is unknown");
            } else if (namedArm != null && !namedArm.equals(arm) && (raw == null || raw.isBlank()) && armError == null
                    && (metrics == null || metrics.isNull() || metrics.isObject() && metrics.isEmpty())) {
                // Another arm's failure stopped the invocation; an empty {} placeholder is not evidence of a run.
                notRun(d, "the " + namedArm + " arm failed first", status, error);
            } else if (!ran && isSuccess(status)) {
                notRun(d, "no record of this arm in a successful invocation", null, null);
            } else {
                d.status = RunStatus.FAILED;
            }
            d.failureError = join(armError, namedArm == null || namedArm.equals(arm) ? error : null);
            runs.add(d);
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
            boolean anyMetric = m != null && m.isObject() && m.size() > 0;
            if (d.mode == null && (anyMetric || hasNumericTopLevel(armObj))) {
                d.notes.add("no primary metric: the mode is unknown");
                return RunStatus.SUCCESS;
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
        return new Extracted(List.of(d), new TaskInfo(d.commit, null, null, null, null, null, "vllm"),
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
            String raw = text(a, "raw_output");
            d.raw = raw;
            evaluate(d, a, new RawText(raw, false), mode);
            d.sourceStatus = text(a, "status");
            d.sourceError = firstText(a, "error", "error_message");
            d.durationMs = seconds(a, "duration_s");
            d.startedAt = Timestamps.parse(text(root, "timestamp"));
            putIfText(d, "source_status", d.sourceStatus);
            putIfText(d, "source_error", d.sourceError);
            putIfText(d, "benchmark_type", text(a, "benchmark_type"));
            d.status = perFileStatus(d, d.sourceStatus, a, raw);
            d.failureError = d.sourceError;
            runs.add(d);
        }
        return new Extracted(runs, new TaskInfo(commit, null, null, null, null, null, "vllm"), "docker_3way",
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
            putIfText(d, "perf_command", text(root, arm.equals("baseline") ? "baseline_command" : "test_command"));
            putIfText(d, "task_id", text(root, "task_id"));
            if (a == null || !a.isObject()) {
                notRun(d, "the file has no record of this arm", null, null);
                runs.add(d);
                continue;
            }
            String raw = text(a, "raw_output");
            d.raw = raw;
            d.truncation = OutputParser.Truncation.TAIL_KEPT;
            evaluate(d, a, new RawText(raw, false), mode);
            d.sourceStatus = text(a, "status");
            d.sourceError = firstText(a, "error", "error_message");
            d.durationMs = seconds(a, "duration_s");
            d.startedAt = Timestamps.parse(text(root, "timestamp"));
            putIfText(d, "source_status", d.sourceStatus);
            putIfText(d, "source_error", d.sourceError);
            d.status = perFileStatus(d, d.sourceStatus, a, raw);
            d.failureError = d.sourceError;
            runs.add(d);
        }
        TaskInfo task = new TaskInfo(commit, text(root, "parent_hash"), text(root, "description"),
                text(root, "test_command"), text(root, "model"), null, "vllm");
        return new Extracted(runs, task, "rerun_4_fixable", List.of());
    }

    // ---------------------------------------------------------------- R11 / R12

    /**
     * A two-arm runner result (R11 micro-benchmark, R12 native runner): baseline, and the patched version as the agent
     * arm. A status or error that names the failing arm ({@code baseline_failed}, "No wheel for human …") charges that
     * arm only (a human arm appears only when it is named); an arm that never ran is {@code NOT_RUN} with the reason.
     * The cause is read wherever the file keeps it: {@code error_message}, the {@code stdout}/{@code stderr} fields,
     * an output object holding an error, and the sidecar {@code stdout.txt}/{@code stderr.txt} (by arm section when
     * the runner wrote {@code === BASELINE ===} headers).
     */
    private static Extracted runner(FormatDetector.Detection det, JsonNode root, Map<String, String> sidecars)
            throws WrongShape {
        JsonNode result = root.get("result");
        if (result == null || !result.isObject()) {
            throw new WrongShape("not a runner result: no 'result' object");
        }
        JsonNode instance = obj(root, "instance");
        boolean micro = det.format() == LegacyFormat.R11;
        String commit = firstNonNull(text(result, "commit_hash"), text(instance, "commit_hash"), det.commit());
        String status = text(result, "status");
        String error = firstText(result, "error_message", "error");
        String patchAgent = null;
        String patchPath = text(result, "patch_path");
        if (patchPath != null) {
            Matcher m = PATCH_AGENT.matcher(patchPath);
            if (m.find()) {
                patchAgent = io.isobench.Arm.normalizeAgent(m.group(1));
            }
        }
        String engine = "sglang".equalsIgnoreCase(text(instance, "repo")) ? "sglang" : det.engine();
        String perf = firstNonNull(text(result, "perf_command"), text(instance, "perf_command"));
        Mode mode = micro ? Mode.MICRO : Mode.fromLabel(text(result, "benchmark_type"))
                .filter(m -> m != Mode.MICRO).or(() -> Mode.ofCommand(perf)).orElse(null);
        String named = failingArm(status, error);
        List<String[]> arms = new ArrayList<>();
        arms.add(new String[] {"baseline", "baseline"});
        if ("human".equals(named)) {
            arms.add(new String[] {"human", "human"});
        }
        arms.add(new String[] {"agent", "patched"});
        List<Section> sections = new ArrayList<>();
        for (Map.Entry<String, String> sc : sidecars.entrySet()) {
            splitSections(sc.getKey(), sc.getValue(), sections);
        }
        List<RunDraft> runs = new ArrayList<>();
        String firstFailed = null;
        for (String[] pair : arms) {
            RunDraft d = new RunDraft();
            d.arm = pair[0];
            d.commit = commit;
            d.mode = mode;
            d.agentOverride = patchAgent;
            d.sourceStatus = status;
            d.sourceError = error;
            putIfText(d, "source_status", status);
            putIfText(d, "source_error", error);
            putIfText(d, "patch_path", patchPath);
            putIfText(d, "perf_command", perf);
            d.extra.put("engine", engine);
            boolean ran;
            if (micro) {
                d.kind = RunKind.MICRO;
                JsonNode out = result.get(pair[1] + "_output");
                RawText.Found avg = number(out, "avg_ms");
                if (avg == null) {
                    avg = number(result, pair[1] + "_ms");
                }
                RawText.Found p50 = number(out, "p50_ms");
                if (avg != null) {
                    d.primary = new RunDraft.Value(avg, "json");
                    d.metrics.put("micro_avg_ms", avg.value().doubleValue());
                }
                if (p50 != null) {
                    d.metrics.put("micro_p50_ms", p50.value().doubleValue());
                }
                if (result.has("speedup") && !result.get("speedup").isNull()) {
                    d.extra.set("speedup", result.get("speedup"));
                }
                d.raw = text(result, "stdout");
                ran = avg != null || out != null && !out.isNull();
                if (out != null && out.isObject() && out.hasNonNull("error")) {
                    d.console.put(pair[1] + "_output.error", text(out, "error"));
                }
            } else {
                JsonNode m = result.get(pair[1] + "_metrics");
                String raw = text(m, "raw_output");
                d.raw = raw;
                evaluate(d, m == null || m.isNull() ? null : m, new RawText(raw, false), mode);
                ran = m != null && !m.isNull();
            }
            if (d.primary != null) {
                d.status = RunStatus.SUCCESS;
                runs.add(d);
                continue;
            }
            boolean charged;
            if (named != null) {
                charged = named.equals(d.arm) || ran;
            } else if (isSuccess(status)) {
                charged = true;
                d.notes.add("the source said 'success' but no primary metric was found");
            } else {
                // the first arm without a value failed; an arm after it that left no record never ran
                charged = firstFailed == null || ran;
            }
            if (charged) {
                d.status = RunStatus.FAILED;
                firstFailed = firstFailed == null ? d.arm : firstFailed;
                d.failureError = error;
                if (micro) {
                    putConsole(d, "stdout", text(result, "stdout"));
                    putConsole(d, "stderr", text(result, "stderr"));
                }
                boolean own = sections.stream().anyMatch(sc -> sc.isFor(pair[1], d.arm));
                for (Section sc : sections) {
                    if (own ? sc.isFor(pair[1], d.arm) : sc.arm() == null) {
                        putConsole(d, sc.label(), sc.text());
                    }
                }
            } else {
                String first = named != null ? named : firstFailed;
                notRun(d, "the " + (first == null ? "baseline" : first) + " arm failed first", status, error);
            }
            runs.add(d);
        }
        TaskInfo task = new TaskInfo(commit, null, text(instance, "commit_subject"), text(instance, "perf_command"),
                null, null, engine);
        return new Extracted(runs, task, micro ? "micro" : "native_runner", List.of());
    }

    /** A part of a runner log: the section of one arm ({@code === BASELINE ===}), or text outside any section. */
    record Section(String label, String arm, String text) {

        boolean isFor(String side, String arm) {
            return side.equals(this.arm) || arm.equals(this.arm);
        }
    }

    /**
     * Splits a runner log into its arm sections ({@code === BASELINE ===}, {@code === PATCHED ===}…); text before any
     * header (or a log without headers) belongs to no arm.
     */
    static void splitSections(String name, String text, List<Section> out) {
        if (text == null || text.isBlank()) {
            return;
        }
        Matcher m = SECTION.matcher(text);
        int last = 0;
        String arm = null;
        while (m.find()) {
            add(out, name, arm, text.substring(last, m.start()));
            arm = m.group(1).toLowerCase(Locale.ROOT);
            last = m.end();
        }
        add(out, name, arm, text.substring(last));
    }

    private static void add(List<Section> out, String name, String arm, String part) {
        if (!part.isBlank()) {
            out.add(new Section(arm == null ? name : name + " [" + arm + "]", arm, part));
        }
    }

    private static void putConsole(RunDraft d, String label, String text) {
        if (text != null && !text.isBlank()) {
            d.console.put(label, text);
        }
    }

    /**
     * The arm a status or error names as the one that failed: {@code baseline_failed} / {@code patched_timeout} by
     * prefix, else the only arm word in the error's first line ("No wheel for human …", "Failed to install baseline
     * wheel"); a setup status naming no arm ({@code no_wheel}, {@code no_perf_command}) charges the first arm,
     * baseline. Null when nothing names one. {@code patched} is the agent arm.
     */
    static String failingArm(String status, String error) {
        if (status != null) {
            Matcher m = ARM_STATUS.matcher(status.strip());
            if (m.find()) {
                return armOf(m.group(1));
            }
        }
        if (error != null && !error.isBlank()) {
            String first = error.strip().lines().findFirst().orElse("");
            Matcher m = ARM_WORD.matcher(first.length() > 300 ? first.substring(0, 300) : first);
            String found = null;
            while (m.find()) {
                String a = armOf(m.group(1));
                if (found != null && !found.equals(a)) {
                    found = null;
                    break;
                }
                found = a;
            }
            if (found != null) {
                return found;
            }
        }
        if (status != null && SETUP_STATUSES.contains(status.strip().toLowerCase(Locale.ROOT))) {
            return "baseline";
        }
        return null;
    }

    private static String armOf(String word) {
        String w = word.toLowerCase(Locale.ROOT);
        return w.equals("patched") ? "agent" : w;
    }

    /** Marks an arm as never run, with the reason (never a failure). */
    static void notRun(RunDraft d, String why, String status, String error) {
        d.status = RunStatus.NOT_RUN;
        StringBuilder r = new StringBuilder("not run: ").append(why);
        if (status != null || error != null) {
            r.append(" (");
            if (status != null) {
                r.append("status ").append(status);
            }
            if (error != null) {
                String e = error.strip().lines().findFirst().orElse("");
                r.append(status != null ? ": " : "").append(e.length() > 200 ? e.substring(0, 200) + "…" : e);
            }
            r.append(')');
        }
        d.notRunReason = r.toString();
    }

    /** A stdout/stderr file with no result JSON beside it: one failed run whose evidence is the file. */
    static Extracted sidecarOnly(FormatDetector.Detection det, String text, boolean micro) {
        RunDraft d = new RunDraft();
        d.arm = "baseline";
        d.commit = det.commit();
        d.kind = micro ? RunKind.MICRO : RunKind.LEGACY;
        d.mode = micro ? Mode.MICRO : null;
        d.status = RunStatus.FAILED;
        d.raw = text;
        d.notes.add("no result JSON beside this log: the first (baseline) run failed before writing one");
        return new Extracted(List.of(d), new TaskInfo(d.commit, null, null, null, null, null, det.engine()),
                micro ? "micro" : "native_runner", List.of());
    }

    // ---------------------------------------------------------------- what the old system published

    /**
     * The improvements the old harness published in a modal result ({@code human_improvement}, {@code
     * agent_improvement}, {@code agent_vs_human}: percent by its own metric names) and the stored values they came
     * from, for the report's list of corrections. Null when it published none.
     */
    static ObjectNode publishedModal(JsonNode result) {
        ObjectNode p = LenientJson.MAPPER.createObjectNode();
        copyNumbers(result.get("human_improvement"), p, "human");
        copyNumbers(result.get("agent_improvement"), p, "agent");
        copyNumbers(result.get("agent_vs_human"), p, "agent_vs_human");
        if (p.isEmpty()) {
            return null;
        }
        ObjectNode values = p.putObject("values");
        for (String arm : ARMS) {
            copyNumbers(result.get(arm + "_metrics"), values, arm);
        }
        p.put("source", "the result file's *_improvement fields");
        return p;
    }

    /** A rerun's {@code analysis}: its primary metric, the three values and the two improvements it published. */
    static ObjectNode publishedAnalysis(JsonNode analysis) {
        String metric = text(analysis, "primary_metric");
        if (metric == null) {
            return null;
        }
        ObjectNode p = LenientJson.MAPPER.createObjectNode();
        ObjectNode values = LenientJson.MAPPER.createObjectNode();
        for (String arm : ARMS) {
            RawText.Found v = number(analysis, arm + "_value");
            if (v != null) {
                values.putObject(arm).put(metric, v.value());
            }
            RawText.Found imp = number(analysis, arm + "_improvement_pct");
            if (imp != null) {
                p.putObject(arm).put(metric, imp.value());
            }
        }
        if (p.isEmpty()) {
            return null;
        }
        p.set("values", values);
        p.put("source", "the rerun's analysis");
        return p;
    }

    private static void copyNumbers(JsonNode from, ObjectNode to, String key) {
        if (from == null || !from.isObject()) {
            return;
        }
        ObjectNode o = null;
        Iterator<Map.Entry<String, JsonNode>> it = from.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isNumber()) {
                if (o == null) {
                    o = to.putObject(key);
                }
                o.set(e.getKey(), e.getValue());
            }
        }
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
            ParsedOutput parsed = OutputParser.parse(rt.text(), d.truncation);
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

    // ---------------------------------------------------------------- JSON helpers

    static JsonNode at(JsonNode node, String dotted) {
        JsonNode cur = node;
        for (String part : dotted.split("\\.")) {
            if (cur == null || !cur.isObject()) {
                return null;
            }
            cur = cur.get(part);
        }
        return cur;
    }

    static RawText.Found number(JsonNode node, String dotted) {
        JsonNode v = node == null ? null : at(node, dotted);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isNumber()) {
            BigDecimal d = v.decimalValue();
            return new RawText.Found(d, d.toPlainString());
        }
        if (v.isTextual()) {
            return RawText.decimal(v.asText());
        }
        return null;
    }

    static RawText.Found firstNumber(JsonNode node, String... keys) {
        if (node == null) {
            return null;
        }
        for (String k : keys) {
            RawText.Found f = number(node, k);
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    private static boolean hasAny(JsonNode node, String... keys) {
        for (String k : keys) {
            JsonNode v = at(node, k);
            if (v != null && !v.isNull()) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasNumericTopLevel(JsonNode node) {
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isNumber() && !e.getKey().equals("duration_s")) {
                return true;
            }
        }
        return false;
    }

    static String text(JsonNode node, String key) {
        if (node == null || !node.isObject()) {
            return null;
        }
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }

    static String firstText(JsonNode node, String... keys) {
        for (String k : keys) {
            String t = text(node, k);
            if (t != null && !t.isBlank()) {
                return t;
            }
        }
        return null;
    }

    private static JsonNode obj(JsonNode node, String key) {
        JsonNode v = node.get(key);
        return v != null && v.isObject() ? v : null;
    }

    @SafeVarargs
    static <T> T firstNonNull(T... values) {
        for (T v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    private static Double seconds(JsonNode node, String key) {
        RawText.Found f = number(node, key);
        return f == null ? null : f.value().doubleValue() * 1000.0;
    }

    private static String lastLine(String s) {
        if (s == null) {
            return null;
        }
        String[] lines = s.strip().split("\n");
        return lines[lines.length - 1].strip();
    }

    private static void putIfText(RunDraft d, String key, String value) {
        if (value != null) {
            d.extra.put(key, value);
        }
    }

    static boolean isSuccess(String status) {
        return status != null && status.equalsIgnoreCase("success");
    }

    private static String join(String... parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (p != null && !p.isBlank()) {
                if (!sb.isEmpty()) {
                    sb.append('\n');
                }
                sb.append(p);
            }
        }
        return sb.isEmpty() ? null : sb.toString();
    }
}
