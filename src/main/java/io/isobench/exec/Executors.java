package io.isobench.exec;

import io.isobench.IsobenchException;
import io.isobench.plan.GpuDiscovery;
import io.isobench.plan.Plan;
import io.isobench.probe.Clients;
import io.isobench.task.AgentSpec;
import io.isobench.task.Confine;
import io.isobench.task.ExecutorNames;
import io.isobench.task.Suite;

import java.nio.file.Files;
import java.nio.file.Path;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The one registry of executor kinds ({@link #KINDS}): picks an {@link Executor} by the name a suite's
 * {@code run.executor} or {@code --executor} gives, and answers which kinds exist and what each can do.
 */
public final class Executors {

    /** Environment variable naming the profile file (executor settings: a {@code kubernetes:} section…). */
    public static final String PROFILE_ENV = "ISOBENCH_PROFILE";
    /** The profile file looked for beside the suite when {@link #PROFILE_ENV} is unset. */
    public static final String PROFILE_FILE = "isobench-profile.yaml";

    private Executors() {
    }

    /**
     * Every executor kind, in the order help texts list them: a new kind is one line here (its class declares its
     * name, capabilities and factory: docs/executors.md, "Adding an executor").
     */
    public static final List<ExecutorKind> KINDS = List.of(LocalExecutor.KIND, DockerExecutor.KIND,
            SlurmExecutor.KIND, KubernetesExecutor.KIND, SshPlacement.KIND);

    /**
     * The kind of that name.
     *
     * @throws IsobenchException.BadInput for an unknown name
     */
    public static ExecutorKind kind(String name) {
        for (ExecutorKind k : KINDS) {
            if (k.name().equals(name)) {
                return k;
            }
        }
        throw new IsobenchException.BadInput("--executor " + name + ": use one of " + names());
    }

    /** The names of every kind, sorted. */
    public static SortedSet<String> names() {
        SortedSet<String> out = new TreeSet<>();
        KINDS.forEach(k -> out.add(k.name()));
        return out;
    }

    /** The kinds that have {@code c}, in words for a message: "local or docker", "local, docker or slurm". */
    public static String namesWith(ExecutorKind.Capability c) {
        List<String> with = KINDS.stream().filter(k -> k.can(c)).map(ExecutorKind::name).toList();
        if (with.size() <= 1) {
            return String.join("", with);
        }
        return String.join(", ", with.subList(0, with.size() - 1)) + " or " + with.get(with.size() - 1);
    }

    /** The registry's names for the suite loader ({@code task} sits below {@code exec}: found by ServiceLoader). */
    public static final class Names implements ExecutorNames {
        @Override
        public Set<String> names() {
            return Executors.names();
        }
    }

    /**
     * @param name one of {@link #names()}
     * @throws IsobenchException.BadInput          for an unknown name
     * @throws IsobenchException.EnvironmentMissing when the executor cannot run on this machine (what is missing and
     *                                              how to get it)
     */
    public static Executor create(String name) {
        return create(name, null);
    }

    /** As {@link #create(String)}, for a suite: cluster executors read their profile and the suite's commits. */
    public static Executor create(String name, Suite suite) {
        return kind(name).create(suite);
    }

    /**
     * What {@code --dry-run} prints for a plan on an executor: the plan itself, plus, for kinds that generate a
     * per-job spec (slurm: the sbatch script), each job's spec.
     *
     * @param sessionId the session the jobs would belong to (job names and shared paths derive from it); null shows
     *                  {@code SESSION}
     * @param format    text or json
     */
    public static String dryRun(String name, Plan plan, String sessionId, String format) {
        return kind(name).dryRun(plan, sessionId, format);
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

    /**
     * The local executor with the default readiness probe. GPUs come from {@code ISOBENCH_GPUS} or nvidia-smi
     * (plan.GpuDiscovery); each job leases its GPU count ({@code CUDA_VISIBLE_DEVICES}), a job wider than the node is
     * {@code RESOURCES_INSUFFICIENT}. On a machine without GPUs jobs run unleased (CPU engines such as the toy).
     */
    static Executor local(Suite suite) {
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null);
        return new LocalExecutor(Readiness.http(Duration.ofMillis(10)),
                Clients.serving(), Duration.ofSeconds(5),
                inv.count() == 0 ? null : inv.hostSlots(System.getenv()), launcher(suite));
    }

    /**
     * The local launcher of a suite: its {@code run.confine} rule (every arm confined when there is no suite), never
     * passing its agents' runner secrets to a measured process.
     */
    static Placement launcher(Suite suite) {
        if (suite == null) {
            return new ConfinedLauncher(Confine.DEFAULT, Set.of(), List.of());
        }
        Set<String> secrets = new TreeSet<>();
        for (AgentSpec a : suite.agents()) {
            if (a.runner() != null) {
                secrets.addAll(a.runner().secrets());
            }
        }
        List<Path> readable = new ArrayList<>();
        if (suite.file() != null && suite.file().toAbsolutePath().getParent() != null) {
            readable.add(suite.file().toAbsolutePath().getParent()); // accuracy scripts, probes: {suite_dir}
        }
        suite.engine().local().ifPresent(repo -> readable.add(repo.toAbsolutePath().normalize()));
        return new ConfinedLauncher(suite.run().confine(), secrets, readable);
    }

    static Executor kubernetes(Suite suite) {
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
