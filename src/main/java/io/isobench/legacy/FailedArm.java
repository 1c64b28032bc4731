package io.isobench.legacy;

import io.isobench.store.RunRecord.RunStatus;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which arm a legacy status or error charges with the failure, and the arms that therefore never ran. */
final class FailedArm {

    private static final Pattern ARM_WORD = Pattern.compile("\\b(baseline|human|agent|patched)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern ARM_STATUS = Pattern.compile("^(baseline|human|agent|patched)_", Pattern.CASE_INSENSITIVE);
    /**
     * Statuses of a task the harness could not even set up: nothing ran. The first arm (baseline) carries the failure,
     * the others did not run (unless the error names another arm, as in "No wheel for human …").
     */
    private static final java.util.Set<String> SETUP_STATUSES =
            java.util.Set.of("no_wheel", "wheel_install_failed", "no_perf_command", "install_failed", "build_failed");

    private FailedArm() {
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
}
