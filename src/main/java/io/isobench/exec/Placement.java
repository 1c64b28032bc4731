package io.isobench.exec;

import io.isobench.plan.Job;
import io.isobench.proc.ProcessGroup;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a job's commands run and how they are stopped: the one seam between an executor kind and the serve-and-
 * measure pipeline ({@link ServePipeline}) and the offline paths of {@link LocalExecutor}. A placement starts a
 * command with its output appended to a log file on this machine ({@link #start}), starts a server whose endpoint
 * isobench's clients reach at {@code 127.0.0.1:port} ({@link #startServer}), and tears down everything a job started
 * ({@link #stop}). What a kind can do beyond that (run on this host, confine arms…) it declares as
 * {@link ExecutorKind.Capability capabilities} in its registry entry ({@link Executors#KINDS}).
 *
 * <p>Implementations: the local process group, sandboxed or not ({@link ConfinedLauncher}), a container
 * ({@code DockerExecutor}), a command on an ssh host ({@link SshPlacement}). A Slurm batch job is placed by its
 * script instead, and joins the same pipeline through {@link ServePipeline.Server}.
 */
interface Placement {

    /** Starts {@code argv} (port resolved) of {@code job}, output appended to {@code log}. */
    ProcessGroup start(Job job, List<String> argv, Path log) throws IOException;

    /** Tears down everything the job started; true when nothing is left. */
    boolean stop(Job job, ProcessGroup group, Duration grace);

    /**
     * True when the command runs on this machine in this JVM's view of the cgroup v2 hierarchy, so a per-run cgroup
     * made here can measure it ({@code proc.CpuCgroups}); false inside a container (another namespace) or on
     * another host.
     */
    default boolean sharesHostCgroups() {
        return false;
    }

    /**
     * Starts {@code argv} of {@code job} behind {@code outside}: a trusted prefix of isobench's own (the generic
     * wrapper that moves itself into the run's cgroup) that runs outside whatever wall the placement builds around
     * {@code argv}.
     */
    default ProcessGroup start(Job job, List<String> outside, List<String> argv, Path log) throws IOException {
        List<String> all = new ArrayList<>(outside);
        all.addAll(argv);
        return start(job, all, log);
    }

    /** Starts a server that listens on {@code port}: isobench's clients reach it at 127.0.0.1:{@code port}. */
    default ProcessGroup startServer(Job job, List<String> argv, Path log, int port) throws IOException {
        return start(job, argv, log);
    }

    /**
     * Removes what a killed orchestrator left running for {@code job} beyond its local process group (which the
     * session reaps itself); idempotent; the default has nothing to do.
     */
    default void reap(Job job) {
    }

    /** No sandbox; every command with the allowlisted environment ({@code lint}, tests). */
    Placement LOCAL = ConfinedLauncher.unconfined();
}
