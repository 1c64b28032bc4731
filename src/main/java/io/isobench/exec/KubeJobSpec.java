package io.isobench.exec;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.isobench.plan.GpuRequest;
import io.isobench.plan.Job;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The batch/v1 Job (and, for agent arms, the ConfigMap holding the patch) one isobench job becomes. Pure: the same
 * inputs give the same spec (golden-tested in src/test/resources/golden/k8s/).
 *
 * <p>Offline modes: one container {@code bench} runs the benchmark argv in the source tree. Serving and correctness
 * checks: the server is a native sidecar (an init container with {@code restartPolicy: Always} and a startup probe
 * on {@code /health}; Kubernetes ≥ 1.29), so the client container {@code bench} starts only once the server is
 * ready, and the Job completes when the client exits. Agent arms with {@code apply_patch}: init containers copy the
 * image's source tree to an emptyDir, {@code git apply --check} the patch, then {@code git apply} it; the server or
 * benchmark runs on that copy. Everything is an argv: no shell anywhere.
 */
final class KubeJobSpec {

    static final String LABEL_MANAGED = "app.kubernetes.io/managed-by";
    static final String LABEL_SESSION = "isobench.io/session";
    static final String LABEL_KEY = "isobench.io/run-key";
    static final String LABEL_TASK = "isobench.io/task";
    static final String LABEL_ARM = "isobench.io/arm";
    static final String LABEL_ROUND = "isobench.io/round";
    static final String ANN_RUN = "isobench.io/run-id";
    static final String ANN_JOB = "isobench.io/job-id";
    static final String ANN_IMAGE = "isobench.io/image";
    static final String ANN_PATCH = "isobench.io/patch-sha256";
    static final String MAIN = "bench";
    static final String SERVER = "server";
    static final String PATCH_CHECK = "patch-check";
    static final String PATCH_APPLY = "patch-apply";
    static final String COPY_SOURCE = "copy-source";
    static final String GREEDY_MARKER = "isobench-greedy-outputs: ";
    private static final String SRC_MOUNT = "/isobench/src";
    private static final String PATCH_MOUNT = "/isobench/patch";
    private static final int PROBE_PERIOD_S = 5;

    /** What one arm runs in: its image, and the agent patch applied on it (null: none). */
    record ArmImage(String image, String patch, String patchSha256) {
    }

    /** The objects to create: the Job, and the patch ConfigMap (null without a patch). */
    record Spec(io.fabric8.kubernetes.api.model.batch.v1.Job job, ConfigMap patch) {
    }

    private KubeJobSpec() {
    }

