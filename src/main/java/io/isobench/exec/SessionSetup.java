package io.isobench.exec;

import io.isobench.proc.ProcessGroup;
import io.isobench.IsobenchException;
import io.isobench.plan.Plan;
import io.isobench.plan.SetupStep;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs a plan's setup steps once per session, before the environments: the clone of a git bundle (skipped when an
 * earlier session made it) and the suite's {@code setup:} commands, each without a shell in the work folder, in its
 * own process group, with a time limit. A step that fails stops the session: nothing can be measured without it.
 */
public final class SessionSetup {

    private SessionSetup() {
    }

    /** Runs the plan's setup steps; each step's line goes to {@code say}; a failing step throws. */
    public static void run(Plan plan, int limitS, Consumer<String> say) {
        for (SetupStep step : plan.setup()) {
            if (step.creates() != null && Files.exists(step.creates())) {
                say.accept("setup " + step.what() + ": " + step.creates() + " exists (an earlier session made it)");
                continue;
            }
            long t0 = System.nanoTime();
            String log = run(step, limitS);
            say.accept(String.format(Locale.ROOT, "setup %s: %s (%.1f s)", step.what(), String.join(" ", step.argv()),
                    (System.nanoTime() - t0) / 1e9));
            if (log != null) {
                throw new IsobenchException.EnvironmentMissing("setup step failed: " + String.join(" ", step.argv())
                        + " — " + log + " (fix: run it by hand in " + step.cwd() + " to see why)");
            }
        }
    }

    /** Null when the step succeeded, else why not (exit code and the last lines of its output). */
    private static String run(SetupStep step, int limitS) {
        Path log = null;
        try {
            Files.createDirectories(step.cwd());
            log = LocalExecutor.logFile(step.cwd(), "setup-");
            ProcessGroup pg;
            try {
                pg = ProcessGroup.start(step.argv(), step.cwd(), Map.of(), log);
            } catch (IOException e) {
                return "cannot start " + step.argv().get(0) + ": " + e.getMessage();
            }
            Integer exit;
            try {
                exit = pg.waitFor(Duration.ofSeconds(limitS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exit = null;
            } finally {
                pg.terminate(Duration.ofSeconds(2));
            }
            if (exit != null && exit == 0) {
                return null;
            }
            List<String> tail = LocalExecutor.tail(ProcessGroup.readLog(log));
            return (exit == null ? "timed out after " + limitS + " s" : "exited with " + exit)
                    + (tail.isEmpty() ? "" : ": " + String.join(" | ", tail));
        } catch (IOException e) {
            return e.getMessage();
        } finally {
            if (log != null) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException e) {
                    // temp file
                }
            }
        }
    }
}
