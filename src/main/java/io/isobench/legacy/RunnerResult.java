package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Mode;
import io.isobench.legacy.Extractor.Extracted;
import io.isobench.legacy.Extractor.TaskInfo;
import io.isobench.legacy.Extractor.WrongShape;
import io.isobench.store.RunRecord.RunKind;
import io.isobench.store.RunRecord.RunStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.isobench.legacy.Extractor.evaluate;
import static io.isobench.legacy.FailedArm.failingArm;
import static io.isobench.legacy.FailedArm.notRun;
import static io.isobench.legacy.LegacyJson.firstNonNull;
import static io.isobench.legacy.LegacyJson.firstText;
import static io.isobench.legacy.LegacyJson.isSuccess;
import static io.isobench.legacy.LegacyJson.number;
import static io.isobench.legacy.LegacyJson.obj;
import static io.isobench.legacy.LegacyJson.putIfText;
import static io.isobench.legacy.LegacyJson.text;

/** R11 / R12: the two-arm runner results (micro-benchmark, native runner) and a runner log with no result beside it. */
final class RunnerResult {

    /** Section headers the native runner writes into its stdout.txt / stderr.txt, one per arm. */
    private static final Pattern SECTION = Pattern.compile("^=== (BASELINE|HUMAN|AGENT|PATCHED)\\b[^\\n]*===\\s*$",
            Pattern.MULTILINE | Pattern.CASE_INSENSITIVE);
    private static final Pattern PATCH_AGENT = Pattern.compile("/runs/[^/]+/([^/]+)/");

    private RunnerResult() {
    }

    /**
     * A two-arm runner result (R11 micro-benchmark, R12 native runner): baseline, and the patched version as the agent
     * arm. A status or error that names the failing arm ({@code baseline_failed}, "No wheel for human …") charges that
     * arm only (a human arm appears only when it is named); an arm that never ran is {@code NOT_RUN} with the reason.
     * The cause is read wherever the file keeps it: {@code error_message}, the {@code stdout}/{@code stderr} fields,
     * an output object holding an error, and the sidecar {@code stdout.txt}/{@code stderr.txt} (by arm section when
     * the runner wrote {@code === BASELINE ===} headers).
     */
    static Extracted runner(FormatDetector.Detection det, JsonNode root, Map<String, String> sidecars)
            throws WrongShape {
        JsonNode result = root.get("result");
        if (result == null || !result.isObject()) {
            throw new WrongShape("not a runner result: no 'result' object");
        }
        JsonNode instance = obj(root, "instance");
        // the evaluation harness of agent patches (eval_results_v2/**/test_results.json) names the commits, the
        // agent and the model in `metadata`
        JsonNode metadata = obj(root, "metadata");
        boolean micro = det.format() == LegacyFormat.R11;
        String commit = firstNonNull(text(result, "commit_hash"), text(instance, "commit_hash"),
                hex(text(metadata, "human_commit")), det.commit());
        String status = text(result, "status");
        String error = firstText(result, "error_message", "error");
        String patchAgent = null;
        String patchPath = firstNonNull(text(result, "patch_path"), text(metadata, "patch_path"));
        if (patchPath != null) {
            Matcher m = PATCH_AGENT.matcher(patchPath);
            if (m.find()) {
                patchAgent = io.isobench.Arm.normalizeAgent(m.group(1));
            }
        }
        String metaAgent = text(metadata, "agent");
        if (metaAgent != null && !metaAgent.isBlank()) {
            patchAgent = io.isobench.Arm.normalizeAgent(metaAgent);
        }
        String model = text(metadata, "model");
        String engine = "sglang".equalsIgnoreCase(text(instance, "repo"))
                || "sglang".equalsIgnoreCase(text(metadata, "repo")) ? "sglang" : det.engine();
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
            d.model = model;
            d.engine = RunDraft.engineOf(perf);
            d.sourceStatus = status;
            d.sourceError = error;
            putIfText(d, "source_status", status);
            putIfText(d, "source_error", error);
            putIfText(d, "patch_path", patchPath);
            putIfText(d, "perf_command", perf);
            putIfText(d, "task_id", text(metadata, "task_id"));
            putIfText(d, "item_id", text(metadata, "item_id"));
            putIfText(d, "agent_status", text(metadata, "agent_status"));
            putIfText(d, "parent_commit", hex(text(metadata, "pre_commit")));
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
            JsonNode stored = micro ? null : result.get(pair[1] + "_metrics");
            if (isSuccess(status) && !micro && ArmOutcomes.parsed(d, stored)) {
                ArmOutcomes.succeededWithoutPrimary(d, stored); // docs/parsing.md "Success without a primary metric"
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
        TaskInfo task = new TaskInfo(commit, hex(text(metadata, "pre_commit")), text(instance, "commit_subject"),
                text(instance, "perf_command"), null, null, engine);
        return new Extracted(runs, task, micro ? "micro" : "native_runner", List.of());
    }

    /** A commit id as written (7 to 40 hex, lower case), or null for anything else. */
    private static String hex(String s) {
        if (s == null) {
            return null;
        }
        String t = s.strip().toLowerCase(Locale.ROOT);
        return t.matches("[0-9a-f]{7,40}") ? t : null;
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
        return new Extracted(List.of(d), TaskInfo.commits(d.commit, null, det.engine()),
                micro ? "micro" : "native_runner", List.of());
    }
}
