package io.isobench.plan;

import io.isobench.Arm;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.AgentSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

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
    void serverMetricsIntervalComesFromTheSuiteAndTheOption() throws Exception {
        Suite plain = suite("");
        Plan p = Planner.plan(plain, new Planner.Options(null, null, dir.resolve("work")));
        Job serve = p.jobs().stream().filter(j -> j.kind() == Job.Kind.MEASURE && j.taskId().equals("serve"))
                .findFirst().orElseThrow();
        assertThat(serve.serverMetricsIntervalMs()).as("default: every second").isEqualTo(1000);
        assertThat(p.jobs().stream().filter(j -> j.kind() == Job.Kind.CHECK))
                .allMatch(j -> j.serverMetricsIntervalMs() == 0);
        Path file = dir.resolve("s.yaml");
        Files.writeString(file, Files.readString(file).replace("run: {rounds: 3,",
                "run: {server_metrics_interval_ms: 250, rounds: 3,"));
        Suite set = SuiteLoader.load(file);
        assertThat(set.run().serverMetricsIntervalMs()).isEqualTo(250);
        Plan q = Planner.plan(set, new Planner.Options(null, null, dir.resolve("work")));
        assertThat(q.jobs().stream().filter(j -> j.kind() == Job.Kind.MEASURE))
                .allMatch(j -> j.serverMetricsIntervalMs() == 250);
        // the run command's --server-metrics-interval-ms wins over the suite; 0 turns scraping off
        Plan off = Planner.plan(set, new Planner.Options(null, null, dir.resolve("work"), null, 0));
        assertThat(off.jobs().stream().filter(j -> j.kind() == Job.Kind.MEASURE))
                .allMatch(j -> j.serverMetricsIntervalMs() == 0);
    }

    @Test
    void jobsAreTasksTimesArmsTimesRoundsInterleavedPerRound() throws Exception {
        Plan p = Planner.plan(suite(""), new Planner.Options(null, null, dir.resolve("work")));
        // serve: baseline, baseline-aa, human, a1, a2; lat: baseline, baseline-aa, human, a1
        assertThat(p.aa()).isTrue();
        assertThat(p.arms()).hasSize(9);
        assertThat(p.arm("serve", Arm.BASELINE_AA).orElseThrow().commitRef()).isEqualTo("base");
        // checks: every arm but the A/A one (it runs the baseline's code), plus the baseline's repeat check
        int checks = 7 + 2;
        assertThat(p.jobs()).hasSize(checks + 9 * 3);
        assertThat(p.measuredJobs()).isEqualTo(27);
        assertThat(p.jobs().subList(0, checks)).allMatch(j -> j.kind() == Job.Kind.CHECK);
        assertThat(p.jobs().subList(0, checks).stream().filter(Job::repeatCheck).map(Job::jobId))
                .containsExactly("serve/baseline/check-repeat", "lat/baseline/check-repeat");
        assertThat(p.jobs().subList(0, checks)).noneMatch(j -> j.arm().equals(Arm.BASELINE_AA));
        // per task: the baseline's check, then its repeat, before every other check of the task
        List<String> serveChecks = p.jobs().subList(0, checks).stream().filter(j -> j.taskId().equals("serve"))
                .map(Job::jobId).toList();
        assertThat(serveChecks).startsWith("serve/baseline/check", "serve/baseline/check-repeat");
        // every job's role (stored with its run): the repeat check is CHECK_REPEAT, rounds MEASURE
        assertThat(p.jobs()).allMatch(j -> j.role() == (j.kind() == Job.Kind.MEASURE ? JobRole.MEASURE
                : j.repeatCheck() ? JobRole.CHECK_REPEAT : JobRole.CHECK));
        assertThat(p.jobs().stream().filter(j -> j.role() == JobRole.CHECK_REPEAT)).hasSize(2);
        Set<String> ids = new HashSet<>();
        for (int r = 0; r < 3; r++) {
            List<Job> round = p.jobs().subList(checks + 9 * r, checks + 9 + 9 * r);
            int rr = r;
            assertThat(round).allMatch(j -> j.round() == rr);
            assertThat(round.stream().map(j -> j.taskId() + "/" + j.arm()).distinct()).hasSize(9);
            // a task's arms run back to back: the task changes once per round
            long switches = IntStream.range(1, round.size())
                    .filter(i -> !round.get(i).taskId().equals(round.get(i - 1).taskId())).count();
            assertThat(switches).isEqualTo(1);
            round.forEach(j -> ids.add(j.jobId()));
        }
        assertThat(ids).hasSize(27);
        for (int i = 0; i < p.jobs().size(); i++) {
            assertThat(p.jobs().get(i).index()).isEqualTo(i);
        }
        // the stored order says the same as the jobs
        assertThat(p.order()).hasSize(6);
        List<String> fromOrder = p.order().stream().flatMap(e -> e.arms().stream().map(a -> e.taskId() + "/" + a
                + "/r" + e.round())).toList();
        assertThat(fromOrder).isEqualTo(order(p).subList(checks, p.jobs().size()));
        Job serve = p.jobs().stream().filter(j -> j.taskId().equals("serve") && j.kind() == Job.Kind.MEASURE)
                .findFirst().orElseThrow();
        assertThat(serve.argv()).contains("{port}").contains("--dtype");
        assertThat(serve.client().argv()).contains("--num-prompts", "8");
        assertThat(serve.warmupRequests()).isEqualTo(2);
        assertThat(serve.limits().serverStartS()).isEqualTo(20);
        Job lat = p.jobs().stream().filter(j -> j.taskId().equals("lat") && j.kind() == Job.Kind.MEASURE)
                .findFirst().orElseThrow();
        assertThat(lat.argv()).startsWith("python3", "benchmarks/benchmark_latency.py");
        assertThat(lat.env()).containsEntry("HF_HUB_OFFLINE", "1");
        assertThat(lat.cwd()).isEqualTo(dir.resolve("work").resolve("envs").resolve("lat").resolve("baseline")
                .getParent().resolve(lat.arm().label().replace("agent:", "")));
        assertThat(p.arm("lat", Arm.BASELINE).orElseThrow().commitRef()).isEqualTo("task-lat^");
        assertThat(p.arm("serve", Arm.agent("a1")).orElseThrow().commitRef()).isEqualTo("base");
        assertThat(p.toText()).contains("A/A arm on").contains("order (per round:").contains("  round 1: ");
        assertThat(p.toJson()).contains("\"order\"").contains("\"aa\" : true").contains("SplittableRandom");
    }

    @Test
    void theAaArmCanBeTurnedOff() throws Exception {
        Plan p = Planner.plan(suite(""), new Planner.Options(null, null, dir.resolve("work"), false));
        assertThat(p.aa()).isFalse();
        assertThat(p.arms()).noneMatch(a -> a.arm().equals(Arm.BASELINE_AA));
        assertThat(p.measuredJobs()).isEqualTo(21);
        // the repeat check still calibrates the correctness tolerance
        assertThat(p.jobs()).filteredOn(Job::repeatCheck).hasSize(2);
        assertThat(p.toText()).contains("A/A arm off");
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
        // consecutive rounds do not repeat one order (the old per-round Random(seed + r) nearly always did)
        List<List<String>> rounds = new ArrayList<>();
        for (int r = 0; r < 5; r++) {
            int rr = r;
            rounds.add(a.order().stream().filter(e -> e.round() == rr)
                    .map(e -> e.taskId() + ":" + e.arms()).toList());
        }
        assertThat(new HashSet<>(rounds)).hasSizeGreaterThan(1);
    }

    @Test
    void everyArmTakesEveryPositionAboutEquallyOften_evenOverConsecutiveSeeds() {
        for (int k : new int[] {2, 3, 4, 6, 8}) {
            long[][] count = new long[k][k];
            int rounds = 0;
            for (long seed = 0; seed < 2_000; seed++) {
                for (List<int[]> round : RoundOrder.of(seed, 5, new int[] {k})) {
                    for (int pos = 0; pos < k; pos++) {
                        count[round.get(pos)[1]][pos]++;
                    }
                    rounds++;
                }
            }
            for (int arm = 0; arm < k; arm++) {
                for (int pos = 0; pos < k; pos++) {
                    assertThat(Math.abs((double) count[arm][pos] / rounds - 1.0 / k)).as("k=%d arm %d pos %d", k,
                            arm, pos).isLessThan(0.02);
                }
            }
        }
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

    /** The arms {@code run --attempts-of} plans carry the stored attempt they measure, into the plan's JSON. */
    @Test
    void anAttemptArmCarriesItsStoredAttempt() throws Exception {
        Suite s = suite("");
        List<AgentSpec> agents = new ArrayList<>(s.agents());
        agents.add(new AgentSpec("a1@2", null, Map.of("serve", dir.resolve("a.patch")), null,
                Map.of("serve", "agents-1/serve/a1@2")));
        Plan p = Planner.plan(s.withAgents(agents), new Planner.Options(2, null, dir));
        assertThat(p.arm("serve", Arm.agent("a1@2")).orElseThrow().attemptRun()).isEqualTo("agents-1/serve/a1@2");
        assertThat(p.arm("serve", Arm.agent("a1")).orElseThrow().attemptRun()).as("a patch the suite names").isNull();
        assertThat(p.arm("serve", Arm.BASELINE).orElseThrow().attemptRun()).isNull();
        JsonNode arms = new ObjectMapper().readTree(p.toJson()).path("arms");
        List<String> keyed = new ArrayList<>();
        arms.forEach(a -> {
            if (a.has("attempt_run")) {
                keyed.add(a.path("arm").asText() + " " + a.path("attempt_run").asText());
            }
        });
        assertThat(keyed).containsExactly("agent:a1@2 agents-1/serve/a1@2");
    }

    private static List<String> order(Plan p) {
        List<String> out = new ArrayList<>();
        p.jobs().forEach(j -> out.add(j.jobId()));
        return out;
    }

    @Test
    void accuracyRunsAreJobsOfThePlanAfterTheRoundsEveryBaselineFirst() throws Exception {
        Suite s = suite(String.join("\n",
                "  - id: acc",
                "    human_commit: task-acc",
                "    mode: latency",
                "    model: toy-1m",
                "    timeout_s: 90",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m --num-iters 5",
                "    accuracy:",
                "      command: [python3, \"{suite_dir}/eval.py\", --model, \"{model}\"]",
                "      score_regex: 'acc=([0-9.]+)'",
                "      timeout_s: 30",
                "  - id: acc2",
                "    human_commit: task-acc2",
                "    mode: serving",
                "    model: toy-1m",
                "    perf_command: vllm bench serve --model toy-1m --num-prompts 8",
                "    accuracy:",
                "      command: [python3, eval2.py]",
                "      json_path: score"));
        Plan p = Planner.plan(s, new Planner.Options(2, null, dir.resolve("work"), true));
        List<Job> acc = p.jobs().stream().filter(j -> j.kind() == Job.Kind.ACCURACY).toList();
        // one per arm but the A/A arm, after every measured round, the baselines first
        assertThat(acc.stream().map(Job::jobId)).containsExactly("acc/baseline/accuracy", "acc2/baseline/accuracy",
                "acc/human/accuracy", "acc2/human/accuracy");
        assertThat(p.jobs().subList(p.jobs().size() - acc.size(), p.jobs().size())).isEqualTo(acc);
        assertThat(acc).allMatch(j -> j.role() == JobRole.ACCURACY);
        Job first = acc.get(0);
        JobSpec.Accuracy spec = (JobSpec.Accuracy) first.spec();
        String suiteDir = dir.toAbsolutePath().normalize().toString();
        assertThat(first.argv()).containsExactly("python3", suiteDir + "/eval.py", "--model", "toy-1m");
        assertThat(spec.settings().scoreRegex()).isEqualTo("acc=([0-9.]+)");
        assertThat(spec.suiteDir()).isEqualTo(suiteDir);
        assertThat(first.limits().runS()).isEqualTo(30);
        assertThat(first.cwd()).isEqualTo(p.arm("acc", Arm.BASELINE).orElseThrow().worktree());
        // a serving task's accuracy command is a plain command, within the benchmark's limit when it sets none
        Job serving = acc.get(1);
        assertThat(serving.serving()).isFalse();
        assertThat(serving.limits().runS()).isEqualTo(60);
        assertThat(p.measuredJobs()).isEqualTo(2L * (5 + 4 + 3 + 3));
        assertThat(p.toText()).contains("acc/baseline/accuracy").contains("accuracy {score=regex acc=([0-9.]+)");
        assertThat(p.toJson()).contains("\"kind\" : \"accuracy\"").contains("\"score\" : \"json_path score\"");
    }
}
