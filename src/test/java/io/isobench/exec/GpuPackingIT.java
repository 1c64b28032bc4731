package io.isobench.exec;

import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.proc.ProcessGroup;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GPU packing of the local executor (DESIGN.md §11) with the real CLI and the real toy engine: the node's GPUs come
 * from {@code ISOBENCH_GPUS=0,1,2,3} (this machine has none; the toy engine runs on the CPU and ignores
 * {@code CUDA_VISIBLE_DEVICES}, so what is checked is the bookkeeping: which ids each run held and when). One task needs
 * 2 GPUs, the other 1. The session is SIGKILLed while several servers run, then resumed: every job ends exactly once,
 * the groups the killed orchestrator left are reaped, and no two runs that overlapped in time held the same GPU.
 */
class GpuPackingIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private record Held(String runId, Instant from, Instant to, Set<String> gpus) {
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void packsJobsIntoTheNodesGpusAndResumesAfterSigkill() throws Exception {
        SharedData.requireService(Cli.has("python3") && Cli.has("git") && Cli.has("setsid"),
                "python3, git and setsid (util-linux) for the toy engine");
        Path repo = dir.resolve("repo");
        Cli.buildToyRepo(repo);
        String server = "python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model}"
                + " --disable-log-requests {server_flags}";
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: tpot",
                "    human_commit: task-tpot",
                "    parent_commit: baseline",
                "    mode: serving",
                "    model: toy-1m",
                "    gpus: 2",
                "    server_command: " + server,
                "    perf_command: vllm bench serve --model toy-1m --dataset-name random --random-input-len 32 "
                        + "--random-output-len 64 --num-prompts 8 --max-concurrency 4 --ignore-eos",
                "  - id: latency",
                "    human_commit: task-latency",
                "    parent_commit: baseline",
                "    mode: latency",
                "    model: toy-1m",
                "    gpus: 1",
                "    server_command: " + server,
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --batch-size 1 --input-len 32"
                        + " --output-len 16 --num-iters 10 --num-iters-warmup 2 --seed 0",
                "run: {rounds: 3, seed: 7, warmup_requests: 1, timeouts: {server_start_s: 30, run_s: 90}}",
                ""));
        String db = dir.resolve("db.duckdb").toString();
        String work = dir.resolve("work").toString();
        int jobs = 3 * 2 + 3 * 2 * 3; // checks (baseline, its repeat, human per task) + rounds of baseline, baseline-aa, human

        ProcessBuilder pb = Cli.builder("run", suite.toString(), "--db", db, "--session", "packed", "--workdir", work)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("ISOBENCH_GPUS", "0,1,2,3");
        pb.environment().put("ISOBENCH_STATE_DIR", dir.resolve("state").toString()); // its own host-wide GPU locks
        Process first = pb.start();
        Pattern progress = Pattern.compile("^job (\\d+)/(\\d+) ");
        List<String> lines = new ArrayList<>();
        int finished = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(first.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                Matcher m = progress.matcher(line);
                if (m.find() && ++finished == 4) {
                    Thread.sleep(300); // the next jobs' servers are starting or running
                    first.destroyForcibly(); // SIGKILL
                    break;
                }
            }
        }
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(lines).as("the session said how it packs").anyMatch(l -> l.equals(
                "up to 4 job(s) at once, packed into 4 GPU(s)"));
        List<Long> leftGroups = new ArrayList<>();
        try (Store store = Stores.open(db)) {
            store.forEachRun(new RunFilter(null, null, "packed", false), r -> {
                if (r.status() == RunRecord.RunStatus.NOT_RUN) {
                    JsonNode pgid = tree(RunDetailsCodec.encode(r.details())).path("pgid");
                    if (pgid.isNumber()) {
                        leftGroups.add(pgid.asLong());
                    }
                }
            });
        }
        assertThat(leftGroups).as("jobs in flight when the orchestrator was killed").isNotEmpty();

        ProcessBuilder resume = Cli.builder("run", suite.toString(), "--db", db, "--session", "packed", "--resume",
                "--workdir", work).redirectErrorStream(true);
        resume.environment().put("ISOBENCH_GPUS", "0,1,2,3");
        resume.environment().put("ISOBENCH_STATE_DIR", dir.resolve("state").toString());
        Process second = resume.start();
        String out = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(second.waitFor(6, TimeUnit.MINUTES)).isTrue();
        assertThat(second.exitValue()).as(out).isZero();
        for (long pgid : leftGroups) {
            assertThat(ProcessGroup.members(pgid)).as("group " + pgid + " left by the killed run").isEmpty();
        }

        List<Held> held = new ArrayList<>();
        try (Store store = Stores.open(db)) {
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, "packed", false), runs::add);
            assertThat(runs).hasSize(jobs);
            assertThat(runs).allMatch(r -> r.status() == RunRecord.RunStatus.SUCCESS);
            for (RunRecord r : runs) {
                JsonNode extra = tree(RunDetailsCodec.encode(r.details()));
                String gpus = extra.path("gpus").asText("");
                Set<String> ids = new HashSet<>(List.of(gpus.split(",")));
                int want = "tpot".equals(extra.path("task").asText()) ? 2 : 1;
                assertThat(ids).as("GPUs held by " + r.runId()).hasSize(want)
                        .allMatch(id -> Set.of("0", "1", "2", "3").contains(id));
                held.add(new Held(r.runId(), r.startedAt(),
                        r.startedAt().plusMillis(Math.round(r.durationMs())), ids));
            }
            SessionRecord s = store.session("packed").orElseThrow();
            assertThat(tree(s.machineJson()).path("parallel").asInt()).isEqualTo(4);
            assertThat(tree(s.machineJson()).path("node_gpus").asInt()).isEqualTo(4);
        }
        // a run's recorded interval is its executor's wall time, which contains its GPU lease; it is stamped when the
        // run is committed, a few milliseconds after the lease ended: allow 250 ms of slack
        long overlappingPairs = 0;
        for (int i = 0; i < held.size(); i++) {
            for (int j = i + 1; j < held.size(); j++) {
                Held a = held.get(i);
                Held b = held.get(j);
                long overlapMs = Math.min(a.to.toEpochMilli(), b.to.toEpochMilli())
                        - Math.max(a.from.toEpochMilli(), b.from.toEpochMilli());
                if (overlapMs > 250) {
                    overlappingPairs++;
                    Set<String> both = new HashSet<>(a.gpus);
                    both.retainAll(b.gpus);
                    assertThat(both).as(a.runId + " and " + b.runId + " overlapped " + overlapMs + " ms").isEmpty();
                }
            }
        }
        assertThat(overlappingPairs).as("runs that ran at the same time on different GPUs").isPositive();
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(json, e);
        }
    }
}
