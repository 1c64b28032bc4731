package io.isobench.exec;

import io.isobench.IsobenchException;
import io.isobench.task.RunConfig;

/** Picks an {@link Executor} by the name a suite's {@code run.executor} or {@code --executor} gives. */
public final class Executors {

    private Executors() {
    }

    /**
     * @param name one of {@link RunConfig#EXECUTORS}
     * @throws IsobenchException.BadInput          for an unknown name
     * @throws IsobenchException.EnvironmentMissing when the executor cannot run on this machine (what is missing and
     *                                              how to get it)
     */
    public static Executor create(String name) {
        return switch (name) {
            case "local" -> Executor.local();
            case "docker" -> docker(DockerConfig.fromEnvironment());
            case "slurm", "kubernetes" -> throw new IsobenchException.EnvironmentMissing(
                    "executor " + name + " is not built into this isobench yet; use --executor local");
            default -> throw new IsobenchException.BadInput("--executor " + name + ": use one of "
                    + new java.util.TreeSet<>(RunConfig.EXECUTORS));
        };
    }

    /**
     * The docker executor with the given settings ({@code create("docker")} reads them from the profile file named by
     * {@code ISOBENCH_DOCKER_CONFIG}, else {@link DockerConfig#DEFAULT}).
     *
     * @throws IsobenchException.EnvironmentMissing when the docker CLI is missing or its daemon does not answer
     */
    public static Executor docker(DockerConfig config) {
        return DockerExecutor.create(config);
    }
}
