package io.isobench.exec;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.isobench.probe.Greedy;
import io.isobench.probe.Probe;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kubernetes executor against fabric8's mock API server in CRUD mode: Jobs are stored, watched and deleted for
 * real, but nothing schedules them — each test plays the cluster by creating the pod and writing the Job's status.
 */
@EnableKubernetesMockClient(crud = true)
class KubernetesExecutorTest {

    static final String NS = "bench";

    KubernetesMockServer server;
    KubernetesClient client;

    static KubernetesProfile profile() {
        Map<?, ?> m = new Yaml().load("""
                namespace: bench
                images:
                  human: registry.example/vllm:{human_commit}
                  baseline: registry.example/vllm:{parent_commit}
                source_dir: /workspace/vllm
                client_image: registry.example/isobench:0.1
                node_selector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
                tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
                resources: {cpu: "8", memory: 64Gi}
                shm_size: 16Gi
                hf_cache: {pvc: hf-cache, mount_path: /root/.cache/huggingface}
                hf_token_secret: {name: hf-token, key: token}
                ttl_seconds_after_finished: 600
                start_slack_s: 900
                poll_interval_ms: 50
                """);
        return KubernetesProfile.fromMap("test", m);
    }

    static Job offline(String arm, int round) {
        return new Job(new Job.Place(3, "t1/" + arm + "/r" + round, "t1", round), Arm.fromLabel(arm), Mode.THROUGHPUT,
                new JobSpec.Measure(Command.template(List.of("python", "benchmarks/benchmark_throughput.py", "--model", "facebook/opt-125m",
                        "--input-len", "256", "--output-len", "64")), ClientConfig.NONE, 0, null),
                                new Job.Where(Path.of("/nonexistent"), Map.of("VLLM_USE_V1", "1"), 1),
                                Job.Limits.ofSeconds(900, 1800));
    }

