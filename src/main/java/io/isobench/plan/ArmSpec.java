package io.isobench.plan;

import java.nio.file.Path;

/**
 * The environment one arm of one task needs.
 *
 * @param taskId    the task
 * @param arm       baseline, human, agent:NAME
 * @param commitRef the commit to check out, as the suite names it (a sha, tag or branch)
 * @param patch     the agent patch applied on top ({@code git apply --check} first); null for baseline/human
 * @param worktree  where the git worktree goes
 */
public record ArmSpec(String taskId, String arm, String commitRef, Path patch, Path worktree) {
}
