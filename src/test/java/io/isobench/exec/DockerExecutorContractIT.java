package io.isobench.exec;

import io.isobench.SharedData;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The executor contract on the docker executor: a real dockerd (scripts/provision-docker starts one) and the local
 * image isobench/python:bookworm; every job in its own container, worktrees bind-mounted at the same path.
 */
class DockerExecutorContractIT extends ExecutorContract {

    @Override
    protected void requireEnvironment() {
        SharedData.requireService(dockerReady(), "a running docker daemon with the image "
                + DockerConfig.DEFAULT_IMAGE + " (scripts/provision-docker), plus python3, git and setsid");
    }

    @Override
    protected Executor executor() {
        return Executors.create("docker");
    }

    @Override
    protected String executorName() {
        return "docker";
    }

    /** Containers (running or not) whose job directory is under {@code workRoot}. */
    @Override
    protected List<String> leftovers(Path workRoot) {
        return containersUnder(workRoot);
    }

    static List<String> containersUnder(Path workRoot) {
        List<String> out = new ArrayList<>();
        try {
            DockerExecutor.Cmd c = DockerExecutor.Cmd.run(List.of("docker", "ps", "-a", "--filter",
                    "label=io.isobench.job", "--format", "{{.Names}} {{.Label \"io.isobench.cwd\"}}"),
                    Duration.ofSeconds(30));
            for (String line : c.out().lines().toList()) {
                String[] f = line.split(" ", 2);
                if (f.length == 2 && f[1].startsWith(workRoot.toString())) {
                    out.add(line);
                }
            }
        } catch (java.io.IOException e) {
            out.add("docker ps failed: " + e.getMessage());
        }
        return out;
    }

    static boolean dockerReady() {
        try {
            return Cli.has("python3") && Cli.has("git") && Cli.has("setsid") && DockerExecutor.Cmd.run(
                    List.of("docker", "image", "inspect", DockerConfig.DEFAULT_IMAGE), Duration.ofSeconds(30))
                    .code() == 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