    /**
     * @param job     the plan's job
     * @param arm     image and patch of the job's arm
     * @param runId   the store's run id ({@code <session>/<task>/<arm>/<round>}): label key and annotation
     * @param suffix  a short random suffix that makes the Job name unique per attempt
     */
    static Spec build(KubernetesProfile p, Job job, ArmImage arm, String runId, String suffix) {
        String session = runId.contains("/") ? runId.substring(0, runId.indexOf('/')) : "adhoc";
        String name = jobName(job, runId, suffix);
        Map<String, String> labels = new TreeMap<>(p.labels());
        labels.put(LABEL_MANAGED, "isobench");
        labels.put(LABEL_SESSION, labelValue(session));
        labels.put(LABEL_KEY, runKey(runId));
        labels.put(LABEL_TASK, labelValue(job.taskId()));
        labels.put(LABEL_ARM, labelValue(job.arm().label().replace(':', '.')));
        labels.put(LABEL_ROUND, job.kind() == Job.Kind.CHECK ? "check" : Integer.toString(job.round()));
        Map<String, String> annotations = new TreeMap<>();
        annotations.put(ANN_RUN, runId);
        annotations.put(ANN_JOB, job.jobId());
        annotations.put(ANN_IMAGE, arm.image());
        if (arm.patchSha256() != null) {
            annotations.put(ANN_PATCH, arm.patchSha256());
        }

        boolean patched = arm.patch() != null && p.applyPatch();
        boolean withServer = job.serving() || job.kind() == Job.Kind.CHECK;
        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> engineMounts = new ArrayList<>();
        if (p.shmSize() != null) {
            volumes.add(new VolumeBuilder().withName("dshm").withNewEmptyDir().withMedium("Memory")
                    .withSizeLimit(new Quantity(p.shmSize())).endEmptyDir().build());
            engineMounts.add(mount("dshm", "/dev/shm", false));
        }
        if (p.hfCache() != null) {
            volumes.add(new VolumeBuilder().withName("hf-cache").withNewPersistentVolumeClaim()
                    .withClaimName(p.hfCache().claimName()).withReadOnly(p.hfCache().readOnly())
                    .endPersistentVolumeClaim().build());
            engineMounts.add(mount("hf-cache", p.hfCache().mountPath(), p.hfCache().readOnly()));
        }
        ConfigMap patchMap = null;
        List<Container> init = new ArrayList<>();
        if (patched) {
            String cmName = name + "-patch";
            patchMap = new ConfigMapBuilder().withNewMetadata().withName(cmName).withNamespace(p.namespace())
                    .withLabels(labels).withAnnotations(annotations).endMetadata()
                    .withData(Map.of("patch.diff", arm.patch())).build();
            volumes.add(new VolumeBuilder().withName("source").withNewEmptyDir().endEmptyDir().build());
            volumes.add(new VolumeBuilder().withName("patch").withNewConfigMap().withName(cmName).endConfigMap()
                    .build());
            VolumeMount src = mount("source", SRC_MOUNT, false);
            VolumeMount patchMount = mount("patch", PATCH_MOUNT, true);
            init.add(plain(COPY_SOURCE, arm.image(), p, List.of("cp", "-a", p.sourceDir() + "/.", SRC_MOUNT + "/"),
                    List.of(src)));
            init.add(plain(PATCH_CHECK, arm.image(), p, List.of("git", "-C", SRC_MOUNT, "apply", "--check", "--verbose",
                    PATCH_MOUNT + "/patch.diff"), List.of(src, patchMount)));
            init.add(plain(PATCH_APPLY, arm.image(), p, List.of("git", "-C", SRC_MOUNT, "apply", "--verbose",
                    PATCH_MOUNT + "/patch.diff"), List.of(src, patchMount)));
            engineMounts.add(mount("source", p.sourceDir(), false));
        }

        Engine engine = new Engine(arm.image(), p, engineEnv(p, job.env()), engineMounts, job.gpus());
        Container main;
        if (withServer) {
            List<String> serverArgv = serverArgv(job, p.serverPort());
            Container server = engine.container(SERVER, serverArgv);
            server = new ContainerBuilder(server).withRestartPolicy("Always")
                    .withNewStartupProbe().withNewHttpGet().withPath("/health").withNewPort(p.serverPort())
                    .endHttpGet().withPeriodSeconds(PROBE_PERIOD_S).withTimeoutSeconds(PROBE_PERIOD_S)
                    .withFailureThreshold(Math.max(1,
                            (job.limits().serverStartS() + PROBE_PERIOD_S - 1) / PROBE_PERIOD_S))
                    .endStartupProbe().build();
            init.add(server);
            String image = p.clientImage() != null ? p.clientImage() : arm.image();
            main = new ContainerBuilder().withName(MAIN).withImage(image).withImagePullPolicy(p.imagePullPolicy())
                    .withCommand(clientArgv(p, job)).withEnv(plainEnv(p)).withTerminationMessagePolicy(
                            "FallbackToLogsOnError").build();
        } else {
            main = engine.container(MAIN, job.argv());
        }
        long deadline = (long) p.startSlackS() + job.limits().runS() + (withServer ? job.limits().serverStartS() : 0);
        var pod = new io.fabric8.kubernetes.api.model.PodSpecBuilder().withRestartPolicy("Never")
                .withInitContainers(init).withContainers(main).withVolumes(volumes)
                .withNodeSelector(p.nodeSelector().isEmpty() ? null : new TreeMap<>(p.nodeSelector()))
                .withTolerations(p.tolerations().stream().map(t -> new TolerationBuilder().withKey(t.key())
                        .withOperator(t.operator()).withValue(t.value()).withEffect(t.effect()).build()).toList())
                .withImagePullSecrets(p.imagePullSecrets().stream().map(LocalObjectReference::new).toList())
                .withServiceAccountName(p.serviceAccount()).withAutomountServiceAccountToken(false)
                .withEnableServiceLinks(false).build();
        var k8sJob = new JobBuilder().withNewMetadata().withName(name).withNamespace(p.namespace())
                .withLabels(labels).withAnnotations(annotations).endMetadata()
                .withNewSpec().withBackoffLimit(0).withActiveDeadlineSeconds(deadline)
                .withTtlSecondsAfterFinished(p.ttlSecondsAfterFinished())
                .withNewTemplate().withNewMetadata().withLabels(labels).withAnnotations(annotations).endMetadata()
                .withSpec(pod).endTemplate().endSpec().build();
        return new Spec(k8sJob, patchMap);
    }

    /**
     * The server argv for the pod: the planned server with the pod's port, bound to all interfaces of the pod (the
     * kubelet's probe reaches the pod IP, not the pod's loopback).
     */
    static List<String> serverArgv(Job job, int port) {
        return job.spec().command().argvFor(ALL_INTERFACES, port);
    }

    /** The server's host in a pod. */
    static final String ALL_INTERFACES = "0.0.0.0";

    /** The client container's argv: isobench loadgen (measurement) or isobench greedy (correctness check). */
    static List<String> clientArgv(KubernetesProfile p, Job job) {
        List<String> out = new ArrayList<>(p.clientCommand());
        String base = "http://127.0.0.1:" + p.serverPort();
        if (job.probes() != null) {
            out.addAll(List.of("greedy", "--base-url", base, "--model", job.model(), "--num-prompts",
                    Integer.toString(job.probes().numPrompts()), "--max-tokens",
                    Integer.toString(job.probes().maxTokens())));
            return out;
        }
        // the client's flags name its model (Job.model)
        out.addAll(List.of("loadgen", "--base-url", base));
        out.addAll(job.client().argv());
        out.addAll(List.of("--num-warmups", Integer.toString(job.warmupRequests()), "--label", "isobench-run"));
        return out;
    }

