package io.isobench.exec;

import io.isobench.SharedData;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.plan.Plan;
import io.isobench.probe.Greedy;
import io.isobench.probe.Probe;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Slurm executor on a real single-node cluster (scripts/provision-slurm: slurmctld + slurmd, two fake GPUs as
 * GRES): success, non-zero exit, timeout, cancellation, server mode with readiness, crash, log capture, an outside
 * scancel (a cluster-side failure), a job wider than the cluster, and adoption of a job a killed orchestrator
 * submitted. Every test leaves no job of its session queued or running.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@ResourceLock(ItLocks.SLURM)
class SlurmExecutorIT {

    static final Path TOY = Path.of("examples/toy-engine/src").toAbsolutePath();
    static final List<String> SERVER = List.of("python3", "-m", "toyllm.entrypoints.api_server", "--host",
            "{host}", "--port", "{port}", "--model", "toy-1m", "--disable-log-requests");
    static final List<String> CLIENT = List.of("--model", "toy-1m", "--dataset-name", "random", "--random-input-len",
            "16", "--random-output-len", "16", "--num-prompts", "4", "--max-concurrency", "2", "--ignore-eos");

    @TempDir
    Path dir;
    SlurmExecutor slurm;
    String session;
    SlurmCli cli = new SlurmCli();

    static boolean clusterUp() {
        return SlurmCli.onPath("sbatch") && new SlurmCli().unreachable().isEmpty();
    }

