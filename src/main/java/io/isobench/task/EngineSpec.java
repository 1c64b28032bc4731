package io.isobench.task;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The inference engine under test.
 *
 * @param repo      the repository as written: a URL ({@code https://github.com/vllm-project/vllm}) or a path
 * @param localPath the resolved local clone (absolute); null when {@code repo} is a URL
 * @param name      the engine adapter: {@code vllm} or {@code toy} (the bundled demo engine)
 * @param build     the build step run once per arm environment after checkout, patch and recipes (an argv list,
 *                  run without a shell in the worktree, limit {@code run.timeouts.build_s}); empty = none
 */
public record EngineSpec(String repo, Path localPath, String name, List<String> build) {

    public static final Set<String> NAMES = Set.of("vllm", "toy");

    public EngineSpec {
        Objects.requireNonNull(repo, "repo");
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("engine name (" + name + ") must be one of " + NAMES);
        }
        build = build == null ? List.of() : List.copyOf(build);
    }

    /** An engine without a build step. */
    public EngineSpec(String repo, Path localPath, String name) {
        this(repo, localPath, name, List.of());
    }

    public boolean isUrl() {
        return localPath == null;
    }

    public Optional<Path> local() {
        return Optional.ofNullable(localPath);
    }

    static boolean looksLikeUrl(String repo) {
        return repo.matches("(?i)(https?|git|ssh|file)://.+") || repo.matches("[\\w.-]+@[\\w.-]+:.+");
    }
}