    static Job serving() {
        return new Job(new Job.Place(4, "t1/human/r0", "t1", 0), Arm.HUMAN, Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("python", "-m", "vllm.entrypoints.openai.api_server", "--model", "facebook/opt-125m",
                        "--host", "{host}", "--port", "{port}")),
                                ClientConfig.ofArgv(List.of("--model", "facebook/opt-125m", "--dataset-name", "random", "--num-prompts", "100")), 10, null),
                                new Job.Where(Path.of("/nonexistent"), Map.of(), 1), Job.Limits.ofSeconds(600, 1800));
    }

    KubernetesExecutor executor(String suffix) {
        KubernetesExecutor.Arms arms = (task, arm) -> new KubernetesExecutor.Resolved(
                new KubeJobSpec.ArmImage(arm.equals("human") ? "registry.example/vllm:aaaa" : "registry.example/vllm:bbbb",
                        arm.startsWith("agent:") ? "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n" : null,
                        arm.startsWith("agent:") ? "f".repeat(64) : null), "aaaa", null);
        return new KubernetesExecutor(client, profile(), arms, () -> suffix);
    }

    CompletableFuture<JobResult> start(KubernetesExecutor ex, Job job, String runId, AtomicBoolean cancel) {
        return CompletableFuture.supplyAsync(() -> ex.execute(job, new Executor.Hooks(p -> { }, cancel::get, runId)));
    }

    io.fabric8.kubernetes.api.model.batch.v1.Job awaitJob() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            var items = client.batch().v1().jobs().inNamespace(NS).list().getItems();
            if (!items.isEmpty()) {
                return items.get(items.size() - 1);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no Job was created");
    }

    Pod pod(String jobName, List<ContainerStatus> init, List<ContainerStatus> main, String reason) {
        var job = client.batch().v1().jobs().inNamespace(NS).withName(jobName).get();
        Pod p = new PodBuilder().withNewMetadata().withName(jobName + "-x1").withNamespace(NS)
                .addToLabels("job-name", jobName).endMetadata()
                .withSpec(job.getSpec().getTemplate().getSpec())
                .withNewStatus().withPhase(reason == null ? "Running" : "Failed").withReason(reason)
                .withInitContainerStatuses(init).withContainerStatuses(main).endStatus().build();
        return client.pods().inNamespace(NS).resource(p).create();
    }

    static ContainerStatus terminated(String name, int exit, String reason) {
        return new ContainerStatusBuilder().withName(name).withImage("img").withNewState().withNewTerminated()
                .withExitCode(exit).withReason(reason).endTerminated().endState().build();
    }

    void log(String pod, String container, String text) {
        server.expect().get().withPath("/api/v1/namespaces/" + NS + "/pods/" + pod + "/log?pretty=false&container="
                + container).andReturn(200, text).always();
    }

    void finish(String jobName, String type, String reason, String message) {
        client.batch().v1().jobs().inNamespace(NS).withName(jobName).editStatus(j -> {
            j.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder()
                    .withConditions(new JobConditionBuilder().withType(type).withStatus("True").withReason(reason)
                            .withMessage(message).build())
                    .withSucceeded("Complete".equals(type) ? 1 : 0).withFailed("Failed".equals(type) ? 1 : 0).build());
            return j;
        });
    }

    static final String THROUGHPUT = "INFO 01-05 12:00:00 llm_engine.py:100] init\n"
            + "Throughput: 10.49 requests/s, 4611.33 tokens/s\n";

    @AfterEach
    void clean() {
        server.clearExpectations();
    }

    @Test
    void offlineSuccessCreatesTheJobAndParsesTheBenchmarkLog() throws Exception {
        var f = start(executor("ab12"), offline("human", 0), "s1/t1/human/r0", new AtomicBoolean());
        var job = awaitJob();
        String name = job.getMetadata().getName();
        assertThat(name).startsWith("isb-t1-human-r0-").endsWith("-ab12").hasSizeLessThanOrEqualTo(63);
        assertThat(job.getMetadata().getLabels()).containsEntry("isobench.io/session", "s1")
                .containsEntry("isobench.io/run-key", KubeJobSpec.runKey("s1/t1/human/r0"))
                .containsEntry("app.kubernetes.io/managed-by", "isobench");
        assertThat(job.getMetadata().getAnnotations()).containsEntry("isobench.io/run-id", "s1/t1/human/r0");
        var c = job.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getCommand()).containsExactly("python", "benchmarks/benchmark_throughput.py", "--model",
                "facebook/opt-125m", "--input-len", "256", "--output-len", "64");
        assertThat(c.getResources().getLimits().get("nvidia.com/gpu").toString()).isEqualTo("1");
        assertThat(job.getSpec().getTtlSecondsAfterFinished()).isEqualTo(600);
        assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(900L + 1800);
        pod(name, List.of(), List.of(terminated("bench", 0, "Completed")), null);
        log(name + "-x1", "bench", THROUGHPUT);
        finish(name, "Complete", null, null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure()).isNull();
        assertThat(r.metrics()).isNotEmpty();
        assertThat(r.log()).contains("Throughput: 10.49 requests/s");
        assertThat(r.argv()).isEqualTo(offline("human", 0).argv());
    }

    @Test
    void aFailingBenchmarkIsClassifiedFromItsLog() throws Exception {
        var f = start(executor("f001"), offline("human", 1), "s1/t1/human/r1", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        pod(name, List.of(), List.of(terminated("bench", 1, "Error")), null);
        log(name + "-x1", "bench", "Traceback (most recent call last):\n"
                + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
        finish(name, "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.GPU_OOM);
        assertThat(r.log()).contains("CUDA out of memory");
    }

    @Test
    void anOomKilledPodIsResourcesInsufficientAndNotRetried() throws Exception {
        var f = start(executor("00aa"), offline("human", 2), "s1/t1/human/r2", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        pod(name, List.of(), List.of(terminated("bench", 137, "OOMKilled")), null);
        finish(name, "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT);
        assertThat(r.failure().detail()).contains("OOMKilled").contains("64Gi");
        assertThat(r.failure().retryable()).isFalse();
    }

    @Test
    void anEvictedPodIsInfraTransientAndRetryable() throws Exception {
        var f = start(executor("0eee"), offline("human", 3), "s1/t1/human/r3", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        pod(name, List.of(), List.of(terminated("bench", 137, "Error")), "Evicted");
        finish(name, "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.INFRA_TRANSIENT);
        assertThat(r.failure().retryable()).isTrue();
    }

    @Test
    void aPreemptedPodIsInfraTransient() throws Exception {
        var f = start(executor("0ppp"), offline("human", 4), "s1/t1/human/r4", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        Pod p = pod(name, List.of(), List.of(terminated("bench", 143, "Error")), null);
        client.pods().inNamespace(NS).withName(p.getMetadata().getName()).editStatus(x -> {
            x.getStatus().setConditions(List.of(new io.fabric8.kubernetes.api.model.PodConditionBuilder()
                    .withType("DisruptionTarget").withStatus("True").withReason("PreemptionByScheduler")
                    .withMessage("preempted by a higher-priority pod").build()));
            return x;
        });
        finish(name, "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.INFRA_TRANSIENT);
        assertThat(r.failure().detail()).contains("PreemptionByScheduler");
    }

    @Test
    void deadlineExceededAfterTheBenchmarkStartedIsTimeout() throws Exception {
        var f = start(executor("0ddd"), offline("human", 5), "s1/t1/human/r5", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        pod(name, List.of(), List.of(new ContainerStatusBuilder().withName("bench").withNewState().withNewRunning()
                .withStartedAt("2026-11-26T01:00:00Z").endRunning().endState().build()), null);
        finish(name, "Failed", "DeadlineExceeded", "Job was active longer than specified deadline");
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.TIMEOUT);
    }

    @Test
    void deadlineExceededWhileNeverScheduledIsResourcesInsufficient() throws Exception {
        var f = start(executor("0uuu"), offline("human", 6), "s1/t1/human/r6", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        finish(name, "Failed", "DeadlineExceeded", "Job was active longer than specified deadline");
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT);
        assertThat(r.failure().detail()).contains("never scheduled");
    }

    @Test
    void anImageThatCannotBePulledIsEnvMissingAndTheJobIsDeleted() throws Exception {
        var f = start(executor("0iii"), offline("human", 7), "s1/t1/human/r7", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        pod(name, List.of(), List.of(new ContainerStatusBuilder().withName("bench").withImage("registry.example/vllm:aaaa")
                .withNewState().withNewWaiting().withReason("ImagePullBackOff").withMessage("not found")
                .endWaiting().endState().build()), null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(r.failure().detail()).contains("registry.example/vllm:aaaa").contains("cannot be pulled");
        assertThat(client.batch().v1().jobs().inNamespace(NS).withName(name).get()).isNull();
    }

    @Test
    void cancellationDeletesTheJob() throws Exception {
        AtomicBoolean cancel = new AtomicBoolean();
        var f = start(executor("0ccc"), offline("human", 8), "s1/t1/human/r8", cancel);
        String name = awaitJob().getMetadata().getName();
        cancel.set(true);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().detail()).startsWith("cancelled");
        assertThat(client.batch().v1().jobs().inNamespace(NS).withName(name).get()).isNull();
    }

    @Test
    void aResumedOrchestratorAdoptsTheRunningJobInsteadOfCreatingAnother() throws Exception {
        String runId = "s2/t1/human/r0";
        var left = KubeJobSpec.build(profile(), offline("human", 0), new KubeJobSpec.ArmImage("registry.example/vllm:aaaa",
                null, null), runId, "old1").job();
        client.batch().v1().jobs().inNamespace(NS).resource(left).create();
        var f = start(executor("new1"), offline("human", 0), runId, new AtomicBoolean());
        Thread.sleep(300);
        assertThat(client.batch().v1().jobs().inNamespace(NS).list().getItems()).extracting(j -> j.getMetadata()
                .getName()).containsExactly(left.getMetadata().getName());
        String name = left.getMetadata().getName();
        pod(name, List.of(), List.of(terminated("bench", 0, "Completed")), null);
        log(name + "-x1", "bench", THROUGHPUT);
        finish(name, "Complete", null, null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure()).isNull();
        assertThat(client.batch().v1().jobs().inNamespace(NS).list().getItems()).hasSize(1);
    }

    @Test
    void aFailedJobOfAnEarlierAttemptIsReplaced() throws Exception {
        String runId = "s3/t1/human/r0";
        var left = KubeJobSpec.build(profile(), offline("human", 0), new KubeJobSpec.ArmImage("registry.example/vllm:aaaa",
                null, null), runId, "old2").job();
        client.batch().v1().jobs().inNamespace(NS).resource(left).create();
        finish(left.getMetadata().getName(), "Failed", "BackoffLimitExceeded", "x");
        var f = start(executor("new2"), offline("human", 0), runId, new AtomicBoolean());
        String name = null;
        for (int i = 0; i < 200 && name == null; i++) {
            name = client.batch().v1().jobs().inNamespace(NS).list().getItems().stream().map(j -> j.getMetadata()
                    .getName()).filter(n -> n.endsWith("-new2")).findFirst().orElse(null);
            Thread.sleep(20);
        }
        assertThat(name).isNotNull();
        assertThat(client.batch().v1().jobs().inNamespace(NS).withName(left.getMetadata().getName()).get()).isNull();
        pod(name, List.of(), List.of(terminated("bench", 0, "Completed")), null);
        log(name + "-x1", "bench", THROUGHPUT);
        finish(name, "Complete", null, null);
        assertThat(f.get(20, TimeUnit.SECONDS).failure()).isNull();
    }

    @Test
    void servingRunsTheServerAsASidecarAndParsesTheClientBlock() throws Exception {
        var f = start(executor("0sss"), serving(), "s4/t1/human/r0", new AtomicBoolean());
        var job = awaitJob();
        String name = job.getMetadata().getName();
        var pod = job.getSpec().getTemplate().getSpec();
        var srv = pod.getInitContainers().get(0);
        assertThat(srv.getName()).isEqualTo("server");
        assertThat(srv.getRestartPolicy()).isEqualTo("Always");
        assertThat(srv.getCommand()).containsSequence("--host", "0.0.0.0", "--port", "8000");
        assertThat(srv.getStartupProbe().getHttpGet().getPath()).isEqualTo("/health");
        assertThat(srv.getStartupProbe().getFailureThreshold()).isEqualTo(120);
        assertThat(pod.getContainers().get(0).getCommand()).startsWith("isobench", "loadgen", "--base-url",
                "http://127.0.0.1:8000").containsSequence("--num-warmups", "10");
        pod(name, List.of(new ContainerStatusBuilder().withName("server").withStarted(true).withNewState()
                .withNewRunning().endRunning().endState().build()), List.of(terminated("bench", 0, "Completed")), null);
        log(name + "-x1", "server", "INFO:     Uvicorn running on http://0.0.0.0:8000\n");
        log(name + "-x1", "bench", String.join("\n",
                "============ Serving Benchmark Result ============",
                "Successful requests:                     100       ",
                "Benchmark duration (s):                  10.00     ",
                "Total input tokens:                      102400    ",
                "Total generated tokens:                  12800     ",
                "Request throughput (req/s):              10.00     ",
                "Output token throughput (tok/s):         1280.00   ",
                "Total Token throughput (tok/s):          11520.00  ",
                "---------------Time to First Token----------------",
                "Mean TTFT (ms):                          25.00     ",
                "Median TTFT (ms):                        24.00     ",
                "P99 TTFT (ms):                           40.00     ",
                "==================================================", ""));
        finish(name, "Complete", null, null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure()).isNull();
        assertThat(r.metrics()).extracting(m -> m.name()).contains("ttft_ms_mean", "output_throughput_tok_s");
        assertThat(r.log()).contains("--- container server ---").contains("Uvicorn running")
                .contains("--- container bench ---");
        assertThat(r.argv()).containsSequence("--port", "8000");
    }

    @Test
    void aServerThatCrashesBeforeReadinessIsServerCrashedWithItsRootCause() throws Exception {
        var f = start(executor("0xxx"), serving(), "s5/t1/human/r0", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        log(name + "-x1", "server", "ValueError: Unknown RoPE scaling type yarn\n");
        pod(name, List.of(new ContainerStatusBuilder().withName("server").withStarted(false).withRestartCount(1)
                .withNewState().withNewWaiting().withReason("CrashLoopBackOff").endWaiting().endState()
                .withNewLastState().withNewTerminated().withExitCode(1).withReason("Error").endTerminated()
                .endLastState().build()), List.of(), null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.MODEL_UNSUPPORTED);
        assertThat(client.batch().v1().jobs().inNamespace(NS).withName(name).get()).isNull();
    }

    @Test
    void anAgentPatchThatDoesNotApplyIsPatchFailed() throws Exception {
        Job agent = offline("agent:claude-code", 0);
        var f = start(executor("0ggg"), agent, "s6/t1/agent:claude-code/r0", new AtomicBoolean());
        var job = awaitJob();
        String name = job.getMetadata().getName();
        assertThat(name).startsWith("isb-t1-a-claude-code-r0-");
        var cm = client.configMaps().inNamespace(NS).withName(name + "-patch").get();
        assertThat(cm.getData().get("patch.diff")).contains("+++ b/x.py");
        assertThat(job.getSpec().getTemplate().getSpec().getInitContainers()).extracting(c -> c.getName())
                .containsExactly("copy-source", "patch-check", "patch-apply");
        log(name + "-x1", "patch-check", "error: patch failed: x.py:1\nerror: x.py: patch does not apply\n");
        pod(name, List.of(terminated("copy-source", 0, "Completed"), terminated("patch-check", 1, "Error")),
                List.of(), null);
        finish(name, "Failed", "BackoffLimitExceeded", "x");
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.PATCH_FAILED);
        assertThat(r.failure().evidence()).anyMatch(l -> l.contains("patch does not apply"));
        assertThat(client.configMaps().inNamespace(NS).withName(name + "-patch").get()).isNull();
    }

    @Test
    void aCheckJobReturnsTheGreedyOutputsItsClientPrinted() throws Exception {
        Job check = new Job(new Job.Place(0, "t1/human/check", "t1", -1), Arm.HUMAN, Mode.THROUGHPUT,
                new JobSpec.Check(Command.template(serving().argv()),
                new JobSpec.Probes("facebook/opt-125m", 2, 8, 0.0, false, JobSpec.Via.SERVER, false), null),
                new Job.Where(Path.of("/x"), Map.of(), 1), Job.Limits.ofSeconds(600, 1800));
        var f = start(executor("0chk"), check, "s7/t1/human/check", new AtomicBoolean());
        var job = awaitJob();
        String name = job.getMetadata().getName();
        assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand()).containsExactly(
                "isobench", "greedy", "--base-url", "http://127.0.0.1:8000", "--model", "facebook/opt-125m",
                "--num-prompts", "2", "--max-tokens", "8");
        pod(name, List.of(), List.of(terminated("bench", 0, "Completed")), null);
        log(name + "-x1", "bench", "isobench-greedy-outputs: [\"hello\",\"world\"]\n");
        finish(name, "Complete", null, null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.outputs()).containsExactly("hello", "world");
        assertThat(r.probeJson()).isNull(); // a client that prints texts only: the sequential pass alone
    }

    @Test
    void aCheckJobKeepsBothProbePassesItsClientPrinted() throws Exception {
        Job check = new Job(new Job.Place(0, "t1/human/check", "t1", -1), Arm.HUMAN, Mode.THROUGHPUT,
                new JobSpec.Check(Command.template(serving().argv()),
                new JobSpec.Probes("facebook/opt-125m", 2, 8, 0.0, false, JobSpec.Via.SERVER, false), null),
                new Job.Where(Path.of("/x"), Map.of(), 1), Job.Limits.ofSeconds(600, 1800));
        var f = start(executor("0chb"), check, "s7/t1/human/check", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        pod(name, List.of(), List.of(terminated("bench", 0, "Completed")), null);
        Greedy.ProbeRun run = new Greedy.ProbeRun(List.of(Probe.text("hello"), Probe.text("world")),
                List.of(Probe.text("hello"), Probe.text("world!")), 8);
        log(name + "-x1", "bench", "isobench-greedy-outputs: [\"hello\",\"world\"]\n"
                + Greedy.PROBE_MARKER + run.toJson() + "\n");
        finish(name, "Complete", null, null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.outputs()).containsExactly("hello", "world");
        assertThat(Greedy.ProbeRun.fromJson(r.probeJson())).isEqualTo(run);
    }

    @Test
    void aCompleteJobWithoutItsPodIsRetriedNotCountedAsNoMetrics() throws Exception {
        var f = start(executor("0ttl"), offline("human", 9), "s8/t1/human/r9", new AtomicBoolean());
        String name = awaitJob().getMetadata().getName();
        finish(name, "Complete", null, null);
        JobResult r = f.get(20, TimeUnit.SECONDS);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.INFRA_TRANSIENT);
        assertThat(r.failure().detail()).contains("pod is gone");
        assertThat(client.batch().v1().jobs().inNamespace(NS).withName(name).get()).as("deleted for the retry").isNull();
    }

    @Test
    void apiErrorsMapToCategories() {
        assertThat(KubeFailures.apiFailure(new KubernetesClientException("forbidden", 403, null)).category())
                .isEqualTo(FailureCategory.ENV_MISSING);
        assertThat(KubeFailures.apiFailure(new KubernetesClientException("boom", 503, null)).category())
                .isEqualTo(FailureCategory.INFRA_TRANSIENT);
        assertThat(KubeFailures.apiFailure(new KubernetesClientException("invalid", 422, null)).category())
                .isEqualTo(FailureCategory.BAD_PERF_COMMAND);
    }
}
