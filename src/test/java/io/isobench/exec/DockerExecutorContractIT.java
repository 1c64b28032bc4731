package io.isobench.exec;

import io.isobench.SharedData;

import java.nio.file.Path;
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
        return DockerLeftovers.under(workRoot);
    }

    static boolean dockerReady() {
        return Cli.has("python3") && Cli.has("git") && Cli.has("setsid") && Cli.has("docker")
                && DockerLeftovers.imagePresent(DockerConfig.DEFAULT_IMAGE);
    }
}
