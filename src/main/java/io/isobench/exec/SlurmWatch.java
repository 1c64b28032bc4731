package io.isobench.exec;

import io.isobench.proc.ProcessGroup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Watches one Slurm job: its files in the shared directory and (every second) its state. */
final class SlurmWatch {

    private static final long STATE_EVERY_MS = 250;

    private final SlurmCli cli;
    final String jobId;
    final Path dir;
    final Executor.Hooks hooks;
    SlurmCli.JobState state;
    long stateAt;
    long startedNs;

    SlurmWatch(SlurmCli cli, String jobId, Path dir, Executor.Hooks hooks) {
        this.cli = cli;
        this.jobId = jobId;
        this.dir = dir;
        this.hooks = hooks;
    }

    Path log() {
        return dir.resolve("slurm-" + jobId + ".log");
    }

    /**
     * The job left the queue: note the time and tell the session (no local process group:
     * {@link SlurmExecutor#NO_GROUP}).
     */
    void markStarted() {
        if (startedNs == 0) {
            startedNs = System.nanoTime();
            hooks.processGroupStarted().accept(SlurmExecutor.NO_GROUP);
        }
    }

    Integer exitCode() {
        try {
            Path f = dir.resolve("exit-" + jobId);
            return Files.exists(f) ? Integer.valueOf(Files.readString(f).strip()) : null;
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    /** {@code host port} the job wrote, or null. */
    String[] endpoint() {
        try {
            Path f = dir.resolve("endpoint-" + jobId);
            if (!Files.exists(f)) {
                return null;
            }
            String[] hp = Files.readString(f).strip().split("\\s+");
            return hp.length == 2 ? hp : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The state, refreshed at most every 250 ms (null: Slurm no longer knows the job). */
    SlurmCli.JobState state(boolean force) {
        long now = System.nanoTime();
        if (force || state == null || now - stateAt > STATE_EVERY_MS * 1_000_000L) {
            SlurmCli.JobState s = cli.state(jobId);
            state = s;
            stateAt = now;
            if (s != null && !s.pending()) {
                markStarted();
            }
        }
        return state;
    }

    boolean gone() {
        SlurmCli.JobState s = state(false);
        return s == null || s.terminal();
    }

    /** Cancels the job and waits (bounded) until Slurm reports it ended. */
    void cancel(Map<String, Double> timings) {
        long td = System.nanoTime();
        markCancelled(dir, jobId);
        cli.cancel(jobId);
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < end) {
            SlurmCli.JobState s = state(true);
            if (s == null || s.terminal()) {
                break;
            }
            sleep(200);
        }
        timings.put("teardown_ms", (System.nanoTime() - td) / 1e6);
    }

    String readLog() {
        return read(log());
    }

    /** isobench cancelled this job itself (timeout, cancellation, teardown, Ctrl-C): never adopt it later. */
    static void markCancelled(Path dir, String jobId) {
        try {
            Files.writeString(dir.resolve("cancelled-" + jobId), "", StandardCharsets.UTF_8);
        } catch (IOException e) {
            // the job is cancelled anyway; a resumed session would adopt it and classify it CANCELLED
        }
    }

    /** After Slurm says the job ended: the exit file may lag on a shared filesystem; wait a little for it. */
    static Integer awaitExitFile(SlurmWatch w) {
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() < end) {
            Integer e = w.exitCode();
            if (e != null) {
                return e;
            }
            sleep(100);
        }
        return w.exitCode();
    }

    /** The script wrote its exit code; give Slurm a moment to finish the job so the log is complete. */
    static void awaitEnd(SlurmWatch w) {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < end) {
            SlurmCli.JobState s = w.state(true);
            if (s == null || s.terminal()) {
                return;
            }
            sleep(100);
        }
    }

    static String read(Path log) {
        return ProcessGroup.readLog(log);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
