package io.isobench.parse;

import java.util.List;

/** A classified failure: one category, a short detail, the evidence line(s), retryability from the category. */
public record Failure(FailureCategory category, String detail, List<String> evidence) {

    public Failure {
        if (category == null) {
            throw new IllegalArgumentException("failure category must not be null");
        }
        detail = detail == null ? "" : detail;
        evidence = evidence == null ? List.of() : List.copyOf(evidence);
    }

    public boolean retryable() {
        return category.retryable();
    }

    /** First evidence line, or the detail when there is none. */
    public String firstEvidence() {
        return evidence.isEmpty() ? detail : evidence.get(0);
    }
}
