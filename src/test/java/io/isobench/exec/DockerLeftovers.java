package io.isobench.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Test helper: containers the docker executor left, and whether an image is present. */
public final class DockerLeftovers {

    private DockerLeftovers() {
    }

    /** Containers (running or stopped) labelled by isobench whose job directory is under {@code dir}. */
    public static List<String> under(Path dir) {
        List<String> out = new ArrayList<>();
        try {
            DockerExecutor.Cmd c = DockerExecutor.Cmd.run(List.of("docker", "ps", "-a", "--filter",
                    "label=io.isobench.job", "--format", "{{.Names}} {{.Label \"io.isobench.cwd\"}}"),
                    Duration.ofSeconds(30));
            if (c.code() != 0) {
                out.add("docker ps failed: " + c.out().strip());
            }
            for (String line : c.out().lines().toList()) {
                String[] f = line.split(" ", 2);
                if (f.length == 2 && f[1].startsWith(dir.toAbsolutePath().toString())) {
                    out.add(line);
                }
            }
        } catch (IOException e) {
            out.add("docker ps failed: " + e.getMessage());
        }
        return out;
    }

    /** True when the docker daemon answers and holds {@code image}. */
    public static boolean imagePresent(String image) {
        try {
            return DockerExecutor.Cmd.run(List.of("docker", "image", "inspect", image), Duration.ofSeconds(30))
                    .code() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Env files of the docker executor still on disk (they hold secrets; none may outlive its container's start). */
    public static List<String> envFiles() {
        List<String> out = new ArrayList<>();
        try (var dirs = Files.newDirectoryStream(Path.of(System.getProperty("java.io.tmpdir")),
                "isobench-docker-*")) {
            for (Path d : dirs) {
                if (Files.exists(d.resolve("env"))) {
                    out.add("env file " + d.resolve("env"));
                }
            }
        } catch (IOException e) {
            out.add("cannot list " + System.getProperty("java.io.tmpdir") + ": " + e.getMessage());
        }
        return out;
    }
}
