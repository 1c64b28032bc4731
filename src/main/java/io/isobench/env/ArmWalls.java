package io.isobench.env;

import io.isobench.proc.MeasuredEnv;
import io.isobench.proc.Sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
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
 * @param readable      folders the arm's commands read that may lie under the host's {@code /tmp} (the suite's
 *                      folder); the work folder ({@code WORKDIR} of {@code WORKDIR/envs/TASK/ARM}) and the
 *                      worktree's git folder are added by rule
 */
public record ArmWalls(boolean confined, boolean network, List<String> passEnv, Set<String> runnerSecrets,
                       List<String> writable, List<Path> readable) {

    /** No sandbox, the allowlisted environment with nothing passed beyond it. */
    public static final ArmWalls OPEN = new ArmWalls(false, true, List.of(), Set.of(), List.of(), List.of());

    public ArmWalls {
        passEnv = List.copyOf(passEnv);
        runnerSecrets = Set.copyOf(runnerSecrets);
        writable = List.copyOf(writable);
        readable = List.copyOf(readable);
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
        return Sandbox.argv(new Sandbox.Spec(cwd, all, network, bridge, Sandbox.gpuDevices(), ids, seen(cwd)),
                command);
    }

    /**
     * What the sandbox's private {@code /tmp} must not hide: the work folder (checkpoints and datasets a setup step
     * made there), the worktree's git folder (a build that asks git), and {@link #readable}; read-only.
     */
    List<Path> seen(Path worktree) {
        List<Path> out = new ArrayList<>();
        Path envs = worktree.getParent() == null ? null : worktree.getParent().getParent();
        if (envs != null && envs.getFileName() != null && envs.getFileName().toString().equals("envs")
                && envs.getParent() != null) {
            out.add(envs.getParent());
        }
        gitCommonDir(worktree).ifPresent(out::add);
        out.addAll(readable);
        return out;
    }

    /** The git folder a worktree's {@code .git} file points into ({@code gitdir: REPO/.git/worktrees/NAME}). */
    static Optional<Path> gitCommonDir(Path worktree) {
        Path dotGit = worktree.resolve(".git");
        try {
            if (!Files.isRegularFile(dotGit, LinkOption.NOFOLLOW_LINKS)
                    || Files.size(dotGit) > 4096) {
                return Optional.empty();
            }
            String line = Files.readString(dotGit).strip();
            if (!line.startsWith("gitdir: ")) {
                return Optional.empty();
            }
            Path gitdir = worktree.resolve(line.substring("gitdir: ".length())).normalize();
            Path common = gitdir.getParent() == null ? null : gitdir.getParent().getParent();
            return Optional.ofNullable(common);
        } catch (IOException | InvalidPathException e) {
            return Optional.empty();
        }
    }
}
