package io.isobench.exec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.IsobenchException;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.task.RunConfig;
import io.isobench.task.Suite;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
            case "local" -> local(suite);
            case "docker" -> docker(DockerConfig.fromEnvironment());
            case "kubernetes" -> kubernetes(suite);
            case "slurm" -> SlurmExecutor.connect(SlurmConfig.fromEnv(System.getenv()));
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

    /**
     * The local executor with the default readiness probe. GPUs come from {@code ISOBENCH_GPUS} or nvidia-smi
     * (plan.GpuDiscovery); each job leases its GPU count ({@code CUDA_VISIBLE_DEVICES}), a job wider than the node is
     * {@code RESOURCES_INSUFFICIENT}. On a machine without GPUs jobs run unleased (CPU engines such as the toy).
     */
    private static Executor local(Suite suite) {
        io.isobench.plan.GpuDiscovery.Inventory inv = io.isobench.plan.GpuDiscovery.discover(null);
        return new LocalExecutor(Readiness.http(java.time.Duration.ofMillis(10)),
                io.isobench.probe.Clients.serving(), java.time.Duration.ofSeconds(5),
                inv.count() == 0 ? null : inv.slots(), launcher(suite));
    }

    /**
     * The local launcher of a suite: its {@code run.confine} rule (every arm confined when there is no suite), never
     * passing its agents' runner secrets to a measured process.
     */
    static LocalExecutor.Launcher launcher(Suite suite) {
        if (suite == null) {
            return new ConfinedLauncher(io.isobench.task.Confine.DEFAULT, java.util.Set.of(), List.of());
        }
        java.util.Set<String> secrets = new java.util.TreeSet<>();
        for (io.isobench.task.AgentSpec a : suite.agents()) {
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

    /**
     * What {@code --dry-run} prints for a plan on an executor: the plan itself, plus, for executors that generate a
     * per-job spec (slurm: the sbatch script), each job's spec. Needs no cluster; when the Slurm controller answers,
     * jobs wider than its largest node are marked {@code RESOURCES_INSUFFICIENT} and CPU/memory requests are capped
     * to that node.
     *
     * @param sessionId the session the jobs would belong to (job names and shared paths derive from it); null shows
     *                  {@code SESSION}
     * @param format    text or json
     */
    public static String dryRun(String name, Plan plan, String sessionId, String format) {
        boolean json = "json".equals(format);
        if (!"slurm".equals(name)) {
            return json ? plan.toJson() : plan.toText();
        }
        String session = sessionId == null ? "SESSION" : sessionId;
        SlurmConfig config = SlurmConfig.fromEnv(System.getenv());
        SlurmCli.Capacity capacity = SlurmCli.onPath("sinfo") ? new SlurmCli().capacity() : null;
        Map<String, String> scripts = new LinkedHashMap<>();
        Map<String, String> refused = new LinkedHashMap<>();
        for (Job j : plan.jobs()) {
            if (capacity != null && config.gpusFor(j.gpus()) > capacity.gpus()) {
                refused.put(j.jobId(), "RESOURCES_INSUFFICIENT: needs " + j.gpus() + " GPU(s); the largest node has "
                        + capacity.gpus());
            } else {
                scripts.put(j.jobId(), SlurmExecutor.script(j, session, SlurmExecutor.jobDir(config, session, j),
                        config, capacity));
            }
        }
        if (json) {
            Map<String, Object> m = plan.toMap();
            m.put("executor", "slurm");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> jobs = (List<Map<String, Object>>) m.get("jobs");
            for (Map<String, Object> jm : jobs) {
                String id = (String) jm.get("id");
                jm.put("slurm_job_name", SlurmExecutor.jobName(session, id));
                if (refused.containsKey(id)) {
                    jm.put("refused", refused.get(id));
                } else {
                    jm.put("sbatch", scripts.get(id));
                }
            }
            try {
                return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m) + "\n";
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        StringBuilder sb = new StringBuilder(plan.toText());
        sb.append("executor slurm: one batch job per job, scripts below (session ").append(session).append(")\n");
        for (Job j : plan.jobs()) {
            sb.append("---- ").append(j.index() + 1).append(' ').append(j.jobId()).append(" -> ")
                    .append(SlurmExecutor.jobName(session, j.jobId())).append('\n');
            if (refused.containsKey(j.jobId())) {
                sb.append("refused: ").append(refused.get(j.jobId())).append('\n');
            } else {
                sb.append(scripts.get(j.jobId()));
            }
        }
        return sb.toString();
    }
}
