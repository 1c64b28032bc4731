package io.isobench.legacy;

import io.isobench.store.RunRecord;

/**
 * Classifies the failure of a failed legacy run.
 *
 * <p>TODO(parse): call {@code io.isobench.parse.FailureClassifier} (helper "parse") here once it lands on main.
 * Until then no category is invented: failed runs are stored with {@code failure = null} and their whole
 * evidence (error text and raw log) in the artifact table, so they can be classified later.
 */
final class Failures {

    private Failures() {
    }

    static RunRecord.FailureInfo classify(RunDraft d) {
        return null;
    }
}
