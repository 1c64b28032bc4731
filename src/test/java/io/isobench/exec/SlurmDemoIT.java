package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.CountedRounds;
import io.isobench.parse.Metric;
import io.isobench.store.Pipeline;
import io.isobench.store.RunDetailsCodec;
import io.isobench.SharedData;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bundled demo ({@code isobench demo --executor slurm --rounds 2}, 54 jobs) on the real single-node cluster, with
 * the orchestrator SIGKILLed while a Slurm job runs and the session resumed ({@code demo --resume}): the running job
 * is adopted by name (not submitted again), every job ran exactly once (one Slurm submission per job and attempt: a run
 * whose client was saturated is measured again), the runs finished before the kill are untouched, and the results were
 * ingested into the store.
 */
@ResourceLock(ItLocks.SLURM)
class SlurmDemoIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void demoOnSlurmSurvivesAnOrchestratorSigkill() throws Exception {
        SharedData.requireService(SlurmExecutorIT.clusterUp(), "a Slurm cluster (sbatch on PATH, slurmctld answering sinfo)");
        SharedData.requireService(Cli.has("python3") && Cli.has("git"), "python3 and git for the toy engine");
        Path work = dir.resolve("demo");
        int jobs = 21 + 2 * 21; // 21 checks (no A/A check, the baseline twice) + 2 rounds x 3 tasks x 7 arms
        long t0 = System.nanoTime();
        ProcessBuilder pb = env(Cli.builder("demo", "--executor", "slurm", "--rounds", "2", "--workdir", work.toString()));
        Process first = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Pattern progress = Pattern.compile("^job (\\d+)/(\\d+) ");
        List<String> lines = new ArrayList<>();
        String inFlight = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(first.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            int finished = 0;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                Matcher m = progress.matcher(line);
                if (m.find()) {
                    assertThat(Integer.parseInt(m.group(2))).isEqualTo(jobs);
                    if (++finished == 10) {
                        inFlight = awaitRunningJob(work);
                        first.destroyForcibly(); // SIGKILL while a Slurm job of the session runs
                        break;
                    }
                }
            }
        }
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).as("killed by SIGKILL: " + lines).isEqualTo(137);
        assertThat(inFlight).as("a Slurm job was running at the kill: " + lines).isNotNull();

        String db = work.resolve("isobench.duckdb").toString();
        String session;
        Map<String, RunRecord> before = new HashMap<>();
        try (Store store = Stores.open(db)) {
            session = store.sessions().get(0).sessionId();
            store.forEachRun(new RunFilter(null, null, session, false), r -> before.put(r.runId(), r));
        }
        long done = before.values().stream().filter(r -> r.status() != RunRecord.RunStatus.NOT_RUN).count();
        assertThat(done).isBetween(10L, 11L);

        Process second = env(Cli.builder("demo", "--executor", "slurm", "--rounds", "2", "--workdir", work.toString(),
                "--resume")).redirectErrorStream(true).start();
        String out = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(second.waitFor(10, TimeUnit.MINUTES)).isTrue();
        assertThat(second.exitValue()).as(out).isZero();
        double wallS = (System.nanoTime() - t0) / 1e9;
        assertThat(out).contains("resuming session " + session + ": " + done + " run(s) already finished");

        Path shared = work.resolve("slurm").resolve(SlurmExecutor.safe(session));
        List<Path> submitted;
        try (Stream<Path> s = Files.walk(shared)) {
            submitted = s.filter(p -> p.getFileName().toString().equals("submitted")).toList();
        }
        List<Double> queueMs = new ArrayList<>();
        int submissions = 0;
        try (Store store = Stores.open(db)) {
            List<RunRecord> after = new ArrayList<>();
            // with metrics: a served run carries the scraped summaries
            store.forEachRun(new RunFilter(null, null, session, true), after::add);
            // the accuracy hook's runs (one per arm, after the rounds) are Slurm jobs too, but not measured jobs
            List<RunRecord> accuracy = after.stream().filter(r -> Pipeline.NATIVE_ACCURACY.equals(r.pipeline())).toList();
            after.removeAll(accuracy);
            assertThat(after).hasSize(jobs);
            assertThat(after.stream().map(RunRecord::runId).distinct()).hasSize(jobs);
            assertThat(after).noneMatch(r -> r.status() == RunRecord.RunStatus.NOT_RUN);
            // runs that reached the executor = Slurm submissions (the delta arms fail in their environments, and an
            // arm the review rejects is never prepared)
            long executed = after.stream().filter(r -> r.failure() == null
                    || !List.of("PATCH_FAILED", "EMPTY_PATCH", "PATCH_REJECTED").contains(r.failure().category()))
                    .count();
            // one job directory per executed job
            assertThat(submitted).hasSize((int) executed + accuracy.size());
            // a measured serving run on Slurm: the server's /metrics scraped from this host, the warm-up marked
            RunRecord served = after.stream().filter(r -> r.runId().startsWith(session + "/tpot/")
                    && r.status() == RunRecord.RunStatus.SUCCESS && !r.runId().endsWith("/check")).findFirst().orElseThrow();
            assertThat(served.metrics()).extracting(Metric::name)
                    .contains("server_metrics_scrapes", "vllm:time_to_first_token_ms_mean", "ttft_client_minus_server_ms");
            String seriesSha = new com.fasterxml.jackson.databind.ObjectMapper().readTree(RunDetailsCodec.encode(
                    served.details())).path("server_metrics_artifact_sha256").asText();
            assertThat(new String(store.artifact(seriesSha).orElseThrow(), StandardCharsets.UTF_8))
                    .contains("\"measured_from_ms\"");
            for (RunRecord r : after) {
                RunRecord b = before.get(r.runId());
                if (b != null && b.status() != RunRecord.RunStatus.NOT_RUN) {
                    assertThat(r.primaryValue()).as("finished before the kill: " + r.runId()).isEqualTo(b.primaryValue());
                    assertThat(r.startedAt()).isEqualTo(b.startedAt());
                }
                var q = Pattern.compile("\"queue_ms\":([0-9.]+)").matcher(RunDetailsCodec.encode(r.details()));
                if (q.find()) {
                    queueMs.add(Double.parseDouble(q.group(1)));
                }
            }
            // the job that ran at the kill was adopted by the resumed orchestrator
            String adopted = null;
            for (RunRecord r : after) {
                if (r.logArtifact() != null) {
                    String log = new String(store.artifact(r.logArtifact()).orElseThrow(), StandardCharsets.UTF_8);
                    if (log.contains("adopted Slurm job ")) {
                        adopted = r.runId();
                    }
                }
            }
            assertThat(adopted).as("a run adopted from the killed orchestrator").isNotNull();
            assertThat(SlurmExecutor.jobName(session, adopted.substring(session.length() + 1))).isEqualTo(inFlight);
            // one Slurm submission per attempt: nothing was submitted twice. A job has one attempt, plus one for each
            // earlier attempt whose client was saturated (measured again, kept in client_saturated_attempts); the
            // adopted job may have had such attempts before the kill that only the killed orchestrator knew of
            Map<String, Integer> replaced = new HashMap<>();
            for (RunRecord r : after) {
                replaced.put(SlurmExecutor.safe(r.runId().substring(session.length() + 1)),
                        r.details().saturatedAttempts());
            }
            String adoptedDir = SlurmExecutor.safe(adopted.substring(session.length() + 1));
            for (Path p : submitted) {
                List<String> ids = Files.readAllLines(p).stream().filter(l -> !l.isBlank()).toList();
                String dir = p.getParent().getFileName().toString();
                int attempts = 1 + replaced.getOrDefault(dir, 0);
                if (dir.equals(adoptedDir)) {
                    assertThat(ids.size()).as(p.toString()).isBetween(attempts, 3);
                } else {
                    assertThat(ids).as(p + ", " + (attempts - 1) + " saturated attempt(s) replaced").hasSize(attempts);
                }
                submissions += ids.size();
            }

            SessionAnalysis a = SessionAnalysis.of(store, session, StatsConfig.defaults());
            assertThat(a.tasks()).extracting(SessionAnalysis.TaskResult::taskId)
                    .containsExactly("tpot", "latency", "throughput");
            for (SessionAnalysis.TaskResult t : a.tasks()) {
                assertThat(t.runs()).as(t.taskId()).containsEntry(Arm.BASELINE, 2).containsEntry(Arm.HUMAN, 2);
                // every run counted, unless the load generator's own check excluded it (a serving task's client on a
                // shared 2-core machine: docs/loadgen.md "Client self-check")
                CountedRounds.assertCounted(t.analysis(), Arm.BASELINE, 2, 1);
                CountedRounds.assertCounted(t.analysis(), Arm.HUMAN, 2, 1);
            }
            assertThat(a.tasks().get(0).outcomes().get(Arm.ofStored("agent:bravo"))).containsKey("SERVER_CRASHED");
        }
        SlurmCli.Out q = SlurmCli.run(List.of("squeue", "-h", "-t", "PENDING,RUNNING", "-o", "%j"));
        assertThat(q.out().lines().filter(l -> l.startsWith(SlurmExecutor.jobName(session, "")))).isEmpty();
        assertThat(work.resolve("report.md")).exists();
        queueMs.sort(null);
        System.out.printf(Locale.ROOT, "slurm demo: %d jobs, %d Slurm jobs, wall %.1f s (kill + resume), submit-to-start"
                        + " median %.0f ms, p90 %.0f ms%n", jobs, submissions, wallS, queueMs.get(queueMs.size() / 2),
                queueMs.get((int) Math.min(queueMs.size() - 1, Math.ceil(0.9 * queueMs.size()) - 1)));
    }

    /** Frugal requests on the 2-core test machine. */
    private static ProcessBuilder env(ProcessBuilder pb) {
        pb.environment().put("ISOBENCH_SLURM_CPUS_PER_GPU", "1");
        pb.environment().put("ISOBENCH_SLURM_MEM_PER_GPU_MB", "1024");
        pb.environment().put("ISOBENCH_SLURM_MEM_MB", "1024");
        return pb;
    }

    /** The name of a RUNNING Slurm job of the demo's session (waits up to 20 s for one). */
    private static String awaitRunningJob(Path work) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            Path shared = work.resolve("slurm");
            if (Files.isDirectory(shared)) {
                List<String> sessions;
                try (Stream<Path> s = Files.list(shared)) {
                    sessions = s.map(p -> p.getFileName().toString()).toList();
                }
                SlurmCli.Out o = SlurmCli.run(List.of("squeue", "-h", "-t", "RUNNING", "-o", "%j"));
                for (String name : o.out().strip().lines().toList()) {
                    for (String sess : sessions) {
                        if (name.startsWith(SlurmExecutor.NAME_PREFIX + sess + "-")) {
                            return name;
                        }
                    }
                }
            }
            Thread.sleep(100);
        }
        return null;
    }
}
