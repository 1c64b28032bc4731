package io.isobench.exec;

import io.isobench.proc.ProcessGroup;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A FAKE kubelet and job controller for fabric8's mock API server (CRUD mode), test code only: it makes the Jobs
 * that {@link KubernetesExecutor} creates actually run, as local processes, so that the shared
 * {@link ExecutorContract} can be run against the Kubernetes executor without a cluster.
 *
 * <p>What it does, through the mock's API exactly as the real components write it:
 * <ul>
 *   <li><b>job controller</b>: for every new Job in the namespace, creates one pod from the Job's template (labels
 *       {@code job-name}/{@code batch.kubernetes.io/job-name}, an owner reference to the Job), sets the Job's
 *       {@code startTime}/{@code active}; when the pod ends, writes {@code succeeded}/{@code failed},
 *       {@code completionTime} and the condition {@code Complete}, or {@code Failed} with reason
 *       {@code BackoffLimitExceeded} (the specs use {@code backoffLimit: 0}); past {@code activeDeadlineSeconds} it
 *       kills and <i>deletes</i> the pod and fails the Job with {@code DeadlineExceeded} (as Kubernetes ≥ 1.31
 *       does: the pod is gone when the Job's Failed condition appears); when the Job is deleted (any propagation)
 *       it kills and deletes the pod (the garbage collector's part).</li>
 *   <li><b>kubelet</b>: "pulls" each container's image (see the image names below; anything else ends in
 *       {@code ErrImagePull}), runs init containers in order (a non-zero exit fails the pod), runs a native sidecar
 *       (init container with {@code restartPolicy: Always}) and gates the next containers on its
 *       {@code startupProbe} (HTTP GET on 127.0.0.1; probed every second, failed after
 *       {@code failureThreshold × periodSeconds}); a sidecar that exits before it started is restarted with the
 *       kubelet's back-off ({@code lastState.terminated}, {@code restartCount}, {@code waiting: CrashLoopBackOff});
 *       runs the app containers, then stops the sidecars (SIGTERM, the pod's grace period, SIGKILL) and writes the
 *       pod phase {@code Succeeded}/{@code Failed}. Container statuses carry {@code running.startedAt},
 *       {@code terminated.exitCode/reason/startedAt/finishedAt} (whole seconds, as a real kubelet reports them) and
 *       {@code started}/{@code ready}.</li>
 *   <li><b>logs</b>: each container's stdout and stderr (merged, as {@code kubectl logs} shows them) go to a file; the
 *       pod log endpoint {@code /api/v1/namespaces/NS/pods/POD/log?pretty=false&container=C} (which the CRUD mock
 *       does not serve) is answered from that file by a mock expectation registered when the pod is created.</li>
 * </ul>
 *
 * <p>Containers are processes of this host: argv exactly as in the pod spec (no shell), each in its own process
 * group ({@link ProcessGroup}: {@code setsid}), with the host's environment plus the container's {@code env}
 * (plain values only; {@code valueFrom} makes the container {@code CreateContainerConfigError}). Images:
 * <ul>
 *   <li>{@code fake-host:DIR} — an image whose source tree ({@code kubernetes.source_dir}) is the host directory
 *       DIR: a container whose {@code workingDir} is under source_dir runs in the same place under DIR;</li>
 *   <li>{@code fake-git:REPO@REF} — the tree of REF in the git repository REPO, extracted once ({@code git archive})
 *       into a directory beside REPO, then as {@code fake-host:}.</li>
 * </ul>
 * Every image has {@code isobench} on its PATH: a wrapper running {@code io.isobench.cli.Main} on this JVM's class
 * path (the client image of serving runs). Each pod is one network namespace in a real cluster; here all pods share
 * the host's, so the test profile picks a free {@code server_port} (jobs run one at a time).
 *
 * <p>Not emulated: scheduling, node selectors, tolerations, resources and GPUs (the device plugin), volumes (so no
 * {@code apply_patch} init containers: the test profile sets it false), Secrets, readiness/liveness probes,
 * {@code ttlSecondsAfterFinished}, log rotation, container isolation.
 */
final class FakeKubelet implements AutoCloseable {

    static final String HOST_IMAGE = "fake-host:";
    static final String GIT_IMAGE = "fake-git:";
    private static final Duration BACKOFF = Duration.ofSeconds(10);

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final String ns;
    private final String sourceDir;
    private final Path state;
    private final Path bin;
    private final Map<String, PodRun> runs = new ConcurrentHashMap<>();
    private final Map<String, Path> pulled = new ConcurrentHashMap<>();
    private final Thread loop;
    private volatile boolean closed;
    /** How long each image "pull" takes (a slow registry); zero by default. */
    volatile Duration pullDelay = Duration.ZERO;

    /**
     * @param sourceDir the profile's {@code source_dir}, mapped to each image's directory
     * @param state     a directory for container logs and the {@code isobench} wrapper
     */
    FakeKubelet(KubernetesMockServer server, KubernetesClient client, String namespace, String sourceDir, Path state)
            throws IOException {
        this.server = server;
        this.client = client;
        this.ns = namespace;
        this.sourceDir = sourceDir;
        this.state = Files.createDirectories(state);
        this.bin = Files.createDirectories(state.resolve("bin"));
        Path wrapper = bin.resolve("isobench");
        Files.writeString(wrapper, String.join("\n",
                "#!/bin/sh",
                "# the fake client image's isobench: this test JVM's classes",
                "exec '" + Path.of(System.getProperty("java.home"), "bin", "java") + "' --enable-native-access=ALL-UNNAMED"
                        + " -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp '" + System.getProperty("java.class.path")
                        + "' io.isobench.cli.Main \"$@\"",
                ""));
        wrapper.toFile().setExecutable(true);
        this.loop = Thread.ofPlatform().daemon().name("fake-kubelet").start(this::reconcileLoop);
    }

    /** Pods the fake still runs processes for, as {@code pod/container pgid}. */
    List<String> running() {
        List<String> out = new ArrayList<>();
        for (PodRun r : runs.values()) {
            for (Ctr c : r.ctrs.values()) {
                ProcessGroup g = c.group;
                if (g != null && !ProcessGroup.members(g.pgid()).isEmpty()) {
                    out.add("pod " + r.podName + " container " + c.name + " pgid " + g.pgid());
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        loop.interrupt();
        try {
            loop.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (PodRun r : runs.values()) {
            r.kill();
        }
        runs.clear();
    }

    // ---- job controller ---------------------------------------------------------------------------------------

    private void reconcileLoop() {
        while (!closed) {
            try {
                reconcile();
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                System.err.println("fake-kubelet: " + e);
            }
        }
    }

    private void reconcile() {
        List<io.fabric8.kubernetes.api.model.batch.v1.Job> jobs = client.batch().v1().jobs().inNamespace(ns).list()
                .getItems();
        Set<String> live = ConcurrentHashMap.newKeySet();
        for (var job : jobs) {
            String name = job.getMetadata().getName();
            if (job.getMetadata().getDeletionTimestamp() != null) {
                continue; // being deleted: its pod goes below
            }
            live.add(name);
            boolean terminal = KubernetesExecutor.terminal(job).isPresent();
            PodRun run = runs.get(name);
            if (run == null && !terminal) {
                run = new PodRun(job);
                runs.put(name, run);
                run.startPod();
            } else if (run != null && !terminal && !run.finished && deadlinePassed(job)) {
                PodRun r = run;
                r.finished = true;
                Thread.ofVirtual().start(() -> {
                    r.killed = true; // no more status writes
                    deletePod(r.podName); // gone from the API first, then its processes (no status written)
                    r.kill();
                    finishJob(name, false, "DeadlineExceeded", "Job was active longer than specified deadline");
                });
            }
        }
        for (PodRun r : List.copyOf(runs.values())) {
            if (!live.contains(r.jobName)) {
                runs.remove(r.jobName);
                r.finished = true;
                Thread.ofVirtual().start(() -> {
                    r.killed = true;
                    deletePod(r.podName);
                    r.kill();
                });
            }
        }
    }

    private static boolean deadlinePassed(io.fabric8.kubernetes.api.model.batch.v1.Job job) {
        Long deadline = job.getSpec().getActiveDeadlineSeconds();
        String start = job.getStatus() == null ? null : job.getStatus().getStartTime();
        return deadline != null && start != null
                && Instant.now().isAfter(Instant.parse(start).plusSeconds(deadline));
    }

    private synchronized void editJobStatus(String name, Consumer<
            io.fabric8.kubernetes.api.model.batch.v1.JobStatus> edit) {
        try {
            client.batch().v1().jobs().inNamespace(ns).withName(name).editStatus(j -> {
                if (j.getStatus() == null) {
                    j.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatus());
                }
                edit.accept(j.getStatus());
                return j;
            });
        } catch (KubernetesClientException e) {
            // the Job was deleted meanwhile
        }
    }

    private void finishJob(String name, boolean succeeded, String reason, String message) {
        String now = now();
        editJobStatus(name, st -> {
            st.setActive(0);
            if (succeeded) {
                st.setSucceeded(1);
                st.setCompletionTime(now);
                st.setConditions(List.of(new JobConditionBuilder().withType("Complete").withStatus("True")
                        .withLastTransitionTime(now).withLastProbeTime(now).build()));
            } else {
                st.setFailed(1);
                st.setConditions(List.of(new JobConditionBuilder().withType("Failed").withStatus("True")
                        .withReason(reason).withMessage(message).withLastTransitionTime(now).withLastProbeTime(now)
                        .build()));
            }
        });
    }

    private void deletePod(String pod) {
        try {
            client.pods().inNamespace(ns).withName(pod).delete();
        } catch (KubernetesClientException e) {
            // gone
        }
    }

    /** RFC 3339 in whole seconds, as the API server serialises metav1.Time. */
    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    // ---- images -----------------------------------------------------------------------------------------------

    /** The host directory holding an image's source tree, or null when the image cannot be "pulled". */
    private Path pull(String image) {
        if (image == null) {
            return null;
        }
        if (image.startsWith(HOST_IMAGE)) {
            Path dir = Path.of(image.substring(HOST_IMAGE.length()));
            return Files.isDirectory(dir) ? dir : null;
        }
        if (image.startsWith(GIT_IMAGE) && image.lastIndexOf('@') > GIT_IMAGE.length()) {
            return pulled.computeIfAbsent(image, this::extract);
        }
        return null;
    }

    private Path extract(String image) {
        String spec = image.substring(GIT_IMAGE.length());
        Path repo = Path.of(spec.substring(0, spec.lastIndexOf('@')));
        String ref = spec.substring(spec.lastIndexOf('@') + 1);
        try {
            String key = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(image.getBytes(StandardCharsets.UTF_8))).substring(0, 12);
            Path dir = repo.resolveSibling("fake-kubelet-images").resolve(key);
            Path tar = repo.resolveSibling("fake-kubelet-images").resolve(key + ".tar");
            Files.createDirectories(dir);
            if (exec(List.of("git", "-C", repo.toString(), "archive", "--format=tar", "-o", tar.toString(), ref)) != 0
                    || exec(List.of("tar", "-xf", tar.toString(), "-C", dir.toString())) != 0) {
                return null;
            }
            Files.deleteIfExists(tar);
            return dir;
        } catch (IOException | NoSuchAlgorithmException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static int exec(List<String> argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        return p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    // ---- kubelet ----------------------------------------------------------------------------------------------

    /** One container of a pod as the kubelet tracks it. */
    private static final class Ctr {
        final Container spec;
        final String name;
        final boolean init;
        final boolean sidecar;
        ContainerState state = new ContainerStateBuilder().withNewWaiting().withReason("PodInitializing")
                .endWaiting().build();
        ContainerState last;
        int restarts;
        boolean started;
        volatile ProcessGroup group;
        volatile Path log;
        int instance;

        Ctr(Container spec, boolean init) {
            this.spec = spec;
            this.name = spec.getName();
            this.init = init;
            this.sidecar = init && "Always".equals(spec.getRestartPolicy());
        }

        ContainerStatus status() {
            return new ContainerStatusBuilder().withName(name).withImage(spec.getImage()).withImageID("")
                    .withState(state).withLastState(last).withRestartCount(restarts).withStarted(started)
                    .withReady(started && state.getRunning() != null).build();
        }
    }

    /** Why a container could not be run: its waiting reason. */
    private static final class CannotRun extends Exception {
        final String reason;

        CannotRun(String reason, String message) {
            super(message);
            this.reason = reason;
        }
    }

    /** The pod of one Job, its containers and the thread that runs them. */
    private final class PodRun {
        final io.fabric8.kubernetes.api.model.batch.v1.Job job;
        final String jobName;
        final String podName;
        final Map<String, Ctr> ctrs = new LinkedHashMap<>();
        final long graceS;
        volatile boolean killed;
        volatile boolean finished;
        volatile String phase = "Pending";
        Thread thread;

        PodRun(io.fabric8.kubernetes.api.model.batch.v1.Job job) {
            this.job = job;
            this.jobName = job.getMetadata().getName();
            this.podName = jobName + "-" + Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36 * 36),
                    36);
            var spec = job.getSpec().getTemplate().getSpec();
            (spec.getInitContainers() == null ? List.<Container>of() : spec.getInitContainers())
                    .forEach(c -> ctrs.put(c.getName(), new Ctr(c, true)));
            spec.getContainers().forEach(c -> ctrs.put(c.getName(), new Ctr(c, false)));
            Long grace = spec.getTerminationGracePeriodSeconds();
            this.graceS = grace == null ? 30 : grace;
        }

        void startPod() {
            var tmpl = job.getSpec().getTemplate();
            Map<String, String> labels = new LinkedHashMap<>();
            if (tmpl.getMetadata() != null && tmpl.getMetadata().getLabels() != null) {
                labels.putAll(tmpl.getMetadata().getLabels());
            }
            labels.put("job-name", jobName);
            labels.put("batch.kubernetes.io/job-name", jobName);
            Pod pod = new PodBuilder().withNewMetadata().withName(podName).withNamespace(ns).withLabels(labels)
                    .withAnnotations(tmpl.getMetadata() == null ? null : tmpl.getMetadata().getAnnotations())
                    .withCreationTimestamp(now())
                    .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job")
                            .withName(jobName).withUid(job.getMetadata().getUid()).withController(true).build())
                    .endMetadata().withSpec(tmpl.getSpec()).build();
            for (Ctr c : ctrs.values()) {
                server.expect().get().withPath("/api/v1/namespaces/" + ns + "/pods/" + podName
                        + "/log?pretty=false&container=" + c.name).andReply(200, req -> readLog(c)).always();
            }
            client.pods().inNamespace(ns).resource(pod).create();
            String now = now();
            editJobStatus(jobName, st -> {
                st.setStartTime(now);
                st.setActive(1);
            });
            publish();
            thread = Thread.ofPlatform().daemon().name("fake-kubelet-" + podName).start(this::runPod);
        }

        private String readLog(Ctr c) {
            Path f = c.log;
            try {
                return f == null || !Files.exists(f) ? "" : Files.readString(f, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }

        /** Writes the pod's status as the kubelet sees it now (nothing once the pod is being killed). */
        synchronized void publish() {
            if (killed) {
                return;
            }
            List<ContainerStatus> init = new ArrayList<>();
            List<ContainerStatus> main = new ArrayList<>();
            for (Ctr c : ctrs.values()) {
                (c.init ? init : main).add(c.status());
            }
            boolean ready = "Running".equals(phase) && ctrs.values().stream().filter(c -> !c.init || c.sidecar)
                    .allMatch(c -> c.started && c.state.getRunning() != null);
            String now = now();
            try {
                client.pods().inNamespace(ns).withName(podName).editStatus(p -> {
                    p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase(phase)
                            .withStartTime(p.getStatus() != null && p.getStatus().getStartTime() != null
                                    ? p.getStatus().getStartTime() : now)
                            .withHostIP("127.0.0.1").withPodIP("127.0.0.1")
                            .withConditions(new PodConditionBuilder().withType("PodScheduled").withStatus("True")
                                            .withLastTransitionTime(now).build(),
                                    new PodConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
                                            .withLastTransitionTime(now).build())
                            .withInitContainerStatuses(init).withContainerStatuses(main).build());
                    return p;
                });
            } catch (KubernetesClientException e) {
                // deleted meanwhile
            }
        }

        private void runPod() {
            try {
                Map<String, Path> images = new LinkedHashMap<>();
                sleep(pullDelay);
                for (Ctr c : ctrs.values()) {
                    Path dir = pull(c.spec.getImage());
                    if (dir == null) {
                        c.state = waiting("ErrImagePull", "fake kubelet: cannot pull " + c.spec.getImage()
                                + " (use " + HOST_IMAGE + "DIR or " + GIT_IMAGE + "REPO@REF)");
                        publish();
                        sleep(BACKOFF);
                        c.state = waiting("ImagePullBackOff", "Back-off pulling image \"" + c.spec.getImage() + "\"");
                        publish();
                        return; // stays Pending until the Job is deleted or its deadline passes
                    }
                    images.put(c.name, dir);
                }
                for (Ctr c : ctrs.values()) {
                    if (!c.init) {
                        continue;
                    }
                    if (c.sidecar) {
                        if (!startSidecar(c, images.get(c.name))) {
                            return;
                        }
                    } else {
                        int code = runOnce(c, images.get(c.name));
                        if (code != 0) {
                            endPod(false);
                            return;
                        }
                    }
                }
                phase = "Running";
                List<Ctr> mains = ctrs.values().stream().filter(c -> !c.init).toList();
                for (Ctr c : mains) {
                    start(c, images.get(c.name));
                }
                publish();
                boolean ok = true;
                for (Ctr c : mains) {
                    ok &= awaitExit(c) == 0;
                }
                endPod(ok);
            } catch (InterruptedException e) {
                // killed
            } catch (CannotRun e) {
                if ("StartError".equals(e.reason)) {
                    // restartPolicy Never: the pod fails
                    try {
                        endPod(false);
                    } catch (InterruptedException ie) {
                        // killed
                    }
                } else {
                    publish(); // CreateContainerConfigError: stays Pending until the Job is deleted
                }
            }
        }

        /** App containers ended: stop the sidecars (reverse order), then the pod's phase and the Job's outcome. */
        private void endPod(boolean succeeded) throws InterruptedException {
            List<Ctr> sidecars = new ArrayList<>(ctrs.values().stream().filter(c -> c.sidecar).toList());
            Collections.reverse(sidecars);
            for (Ctr c : sidecars) {
                ProcessGroup g = c.group;
                if (g != null && c.state.getRunning() != null) {
                    g.terminate(Duration.ofSeconds(graceS));
                    terminated(c, g.exitCode() == null ? 137 : g.exitCode());
                }
            }
            if (killed) {
                return;
            }
            phase = succeeded ? "Succeeded" : "Failed";
            publish();
            finished = true;
            finishJob(jobName, succeeded, "BackoffLimitExceeded", "Job has reached the specified backoff limit");
        }

        /** Runs a sidecar until its startup probe passes; false when the pod was killed meanwhile. */
        private boolean startSidecar(Ctr c, Path image) throws InterruptedException, CannotRun {
            var probe = c.spec.getStartupProbe();
            while (!killed) {
                Instant t0 = Instant.now();
                start(c, image);
                publish();
                long limitMs = probe == null ? 0 : 1000L * nz(probe.getPeriodSeconds(), 10)
                        * nz(probe.getFailureThreshold(), 3);
                boolean up = probe == null;
                while (!up && !killed) {
                    Thread.sleep(1000);
                    if (c.group.exitCode() != null) {
                        break;
                    }
                    up = probeOk(probe);
                    if (!up && Duration.between(t0, Instant.now()).toMillis() > limitMs) {
                        c.group.terminate(Duration.ofSeconds(graceS)); // startup probe failed: killed, restarted
                        break;
                    }
                }
                if (killed) {
                    return false;
                }
                if (up) {
                    c.started = true;
                    publish();
                    return true;
                }
                // exited (or killed by the probe) before it started: back-off, then restart
                ProcessGroup g = c.group;
                Integer code = g.waitFor(Duration.ofSeconds(5));
                terminated(c, code == null ? 137 : code);
                c.last = c.state;
                c.restarts++;
                c.state = waiting("CrashLoopBackOff", "back-off restarting failed container " + c.name + " in pod "
                        + podName);
                publish();
                sleep(BACKOFF.multipliedBy(1L << Math.min(5, c.restarts - 1)));
            }
            return false;
        }

        private boolean probeOk(io.fabric8.kubernetes.api.model.Probe probe) {
            if (probe.getHttpGet() == null) {
                return true;
            }
            var get = probe.getHttpGet();
            String port = get.getPort().getIntVal() != null ? get.getPort().getIntVal().toString()
                    : get.getPort().getStrVal();
            try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                + (get.getPath() == null ? "/" : get.getPath())))
                                .timeout(Duration.ofSeconds(nz(probe.getTimeoutSeconds(), 1))).build(),
                        HttpResponse.BodyHandlers.discarding());
                return r.statusCode() >= 200 && r.statusCode() < 400;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private int runOnce(Ctr c, Path image) throws InterruptedException, CannotRun {
            start(c, image);
            publish();
            return awaitExit(c);
        }

        private int awaitExit(Ctr c) throws InterruptedException {
            ProcessGroup g = c.group;
            Integer code;
            while ((code = g.waitFor(Duration.ofMillis(200))) == null) {
                if (killed) {
                    throw new InterruptedException("killed");
                }
            }
            if (killed) {
                throw new InterruptedException("killed");
            }
            terminated(c, code);
            publish();
            return code;
        }

        private void start(Ctr c, Path image) throws CannotRun, InterruptedException {
            if (killed) {
                throw new InterruptedException("killed");
            }
            Map<String, String> env = new LinkedHashMap<>();
            env.put("PATH", bin + File.pathSeparator + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            env.put("HOSTNAME", podName);
            for (EnvVar e : c.spec.getEnv() == null ? List.<EnvVar>of() : c.spec.getEnv()) {
                if (e.getValueFrom() != null) {
                    c.state = waiting("CreateContainerConfigError", "fake kubelet: env " + e.getName()
                            + " uses valueFrom, which it does not resolve");
                    throw new CannotRun(c.state.getWaiting().getReason(), c.state.getWaiting().getMessage());
                }
                env.put(e.getName(), e.getValue() == null ? "" : e.getValue());
            }
            List<String> argv = new ArrayList<>(c.spec.getCommand() == null ? List.of() : c.spec.getCommand());
            if (c.spec.getArgs() != null) {
                argv.addAll(c.spec.getArgs());
            }
            String exe = resolve(argv.isEmpty() ? null : argv.get(0), env.get("PATH"));
            if (exe == null) {
                // runc: exec: "x": executable file not found in $PATH — the container never starts
                String now = now();
                c.state = new ContainerStateBuilder().withNewTerminated().withExitCode(128).withReason("StartError")
                        .withMessage("exec: \"" + (argv.isEmpty() ? "" : argv.get(0))
                                + "\": executable file not found in $PATH").withStartedAt(now).withFinishedAt(now)
                        .endTerminated().build();
                throw new CannotRun("StartError", c.state.getTerminated().getMessage());
            }
            argv.set(0, exe);
            Path cwd = image;
            String wd = c.spec.getWorkingDir();
            if (wd != null && (wd.equals(sourceDir) || wd.startsWith(sourceDir + "/"))) {
                cwd = image.resolve(wd.substring(sourceDir.length()).replaceFirst("^/", ""));
            }
            try {
                c.instance++;
                Path log = Files.createDirectories(state.resolve(podName)).resolve(c.name + "-" + c.instance + ".log");
                Files.deleteIfExists(log);
                Files.createFile(log);
                c.group = ProcessGroup.start(argv, cwd, env, log);
                c.log = log;
            } catch (IOException e) {
                String now = now();
                c.state = new ContainerStateBuilder().withNewTerminated().withExitCode(128).withReason("StartError")
                        .withMessage(e.getMessage()).withStartedAt(now).withFinishedAt(now).endTerminated().build();
                throw new CannotRun("StartError", e.getMessage());
            }
            c.started = !c.sidecar; // a sidecar has started once its startup probe passed
            c.state = new ContainerStateBuilder().withNewRunning().withStartedAt(now()).endRunning().build();
        }

        private void terminated(Ctr c, int code) {
            String startedAt = c.state.getRunning() != null ? c.state.getRunning().getStartedAt() : now();
            c.state = new ContainerStateBuilder().withNewTerminated().withExitCode(code)
                    .withReason(code == 0 ? "Completed" : "Error").withStartedAt(startedAt).withFinishedAt(now())
                    .endTerminated().build();
            c.started = false;
        }

        /** Kills every container's process group (SIGTERM, the pod's grace period, SIGKILL). */
        void kill() {
            killed = true;
            if (thread != null) {
                thread.interrupt();
            }
            for (Ctr c : ctrs.values()) {
                ProcessGroup g = c.group;
                if (g != null) {
                    g.terminate(Duration.ofSeconds(graceS));
                }
            }
        }

        private void sleep(Duration d) throws InterruptedException {
            long until = System.nanoTime() + d.toNanos();
            while (!killed && System.nanoTime() < until) {
                Thread.sleep(100);
            }
            if (killed) {
                throw new InterruptedException("killed");
            }
        }
    }

    private static ContainerState waiting(String reason, String message) {
        return new ContainerStateBuilder().withNewWaiting().withReason(reason).withMessage(message).endWaiting()
                .build();
    }

    private static int nz(Integer v, int dflt) {
        return v == null ? dflt : v;
    }

    /** argv[0] through the container's PATH, as the runtime resolves it; null when there is no such executable. */
    private static String resolve(String exe, String path) {
        if (exe == null || exe.isEmpty()) {
            return null;
        }
        if (exe.contains("/")) {
            return Files.isExecutable(Path.of(exe)) ? exe : null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, exe);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
