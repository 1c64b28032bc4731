package io.isobench.legacy;

import io.isobench.store.RunRecord.RunStatus;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Which arm a legacy status or error charges with the failure, and the arms that therefore never ran. */
final class FailedArm {

    private static final Pattern ARM_WORD = Pattern.compile("\\b(baseline|human|agent|patched)\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern ARM_STATUS = Pattern.compile("^(baseline|human|agent|patched)_", Pattern.CASE_INSENSITIVE);
    /** A status word with one arm word between underscores ({@code no_baseline_wheel}). */
    private static final Pattern ARM_TOKEN =
            Pattern.compile("[a-z]+_(baseline|human|agent|patched)_[a-z_]+", Pattern.CASE_INSENSITIVE);
    /** The old harness's progress line for the arm it starts ("[1/3] Running BASELINE benchmark..."). */
    private static final Pattern RUNNING = Pattern.compile("Running (BASELINE|HUMAN|AGENT|PATCHED) benchmark");
    /** The old harness's own skip of the agent arm ("Patch contains only non-Python files (skipped: …)"). */
    private static final Pattern SKIPPED =
            Pattern.compile("Patch contains only non-Python files", Pattern.CASE_INSENSITIVE);
    /** The arm label of a failure of the whole attempt, charged to no arm. */
    static final String ATTEMPT = "attempt";
    /**
     * Statuses of a task the harness could not even set up: nothing ran. The first arm (baseline) carries the failure,
     * the others did not run (unless the error names another arm, as in "No wheel for human …").
     */
    private static final Set<String> SETUP_STATUSES =
            Set.of("no_wheel", "wheel_install_failed", "no_perf_command", "install_failed", "build_failed");

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
            Matcher w = ARM_TOKEN.matcher(status.strip());
            if (w.matches()) {
                return armOf(w.group(1)); // no_baseline_wheel
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

    /**
     * The arm the harness was running when its error was written: the last "Running X benchmark" progress line the
     * error quotes (its captured stdout), or null.
     */
    static String runningArm(String error) {
        if (error == null) {
            return null;
        }
        Matcher m = RUNNING.matcher(error);
        String last = null;
        while (m.find()) {
            last = armOf(m.group(1));
        }
        return last;
    }

    /** True when an arm's error says the harness skipped the arm on purpose (a patch with no Python file). */
    static boolean skippedByHarness(String armError) {
        return armError != null && SKIPPED.matcher(firstLine(armError)).find();
    }

    /** True for the status of an invocation that had no agent patch ({@code no_patch}): the agent arm never ran. */
    static boolean noPatch(String status) {
        return status != null && status.strip().equalsIgnoreCase("no_patch");
    }

    private static String armOf(String word) {
        String w = word.toLowerCase(Locale.ROOT);
        return w.equals("patched") ? "agent" : w;
    }

    /**
     * Marks an arm as never run because the attempt failed outside any arm before it started: the reason names the
     * attempt's category and the line that decided it.
     */
    static void notRunAfterHarness(RunDraft d, String category, String line) {
        d.status = RunStatus.NOT_RUN;
        d.notRunReason = "not run: the harness failed before this arm started (" + category
                + (line == null || line.isBlank() ? "" : ": " + cap(line)) + ")";
    }

    /** The first non-blank line of a text, stripped ("" for none). */
    static String firstLine(String text) {
        return text == null ? "" : text.strip().lines().findFirst().orElse("");
    }

    private static String cap(String line) {
        return line.length() > 200 ? line.substring(0, 200) + "…" : line;
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
