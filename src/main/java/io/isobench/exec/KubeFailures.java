package io.isobench.exec;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.plan.Job;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.isobench.exec.KubePods.all;
import static io.isobench.exec.KubePods.clientStarted;
import static io.isobench.exec.KubePods.nonNull;
import static io.isobench.exec.KubePods.started;

/**
 * Maps what the cluster shows of a failed or failing Job (its conditions, its pod, the API errors) to DESIGN §7
 * categories.
 */
final class KubeFailures {

    private static final Set<String> IMAGE_ERRORS = Set.of("ErrImagePull", "ImagePullBackOff",
            "InvalidImageName", "ErrImageNeverPull");
    private static final Set<String> CONFIG_ERRORS = Set.of("CreateContainerConfigError",
            "CreateContainerError");

    private final KubernetesProfile profile;
    private final KubeCluster cluster;

    KubeFailures(KubernetesProfile profile, KubeCluster cluster) {
        this.profile = profile;
        this.cluster = cluster;
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
            for (var t : Arrays.asList(term, last)) {
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
            String clog = cluster.log(pod, cs.getName());
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
                    return LocalExecutor.serverFailure(clog, job.argv(), FailureCategory.SERVER_CRASHED,
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
            String clog = cluster.log(pod, cs.getName());
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
    Failure earlyFailure(Job job, Pod pod) {
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
                String clog = cluster.log(pod, KubeJobSpec.SERVER);
                if (end != null && end.getExitCode() != null && end.getExitCode() == 127) {
                    return new Failure(FailureCategory.ENV_MISSING, "the server command " + job.argv().get(0)
                            + " does not exist in the image", tail(clog));
                }
                if (end != null && "Error".equals(end.getReason()) || restarted) {
                    return LocalExecutor.serverFailure(clog, job.argv(), FailureCategory.SERVER_CRASHED,
                            "the server exited" + (end == null ? "" : " with code " + end.getExitCode())
                                    + " before it was ready");
                }
            }
            var running = cs.getState() == null ? null : cs.getState().getRunning();
            if (running != null && !Boolean.TRUE.equals(cs.getStarted()) && running.getStartedAt() != null) {
                long since = Instant.parse(running.getStartedAt()).toEpochMilli();
                if (System.currentTimeMillis() - since > job.limits().serverStartS() * 1000L) {
                    return LocalExecutor.serverFailure(cluster.log(pod, KubeJobSpec.SERVER), job.argv(),
                            FailureCategory.SERVER_START_TIMEOUT,
                            "the server was not ready within " + job.limits().serverStartS() + " s");
                }
            }
        }
        return null;
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
}
