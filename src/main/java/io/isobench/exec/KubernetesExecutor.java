package io.isobench.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.isobench.env.Environment;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import io.isobench.plan.ArmSpec;
import io.isobench.plan.Job;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs each job as a batch/v1 Job ({@link KubeJobSpec}) through the fabric8 client: creates it (or adopts the Job
 * a killed orchestrator left for the same run, found by label), follows it with a watch plus pod inspection, reads
 * the logs when it ends, and maps cluster-side failures to DESIGN §7 categories. Cancellation and every early exit
 * delete the Job with foreground propagation (its pods go with it).
 */
final class KubernetesExecutor implements Executor {

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * What {@link Hooks#processGroupStarted()} gets when the Job's pod starts: there is no process group on the
     * orchestrator's host, so the session's placeholder row records none to reap; a resumed session adopts the Job
     * by label instead.
     */
    static final long NO_GROUP = -1;
    private static final java.util.Set<String> IMAGE_ERRORS = java.util.Set.of("ErrImagePull", "ImagePullBackOff",
            "InvalidImageName", "ErrImageNeverPull");
    private static final java.util.Set<String> CONFIG_ERRORS = java.util.Set.of("CreateContainerConfigError",
            "CreateContainerError");

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

    KubernetesExecutor(KubernetesClient client, KubernetesProfile profile, Arms arms, Supplier<String> suffix) {
        this.client = client;
        this.profile = profile;
        this.arms = arms;
        this.suffix = suffix;
    }

    @Override
    public String name() {
        return "kubernetes";
    }

    /** The arm's environment is its image: nothing is checked out on this machine. */
    @Override
    public Environment prepare(ArmSpec arm, Path repo, io.isobench.env.ArmSetup setup) {
        Resolved r = arms.resolve(arm.taskId(), arm.arm());
        if (r.failure() != null) {
            return new Environment(null, r.commit(), null, null, null, r.failure(), "");
        }
        String ref = "k8s-image:" + r.image().image() + (r.image().patchSha256() == null ? ""
                : "+patch:" + r.image().patchSha256().substring(0, 12));
        return new Environment(null, r.commit(), null, r.image().patchSha256(), ref, null,
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
                ? KubeJobSpec.serverArgv(job.argv(), profile.serverPort()) : job.argv();
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
                    delete(name);
                    return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "cancelled: Job " + ns + "/" + name
                            + " deleted", List.of("cancelled")), "", timings, argv);
                }
                if (current == null) {
                    return JobResult.failed(t0, new Failure(FailureCategory.INFRA_TRANSIENT, "Job " + ns + "/" + name
                            + " disappeared before it finished (deleted by someone else?)", List.of()), "", timings,
                            argv);
                }
                Optional<String> terminal = terminal(current);
                Pod pod = latestPod(name);
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
                    cleanupPatch(name);
                    return r;
                }
                Failure early = pod == null ? null : earlyFailure(job, pod);
                if (early != null) {
                    String log = logs(job, pod);
                    delete(name);
                    return JobResult.failed(t0, early, log, timings, argv);
                }
                if (mainSeenNs == 0 && pod != null && mainRunning(pod)) {
                    mainSeenNs = System.nanoTime();
                }
                if (mainSeenNs != 0 && System.nanoTime() - mainSeenNs > job.limits().runS() * 1_000_000_000L) {
                    // run_s counts from the benchmark's (client's) start, as on the other executors; the Job's
                    // activeDeadlineSeconds (which also covers scheduling) stays the cluster-side backstop. Read the
                    // log now: once the Job is deleted, its pod and logs go with it.
                    String log = logs(job, pod != null ? pod : lastPod);
                    delete(name);
                    return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT,
                            (argv == job.argv() ? "the benchmark"
                            : "the client") + " ran longer than run_s (" + job.limits().runS() + " s); Job " + name
                            + " deleted", List.of("timeout")), log, timings, argv);
                }
                if (System.nanoTime() - t0 > limitNs) {
                    String log = pod == null ? "" : logs(job, pod);
                    delete(name);
                    return JobResult.failed(t0, new Failure(FailureCategory.TIMEOUT, "Job " + name
                            + " did not finish within "
                            + limitNs / 1_000_000_000L + " s", List.of()), log, timings,
                            argv);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            delete(name);
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
            delete(j.getMetadata().getName());
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
        String log = pod == null ? "" : logs(job, pod);
        String mainLog = pod == null ? "" : log(pod, KubeJobSpec.MAIN);
        if ("Complete".equals(terminal) && pod == null) {
            delete(k8s.getMetadata().getName()); // so that the retry creates a fresh Job instead of adopting this one
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
            ParsedOutput parsed = OutputParser.parse(mainLog);
            if (parsed.hasMetrics()) {
                return JobResult.ended(t0, null, parsed.metrics(), workloadJson(argv, job, parsed.workload()), log,
                        timings, argv);
            }
            Failure f = FailureClassifier.classify(log).filter(x -> x.category() != FailureCategory.UNKNOWN)
                    .orElse(new Failure(FailureCategory.NO_METRICS, "exited 0 without a metric block", List.of()));
            return JobResult.failed(t0, f, log, timings, argv);
        }
        // the job controller deletes the pods of a Job past its deadline: classify from the pod as last seen
        return JobResult.failed(t0, classifyFailed(job, k8s, pod != null ? pod : lastSeen, log), log, timings, argv);
    }

    /**
     * {@code ready_ms} (server start to client start: the client starts once the sidecar's startup probe passed),
     * {@code client_ms} and {@code teardown_ms} (client end to server end) from the kubelet's container timestamps
     * (whole seconds on a real cluster); absent when the pod does not show them.
     */
    static Map<String, Double> servingTimings(Pod pod) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (pod == null || pod.getStatus() == null) {
            return out;
        }
        var server = nonNull(pod.getStatus().getInitContainerStatuses()).stream()
                .filter(c -> KubeJobSpec.SERVER.equals(c.getName())).findFirst().orElse(null);
        var client = nonNull(pod.getStatus().getContainerStatuses()).stream()
                .filter(c -> KubeJobSpec.MAIN.equals(c.getName())).findFirst().orElse(null);
        var ct = client == null || client.getState() == null ? null : client.getState().getTerminated();
        if (ct == null) {
            return out;
        }
        Instant clientStart = instant(ct.getStartedAt());
        Instant clientEnd = instant(ct.getFinishedAt());
        Instant serverStart = null;
        Instant serverEnd = null;
        if (server != null && server.getState() != null) {
            if (server.getState().getTerminated() != null) {
                serverStart = instant(server.getState().getTerminated().getStartedAt());
                serverEnd = instant(server.getState().getTerminated().getFinishedAt());
            } else if (server.getState().getRunning() != null) {
                serverStart = instant(server.getState().getRunning().getStartedAt());
            }
        }
        if (serverStart != null && clientStart != null) {
            out.put("ready_ms", (double) Math.max(0, clientStart.toEpochMilli() - serverStart.toEpochMilli()));
        }
        if (clientStart != null && clientEnd != null) {
            out.put("client_ms", (double) Math.max(0, clientEnd.toEpochMilli() - clientStart.toEpochMilli()));
        }
        if (clientEnd != null && serverEnd != null) {
            out.put("teardown_ms", (double) Math.max(0, serverEnd.toEpochMilli() - clientEnd.toEpochMilli()));
        }
        return out;
    }

    private static Instant instant(String rfc3339) {
        try {
            return rfc3339 == null ? null : Instant.parse(rfc3339);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    /** The client container of a serving pod left its waiting state (so the server's startup probe passed). */
    private static boolean clientStarted(Pod pod) {
        return nonNull(pod.getStatus() == null ? null : pod.getStatus().getContainerStatuses()).stream()
                .anyMatch(cs -> KubeJobSpec.MAIN.equals(cs.getName()) && cs.getState() != null
                        && (cs.getState().getRunning() != null || cs.getState().getTerminated() != null));
    }

    /** The benchmark (offline) or client (serving) container is running. */
    private static boolean mainRunning(Pod pod) {
        return nonNull(pod.getStatus() == null ? null : pod.getStatus().getContainerStatuses()).stream()
                .anyMatch(cs -> KubeJobSpec.MAIN.equals(cs.getName()) && cs.getState() != null
                        && cs.getState().getRunning() != null);
    }

    /** Why a Failed Job failed: the pod's story first (evicted, OOMKilled, patch, server), then the Job's reason. */
    Failure classifyFailed(Job job, io.fabric8.kubernetes.api.model.batch.v1.Job k8s, Pod pod, String log) {
        JobCondition failed = k8s.getStatus().getConditions().stream().filter(c -> "Failed".equals(c.getType()))
                .findFirst().orElse(new JobCondition());
        String reason = String.valueOf(failed.getReason());
        String message = failed.getMessage() == null ? "" : failed.getMessage();
        if (pod != null) {
            Failure f = podFailure(job, pod, log);
            if (f != null) {
                return f;
            }
        }
        if ("DeadlineExceeded".equals(reason)) {
            if (pod == null || !started(pod)) {
                return new Failure(FailureCategory.RESOURCES_INSUFFICIENT, "the pod was never scheduled or started "
                        + "before the Job's deadline (" + message + "); check GPUs, node_selector and tolerations",
                        evidence(pod, reason + ": " + message));
            }
            return new Failure(FailureCategory.TIMEOUT, "the Job ran past its activeDeadlineSeconds ("
                    + k8s.getSpec().getActiveDeadlineSeconds() + " s)", List.of(reason + ": " + message));
        }
        Optional<Failure> fromLog = FailureClassifier.classify(log);
        if (fromLog.isPresent() && fromLog.get().category() != FailureCategory.UNKNOWN) {
            return fromLog.get();
        }
        return new Failure(FailureCategory.UNKNOWN, "Job failed: " + reason + (message.isEmpty() ? "" : " — " + message),
                List.of(reason + ": " + message));
    }

    /** The pod-level cause of a failure, or null when the pod shows none. */
    private Failure podFailure(Job job, Pod pod, String log) {
        var st = pod.getStatus();
        if (st == null) {
            return null;
        }
        String podReason = String.valueOf(st.getReason());
        if ("Evicted".equals(podReason) || "Preempting".equals(podReason) || "NodeLost".equals(podReason)
                || "Shutdown".equals(podReason) || "Terminated".equals(podReason)) {
            return new Failure(FailureCategory.INFRA_TRANSIENT, "pod " + pod.getMetadata().getName() + " " + podReason
                    + (st.getMessage() == null ? "" : ": " + st.getMessage()), List.of(podReason + ": "
                    + st.getMessage()));
        }
        if (st.getConditions() != null) {
            for (PodCondition c : st.getConditions()) {
                if ("DisruptionTarget".equals(c.getType()) && "True".equals(c.getStatus())) {
                    return new Failure(FailureCategory.INFRA_TRANSIENT, "pod " + pod.getMetadata().getName()
                            + " disrupted: " + c.getReason() + (c.getMessage() == null ? "" : " — " + c.getMessage()),
                            List.of(c.getReason() + ": " + c.getMessage()));
                }
            }
        }
        for (ContainerStatus cs : all(pod)) {
            var term = cs.getState() == null ? null : cs.getState().getTerminated();
            var last = cs.getLastState() == null ? null : cs.getLastState().getTerminated();
            for (var t : java.util.Arrays.asList(term, last)) {
                if (t != null && "OOMKilled".equals(t.getReason())) {
                    return new Failure(FailureCategory.RESOURCES_INSUFFICIENT, "container " + cs.getName()
                            + " was OOMKilled (memory limit " + profile.memory() + "): raise kubernetes.resources"
                            + ".memory in the profile", List.of("OOMKilled: container " + cs.getName() + " exit "
                            + t.getExitCode()));
                }
            }
        }
        for (ContainerStatus cs : nonNull(st.getInitContainerStatuses())) {
            var t = cs.getState() == null ? null : cs.getState().getTerminated();
            if (t == null || t.getExitCode() == null || t.getExitCode() == 0) {
                continue;
            }
            String clog = log(pod, cs.getName());
            switch (cs.getName()) {
                case KubeJobSpec.PATCH_CHECK, KubeJobSpec.PATCH_APPLY -> {
                    return new Failure(FailureCategory.PATCH_FAILED, "the agent patch does not apply to the baseline"
                            + " image's source (git apply --check)", tail(clog));
                }
                case KubeJobSpec.COPY_SOURCE -> {
                    return new Failure(FailureCategory.ENV_MISSING, "cannot copy the source tree "
                            + profile.sourceDir() + " out of the image (kubernetes.source_dir)", tail(clog));
                }
                case KubeJobSpec.SERVER -> {
                    if (clientStarted(pod)) {
                        continue; // stopped by the kubelet after the client ended: the client's exit tells
                    }
                    if (t.getExitCode() == 127 || "StartError".equals(t.getReason())
                            || "ContainerCannotRun".equals(t.getReason())) {
                        return new Failure(FailureCategory.ENV_MISSING, "the server command " + job.argv().get(0)
                                + " does not exist in the image", tail(clog + "\n" + t.getMessage()));
                    }
                    return LocalExecutor.serverFailure(clog, FailureCategory.SERVER_CRASHED,
                            "the server exited with code " + t.getExitCode());
                }
                default -> {
                    return new Failure(FailureCategory.UNKNOWN, "init container " + cs.getName() + " exited "
                            + t.getExitCode(), tail(clog));
                }
            }
        }
        for (ContainerStatus cs : nonNull(st.getContainerStatuses())) {
            var t = cs.getState() == null ? null : cs.getState().getTerminated();
            if (t == null || t.getExitCode() == null || t.getExitCode() == 0) {
                continue;
            }
            String clog = log(pod, cs.getName());
            boolean serving = job.serving() || job.kind() == Job.Kind.CHECK;
            if (t.getExitCode() == 127 || "StartError".equals(t.getReason())
                    || "ContainerCannotRun".equals(t.getReason())) {
                return serving
                        ? new Failure(FailureCategory.ENV_MISSING, "the client command " + profile.clientCommand()
                        + " does not exist in the client image", tail(clog + "\n" + t.getMessage()))
                        : new Failure(FailureCategory.BAD_PERF_COMMAND, "cannot run " + job.argv().get(0)
                        + ": not found in the image", tail(clog + "\n" + t.getMessage()));
            }
            Optional<Failure> f = FailureClassifier.classify(log);
            if (f.isPresent() && f.get().category() != FailureCategory.UNKNOWN) {
                return f.get();
            }
            return new Failure(serving ? FailureCategory.NO_METRICS : FailureCategory.UNKNOWN,
                    (serving ? "the client" : "the benchmark") + " exited " + t.getExitCode() + " without metrics",
                    tail(clog));
        }
        return null;
    }

    /** Failures visible while the Job is still active: images that cannot be pulled, a server that crashed. */
    private Failure earlyFailure(Job job, Pod pod) {
        for (ContainerStatus cs : all(pod)) {
            var w = cs.getState() == null ? null : cs.getState().getWaiting();
            if (w != null && IMAGE_ERRORS.contains(w.getReason())) {
                return new Failure(FailureCategory.ENV_MISSING, "image " + cs.getImage() + " cannot be pulled ("
                        + w.getReason() + "): build or push it, or fix kubernetes.images / image_pull_secrets",
                        List.of(w.getReason() + ": " + w.getMessage()));
            }
            if (w != null && CONFIG_ERRORS.contains(w.getReason())) {
                return new Failure(FailureCategory.ENV_MISSING, "container " + cs.getName() + " cannot be created ("
                        + w.getReason() + "): a Secret, ConfigMap or volume the profile names is missing",
                        List.of(w.getReason() + ": " + w.getMessage()));
            }
        }
        for (ContainerStatus cs : nonNull(pod.getStatus() == null ? null : pod.getStatus().getInitContainerStatuses())) {
            if (!KubeJobSpec.SERVER.equals(cs.getName()) || clientStarted(pod)) {
                // once the client runs, the server was ready; its end after the client's is the pod's teardown
                continue;
            }
            boolean restarted = cs.getRestartCount() != null && cs.getRestartCount() > 0;
            var t = cs.getState() == null ? null : cs.getState().getTerminated();
            var last = cs.getLastState() == null ? null : cs.getLastState().getTerminated();
            if ((restarted || t != null) && !Boolean.TRUE.equals(cs.getStarted())) {
                var end = t != null ? t : last;
                if (end != null && "OOMKilled".equals(end.getReason())) {
                    return new Failure(FailureCategory.RESOURCES_INSUFFICIENT, "the server was OOMKilled (memory limit "
                            + profile.memory() + "): raise kubernetes.resources.memory in the profile",
                            List.of("OOMKilled: container server"));
                }
                String clog = log(pod, KubeJobSpec.SERVER);
                if (end != null && end.getExitCode() != null && end.getExitCode() == 127) {
                    return new Failure(FailureCategory.ENV_MISSING, "the server command " + job.argv().get(0)
                            + " does not exist in the image", tail(clog));
                }
                if (end != null && "Error".equals(end.getReason()) || restarted) {
                    return LocalExecutor.serverFailure(clog, FailureCategory.SERVER_CRASHED,
                            "the server exited" + (end == null ? "" : " with code " + end.getExitCode())
                                    + " before it was ready");
                }
            }
            var running = cs.getState() == null ? null : cs.getState().getRunning();
            if (running != null && !Boolean.TRUE.equals(cs.getStarted()) && running.getStartedAt() != null) {
                long since = Instant.parse(running.getStartedAt()).toEpochMilli();
                if (System.currentTimeMillis() - since > job.limits().serverStartS() * 1000L) {
                    return LocalExecutor.serverFailure(log(pod, KubeJobSpec.SERVER),
                            FailureCategory.SERVER_START_TIMEOUT,
                            "the server was not ready within " + job.limits().serverStartS() + " s");
                }
            }
        }
        return null;
    }

    private static boolean started(Pod pod) {
        return all(pod).stream().anyMatch(cs -> cs.getState() != null
                && (cs.getState().getRunning() != null || cs.getState().getTerminated() != null));
    }

    private static List<ContainerStatus> all(Pod pod) {
        List<ContainerStatus> out = new ArrayList<>();
        if (pod.getStatus() != null) {
            out.addAll(nonNull(pod.getStatus().getInitContainerStatuses()));
            out.addAll(nonNull(pod.getStatus().getContainerStatuses()));
        }
        return out;
    }

    private static <T> List<T> nonNull(List<T> l) {
        return l == null ? List.of() : l;
    }

    private Pod latestPod(String jobName) {
        List<Pod> pods = new ArrayList<>(client.pods().inNamespace(profile.namespace()).withLabel("job-name", jobName)
                .list().getItems());
        pods.sort(Comparator.comparing(p -> String.valueOf(p.getMetadata().getCreationTimestamp())));
        return pods.isEmpty() ? null : pods.get(pods.size() - 1);
    }

    /** All logs of the pod, labelled per container: init steps, server, then the benchmark or client. */
    private String logs(Job job, Pod pod) {
        StringBuilder sb = new StringBuilder();
        List<String> names = new ArrayList<>();
        pod.getSpec().getInitContainers().forEach(c -> names.add(c.getName()));
        pod.getSpec().getContainers().forEach(c -> names.add(c.getName()));
        for (String c : names) {
            String text = log(pod, c);
            if (text.isEmpty()) {
                continue;
            }
            if (names.size() > 1) {
                sb.append("--- container ").append(c).append(" ---\n");
            }
            sb.append(text);
            if (!text.endsWith("\n")) {
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private String log(Pod pod, String container) {
        try {
            String s = client.pods().inNamespace(profile.namespace()).withName(pod.getMetadata().getName())
                    .inContainer(container).getLog();
            return s == null ? "" : s;
        } catch (KubernetesClientException e) {
            return "";
        }
    }

    private void delete(String name) {
        try {
            client.batch().v1().jobs().inNamespace(profile.namespace()).withName(name)
                    .withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
        } catch (KubernetesClientException e) {
            // already gone
        }
        cleanupPatch(name);
    }

    private void cleanupPatch(String name) {
        try {
            client.configMaps().inNamespace(profile.namespace()).withName(name + "-patch").delete();
        } catch (KubernetesClientException e) {
            // none, or gone with its Job
        }
    }

    static Failure apiFailure(KubernetesClientException e) {
        int code = e.getCode();
        String msg = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        if (code == 401 || code == 403) {
            return new Failure(FailureCategory.ENV_MISSING, "the Kubernetes API refused isobench (HTTP " + code
                    + "): the kubeconfig user needs create/get/list/watch/delete on jobs, pods, pods/log and "
                    + "configmaps in the namespace", List.of(msg));
        }
        if (code == 422 || code == 400) {
            return new Failure(FailureCategory.BAD_PERF_COMMAND, "the API server rejected the Job spec (HTTP " + code
                    + ")", List.of(msg));
        }
        if (code == 404) {
            return new Failure(FailureCategory.ENV_MISSING, "not found on the API server (namespace missing?)",
                    List.of(msg));
        }
        return new Failure(FailureCategory.INFRA_TRANSIENT, "Kubernetes API error: " + msg, List.of(msg));
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
        return log.lines().filter(l -> l.startsWith(io.isobench.probe.Greedy.PROBE_MARKER)).findFirst()
                .map(l -> l.substring(io.isobench.probe.Greedy.PROBE_MARKER.length()).strip()).orElse(null);
    }

    private static String workloadJson(List<String> argv, Job job, io.isobench.parse.Workload w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("argv", argv);
        if (!job.client().isEmpty()) {
            m.put("client", job.client());
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

    private static List<String> evidence(Pod pod, String fallback) {
        List<String> out = new ArrayList<>();
        if (pod != null && pod.getStatus() != null && pod.getStatus().getConditions() != null) {
            for (PodCondition c : pod.getStatus().getConditions()) {
                if ("PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())) {
                    out.add(c.getReason() + ": " + c.getMessage());
                }
            }
        }
        out.add(fallback);
        return out;
    }

    private static List<String> tail(String text) {
        List<String> lines = text.strip().lines().filter(l -> !l.isBlank()).toList();
        return List.copyOf(lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }

    /**
     * A client from the kubeconfig ($KUBECONFIG, ~/.kube/config, or the in-cluster service account), checked with one
     * call to the API server. Missing or unreachable: one-line {@link io.isobench.IsobenchException.EnvironmentMissing}.
     */
    static KubernetesExecutor connect(io.isobench.task.Suite suite, KubernetesProfile profile) {
        String kubeconfig = System.getenv("KUBECONFIG");
        Path home = Path.of(System.getProperty("user.home"), ".kube", "config");
        boolean inCluster = System.getenv("KUBERNETES_SERVICE_HOST") != null
                && java.nio.file.Files.exists(Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token"));
        boolean fromEnv = kubeconfig != null && !kubeconfig.isBlank() && java.util.Arrays.stream(
                kubeconfig.split(java.io.File.pathSeparator)).anyMatch(f -> java.nio.file.Files.isRegularFile(Path.of(f)));
        if (!fromEnv && !java.nio.file.Files.isRegularFile(home) && !inCluster) {
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
        return new KubernetesExecutor(client, profile, suiteArms(suite, profile, human -> parentOf(repo, human)),
                () -> String.format(java.util.Locale.ROOT, "%04x", new java.security.SecureRandom().nextInt(0x10000)));
    }

    /** The human commit's first parent from the local clone, or null without one. */
    static String parentOf(Path repo, String human) {
        if (repo == null) {
            return null;
        }
        try {
            Process p = new ProcessBuilder("git", "-C", repo.toString(), "rev-parse", "--verify", "--quiet",
                    human + "^").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 && out.matches("[0-9a-f]{40}") ? out : null;
        } catch (java.io.IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Arms of a suite: image templates filled with the task's commits, agent patches read from disk. */
    static Arms suiteArms(io.isobench.task.Suite suite, KubernetesProfile profile,
                          Function<String, String> parentOf) {
        return (taskId, arm) -> {
            var task = suite.task(taskId).orElse(null);
            if (task == null) {
                return new Resolved(null, null, new Failure(FailureCategory.ENV_MISSING, "no task " + taskId
                        + " in the suite", List.of()));
            }
            String template = profile.imageTemplate(arm);
            String human = task.humanCommit();
            String parent = task.parentCommit() != null ? task.parentCommit() : parentOf.apply(human);
            String commit = arm.equals("human") ? human : parent;
            String patch = null;
            String patchSha = null;
            String agent = "";
            if (arm.startsWith("agent:")) {
                agent = arm.substring(6);
                String a = agent;
                Optional<Path> file = suite.agents().stream().filter(x -> x.name().replace('-', '_').equals(a.replace('-', '_'))).findFirst()
                        .flatMap(x -> x.patchFor(taskId));
                if (file.isEmpty()) {
                    return new Resolved(null, commit, new Failure(FailureCategory.ENV_MISSING, "agent " + a
                            + " has no patch for task " + taskId, List.of()));
                }
                try {
                    patch = java.nio.file.Files.readString(file.get());
                } catch (java.io.IOException e) {
                    return new Resolved(null, commit, new Failure(FailureCategory.PATCH_FAILED, "cannot read the "
                            + "patch " + file.get() + ": " + e.getMessage(), List.of()));
                }
                if (patch.isBlank()) {
                    return new Resolved(null, commit, new Failure(FailureCategory.EMPTY_PATCH, "the patch "
                            + file.get() + " is empty", List.of()));
                }
                patchSha = sha256(patch);
            }
            String image = fill(template, taskId, human, parent, agent, patchSha);
            if (image.contains("{")) {
                return new Resolved(null, commit, new Failure(FailureCategory.ENV_MISSING, "the " + arm + " image "
                        + "template " + template + " needs a value isobench does not have (" + image + "): set "
                        + "parent_commit in the suite or use a local engine.repo", List.of()));
            }
            return new Resolved(new KubeJobSpec.ArmImage(image, patch, patchSha), commit, null);
        };
    }

    static String fill(String template, String task, String human, String parent, String agent, String patchSha) {
        String s = template.replace("{task}", task).replace("{agent}", KubeJobSpec.slug(agent));
        s = replace(s, "human_commit", human);
        s = replace(s, "parent_commit", parent);
        s = replace(s, "patch_sha256", patchSha);
        return s;
    }

    private static String replace(String s, String key, String value) {
        if (value == null) {
            return s;
        }
        return s.replace("{" + key + "_short}", value.substring(0, Math.min(12, value.length())))
                .replace("{" + key + "}", value);
    }

    static String sha256(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
