package io.isobench.task;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The inference engine under test.
 *
 * @param repo      the repository as written: a URL ({@code https://github.com/vllm-project/vllm}) or a path
 * @param localPath the resolved local clone (absolute); null when {@code repo} is a URL
 * @param name      the engine adapter: {@code vllm} or {@code toy} (the bundled demo engine)
 */
public record EngineSpec(String repo, Path localPath, String name) {

    public static final Set<String> NAMES = Set.of("vllm", "toy");

    public EngineSpec {
        Objects.requireNonNull(repo, "repo");
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("engine name (" + name + ") must be one of " + NAMES);
        }
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
