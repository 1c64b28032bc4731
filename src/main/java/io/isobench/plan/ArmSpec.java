package io.isobench.plan;

import java.nio.file.Path;
import java.util.List;

import io.isobench.Arm;
import io.isobench.task.ArtifactSpec;

/**
 * The environment one arm of one task needs.
 *
 * @param taskId     the task
 * @param arm        the arm: baseline, baseline-aa, human or an agent (its attempt k included: {@link Arm#attempt()})
 * @param commitRef  the commit to check out, as the suite names it (a sha, tag or branch)
 * @param patch      the agent patch applied on top ({@code git apply --check} first); null for baseline/human
 * @param worktree   where the git worktree goes
 * @param recipes    names of the fix recipes applied to it, in order (suite {@code recipes})
 * @param build      its build argv ({@code tasks[].build}, else {@code engine.build}); empty = none
 * @param artifact   the prebuilt artifact installed into {@code worktree} (then a prefix of the arm's own, not a git
 *                   worktree); null for a git worktree
 * @param attemptRun the run id of the stored attempt of {@code isobench agents run} whose patch this arm measures
 *                   ({@code run --attempts-of}); null for every other arm, and for a patch a suite file names
 */
public record ArmSpec(String taskId, Arm arm, String commitRef, Path patch, Path worktree, List<String> recipes,
                      List<String> build, ArtifactSpec.Resolved artifact, String attemptRun) {

    public ArmSpec {
        if (arm == null) {
            throw new IllegalArgumentException("an arm spec needs its arm");
        }
        recipes = recipes == null ? List.of() : List.copyOf(recipes);
        build = build == null ? List.of() : List.copyOf(build);
    }

    /** An arm in a git worktree. */
    public ArmSpec(String taskId, Arm arm, String commitRef, Path patch, Path worktree, List<String> recipes,
                   List<String> build) {
        this(taskId, arm, commitRef, patch, worktree, recipes, build, null, null);
    }

    /** An arm without recipes or build step. */
    public ArmSpec(String taskId, Arm arm, String commitRef, Path patch, Path worktree) {
        this(taskId, arm, commitRef, patch, worktree, List.of(), List.of());
    }

    /** This arm measuring the stored attempt {@code runId}'s patch. */
    public ArmSpec fromAttempt(String runId) {
        return new ArmSpec(taskId, arm, commitRef, patch, worktree, recipes, build, artifact, runId);
    }

    /**
     * This arm's recipes and build as another arm on another commit, in another worktree, built from source (a
     * commit of {@code isobench track}'s range; a prebuilt artifact names its own commit, so none is kept).
     */
    public ArmSpec on(Arm other, String otherCommitRef, Path otherWorktree) {
        return new ArmSpec(taskId, other, otherCommitRef, null, otherWorktree, recipes, build, null, null);
    }

    /** The arm's label as stored and shown ({@link Arm#label()}). */
    public String label() {
        return arm.label();
    }
}
