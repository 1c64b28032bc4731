package io.isobench.legacy;

import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.OutputParser;
import io.isobench.store.RunRecord;

import java.util.Map;
import java.util.Optional;

/**
 * Classifies the failure of a failed legacy run with {@link FailureClassifier} (status, error text, and every console
 * text the file keeps for the arm), with the generic table and the run's engine's own lines ({@link RunDraft#engine},
 * picked by its command). Every failed run gets a category.
 */
final class Failures {

    private Failures() {
    }

    /** The failure of a failed run; never null. */
    static RunRecord.FailureInfo classify(RunDraft d) {
        Optional<Failure> f = FailureClassifier.classify(d.sourceStatus, d.failureError, console(d),
                d.engine.failureSignatures());
        if (f.isPresent() && f.get().category() == FailureCategory.UNKNOWN && "exception".equalsIgnoreCase(
                d.sourceStatus == null ? null : d.sourceStatus.strip())) {
            // The old harness's catch-all: an exception its own process raised (not an arm's output) that no
            // signature names is the harness's failure (docs/parsing.md, "Whose failure is it: arm or harness").
            Failure u = f.get();
            return new RunRecord.FailureInfo(FailureCategory.HARNESS_ERROR.name(),
                    "the old harness raised an exception of its own (status exception)", String.join("\n", u.evidence()),
                    FailureCategory.HARNESS_ERROR.retryable());
        }
        if (f.isPresent()) {
            return info(f.get());
        }
        // The classifier sees no failure when the output holds metrics or the source said success: the run ran and
        // printed something, but not the primary metric of its mode.
        String why = d.mode == null ? "the run's mode is unknown and no primary metric was found"
                : "the output holds no primary metric for mode " + d.mode.label();
        boolean printed = d.raw != null && d.engine.readConsole(d.raw, OutputParser.Truncation.NONE).hasMetrics();
        String evidence = (printed ? "the output parsed, but " : d.sourceStatus == null ? ""
                : "the source said '" + d.sourceStatus + "', but ") + why;
        return new RunRecord.FailureInfo(FailureCategory.NO_METRICS.name(), "ran without a result: " + why, evidence,
                FailureCategory.NO_METRICS.retryable());
    }

    static RunRecord.FailureInfo info(Failure f) {
        return new RunRecord.FailureInfo(f.category().name(), f.detail(), String.join("\n", f.evidence()),
                f.retryable());
    }

    /** The run's console text: the raw output, then each further console text under a {@code === label ===} line. */
    static String console(RunDraft d) {
        if (d.console.isEmpty()) {
            return d.raw;
        }
        StringBuilder sb = new StringBuilder();
        if (d.raw != null && !d.raw.isBlank()) {
            sb.append(d.raw);
        }
        for (Map.Entry<String, String> e : d.console.entrySet()) {
            if (!sb.isEmpty() && sb.charAt(sb.length() - 1) != '\n') {
                sb.append('\n');
            }
            sb.append("=== ").append(e.getKey()).append(" ===\n").append(e.getValue());
        }
        return sb.toString();
    }

    /**
     * Everything the classifier read for a failed run, whole (the evidence field is its summary): status, error and
     * console text. Null when the run's log already is all of it.
     */
    static String evidenceText(RunDraft d) {
        boolean noError = d.failureError == null || d.failureError.isBlank();
        if (noError && d.console.isEmpty()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        if (d.sourceStatus != null) {
            sb.append("status: ").append(d.sourceStatus).append('\n');
        }
        section(sb, "error", d.failureError);
        section(sb, "output", d.raw);
        d.console.forEach((label, text) -> section(sb, label, text));
        return sb.toString();
    }

    private static void section(StringBuilder sb, String label, String text) {
        if (text == null || text.isBlank()) {
            return;
        }
        sb.append("=== ").append(label).append(" ===\n").append(text);
        if (!text.endsWith("\n")) {
            sb.append('\n');
        }
    }
}
