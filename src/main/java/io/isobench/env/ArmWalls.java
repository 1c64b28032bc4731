package io.isobench.env;

import io.isobench.proc.MeasuredEnv;
import io.isobench.proc.Sandbox;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The walls around the commands of one arm (docs/security.md, "Measured arms"): its build step and its measured
 * commands. Every command gets the allowlisted environment ({@link MeasuredEnv}); a confined arm's command runs in
 * {@link Sandbox}, writing only its worktree, scratch and {@code .site} folders (handed to the unprivileged uid when
 * isobench is root) and the suite's writable folders, with the host's GPU devices, and with no network but its own
 * loopback unless {@code network} (a build the suite lets download).
 *
 * @param confined      run in the sandbox
 * @param network       keep the host's network (builds with {@code run.confine.build_network} only)
 * @param passEnv       names of isobench's environment passed beyond the allowlist ({@code run.confine.pass_env})
 * @param runnerSecrets the agents' runner secrets: never passed
 * @param writable      folders beyond the arm's own that it may write ({@code run.confine.writable})
 */
public record ArmWalls(boolean confined, boolean network, List<String> passEnv, Set<String> runnerSecrets,
                       List<String> writable) {

    /** No sandbox, the allowlisted environment with nothing passed beyond it. */
    public static final ArmWalls OPEN = new ArmWalls(false, true, List.of(), Set.of(), List.of());

    public ArmWalls {
        passEnv = List.copyOf(passEnv);
        runnerSecrets = Set.copyOf(runnerSecrets);
        writable = List.copyOf(writable);
    }

    /** The whole environment of a command with the job's own variables {@code job}. */
    public Map<String, String> env(Map<String, String> job) {
        return MeasuredEnv.of(System.getenv(), passEnv, runnerSecrets, job);
    }

    /**
     * The argv that runs {@code command} of the arm whose worktree is {@code worktree} inside these walls; a server's
     * door when {@code bridge} is given. {@code command} itself when the arm is not confined.
     *
     * @throws IOException when the sandbox cannot be made on this machine (the reason and the fix), or the arm's
     *                     folders cannot be handed to the sandbox's uid
     */
    public List<String> argv(Path worktree, List<String> command, Sandbox.Bridge bridge) throws IOException {
        if (!confined) {
            return command;
        }
        Optional<String> problem = Sandbox.problem();
        if (problem.isPresent()) {
            throw new IOException("cannot confine the arm: " + problem.get());
        }
        Path cwd = worktree.toAbsolutePath().normalize();
        List<Path> own = List.of(cwd, Worktrees.scratch(cwd), Worktrees.siteDir(cwd));
        Sandbox.Ids ids = Sandbox.runAs();
        Optional<Path> closed = Sandbox.closedAncestor(ids, cwd);
        if (closed.isPresent()) {
            throw new IOException("cannot confine the arm: " + closed.get() + " is closed to uid " + ids.uid()
                    + ", which the sandbox runs as (isobench runs as root), so it cannot reach " + cwd
                    + " (fix: a work folder whose parents others may enter, e.g. --workdir /var/tmp/isobench, or"
                    + " chmod o+x " + closed.get() + ")");
        }
        Sandbox.handOver(ids, own);
        List<Path> all = new ArrayList<>(own);
        writable.forEach(w -> all.add(Path.of(w)));
        return Sandbox.argv(new Sandbox.Spec(cwd, all, network, bridge, Sandbox.gpuDevices(), ids), command);
    }
}
