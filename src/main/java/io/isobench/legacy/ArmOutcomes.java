package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Mode;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunRecord.RunStatus;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static io.isobench.legacy.FailedArm.ATTEMPT;
import static io.isobench.legacy.FailedArm.failingArm;
import static io.isobench.legacy.FailedArm.firstLine;
import static io.isobench.legacy.FailedArm.noPatch;
import static io.isobench.legacy.FailedArm.notRun;
import static io.isobench.legacy.FailedArm.notRunAfterHarness;
import static io.isobench.legacy.FailedArm.runningArm;
import static io.isobench.legacy.FailedArm.skippedByHarness;
import static io.isobench.legacy.LegacyJson.hasNumericTopLevel;
import static io.isobench.legacy.LegacyJson.isSuccess;
import static io.isobench.legacy.LegacyJson.join;

/**
 * The status of each arm of one modal-schema invocation (docs/parsing.md, "Whose failure is it: arm or harness" and
 * "Success without a primary metric"). Guarantees: an invocation's failure event is charged to exactly one arm, or to
 * one extra run with arm label {@code attempt} when no arm was running; an arm with a value, or with parsed output
 * its source accepted, is a success; an arm that left no record is never a failure.
 */
final class ArmOutcomes {

    /** One arm as extracted: its draft (values filled), its stored metrics object (or null) and its own error. */
    record ArmFacts(RunDraft draft, JsonNode metrics, String armError) {

        boolean hasValue() {
            return draft.primary != null;
        }

        /** The arm left a record: non-empty stored metrics, console text or an error of its own ({} is a placeholder). */
        boolean recorded() {
            return metrics != null && metrics.isObject() && !metrics.isEmpty()
                    || draft.raw != null && !draft.raw.isBlank() || armError != null;
        }
    }

    private ArmOutcomes() {
    }

    /**
     * The arm an invocation's failure is charged to: the arm its status or error names; else the arm the harness's
     * own progress lines say it was running; else the first arm (baseline, human, agent) that left a record but no
     * value; else {@link FailedArm#ATTEMPT} (outside any arm). Null when the invocation did not fail (status
     * {@code success}, or {@code no_patch}: no agent patch, nothing failed).
     */
    static String charged(String status, String error, List<ArmFacts> arms) {
        if (isSuccess(status) || noPatch(status)) {
            return null;
        }
        String named = failingArm(status, error);
        if (named != null) {
            return named;
        }
        String running = runningArm(error);
        for (ArmFacts a : arms) {
            if (a.draft().arm.equals(running) && !a.hasValue()) {
                return running;
            }
        }
        for (ArmFacts a : arms) {
            if (a.recorded() && !a.hasValue()) {
                return a.draft().arm;
            }
        }
        return ATTEMPT;
    }

    /**
     * Sets the status of every arm, and returns the failed {@code attempt} run when the failure is charged to no arm
     * ({@code template} gives its commit, mode, kind and extra), else null.
     */
    static RunDraft decide(String status, String error, List<ArmFacts> arms, RunDraft template) {
        String charged = charged(status, error, arms);
        RunDraft attempt = null;
        String category = null;
        if (ATTEMPT.equals(charged)) {
            attempt = attemptRun(status, error, template);
            category = Failures.classify(attempt).category();
        }
        int chargedAt = charged == null || ATTEMPT.equals(charged) ? Extractor.ARMS.length : indexOf(charged);
        for (int i = 0; i < arms.size(); i++) {
            ArmFacts a = arms.get(i);
            RunDraft d = a.draft();
            boolean stored = a.metrics() != null && a.metrics().isObject() && hasNumericTopLevel(a.metrics());
            // the harness stops at the first failure: an arm before the charged one passed in its eyes
            boolean accepted = a.armError() == null && (isSuccess(status) || i < chargedAt || d.mode == null && stored);
            if (d.primary != null) {
                d.status = RunStatus.SUCCESS;
            } else if (d.arm.equals("agent") && skippedByHarness(a.armError())) {
                d.status = RunStatus.SKIPPED;
                d.notRunReason = "skipped by the harness: " + firstLine(a.armError());
            } else if (accepted && parsed(d, a.metrics())) {
                succeededWithoutPrimary(d, a.metrics());
            } else if (d.arm.equals(charged)) {
                d.status = RunStatus.FAILED;
                d.failureError = join(a.armError(), error);
            } else if (a.recorded()) {
                // its own failure: the invocation's status and error belong to the arm (or attempt) they are charged to
                d.status = RunStatus.FAILED;
                d.failureError = a.armError();
                if (charged != null) {
                    d.sourceStatus = null;
                }
            } else if (noPatch(status)) {
                notRun(d, d.arm.equals("agent") ? "no agent patch" : "the harness stopped: there was no agent patch",
                        status, error);
            } else if (attempt != null) {
                notRunAfterHarness(d, category, firstLine(error));
            } else if (charged != null) {
                notRun(d, "the " + charged + " arm failed first", status, error);
            } else {
                notRun(d, "no record of this arm in a successful invocation", null, null);
            }
        }
        return attempt;
    }

