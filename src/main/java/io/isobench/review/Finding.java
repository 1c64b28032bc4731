package io.isobench.review;

import java.util.Locale;
import java.util.Objects;

/**
 * One patch-review finding: the check, its severity (ERROR when the review config says the check fails the arm,
 * WARNING otherwise), the file ("" for patch-wide findings), a one-line reason naming the offending value, and the
 * evidence: the whole hunk (or the file's diff header, or a diffstat for patch-wide findings), never truncated.
 */
public record Finding(Check check, Severity severity, String file, String reason, String evidenceHunk) {

    public enum Severity {
        ERROR, WARNING;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Finding {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(evidenceHunk, "evidenceHunk");
    }

    /** {@code BENCHMARK_EDIT benchmarks/x.py: reason}, the form used in SUSPICIOUS_PATCH reasons. */
    public String oneLine() {
        return check + (file.isEmpty() ? "" : " " + file) + ": " + reason;
    }
}
