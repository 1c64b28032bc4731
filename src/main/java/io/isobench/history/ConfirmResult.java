package io.isobench.history;

import io.isobench.analysis.TaskAnalysis;
import io.isobench.track.Bisect;
import io.isobench.track.Confirmation;
import io.isobench.track.Direction;

import java.util.List;

/**
 * What one confirming session of a later commit against an earlier one gave (docs/statistics.md §21b): measured (its
 * task's analysis), or the later commit did not build, or the session failed otherwise.
 *
 * @param sessionId the confirming session
 * @param state     measured, later commit not built, or failed
 * @param analysis  the task's analysis when measured; null otherwise
 * @param failure   one line: why it did not measure (the failed run's arm, category and detail); null when measured
 * @param first     when this is the pair's second session (a candidate's after an inconclusive first,
 *                  {@link Confirmation#reopens}; a bisect step's after a first that did not settle,
 *                  {@link Confirmation#settles}): the first session, measured; null for a first session
 */
record ConfirmResult(String sessionId, State state, TaskAnalysis analysis, String failure, ConfirmResult first) {

    /** How a confirming session ended. */
    enum State {
        /** Both commits built and were compared: the verdict decides. */
        MEASURED,
        /** The later commit's build failed: nothing of it can be measured ({@code git bisect skip}). */
        LATER_NOT_BUILT,
        /** No comparison: a failed build of the earlier commit, failed runs, an incorrect output, an infra error. */
        FAILED
    }

    ConfirmResult {
        if ((state == State.MEASURED) != (analysis != null)) {
            throw new IllegalArgumentException("an analysis comes with a measured session, and only with one: "
                    + state);
        }
        if (first != null && (first.state() != State.MEASURED || first.first() != null)) {
            throw new IllegalArgumentException("a second session follows a measured first session");
        }
    }

    /** A pair's first session. */
    ConfirmResult(String sessionId, State state, TaskAnalysis analysis, String failure) {
        this(sessionId, state, analysis, failure, null);
    }

    /** This result as the second session of the pair whose first session was {@code earlier}. */
    ConfirmResult after(ConfirmResult earlier) {
        return new ConfirmResult(sessionId, state, analysis, failure, earlier);
    }

    /** The candidate decided by this session: its verdict in the candidate's direction, or rejected when it failed. */
    Confirmation.Status status(Direction candidate) {
        return state == State.MEASURED ? Confirmation.decide(candidate, analysis).status()
                : Confirmation.Status.REJECTED;
    }

    /**
     * A bisect step's answer against the confirmed change ({@code changePct}, later vs earlier commit, percent):
     * {@link Confirmation#carries} over this session and the first one before it (when this is a second session),
     * CARRIES or CLEAN; SKIP when the commit could not be measured against the good commit (its build failed, or the
     * session failed: the commit is not asked again, as {@code git bisect skip}).
     */
    Bisect.Answer answer(double changePct) {
        if (state != State.MEASURED) {
            return Bisect.Answer.SKIP;
        }
        return Confirmation.carries(changePct, analyses());
    }

    /** The measured sessions behind this answer: the first one (when this is the second), then this one. */
    List<TaskAnalysis> analyses() {
        return first == null ? List.of(analysis) : List.of(first.analysis(), analysis);
    }

    /**
     * One line: the verdict and its numbers ({@link ConfirmEvidence#of}), or the failure; a second session's line
     * ends with {@code ; second session (the first, ID: EVIDENCE)}.
     */
    String evidence() {
        String line = state == State.MEASURED ? ConfirmEvidence.of(analysis) : ConfirmEvidence.failed(state, failure);
        return first == null ? line : ConfirmEvidence.oneLine(line + "; second session (the first, " + first.sessionId()
                + ": " + first.evidence() + ")");
    }
}