    private static int indexOf(String arm) {
        for (int i = 0; i < Extractor.ARMS.length; i++) {
            if (Extractor.ARMS[i].equals(arm)) {
                return i;
            }
        }
        return Extractor.ARMS.length;
    }

    /** The failure of the whole attempt: a run of its own, arm label {@code attempt}, no console text. */
    private static RunDraft attemptRun(String status, String error, RunDraft template) {
        RunDraft d = new RunDraft();
        d.arm = ATTEMPT;
        d.index = template.index;
        d.kind = template.kind;
        d.commit = template.commit;
        d.mode = template.mode;
        d.model = template.model;
        d.engine = template.engine;
        d.sourceStatus = status;
        d.sourceError = error;
        d.failureError = error;
        d.status = RunStatus.FAILED;
        d.extra = template.extra.deepCopy();
        d.extra.remove(List.of("arm_error", "published", "parse_warnings"));
        d.notes.add("a failure of the attempt, outside any arm: no arm was running (docs/parsing.md)");
        return d;
    }

    /**
     * True when an arm's output parsed although it has no primary value: stored metrics with a number, a serving
     * result block, or any metric the output parser read from the console text.
     */
    static boolean parsed(RunDraft d, JsonNode json) {
        return json != null && json.isObject() && hasNumericTopLevel(json) || d.servingBlock || !d.metrics.isEmpty();
    }

    /** Marks a run a success without its primary metric, with the note saying why it has none. */
    static void succeededWithoutPrimary(RunDraft d, JsonNode json) {
        d.status = RunStatus.SUCCESS;
        d.notes.add("no primary metric: " + noPrimaryReason(d, json));
    }

    /** Why a run that parsed has no primary value ("the serving block of this benchmark version has no TPOT"). */
    static String noPrimaryReason(RunDraft d, JsonNode json) {
        if (d.mode == null) {
            return "the mode is unknown";
        }
        if (d.mode == Mode.SERVING && d.servingBlock) {
            return "the serving block of this benchmark version has no TPOT";
        }
        List<String> keys = new ArrayList<>();
        numericKeys(json, "", keys);
        numericKeys(json == null ? null : json.get("metrics"), "metrics.", keys);
        if (keys.isEmpty()) {
            keys.addAll(d.metrics.keySet().stream().limit(4).toList());
        }
        return "the output holds no " + MetricDictionary.primaryMetric(d.mode) + " for mode " + d.mode.label()
                + (keys.isEmpty() ? "" : " (it has " + String.join(", ", keys) + ")");
    }

    private static void numericKeys(JsonNode node, String prefix, List<String> out) {
        if (node == null || !node.isObject()) {
            return;
        }
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext() && out.size() < 4) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isNumber() && !e.getKey().equals("duration_s")) {
                out.add(prefix + e.getKey());
            }
        }
    }
}
