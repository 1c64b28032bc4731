package io.isobench.exec;

import io.isobench.IsobenchException;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;

import java.nio.file.Files;
import java.nio.file.Path;

/** Picks an {@link Executor} by the name a suite's {@code run.executor} or {@code --executor} gives. */
public final class Executors {

    /** Environment variable naming the profile file (executor settings: a {@code kubernetes:} section…). */
    public static final String PROFILE_ENV = "ISOBENCH_PROFILE";
    /** The profile file looked for beside the suite when {@link #PROFILE_ENV} is unset. */
    public static final String PROFILE_FILE = "isobench-profile.yaml";

    private Executors() {
    }

    /**
     * @param name one of {@link RunConfig#EXECUTORS}
     * @throws IsobenchException.BadInput          for an unknown name
     * @throws IsobenchException.EnvironmentMissing when the executor cannot run on this machine (what is missing and
     *                                              how to get it)
     */
    public static Executor create(String name) {
        return create(name, null);
    }

    /** As {@link #create(String)}, for a suite: cluster executors read their profile and the suite's commits. */
    public static Executor create(String name, Suite suite) {
        return switch (name) {
            case "local" -> Executor.local();
            case "docker" -> docker(DockerConfig.fromEnvironment());
            case "kubernetes" -> kubernetes(suite);
            case "slurm" -> throw new IsobenchException.EnvironmentMissing(
                    "executor " + name + " is not built into this isobench yet; use --executor local");
            default -> throw new IsobenchException.BadInput("--executor " + name + ": use one of "
                    + new java.util.TreeSet<>(RunConfig.EXECUTORS));
        };
    }

    /** The profile file: $ISOBENCH_PROFILE, else isobench-profile.yaml beside the suite. */
    public static Path profileFile(Suite suite) {
        String env = System.getenv(PROFILE_ENV);
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        Path dir = suite == null || suite.file() == null ? Path.of(".")
                : suite.file().toAbsolutePath().getParent();
        return dir.resolve(PROFILE_FILE);
    }

    private static Executor kubernetes(Suite suite) {
        if (suite == null) {
            throw new IsobenchException.EnvironmentMissing("executor kubernetes needs a suite (run it through "
                    + "isobench run SUITE --executor kubernetes)");
        }
        Path file = profileFile(suite);
        if (!Files.isRegularFile(file)) {
            throw new IsobenchException.EnvironmentMissing("executor kubernetes needs a profile: no " + file
                    + " (create it with a kubernetes: section, or set " + PROFILE_ENV
                    + "=FILE; see docs/kubernetes-executor.md)");
        }
        KubernetesProfile profile = KubernetesProfile.load(file);
        return KubernetesExecutor.connect(suite, profile);
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
