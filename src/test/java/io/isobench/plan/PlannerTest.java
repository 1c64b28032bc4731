package io.isobench.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PlannerTest {

    @TempDir
    Path dir;

    private Suite suite(String extraTask) throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Files.writeString(dir.resolve("a.patch"), "");
        Files.writeString(dir.resolve("s.yaml"), String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: serve",
                "    human_commit: task-serve",
                "    parent_commit: base",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model} {server_flags}",
                "    perf_command: vllm bench serve --model toy-1m --num-prompts 8 --max-concurrency 4 --dtype half",
                "  - id: lat",
                "    human_commit: task-lat",
                "    mode: latency",
                "    model: toy-1m",
                "    perf_command: HF_HUB_OFFLINE=1 python3 benchmarks/benchmark_latency.py --model toy-1m --num-iters 5",
                extraTask,
                "agents:",
                "  - name: a1",
                "    patches: {serve: a.patch, lat: a.patch}",
                "  - name: a2",
                "    patches: {serve: a.patch}",
                "run: {rounds: 3, seed: 7, warmup_requests: 2, timeouts: {server_start_s: 20, run_s: 60, build_s: 30}}",
                ""));
        return SuiteLoader.load(dir.resolve("s.yaml"));
    }

    @Test
    void jobsAreTasksTimesArmsTimesRoundsInterleavedPerRound() throws Exception {
        Plan p = Planner.plan(suite(""), new Planner.Options(null, null, dir.resolve("work")));
        // serve: baseline, human, a1, a2; lat: baseline, human, a1
        assertThat(p.arms()).hasSize(7);
        assertThat(p.jobs()).hasSize(7 + 7 * 3);
        assertThat(p.measuredJobs()).isEqualTo(21);
        assertThat(p.jobs().subList(0, 7)).allMatch(j -> j.kind() == Job.Kind.CHECK);
        Set<String> ids = new HashSet<>();
        for (int r = 0; r < 3; r++) {
            List<Job> round = p.jobs().subList(7 + 7 * r, 14 + 7 * r);
            int rr = r;
            assertThat(round).allMatch(j -> j.round() == rr);
            assertThat(round.stream().map(j -> j.taskId() + "/" + j.arm()).distinct()).hasSize(7);
            round.forEach(j -> ids.add(j.jobId()));
        }
        assertThat(ids).hasSize(21);
        for (int i = 0; i < p.jobs().size(); i++) {
            assertThat(p.jobs().get(i).index()).isEqualTo(i);
        }
        Job serve = p.jobs().stream().filter(j -> j.taskId().equals("serve") && j.kind() == Job.Kind.MEASURE)
                .findFirst().orElseThrow();
        assertThat(serve.argv()).contains(Planner.PORT).contains("--dtype");
        assertThat(serve.client()).contains("--num-prompts", "8");
        assertThat(serve.warmupRequests()).isEqualTo(2);
        assertThat(serve.serverStartS()).isEqualTo(20);
        Job lat = p.jobs().stream().filter(j -> j.taskId().equals("lat") && j.kind() == Job.Kind.MEASURE)
                .findFirst().orElseThrow();
        assertThat(lat.argv()).startsWith("python3", "benchmarks/benchmark_latency.py");
        assertThat(lat.env()).containsEntry("HF_HUB_OFFLINE", "1");
        assertThat(lat.cwd()).isEqualTo(dir.resolve("work").resolve("envs").resolve("lat").resolve("baseline")
                .getParent().resolve(lat.arm().replace("agent:", "")));
        assertThat(p.arm("lat", "baseline").orElseThrow().commitRef()).isEqualTo("task-lat^");
        assertThat(p.arm("serve", "agent:a1").orElseThrow().commitRef()).isEqualTo("base");
    }

    @Test
    void orderIsShuffledWithTheRecordedSeedAndReproducible() throws Exception {
        Suite s = suite("");
        Plan a = Planner.plan(s, new Planner.Options(5, 11L, dir));
        Plan b = Planner.plan(s, new Planner.Options(5, 11L, dir));
        Plan c = Planner.plan(s, new Planner.Options(5, 12L, dir));
        assertThat(order(a)).isEqualTo(order(b));
        assertThat(order(a)).isNotEqualTo(order(c));
        assertThat(a.seed()).isEqualTo(11L);
        // rounds are not all in the same order
        List<String> r0 = order(a).subList(7, 14);
        List<String> r1 = order(a).subList(14, 21);
        assertThat(r0.stream().map(x -> x.replace("/r0", "")).toList())
                .isNotEqualTo(r1.stream().map(x -> x.replace("/r1", "")).toList());
    }

    @Test
    void lintFailureSkipsTheTaskWithTheReason() throws Exception {
        Suite s = suite(String.join("\n",
                "  - id: broken",
                "    human_commit: task-b",
                "    mode: throughput",
                "    perf_command: python3 benchmarks/benchmark_throughput.py --input-len BS",
                ""));
        Plan p = Planner.plan(s, new Planner.Options(1, null, dir));
        assertThat(p.jobs()).noneMatch(j -> j.taskId().equals("broken"));
        assertThat(p.skipped()).singleElement().satisfies(k -> {
            assertThat(k.taskId()).isEqualTo("broken");
            assertThat(k.reason()).isNotBlank();
        });
        assertThat(p.toText()).contains("skipped broken");
    }

    @Test
    void jsonFormHasArgvEnvCwdAndTimeoutsPerJob() throws Exception {
        Plan p = Planner.plan(suite(""), new Planner.Options(2, null, dir));
        JsonNode n = new ObjectMapper().readTree(p.toJson());
        assertThat(n.path("format").asText()).isEqualTo(Plan.FORMAT_ID);
        assertThat(n.path("seed").asLong()).isEqualTo(7);
        assertThat(n.path("jobs").size()).isEqualTo(p.jobs().size());
        JsonNode last = n.path("jobs").get(p.jobs().size() - 1);
        assertThat(last.has("cwd")).isTrue();
        assertThat(last.path("timeouts").path("run_s").asInt()).isEqualTo(60);
        assertThat(last.has("env")).isTrue();
        assertThat(last.has("argv") || last.has("server_argv")).isTrue();
        assertThat(last.path("gpus").asInt()).isGreaterThanOrEqualTo(1);
    }

    private static List<String> order(Plan p) {
        List<String> out = new ArrayList<>();
        p.jobs().forEach(j -> out.add(j.jobId()));
        return out;
    }
}
