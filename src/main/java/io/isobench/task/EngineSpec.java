package io.isobench.task;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The inference engine under test.
 *
 * @param repo      the repository as written: a URL ({@code https://github.com/vllm-project/vllm}), a path, or a
 *                  git bundle file; for an engine whose arms are prebuilt artifacts, a label ({@code artifact:NAME})
 * @param localPath the resolved local clone or bundle file (absolute); null when {@code repo} is a URL or a label
 * @param name      the engine adapter: {@code vllm}, {@code toy} (the bundled demo engine) or {@code generic} (any
 *                  engine, described by the suite: docs/suite-format.md)
 * @param build     the build step run once per arm environment after checkout, patch and recipes (an argv list,
 *                  run without a shell in the worktree, limit {@code run.timeouts.build_s}); empty = none
 * @param artifact  arms from prebuilt artifacts instead of git worktrees; null for worktrees
 */
public record EngineSpec(String repo, Path localPath, String name, List<String> build, ArtifactSpec artifact) {

    public static final Set<String> NAMES = Set.of("vllm", "toy", "generic");

    public EngineSpec {
        Objects.requireNonNull(repo, "repo");
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("engine name (" + name + ") must be one of " + NAMES);
        }
        build = build == null ? List.of() : List.copyOf(build);
    }

    /** An engine built from a git repository. */
    public EngineSpec(String repo, Path localPath, String name, List<String> build) {
        this(repo, localPath, name, build, null);
    }

    /** An engine without a build step. */
    public EngineSpec(String repo, Path localPath, String name) {
        this(repo, localPath, name, List.of());
    }

    /** True when {@code repo} is a URL the local executor cannot check out. */
    public boolean isUrl() {
        return localPath == null && artifact == null;
    }

    /** True when {@code repo} is a git bundle file: isobench clones it into the work folder at run time. */
    public boolean isBundle() {
        return localPath != null && (Files.isRegularFile(localPath)
                || localPath.getFileName().toString().endsWith(".bundle"));
    }

    public Optional<Path> local() {
        return Optional.ofNullable(localPath);
    }

    static boolean looksLikeUrl(String repo) {
        return repo.matches("(?i)(https?|git|ssh|file)://.+") || repo.matches("[\\w.-]+@[\\w.-]+:.+");
    }
}
