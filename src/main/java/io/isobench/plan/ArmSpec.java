package io.isobench.plan;

import java.nio.file.Path;
import java.util.List;

import io.isobench.task.ArtifactSpec;

/**
 * The environment one arm of one task needs.
 *
 * @param taskId    the task
 * @param arm       baseline, human, agent:NAME
 * @param commitRef the commit to check out, as the suite names it (a sha, tag or branch)
 * @param patch     the agent patch applied on top ({@code git apply --check} first); null for baseline/human
 * @param worktree  where the git worktree goes
 * @param recipes   names of the fix recipes applied to it, in order (suite {@code recipes})
 * @param build     its build argv ({@code tasks[].build}, else {@code engine.build}); empty = none
 * @param artifact  the prebuilt artifact installed into {@code worktree} (then a prefix of the arm's own, not a git
 *                  worktree); null for a git worktree
 */
public record ArmSpec(String taskId, String arm, String commitRef, Path patch, Path worktree, List<String> recipes,
                      List<String> build, ArtifactSpec.Resolved artifact) {

    public ArmSpec {
        recipes = recipes == null ? List.of() : List.copyOf(recipes);
        build = build == null ? List.of() : List.copyOf(build);
    }

    /** An arm in a git worktree. */
    public ArmSpec(String taskId, String arm, String commitRef, Path patch, Path worktree, List<String> recipes,
                   List<String> build) {
        this(taskId, arm, commitRef, patch, worktree, recipes, build, null);
    }

    /** An arm without recipes or build step. */
    public ArmSpec(String taskId, String arm, String commitRef, Path patch, Path worktree) {
        this(taskId, arm, commitRef, patch, worktree, List.of(), List.of());
    }
}
