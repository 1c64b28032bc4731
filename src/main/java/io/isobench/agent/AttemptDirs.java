package io.isobench.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One attempt's folders on the host: {@code repo} (the sealed tree the agent edits; the only host path a docker
 * sandbox mounts besides {@code home}), {@code home} (the agent's home: config, caches, the prompt) and the raw
 * output files beside them.
 */
public record AttemptDirs(Path root, Path repo, Path home, Path promptFile, Path stdoutFile, Path stderrFile) {

    /** The layout under {@code root} (created). */
    public static AttemptDirs under(Path root) throws IOException {
        Path home = root.resolve("home");
        Files.createDirectories(home.resolve("tmp"));
        return new AttemptDirs(root, root.resolve("repo"), home, home.resolve("prompt.md"),
                root.resolve("agent.stdout"), root.resolve("agent.stderr"));
    }
}
