package io.isobench.env;

import io.isobench.parse.Failure;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A prepared arm environment (DESIGN §3, local strategy: a git worktree).
 *
 * @param path           the worktree; null when none could be made
 * @param intendedCommit the full sha the arm should be at (the suite's ref resolved), or null when unresolvable
 * @param verifiedCommit {@code git rev-parse HEAD} inside the environment after preparation, or null
 * @param patchSha256    sha256 of the applied agent patch, or null
 * @param envRef         what the run records: {@code git-worktree:<sha>[+patch:<sha256 prefix>]}
 * @param failure        why the arm cannot run (PATCH_FAILED, EMPTY_PATCH, ENV_MISSING, GIT_ERROR), or null
 * @param log            the git commands and their output, for the artifact store
 */
public record Environment(Path path, String intendedCommit, String verifiedCommit, String patchSha256,
                          String envRef, Failure failure, String log) {

    public boolean ready() {
        return failure == null;
    }

    public Optional<Failure> failureIfAny() {
        return Optional.ofNullable(failure);
    }
}