    /**
     * What every engine container of the pod shares (the server, or the offline benchmark): the arm's image, the
     * profile's pull policy, working folder and requests, the engine's environment and mounts, the job's GPUs.
     */
    private record Engine(String image, KubernetesProfile p, List<EnvVar> env, List<VolumeMount> mounts, int gpus) {

        /** The container {@code name} running {@code argv} with what every engine container shares. */
        Container container(String name, List<String> argv) {
            Map<String, Quantity> limits = new TreeMap<>();
            Map<String, Quantity> requests = new TreeMap<>();
            new GpuRequest(gpus).kubernetesLimits().forEach((k, v) -> limits.put(k, new Quantity(v)));
            if (p.cpu() != null) {
                requests.put("cpu", new Quantity(p.cpu()));
            }
            if (p.memory() != null) {
                requests.put("memory", new Quantity(p.memory()));
                limits.put("memory", new Quantity(p.memory()));
            }
            return new ContainerBuilder().withName(name).withImage(image).withImagePullPolicy(p.imagePullPolicy())
                    .withCommand(argv).withWorkingDir(p.sourceDir()).withEnv(env).withVolumeMounts(mounts)
                    .withResources(new ResourceRequirementsBuilder().withLimits(limits.isEmpty() ? null : limits)
                            .withRequests(requests.isEmpty() ? null : requests).build())
                    .withTerminationMessagePolicy("FallbackToLogsOnError").build();
        }
    }

    private static Container plain(String name, String image, KubernetesProfile p, List<String> argv,
                                   List<VolumeMount> mounts) {
        return new ContainerBuilder().withName(name).withImage(image).withImagePullPolicy(p.imagePullPolicy())
                .withCommand(argv).withVolumeMounts(mounts).withTerminationMessagePolicy("FallbackToLogsOnError")
                .build();
    }

    private static List<EnvVar> engineEnv(KubernetesProfile p, Map<String, String> jobEnv) {
        List<EnvVar> env = new ArrayList<>(plainEnv(p));
        new TreeMap<>(jobEnv).forEach((k, v) -> env.add(new EnvVar(k, v, null)));
        if (p.hfCache() != null) {
            env.add(new EnvVar("HF_HOME", p.hfCache().mountPath(), null));
        }
        if (p.hfTokenSecret() != null) {
            // from the Secret, never on a command line or in the spec's text
            env.add(new EnvVarBuilder().withName("HF_TOKEN").withNewValueFrom().withNewSecretKeyRef()
                    .withName(p.hfTokenSecret().name()).withKey(p.hfTokenSecret().key()).withOptional(false)
                    .endSecretKeyRef().endValueFrom().build());
        }
        return env;
    }

    private static List<EnvVar> plainEnv(KubernetesProfile p) {
        List<EnvVar> env = new ArrayList<>();
        new TreeMap<>(p.extraEnv()).forEach((k, v) -> env.add(new EnvVar(k, v, null)));
        return env;
    }

    private static VolumeMount mount(String name, String path, boolean readOnly) {
        return new VolumeMountBuilder().withName(name).withMountPath(path).withReadOnly(readOnly ? true : null).build();
    }

    /** {@code isb-<task>-<arm>-<round>-<suffix>}, a DNS-1123 label of at most 63 characters. */
    static String jobName(Job job, String runId, String suffix) {
        String round = job.kind() == Job.Kind.CHECK ? "check" : "r" + job.round();
        String arm = job.arm().kind() == io.isobench.Arm.Kind.AGENT ? "a-" + job.arm().agentName() : job.arm().label();
        String base = slug("isb-" + job.taskId() + "-" + arm + "-" + round);
        String tail = "-" + runKey(runId).substring(0, 8) + "-" + slug(suffix);
        if (base.length() + tail.length() > 63) {
            base = base.substring(0, 63 - tail.length()).replaceAll("-+$", "");
        }
        return base + tail;
    }

    /** A stable label value for a run id: the first 20 hex digits of its sha256. */
    static String runKey(String runId) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(runId.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h).substring(0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String slug(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("-{2,}", "-")
                .replaceAll("^-+|-+$", "");
    }

    /** A label value: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends. */
    static String labelValue(String s) {
        String v = s.replaceAll("[^A-Za-z0-9._-]+", "_");
        if (v.length() > 63) {
            v = v.substring(0, 63);
        }
        return v.replaceAll("^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "");
    }

    static Map<String, String> selector(String runId) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(LABEL_MANAGED, "isobench");
        m.put(LABEL_KEY, runKey(runId));
        return m;
    }
}
