package io.isobench.env;

import io.isobench.parse.Failure;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A prepared arm environment (DESIGN §3, local strategy: a git worktree).
 *
 * @param path        the worktree; null when none could be made
 * @param identity    the commits, the patch and the reference the run records
 * @param failure     why the arm cannot run (PATCH_FAILED, EMPTY_PATCH, ENV_MISSING, GIT_ERROR), or null
 * @param log         the git commands, recipes and build with their output, for the artifact store
 * @param preparation the recipes, the build step, the variables and the artifact that made the environment
 */
public record Environment(Path path, Identity identity, Failure failure, String log, Preparation preparation) {

    /**
     * What an environment is.
     *
     * @param intendedCommit the full sha the arm should be at (the suite's ref resolved), or null when unresolvable
     * @param verifiedCommit {@code git rev-parse HEAD} inside the environment after preparation, or null
     * @param patchSha256    sha256 of the applied agent patch, or null
     * @param envRef         what the run records: {@code git-worktree:<sha>[+patch:<sha256 prefix>]}
     */
    public record Identity(String intendedCommit, String verifiedCommit, String patchSha256, String envRef) {
    }

    /**
     * How an environment was made.
     *
     * @param recipes  the fix recipes applied (or tried: the last one may have failed), in order
     * @param build    the build step as it ran; null when the arm has none or did not get that far
     * @param env      variables the arm's commands get from its recipes ({@code env}, {@code pip_pin}'s PYTHONPATH)
     *                 and its artifact's prefix (PATH, PYTHONPATH)
     * @param artifact a prebuilt-artifact arm: what was fetched, its sha256, where it was installed and the version
     *                 found there (recorded on every run); null for a git worktree
     */
    public record Preparation(List<RecipeApplication> recipes, BuildStep build, Map<String, String> env,
                              Map<String, Object> artifact) {
        /** Nothing applied, built or set. */
        public static final Preparation NONE = new Preparation(List.of(), null, Map.of(), null);

        public Preparation {
            recipes = recipes == null ? List.of() : List.copyOf(recipes);
            env = env == null ? Map.of() : Map.copyOf(env);
            artifact = artifact == null ? null
                    : Collections.unmodifiableMap(new LinkedHashMap<>(artifact));
        }
    }

    public Environment {
        preparation = preparation == null ? Preparation.NONE : preparation;
    }

    /** An environment without recipes or build. */
    public Environment(Path path, Identity identity, Failure failure, String log) {
        this(path, identity, failure, log, Preparation.NONE);
    }

    /** An environment that could not be made: only the commit it was meant to be at (null: unresolved) is known. */
    public static Environment failed(Path path, String intendedCommit, Failure failure, String log) {
        return new Environment(path, new Identity(intendedCommit, null, null, null), failure, log);
    }

    /** The full sha the arm should be at, or null when unresolvable. */
    public String intendedCommit() {
        return identity.intendedCommit();
    }

    /** {@code git rev-parse HEAD} inside the environment after preparation, or null. */
    public String verifiedCommit() {
        return identity.verifiedCommit();
    }

    /** sha256 of the applied agent patch, or null. */
    public String patchSha256() {
        return identity.patchSha256();
    }

    /** What the run records: {@code git-worktree:<sha>[+patch:<sha256 prefix>]}. */
    public String envRef() {
        return identity.envRef();
    }

    /** The fix recipes applied (or tried), in order. */
    public List<RecipeApplication> recipes() {
        return preparation.recipes();
    }

    /** The build step as it ran; null when the arm has none or did not get that far. */
    public BuildStep build() {
        return preparation.build();
    }

    /** Variables the arm's commands get from its recipes and its artifact's prefix. */
    public Map<String, String> env() {
        return preparation.env();
    }

    /** A prebuilt-artifact arm's record (what was fetched and installed); null for a git worktree. */
    public Map<String, Object> artifact() {
        return preparation.artifact();
    }

    public boolean ready() {
        return failure == null;
    }

    public Optional<Failure> failureIfAny() {
        return Optional.ofNullable(failure);
    }
}
