package io.isobench.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.isobench.engine.EngineAdapter;
import io.isobench.engine.Engines;
import io.isobench.env.ArmSetup;
import io.isobench.env.Environment;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import io.isobench.parse.Workload;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;
import io.isobench.probe.Greedy;
import io.isobench.task.Suite;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static io.isobench.exec.KubeFailures.apiFailure;
import static io.isobench.exec.KubePods.mainRunning;
import static io.isobench.exec.KubePods.servingTimings;
import static io.isobench.exec.KubePods.started;

/**
 * Runs each job as a batch/v1 Job ({@link KubeJobSpec}) through the fabric8 client: creates it (or adopts the Job
 * a killed orchestrator left for the same run, found by label), follows it with a watch plus pod inspection, reads
 * the logs when it ends, and maps cluster-side failures to DESIGN §7 categories. Cancellation and every early exit
 * delete the Job with foreground propagation (its pods go with it).
 */
final class KubernetesExecutor implements Executor {

    /**
     * Kubernetes: each job a batch/v1 Job whose pod runs the server and the client (nothing is measured from this
     * machine, so it does not serve through {@link ServePipeline}); arms are images, no accuracy commands.
     */
    static final ExecutorKind KIND = new ExecutorKind("kubernetes", Set.of(), Executors::kubernetes);

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * What {@link Hooks#processGroupStarted()} gets when the Job's pod starts: there is no process group on the
     * orchestrator's host, so the session's placeholder row records none to reap; a resumed session adopts the Job
     * by label instead.
     */
    static final long NO_GROUP = -1;
    /** Resolves a job's arm to its image (and patch), or the failure that keeps it from running. */
    interface Arms {
        Resolved resolve(String taskId, String arm);
    }

    /** An arm's image, or why there is none. */
    record Resolved(KubeJobSpec.ArmImage image, String commit, Failure failure) {
    }

    private final KubernetesClient client;
    private final KubernetesProfile profile;
    private final Arms arms;
    private final Supplier<String> suffix;
    private final KubeCluster cluster;
    private final KubeFailures failures;

    KubernetesExecutor(KubernetesClient client, KubernetesProfile profile, Arms arms, Supplier<String> suffix) {
        this.client = client;
        this.profile = profile;
        this.arms = arms;
        this.suffix = suffix;
        this.cluster = new KubeCluster(client, profile);
        this.failures = new KubeFailures(profile, cluster);
    }

    @Override
    public ExecutorKind kind() {
        return KIND;
    }

    /** The arm's environment is its image: nothing is checked out on this machine. */
    @Override
    public Environment prepare(ArmSpec arm, Path repo, ArmSetup setup) {
        Resolved r = arms.resolve(arm.taskId(), arm.label());
        if (r.failure() != null) {
            return Environment.failed(null, r.commit(), r.failure(), "");
        }
        String ref = "k8s-image:" + r.image().image() + (r.image().patchSha256() == null ? ""
                : "+patch:" + r.image().patchSha256().substring(0, 12));
        return new Environment(null, new Environment.Identity(r.commit(), null, r.image().patchSha256(), ref), null,
                "image " + r.image().image() + "\n");
    }

    @Override
    public JobResult execute(Job job, Hooks hooks) {
        long t0 = System.nanoTime();
        Map<String, Double> timings = new LinkedHashMap<>();
        String runId = hooks.runId() != null ? hooks.runId() : "adhoc/" + job.jobId();
        Resolved arm = arms.resolve(job.taskId(), job.arm().label());
        if (arm.failure() != null) {
            return JobResult.failed(t0, arm.failure(), "", timings, job.argv());
        }
        String ns = profile.namespace();
        Map<String, String> selector = KubeJobSpec.selector(runId);
        String name;
        try {
            name = adoptOrCreate(job, arm.image(), runId, selector);
        } catch (KubernetesClientException e) {
            return JobResult.failed(t0, apiFailure(e), "", timings, job.argv());
        }
        List<String> argv = job.serving() || job.kind() == Job.Kind.CHECK
                ? KubeJobSpec.serverArgv(job, profile.serverPort()) : job.argv();
        BlockingQueue<io.fabric8.kubernetes.api.model.batch.v1.Job> events = new LinkedBlockingQueue<>();
        Watch watch = null;
        try {
            watch = client.batch().v1().jobs().inNamespace(ns).withLabels(selector).watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, io.fabric8.kubernetes.api.model.batch.v1.Job resource) {
                    if (name.equals(resource.getMetadata().getName())) {
                        events.add(resource);
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                    // the loop falls back to polling
                }
            });
        } catch (KubernetesClientException e) {
            // no watch permission: poll
        }
        long limitNs = ((long) profile.startSlackS() + job.limits().runS()
                + (argv == job.argv() ? 0 : job.limits().serverStartS()) + 60) * 1_000_000_000L;
        Pod lastPod = null;
        long mainSeenNs = 0;
        boolean reported = false;
        try {
            while (true) {
                io.fabric8.kubernetes.api.model.batch.v1.Job current = events.poll(profile.pollIntervalMs(),
                        TimeUnit.MILLISECONDS);
                if (current == null) {
                    current = client.batch().v1().jobs().inNamespace(ns).withName(name).get();
                }
                if (hooks.cancelled().getAsBoolean()) {
                    cluster.delete(name);
                    return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "cancelled: Job " + ns + "/" + name
                            + " deleted", List.of("cancelled")), "", timings, argv);
                }
                if (current == null) {
                    return JobResult.failed(t0, new Failure(FailureCategory.INFRA_TRANSIENT, "Job " + ns + "/" + name
                            + " disappeared before it finished (deleted by someone else?)", List.of()), "", timings,
                            argv);
                }
                Optional<String> terminal = terminal(current);
                Pod pod = cluster.latestPod(name);
                if (pod != null) {
                    lastPod = pod;
                    if (!reported && started(pod)) {
                        // no local process group: the session's placeholder records none to reap (as for Slurm)
                        hooks.processGroupStarted().accept(NO_GROUP);
                        reported = true;
                    }
                }
                if (terminal.isPresent()) {
                    timings.put("k8s_job_ms", (System.nanoTime() - t0) / 1e6);
                    JobResult r = finish(job, current, new Ended(terminal.get(), pod, lastPod), argv, t0, timings);
                    cluster.cleanupPatch(name);
                    return r;
                }
                Failure early = pod == null ? null : failures.earlyFailure(job, pod);
                if (early != null) {
                    String log = cluster.logs(job, pod);
                    cluster.delete(name);
                    return JobResult.failed(t0, early, log, timings, argv);
                }
                if (mainSeenNs == 0 && pod != null && mainRunning(pod)) {
                    mainSeenNs = System.nanoTime();
                }
                if (mainSeenNs != 0 && System.nanoTime() - mainSeenNs > job.limits().runS() * 1_000_000_000L) {
                    // run_s counts from the benchmark's (client's) start, as on the other executors; the Job's
                    // activeDeadlineSeconds (which also covers scheduling) stays the cluster-side backstop. Read the
                    // log now: once the Job is deleted, its pod and logs go with it.
                    String log = cluster.logs(job, pod != null ? pod : lastPod);
                    cluster.delete(name);
                    return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT,
                            (argv == job.argv() ? "the benchmark"
                            : "the client") + " ran longer than run_s (" + job.limits().runS() + " s); Job " + name
                            + " deleted", List.of("timeout")), log, timings, argv);
                }
                if (System.nanoTime() - t0 > limitNs) {
                    String log = pod == null ? "" : cluster.logs(job, pod);
                    cluster.delete(name);
                    return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "Job " + name
                            + " did not finish within "
                            + limitNs / 1_000_000_000L + " s", List.of()), log, timings,
                            argv);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cluster.delete(name);
            return JobResult.failed(t0, new Failure(FailureCategory.INFRA_TRANSIENT, "interrupted; Job " + name
                    + " deleted",
                    List.of()), "", timings, argv);
        } catch (KubernetesClientException e) {
            return JobResult.failed(t0, apiFailure(e), "", timings, argv);
        } finally {
            if (watch != null) {
                watch.close();
            }
        }
    }

    /** An existing Job of this run (a resumed orchestrator's), unless it failed; else a new one. */
    private String adoptOrCreate(Job job, KubeJobSpec.ArmImage arm, String runId, Map<String, String> selector) {
        String ns = profile.namespace();
        List<io.fabric8.kubernetes.api.model.batch.v1.Job> existing = new ArrayList<>(client.batch().v1().jobs()
                .inNamespace(ns).withLabels(selector).list().getItems());
        existing.sort(Comparator.comparing(j -> String.valueOf(j.getMetadata().getCreationTimestamp())));
        for (int i = existing.size() - 1; i >= 0; i--) {
            var j = existing.get(i);
            if (j.getMetadata().getDeletionTimestamp() == null && !"Failed".equals(terminal(j).orElse(""))) {
                return j.getMetadata().getName();
            }
        }
        for (var j : existing) {
            cluster.delete(j.getMetadata().getName());
        }
        KubeJobSpec.Spec spec = KubeJobSpec.build(profile, job, arm, runId, suffix.get());
        if (spec.patch() != null) {
            client.configMaps().inNamespace(ns).resource(spec.patch()).create();
        }
        var created = client.batch().v1().jobs().inNamespace(ns).resource(spec.job()).create();
        if (spec.patch() != null && created.getMetadata().getUid() != null) {
            // garbage-collected with its Job
            client.configMaps().inNamespace(ns).withName(spec.patch().getMetadata().getName()).edit(cm -> {
                cm.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion("batch/v1")
                        .withKind("Job").withName(created.getMetadata().getName())
                        .withUid(created.getMetadata().getUid()).build()));
                return cm;
            });
        }
        return created.getMetadata().getName();
    }

    /** "Complete" or "Failed" when the Job ended. */
    static Optional<String> terminal(io.fabric8.kubernetes.api.model.batch.v1.Job j) {
        if (j.getStatus() == null) {
            return Optional.empty();
        }
        if (j.getStatus().getConditions() != null) {
            for (JobCondition c : j.getStatus().getConditions()) {
                if ("True".equals(c.getStatus()) && ("Complete".equals(c.getType()) || "Failed".equals(c.getType()))) {
                    return Optional.of(c.getType());
                }
            }
        }
        return Optional.empty();
    }

    /**
     * How a Kubernetes Job ended.
     *
     * @param terminal its terminal condition ({@code Complete} or {@code Failed})
     * @param pod      its pod now; null when gone
     * @param lastSeen its pod as last seen while it ran; null when never seen
     */
    private record Ended(String terminal, Pod pod, Pod lastSeen) {
    }

    private JobResult finish(Job job, io.fabric8.kubernetes.api.model.batch.v1.Job k8s, Ended ended,
                             List<String> argv, long t0, Map<String, Double> timings) {
        String terminal = ended.terminal();
        Pod pod = ended.pod();
        Pod lastSeen = ended.lastSeen();
        String log = pod == null ? "" : cluster.logs(job, pod);
        String mainLog = pod == null ? "" : cluster.log(pod, KubeJobSpec.MAIN);
        if ("Complete".equals(terminal) && pod == null) {
            cluster.delete(k8s.getMetadata().getName()); // so that the retry creates a fresh Job instead of adopting this one
            return JobResult.failed(t0, new Failure(FailureCategory.INFRA_TRANSIENT, "Job "
                    + k8s.getMetadata().getName()
                    + " completed but its pod is gone (removed after ttlSecondsAfterFinished?): no logs to read",
                    List.of()), "", timings, argv);
        }
        if ("Complete".equals(terminal)) {
            if (job.serving() || job.kind() == Job.Kind.CHECK) {
                timings.putAll(servingTimings(pod));
            }
            if (job.kind() == Job.Kind.CHECK) {
                List<String> outputs = greedyOutputs(mainLog);
                if (outputs == null) {
                    return JobResult.failed(t0, new Failure(FailureCategory.NO_METRICS,
                            "the check client printed no greedy "
                            + "outputs", List.of()), log, timings, argv);
                }
                return JobResult.ended(t0, null, List.of(), null, log, timings, argv).withOutputs(outputs)
                        .withProbes(greedyProbes(mainLog));
            }
            EngineAdapter engine = Engines.forCommand(job.argv()); // the job's engine: its command's (docs/engines.md)
            ParsedOutput parsed = engine.readConsole(mainLog, OutputParser.Truncation.NONE);
            if (parsed.hasMetrics()) {
                return JobResult.ended(t0, null, parsed.metrics(), workloadJson(argv, job, parsed.workload()), log,
                        timings, argv);
            }
            Failure f = FailureClassifier.classify(log, engine.failureSignatures())
                    .filter(x -> x.category() != FailureCategory.UNKNOWN)
                    .orElse(new Failure(FailureCategory.NO_METRICS, "exited 0 without a metric block", List.of()));
            return JobResult.failed(t0, f, log, timings, argv);
        }
        // the job controller deletes the pods of a Job past its deadline: classify from the pod as last seen
        return JobResult.failed(t0, failures.classifyFailed(job, k8s, pod != null ? pod : lastSeen, log), log, timings, argv);
    }

    static List<String> greedyOutputs(String log) {
        for (String line : log.lines().toList()) {
            if (line.startsWith(KubeJobSpec.GREEDY_MARKER)) {
                try {
                    JsonNode n = JSON.readTree(line.substring(KubeJobSpec.GREEDY_MARKER.length()));
                    List<String> out = new ArrayList<>();
                    n.forEach(x -> out.add(x.asText()));
                    return out;
                } catch (Exception e) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * The whole probe run (both passes) the check client printed after its texts; null from a client that printed
     * texts only (an older isobench in the image): the gate then has the sequential pass alone.
     */
    static String greedyProbes(String log) {
        return log.lines().filter(l -> l.startsWith(Greedy.PROBE_MARKER)).findFirst()
                .map(l -> l.substring(Greedy.PROBE_MARKER.length()).strip()).orElse(null);
    }

    private static String workloadJson(List<String> argv, Job job, Workload w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("argv", argv);
        if (!job.client().flags().isEmpty()) {
            m.put("client", job.client().argv());
        }
        if (w != null) {
            m.put("requests", w.completedRequests());
            m.put("input_tokens", w.totalInputTokens());
            m.put("output_tokens", w.totalOutputTokens());
        }
        try {
            return JSON.writeValueAsString(m);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A client from the kubeconfig ($KUBECONFIG, ~/.kube/config, or the in-cluster service account), checked with one
     * call to the API server. Missing or unreachable: one-line {@link io.isobench.IsobenchException.EnvironmentMissing}.
     */
    static KubernetesExecutor connect(Suite suite, KubernetesProfile profile) {
        String kubeconfig = System.getenv("KUBECONFIG");
        Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
        boolean inCluster = System.getenv("KUBERNETES_SERVICE_HOST") != null
                && Files.exists(Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"));
        boolean fromEnv = kubeconfig != null && !kubeconfig.isBlank() && Arrays.stream(
                kubeconfig.split(File.pathSeparator)).anyMatch(f -> Files.isRegularFile(Path.of(f)));
        if (!fromEnv && !Files.isRegularFile(home) && !inCluster) {
            throw new io.isobench.IsobenchException.EnvironmentMissing("executor kubernetes: no kubeconfig ("
                    + (kubeconfig == null ? "$KUBECONFIG unset" : "$KUBECONFIG=" + kubeconfig + " has no file") + ", no "
                    + home + ", not in a cluster); get one from your cluster (e.g. gcloud container clusters "
                    + "get-credentials, aws eks update-kubeconfig, or kubectl config view --raw > ~/.kube/config)");
        }
        io.fabric8.kubernetes.client.Config config = io.fabric8.kubernetes.client.Config.autoConfigure(
                profile.context());
        KubernetesClient client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config)
                .build();
        try {
            client.batch().v1().jobs().inNamespace(profile.namespace()).list(
                    new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            client.close();
            String why = e.getCode() == 0 ? "cannot reach " + config.getMasterUrl() + " (" + String.valueOf(
                    e.getMessage()).lines().findFirst().orElse("") + ")" : "HTTP " + e.getCode() + " listing jobs in "
                    + profile.namespace();
            throw new io.isobench.IsobenchException.EnvironmentMissing("executor kubernetes: " + why
                    + "; check the kubeconfig context, the namespace and RBAC (jobs, pods, pods/log, configmaps)");
        }
        Path repo = suite.engine().local().orElse(null);
        return new KubernetesExecutor(client, profile, KubeSuiteArms.suiteArms(suite, profile, human -> KubeSuiteArms.parentOf(repo, human)),
                () -> String.format(Locale.ROOT, "%04x", new SecureRandom().nextInt(0x10000)));
    }
}
