package io.isobench.task;

import java.util.Locale;
import java.util.Objects;

/**
 * One lint finding on a perf_command or task: a stable code (e.g. {@code PLACEHOLDER}), a severity and a one-line
 * message that names the offending value and, where there is one, the fix. A task with an {@code error} finding is
 * not run; it is reported with the finding.
 */
public record Finding(String code, Severity severity, String message) {

    public enum Severity {
        ERROR, WARNING;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Finding {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
    }

    public static Finding error(String code, String message) {
        return new Finding(code, Severity.ERROR, message);
    }

    public static Finding warning(String code, String message) {
        return new Finding(code, Severity.WARNING, message);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    @Override
    public String toString() {
        return severity.label() + " " + code + ": " + message;
    }
}