    @BeforeEach
    void connect() {
        SharedData.requireService(clusterUp(), "a Slurm cluster (sbatch on PATH, slurmctld answering sinfo)");
        SharedData.requireService(SlurmCli.onPath("python3"), "python3 for the toy engine");
        slurm = SlurmExecutor.connect(config());
        session = "it" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);
        slurm.beginSession(session);
    }

    SlurmConfig config() {
        return new SlurmConfig(null, null, 1, 1, 512, 512, false, "127.0.0.1", dir.resolve("shared"), 120, List.of());
    }

    @AfterEach
    void nothingLeft() {
        if (session == null) {
            return;
        }
        SlurmCli.Out o = SlurmCli.run(List.of("squeue", "-h", "-o", "%j|%T"));
        List<String> ours = o.out().lines().filter(l -> l.startsWith(SlurmExecutor.NAME_PREFIX + session + "-"))
                .filter(l -> !l.endsWith("|COMPLETED") && !l.endsWith("|CANCELLED") && !l.endsWith("|FAILED"))
                .toList();
        // best effort cleanup before asserting, so a failing test never leaves jobs queued
        if (!ours.isEmpty()) {
            SlurmCli.run(List.of("scancel", "--name=" + String.join(",", ours.stream().map(l -> l.split("\\|")[0])
                    .toList())));
        }
        assertThat(ours).as("jobs of the test session still queued or running").isEmpty();
    }

    static Job job(String id, String mode, Job.Kind kind, List<String> argv, List<String> client, int runS, int gpus) {
        return new Job(new Job.Place(0, id, "t", kind == Job.Kind.CHECK ? -1 : 0), Arm.BASELINE,
                Mode.fromLabel(mode).orElseThrow(), new JobSpec.Measure(Command.template(argv), ClientConfig.ofArgv(client), 1, null),
                new Job.Where(TOY, Map.of(), gpus), Job.Limits.ofSeconds(20, runS));
    }

    /** A server check: {@code numPrompts} greedy probes of {@code maxTokens} tokens. */
    static Job check(String id, List<String> argv, int numPrompts, int maxTokens) {
        return new Job(new Job.Place(0, id, "t", -1), Arm.BASELINE, Mode.SERVING, new JobSpec.Check(Command.template(argv),
                new JobSpec.Probes("toy-1m", numPrompts, maxTokens, 0.0, false, JobSpec.Via.SERVER, false), null),
                new Job.Where(TOY, Map.of(), 1), Job.Limits.ofSeconds(20, 60));
    }

    static Job offline(String id, List<String> argv, int runS) {
        return job(id, "latency", Job.Kind.MEASURE, argv, List.of(), runS, 1);
    }

    @Test
    void offlineSuccessIsParsedAndTheLogKept() {
        Job j = new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("python3", "benchmarks/benchmark_latency.py", "--model", "toy-1m", "--batch-size", "1",
                        "--input-len", "8", "--output-len", "4", "--num-iters", "3", "--num-iters-warmup", "1",
                        "--seed", "0")), ClientConfig.NONE, 0, null),
                                new Job.Where(TOY, Map.of("ISOBENCH_IT_MARK", "it's here"), 1),
                                Job.Limits.ofSeconds(20, 60));
        JobResult r = slurm.execute(j, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.metrics()).anyMatch(m -> m.name().equals("latency_ms_avg") && m.value() > 0);
        assertThat(r.log()).contains("Avg latency");
        assertThat(r.timingsMs()).containsKey("queue_ms");
        Path jd = SlurmExecutor.jobDir(config(), session, j);
        assertThat(jd.resolve("job.sbatch")).content().contains("#SBATCH --gpus=1")
                .contains("export ISOBENCH_IT_MARK='it'\"'\"'s here'");
        assertThat(SlurmExecutor.jobName(session, j.jobId())).isEqualTo("isb-" + session + "-t_baseline_r0");
    }

    @Test
    void nonZeroExitAndMissingCommandAreClassified() {
        JobResult r = slurm.execute(offline("t/baseline/r1", List.of("python3", "-c",
                "import sys; print('OSError: [Errno 28] No space left on device'); sys.exit(3)"), 60), Executor.Hooks.NONE);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.DISK_FULL);
        assertThat(r.log()).contains("No space left on device");

        JobResult plain = slurm.execute(offline("t/baseline/r2", List.of("python3", "-c",
                "import sys; print('working'); sys.exit(5)"), 60), Executor.Hooks.NONE);
        assertThat(plain.failure().category()).isEqualTo(FailureCategory.UNKNOWN);
        assertThat(plain.failure().detail()).contains("exited 5");

        JobResult missing = slurm.execute(offline("t/baseline/r3", List.of("/nonexistent/bin/bench", "--x"), 60),
                Executor.Hooks.NONE);
        assertThat(missing.failure().category()).isEqualTo(FailureCategory.BAD_PERF_COMMAND);
    }

    @Test
    void timeoutCancelsTheJob() {
        Job j = offline("t/baseline/r4", List.of("sleep", "60"), 2);
        long t0 = System.nanoTime();
        JobResult r = slurm.execute(j, Executor.Hooks.NONE);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.TIMEOUT);
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
        assertThat(lastState(j)).isIn("CANCELLED", "COMPLETED", null);
    }

    @Test
    void cancellationScancelsTheJob() {
        AtomicBoolean cancel = new AtomicBoolean();
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(2500);
            } catch (InterruptedException e) {
                return;
            }
            cancel.set(true);
        });
        Job j = offline("t/baseline/r5", List.of("sleep", "60"), 60);
        JobResult r = slurm.execute(j, new Executor.Hooks(p -> { }, cancel::get));
        assertThat(r.success()).isFalse();
        assertThat(r.failure().detail()).contains("cancelled");
        assertThat(lastState(j)).isEqualTo("CANCELLED");
    }

    @Test
    void serverModeMeasuresThroughReadinessAndTearsDown() {
        Job j = job("t/baseline/r6", "serving", Job.Kind.MEASURE, SERVER, CLIENT, 60, 1);
        JobResult r = slurm.execute(j, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.metrics()).anyMatch(m -> m.name().equals("tpot_ms_mean") && m.value() > 0);
        assertThat(r.workloadJson()).isNotNull();
        assertThat(r.timingsMs()).containsKeys("queue_ms", "ready_ms", "client_ms", "teardown_ms");
        assertThat(r.argv()).noneMatch(w -> w.contains("{port}"));
        assertThat(r.log()).contains("Application startup complete").contains("--- isobench client ---");
        assertThat(lastState(j)).isEqualTo("CANCELLED"); // torn down by scancel after the client

        Job check = check("t/baseline/check", SERVER, 3, 8);
        JobResult c = slurm.execute(check, Executor.Hooks.NONE);
        assertThat(c.failure()).as(c.log()).isNull();
        assertThat(c.outputs()).hasSize(3);
        // both passes, probed from the orchestrator: one at a time, then 8 requests at once
        Greedy.ProbeRun probes = Greedy.ProbeRun.fromJson(c.probeJson());
        assertThat(probes.texts()).isEqualTo(c.outputs());
        assertThat(probes.batchSize()).isEqualTo(8);
        assertThat(probes.batched()).extracting(Probe::text).isEqualTo(c.outputs());
    }

    @Test
    void serverCrashBeforeReadinessIsServerCrashed() {
        Job j = job("t/agent_x/r0", "serving", Job.Kind.MEASURE, List.of("python3", "-c",
                "import sys; print('Traceback (most recent call last):'); print('TypeError: boom'); sys.exit(1)",
                "{port}"), CLIENT, 60, 1);
        JobResult r = slurm.execute(j, Executor.Hooks.NONE);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.SERVER_CRASHED);
        assertThat(r.failure().evidence()).anyMatch(e -> e.contains("TypeError: boom"));
    }

    @Test
    void outsideScancelIsACancelledClusterFailureAndRetryable() throws Exception {
        Job j = offline("t/baseline/r7", List.of("sleep", "60"), 60);
        String name = SlurmExecutor.jobName(session, j.jobId());
        Thread killer = Thread.ofVirtual().start(() -> {
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < end) {
                SlurmCli.Out o = SlurmCli.run(List.of("squeue", "-h", "--name=" + name, "-t", "RUNNING", "-o", "%i"));
                if (!o.out().isBlank()) {
                    SlurmCli.run(List.of("scancel", o.out().strip()));
                    return;
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        JobResult r = slurm.execute(j, Executor.Hooks.NONE);
        killer.join();
        assertThat(r.failure().category()).isEqualTo(FailureCategory.INFRA_TRANSIENT);
        assertThat(r.failure().category().retryable()).isTrue();
        assertThat(r.failure().evidence()).anyMatch(e -> e.contains("CANCELLED"));
    }

    @Test
    void aJobWiderThanTheClusterIsRefusedWithoutSubmitting() {
        Job j = offline("t/baseline/r8", List.of("true"), 60);
        Job wide = new Job(new Job.Place(0, j.jobId(), "t", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(j.argv()), ClientConfig.NONE, 0, null), new Job.Where(TOY, Map.of(), 64),
                Job.Limits.ofSeconds(20, 60));
        JobResult r = slurm.execute(wide, Executor.Hooks.NONE);
        assertThat(r.failure().category()).isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT);
        assertThat(r.failure().detail()).contains("64 GPU(s)").contains("has 2");
        assertThat(cli.jobsNamed(SlurmExecutor.jobName(session, j.jobId()))).isEmpty();
    }

    @Test
    void aResumedOrchestratorAdoptsTheRunningJobInsteadOfResubmitting() throws Exception {
        // a "killed orchestrator": wrote the script and submitted it, then died
        Job j = offline("t/baseline/r9", List.of("python3", "benchmarks/benchmark_latency.py", "--model", "toy-1m",
                "--batch-size", "1", "--input-len", "8", "--output-len", "4", "--num-iters", "3",
                "--num-iters-warmup", "1", "--seed", "0"), 60);
        Path jd = SlurmExecutor.jobDir(config(), session, j);
        Files.createDirectories(jd);
        Path script = jd.resolve("job.sbatch");
        Files.writeString(script, SlurmExecutor.script(j, session, jd, config(), null));
        String id = SlurmCli.jobIdOf(cli.submit(script).out());
        Files.writeString(jd.resolve("submitted"), id + "\n");

        SlurmExecutor resumed = SlurmExecutor.connect(config());
        resumed.beginSession(session);
        JobResult r = resumed.execute(j, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.log()).contains("adopted Slurm job " + id);
        assertThat(cli.jobsNamed(SlurmExecutor.jobName(session, j.jobId()))).containsExactly(Long.parseLong(id));

        // a retry in the same process submits a new job rather than re-reading the consumed one
        JobResult again = resumed.execute(j, Executor.Hooks.NONE);
        assertThat(again.failure()).isNull();
        assertThat(again.log()).doesNotContain("adopted");
        assertThat(cli.jobsNamed(SlurmExecutor.jobName(session, j.jobId()))).hasSize(2);
    }

    @Test
    void dryRunShowsScriptsAndRefusesJobsWiderThanTheClusterAtPlanTime() throws Exception {
        Plan plan = SlurmScriptGoldenTest.plan(); // real vLLM tasks, TP=1 and TP=4
        String text = Executors.dryRun("slurm", plan, "dry", "text");
        assertThat(text).contains("executor slurm: one batch job per job")
                .contains("refused: RESOURCES_INSUFFICIENT: needs 4 GPU(s); the largest node has 2")
                .contains("#SBATCH --job-name=isb-dry-3b61cb45_baseline_r0");
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(Executors.dryRun("slurm", plan, "dry", "json"));
        for (var jm : json.path("jobs")) {
            assertThat(jm.path("slurm_job_name").asText()).startsWith("isb-dry-");
            assertThat(jm.has("sbatch") ^ jm.has("refused")).isTrue();
            if (jm.path("gpus").asInt() > 2) {
                assertThat(jm.path("refused").asText()).startsWith("RESOURCES_INSUFFICIENT");
            }
        }
        assertThat(cli.jobsNamed("isb-dry-3b61cb45_baseline_r0")).isEmpty(); // nothing submitted
    }

    @Test
    void sigtermOfTheOrchestratorScancelsTheJobInFlight() throws Exception {
        Path repo = dir.resolve("repo");
        Cli.buildToyRepo(repo);
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: latency",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model} {server_flags}",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --batch-size 1 --input-len 16"
                        + " --output-len 16 --num-iters 400 --num-iters-warmup 1 --seed 0",
                "run: {rounds: 1, seed: 7, warmup_requests: 0, timeouts: {server_start_s: 60, run_s: 120, build_s: 60}}",
                ""));
        Path work = dir.resolve("work");
        Process p = Cli.builder("run", suite.toString(), "--db", dir.resolve("db.duckdb").toString(), "--session",
                session, "--workdir", work.toString(), "--executor", "slurm")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String prefix = SlurmExecutor.NAME_PREFIX + session + "-latency_";
        String running = null;
        long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (running == null && System.nanoTime() < end) {
            SlurmCli.Out o = SlurmCli.run(List.of("squeue", "-h", "-t", "RUNNING", "-o", "%j"));
            running = o.out().lines().filter(l -> l.startsWith(prefix) && l.endsWith("_r0")).findFirst().orElse(null);
            Thread.sleep(100);
        }
        assertThat(running).as("a measured job running").isNotNull();
        p.destroy(); // SIGTERM: the shutdown hook scancels the job in flight
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        List<Long> ids = cli.jobsNamed(running);
        SlurmCli.JobState st = cli.state(Long.toString(ids.get(ids.size() - 1)));
        for (int i = 0; i < 100 && st != null && !st.terminal(); i++) { // COMPLETING: the cancel is being carried out
            Thread.sleep(200);
            st = cli.state(Long.toString(ids.get(ids.size() - 1)));
        }
        assertThat(st == null ? "gone" : st.state()).isIn("CANCELLED", "gone");
        assertThat(SlurmCli.activeJobsUnder(work)).isEmpty();
    }

    private String lastState(Job j) {
        List<Long> ids = cli.jobsNamed(SlurmExecutor.jobName(session, j.jobId()));
        if (ids.isEmpty()) {
            return null;
        }
        SlurmCli.JobState s = cli.state(Long.toString(ids.get(ids.size() - 1)));
        return s == null ? null : s.state();
    }
}
