package io.isobench.legacy;

import io.isobench.parse.Failure;
import io.isobench.parse.FailureClassifier;
import io.isobench.store.RunRecord;

/** Classifies the failure of a failed legacy run with {@link FailureClassifier} (status, error text, raw log). */
final class Failures {

    private Failures() {
    }

    /** The failure of a run, or null when the classifier sees none (e.g. the raw text holds metrics). */
    static RunRecord.FailureInfo classify(RunDraft d) {
        return FailureClassifier.classify(d.sourceStatus, d.failureError, d.raw)
                .map(Failures::info)
                .orElse(null);
    }

    static RunRecord.FailureInfo info(Failure f) {
        return new RunRecord.FailureInfo(f.category().name(), f.detail(), String.join("\n", f.evidence()),
                f.retryable());
    }
}
