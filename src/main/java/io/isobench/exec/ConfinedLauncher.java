package io.isobench.exec;

import io.isobench.env.ArmWalls;
import io.isobench.plan.Job;
import io.isobench.proc.Door;
import io.isobench.proc.ProcessGroup;
import io.isobench.proc.Sandbox;
import io.isobench.task.Confine;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local executor's launcher (docs/security.md, "Measured arms"): every measured command gets an allowlisted
 * environment ({@link MeasuredEnv}); an arm the suite's {@code run.confine} confines (every arm by default) runs in
 * {@link Sandbox}: read-only host, writes only to its worktree, scratch and {@code .site} folders, no network but its
 * own loopback, not root. A confined server is reached through its door ({@link HostBridge} on the port isobench
 * chose, relaying to the sandbox's {@code NetBridge}). Where the sandbox cannot be made, a confined arm does not run:
 * it fails with the reason and the fix, never silently unconfined.
 */
final class ConfinedLauncher implements Placement {

    private final Confine confine;
    private final Set<String> runnerSecrets;
    private final List<Path> readable;
    /** Open doors by the PGID of the server behind them. */
    private final Map<Long, Door> doors = new ConcurrentHashMap<>();

    /**
     * @param confine       the suite's rule
     * @param runnerSecrets names of the agents' runner secrets: never passed to a measured process
     * @param readable      folders the arms' commands read beyond the work folder (the suite's folder)
     */
    ConfinedLauncher(Confine confine, Set<String> runnerSecrets, List<Path> readable) {
        this.confine = confine;
        this.runnerSecrets = Set.copyOf(runnerSecrets);
        this.readable = List.copyOf(readable);
    }

    /** No sandbox, the allowlisted environment only (lint runs, suites with {@code run.confine.arms: off}). */
    static ConfinedLauncher unconfined() {
        return new ConfinedLauncher(Confine.DEFAULT.withArms(Confine.Arms.OFF), Set.of(), List.of());
    }

    /** Whether {@code job}'s arm runs in the sandbox. */
    boolean confines(Job job) {
        return confine.confines(job.arm() != null && job.arm().kind() == io.isobench.Arm.Kind.AGENT);
    }

    @Override
    public ProcessGroup start(Job job, List<String> argv, Path log) throws IOException {
        return start(job, List.of(), argv, log);
    }

    @Override
    public ProcessGroup start(Job job, List<String> outside, List<String> argv, Path log) throws IOException {
        ArmWalls walls = walls(job);
        List<String> full = new ArrayList<>(outside);
        full.addAll(walls.argv(job.cwd(), argv, null));
        return ProcessGroup.startMeasured(full, job.cwd(), walls.env(job.env()), log);
    }

    @Override
    public ProcessGroup startServer(Job job, List<String> argv, Path log, int port) throws IOException {
        if (!confines(job)) {
            return start(job, argv, log);
        }
        Door door = Door.open(port, Sandbox.runAs(), false);
        try {
            ArmWalls walls = walls(job);
            ProcessGroup pg = ProcessGroup.startMeasured(walls.argv(job.cwd(), argv, door.sandboxSide(Sandbox.java())),
                    job.cwd(), walls.env(job.env()), log);
            doors.put(pg.pgid(), door);
            return pg;
        } catch (IOException | RuntimeException e) {
            door.close();
            throw e;
        }
    }

    @Override
    public boolean stop(Job job, ProcessGroup group, Duration grace) {
        boolean gone = group.terminate(grace);
        Door d = doors.remove(group.pgid());
        if (d != null) {
            d.close();
        }
        return gone;
    }

    @Override
    public boolean sharesHostCgroups() {
        return true;
    }

    /** The walls of {@code job}'s measured commands. */
    ArmWalls walls(Job job) {
        return new ArmWalls(confines(job), false, confine.passEnv(), runnerSecrets, confine.writable(), readable);
    }

    /** The walls of an arm's build step: as its measured commands', with the host's network if the suite says so. */
    ArmWalls buildWalls(boolean agentArm) {
        return new ArmWalls(confine.confines(agentArm), confine.buildNetwork(), confine.passEnv(), runnerSecrets,
                confine.writable(), readable);
    }
}
