package io.isobench.exec;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.task.ClientConfig;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The executor contract on the Kubernetes executor, with no cluster: fabric8's mock API server (CRUD mode, plain
 * HTTP on 127.0.0.1) plus {@link FakeKubelet}, a fake kubelet and job controller in this JVM that runs each Job's
 * containers as local processes and reports pod and Job status back through the API. Every scenario of
 * {@link ExecutorContract} runs unchanged, the orchestrator-kill one included: the real CLI ({@code isobench run
 * --executor kubernetes}) is pointed at the mock by a kubeconfig this test writes ({@link #cliEnvironment()}) and
 * reads the profile this test puts beside the suite; the resumed CLI adopts the Job the killed one left running.
 *
 * <p>Images: the in-JVM scenarios resolve every arm to {@code fake-host:<root>/<scenario dir>} (the directory the
 * contract prepared, standing for an image whose {@code source_dir} holds those files); the CLI scenario's profile
 * maps arms to {@code fake-git:<root>/repo@{human_commit}} / {@code @{parent_commit}} (the toy engine's tree at
 * that commit, like an image built from it). Leftovers: Jobs of the test namespace without a terminal condition,
 * pods not Succeeded/Failed, and processes the fake kubelet still runs (the namespace is emptied before each
 * scenario, so these are this scenario's).
 *
 * <p>What this does not exercise (docs/kubernetes-executor.md): a real API server's validation, scheduling, image
 * pulls, the GPU device plugin, probes run by a real kubelet, container isolation, TTL cleanup.
 */
class KubernetesExecutorContractTest extends ExecutorContract {

    static final String NS = "isobench-contract";
    static final String SOURCE_DIR = "/workspace/engine";

    /** The mock logs every request at INFO; kept referenced so that the level sticks. */
    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

    private KubernetesMockServer server;
    private KubernetesClient client;
    private FakeKubelet kubelet;
    private int serverPort;

    @Override
    protected void requireEnvironment() {
        // no skipping: python3, git, tar and setsid are on every build machine (the local executor needs them too)
        for (String tool : List.of("python3", "git", "tar", "setsid")) {
            if (!Cli.has(tool)) {
                throw new AssertionError(tool + " is not on PATH: the fake kubelet runs the contract's containers "
                        + "as local processes with it");
            }
        }
    }

    @Override
    protected Executor executor() {
        MOCK_LOG.setLevel(Level.WARNING);
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        client = server.createClient();
        serverPort = freePort();
        try {
            Path state = Files.createDirectories(Path.of("target", "fake-kubelet").toAbsolutePath());
            kubelet = new FakeKubelet(server, client, NS, SOURCE_DIR, Files.createTempDirectory(state, "run-"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return executor(10, null);
    }

    /**
     * The executor on the mock with {@code start_slack_s = slackS}; every arm's image is {@code image}, or (null)
     * {@code fake-host:} the contract's directory for the scenario.
     */
    private KubernetesExecutor executor(int slackS, String image) {
        KubernetesExecutor.Arms arms = (task, arm) -> new KubernetesExecutor.Resolved(new KubeJobSpec.ArmImage(
                image != null ? image : FakeKubelet.HOST_IMAGE + root().resolve(task.replaceFirst("^contract-", "")),
                null, null), "fake", null);
        return new KubernetesExecutor(client, KubernetesProfile.fromMap("contract", new Yaml().load(
                profileYaml("{human: unused, baseline: unused}").replace("start_slack_s: 10",
                        "start_slack_s: " + slackS))), arms,
                () -> String.format(Locale.ROOT, "%04x", ThreadLocalRandom.current().nextInt(0x10000)));
    }

    // ---- beyond the contract: cluster-side outcomes the fake kubelet produces for real ---------------------------

    /**
     * The Job's activeDeadlineSeconds passes while the benchmark runs (slow image pull, no start slack): the job
     * controller deletes the pod, so the executor classifies from the pod as it last saw it (started: TIMEOUT).
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theJobDeadlineAfterTheStartIsATimeoutThoughThePodIsGone() throws IOException {
        scripts("deadline");
        kubelet.pullDelay = Duration.ofSeconds(1);
        try {
            JobResult r = executor(0, null).execute(offline("deadline", List.of("python3", "sleep.py", "300"), 3,
                    Map.of()), Executor.Hooks.NONE);
            assertThat(r.failure()).isNotNull();
            assertThat(r.failure().category()).isEqualTo(FailureCategory.TIMEOUT);
            assertThat(r.failure().detail()).contains("activeDeadlineSeconds");
        } finally {
            kubelet.pullDelay = Duration.ZERO;
        }
    }

    /** The deadline passes before any container started (image still pulling): RESOURCES_INSUFFICIENT. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theJobDeadlineBeforeTheStartIsResourcesInsufficient() throws IOException {
        scripts("unstarted");
        kubelet.pullDelay = Duration.ofSeconds(30);
        try {
            JobResult r = executor(0, null).execute(offline("unstarted", List.of("python3", "sleep.py", "300"), 2,
                    Map.of()), Executor.Hooks.NONE);
            assertThat(r.failure()).isNotNull();
            assertThat(r.failure().category()).isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT);
            assertThat(r.failure().detail()).contains("never scheduled or started");
        } finally {
            kubelet.pullDelay = Duration.ZERO;
        }
    }

    /** An image that cannot be pulled: ENV_MISSING naming it, the Job deleted at once. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void anImageThatCannotBePulledIsEnvMissing() throws IOException {
        scripts("pull");
        JobResult r = executor(10, "registry.invalid/vllm:nosuch").execute(offline("pull",
                List.of("python3", "bench.py", "1"), 60, Map.of()), Executor.Hooks.NONE);
        assertThat(r.failure()).isNotNull();
        assertThat(r.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(r.failure().detail()).contains("registry.invalid/vllm:nosuch").contains("ErrImagePull");
        assertThat(client.batch().v1().jobs().inNamespace(NS).list().getItems()).isEmpty();
    }

    /**
     * The client fails after the server was ready: the kubelet then stops the sidecar (SIGTERM, non-zero exit), which
     * is the pod's teardown, not a server crash — the client's failure is what is reported.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aFailingClientIsNotMistakenForAServerCrash() throws IOException {
        Path cwd = toyEngine("badclient");
        Job job = new Job(new Job.Place(0, "contract-badclient/baseline/r0", "contract-badclient", 0), Arm.BASELINE,
                Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("python3", "-m", "toyllm.entrypoints.api_server", "--host",
                "{host}", "--port", "{port}", "--model", "toy-1m", "--disable-log-requests")),
                        ClientConfig.ofArgv(List.of("--model", "toy-1m", "--no-such-flag", "1")), 0, null), new Job.Where(cwd, Map.of(), 1),
                        Job.Limits.ofSeconds(60, 120));
        JobResult r = executor(10, null).execute(job, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNotNull();
        assertThat(r.failure().category()).as(r.failure().toString()).isNotEqualTo(FailureCategory.SERVER_CRASHED);
        assertThat(r.failure().detail()).contains("the client exited 2");
        assertThat(r.log()).contains("--- container server ---").contains("--- container bench ---")
                .contains("no-such-flag");
    }

    /** The profile's kubernetes: section (in-JVM executor and, with fake-git images, the CLI's profile file). */
    private String profileYaml(String images) {
        return String.join("\n",
                "namespace: " + NS,
                "images: " + images,
                "apply_patch: false",
                "source_dir: " + SOURCE_DIR,
                "server_port: " + serverPort,
                "start_slack_s: 10",
                "poll_interval_ms: 100",
                "ttl_seconds_after_finished: 600",
                "");
    }

    /** An empty namespace, and the kubeconfig and profile the CLI scenario's {@code isobench run} reads. */
    @BeforeEach
    void freshNamespaceAndCliFiles() throws IOException {
        client.batch().v1().jobs().inNamespace(NS).delete();
        client.pods().inNamespace(NS).delete();
        client.configMaps().inNamespace(NS).delete();
        Files.writeString(root().resolve("kubeconfig"), String.join("\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters: [{name: mock, cluster: {server: 'http://127.0.0.1:" + server.getPort() + "'}}]",
                "users: [{name: contract, user: {token: contract-token}}]",
                "contexts: [{name: mock, context: {cluster: mock, user: contract, namespace: " + NS + "}}]",
                "current-context: mock",
                ""));
        String repo = root().resolve("repo").toString();
        Files.writeString(root().resolve(Executors.PROFILE_FILE), "kubernetes:\n" + profileYaml(
                "{human: 'fake-git:" + repo + "@{human_commit}', baseline: 'fake-git:" + repo + "@{parent_commit}'}")
                .indent(2));
    }

    @AfterAll
    void stopCluster() {
        if (kubelet != null) {
            kubelet.close();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.destroy();
        }
    }

    @Override
    protected String executorName() {
        return "kubernetes";
    }

    @Override
    protected Map<String, String> cliEnvironment() {
        return Map.of("KUBECONFIG", root().resolve("kubeconfig").toString(), "ISOBENCH_PROFILE", "");
    }

    /**
     * The executor returns right after it deletes the Job; the fake kubelet (playing the garbage collector) then kills
     * the pod's processes from its reconcile loop, which on two loaded cores took more than 5 s once in CI.
     */
    @Override
    protected Duration processGrace() {
        return Duration.ofSeconds(20);
    }

    /**
     * Active Jobs, live pods and the fake kubelet's processes. Pods whose Job is already deleted are the garbage
     * collector's work in progress (the executor returns right after its delete): they get up to 20 s to go.
     */
    @Override
    protected List<String> leftovers(Path workRoot) {
        for (int i = 0; i < 200 && orphanPods() > 0; i++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<String> out = new ArrayList<>();
        for (var j : client.batch().v1().jobs().inNamespace(NS).list().getItems()) {
            if (KubernetesExecutor.terminal(j).isEmpty()) {
                out.add("Job " + j.getMetadata().getName() + " still active");
            }
        }
        for (var p : client.pods().inNamespace(NS).list().getItems()) {
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            if (!"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                out.add("pod " + p.getMetadata().getName() + " " + phase);
            }
        }
        out.addAll(kubelet.running());
        return out;
    }

    private long orphanPods() {
        var jobs = client.batch().v1().jobs().inNamespace(NS).list().getItems().stream()
                .map(j -> j.getMetadata().getName()).collect(Collectors.toSet());
        return client.pods().inNamespace(NS).list().getItems().stream()
                .filter(p -> !jobs.contains(p.getMetadata().getLabels().get("job-name"))).count();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
