package io.isobench.plan;

import io.isobench.IsobenchException;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.Sweep;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A task's {@code sweep:} from the suite file to the plan: every (arm, point) in every round, interleaved. */
class SweepPlanTest {

    @TempDir
    Path dir;

    private static final String SERVE = "vllm bench serve --model toy-1m --num-prompts 8 --request-rate 2"
            + " --goodput ttft:500 tpot:50";

    private Path write(String sweep, String perf) throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Files.writeString(dir.resolve("a.patch"), "");
        Path f = dir.resolve("s.yaml");
        Files.writeString(f, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: serve",
                "    human_commit: task-serve",
                "    parent_commit: base",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model} {server_flags}",
                "    perf_command: " + perf,
                "    sweep: " + sweep,
                "  - id: plain",
                "    human_commit: task-plain",
                "    parent_commit: base",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model} {server_flags}",
                "    perf_command: vllm bench serve --model toy-1m --num-prompts 8",
                "agents:",
                "  - name: a1",
                "    patches: {serve: a.patch}",
                "run: {rounds: 4, seed: 11, aa: false}",
                ""));
        return f;
    }

    private Suite suite(String sweep) throws Exception {
        return SuiteLoader.load(write(sweep, SERVE));
    }

    @Test
    void theSuiteReadsRequestRateConcurrencyAndAuto() throws Exception {
        Sweep rate = suite("{request_rate: [1, 2.5, 8], min_good_fraction: 0.95}").task("serve").orElseThrow().sweep();
        assertThat(rate.kind()).isEqualTo(Sweep.Kind.REQUEST_RATE);
        assertThat(rate.points()).containsExactly(1.0, 2.5, 8.0);
        assertThat(rate.minGoodFraction()).isEqualTo(0.95);
        Sweep conc = suite("{max_concurrency: [1, 4, 16]}").task("serve").orElseThrow().sweep();
        assertThat(conc.kind()).isEqualTo(Sweep.Kind.MAX_CONCURRENCY);
        assertThat(conc.minGoodFraction()).isEqualTo(Sweep.DEFAULT_MIN_GOOD_FRACTION);
        assertThat(suite("auto").task("serve").orElseThrow().sweep().kind()).isEqualTo(Sweep.Kind.AUTO);
        assertThat(suite("{request_rate: [1]}").task("plain").orElseThrow().sweep()).isNull();
    }

    @Test
    void badSweepsAreSuiteProblemsWithAFix() throws Exception {
        assertThatThrownBy(() -> suite("{request_rate: [4, 2]}")).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageContaining("tasks[0].sweep.request_rate[1]").hasMessageContaining("strictly ascending");
        assertThatThrownBy(() -> suite("{request_rate: [1], max_concurrency: [2]}"))
                .hasMessageContaining("has both request_rate and max_concurrency");
        assertThatThrownBy(() -> suite("{max_concurrency: [1.5]}")).hasMessageContaining("not an integer");
        assertThatThrownBy(() -> suite("{request_rate: []}")).hasMessageContaining("non-empty list");
        assertThatThrownBy(() -> suite("sometimes")).hasMessageContaining("is not a sweep");
        assertThatThrownBy(() -> suite("{request_rat: [1]}")).hasMessageContaining("request_rat");
        assertThatThrownBy(() -> SuiteLoader.load(write("{request_rate: [1, 2]}",
                "vllm bench serve --model toy-1m --num-prompts 8")))
                .hasMessageContaining("needs SLO targets").hasMessageContaining("--goodput");
        assertThatThrownBy(() -> SuiteLoader.load(write("{request_rate: [1, 2]}",
                "python3 benchmarks/benchmark_latency.py --model toy-1m")))
                .hasMessageContaining("needs a serving task");
    }

    @Test
    void everyArmAtEveryPointInEveryRoundWithThePointsFlag() throws Exception {
        Plan p = Planner.plan(suite("{request_rate: [1, 2, 4]}"), new Planner.Options(null, null, dir.resolve("w")));
        List<Job> serve = p.jobs().stream().filter(j -> j.kind() == Job.Kind.MEASURE && j.taskId().equals("serve"))
                .toList();
        // baseline, human, a1 × 3 points × 4 rounds
        assertThat(serve).hasSize(3 * 3 * 4);
        for (int r = 0; r < 4; r++) {
            int round = r;
            Set<String> slots = new HashSet<>();
            serve.stream().filter(j -> j.round() == round).forEach(j -> slots.add(j.arm().label() + "@"
                    + j.sweepPoint().name()));
            assertThat(slots).as("round %d holds every (arm, point) once", r).hasSize(9);
        }
        Job one = serve.stream().filter(j -> j.sweepPoint().index() == 2).findFirst().orElseThrow();
        // the point's flag replaces the command's --request-rate 2; the SLO targets stay
        assertThat(one.client().argv()).containsSubsequence("--goodput", "ttft:500", "tpot:50");
        assertThat(String.join(" ", one.client().argv())).endsWith("--request-rate 4").doesNotContain("--request-rate 2");
        assertThat(one.jobId()).matches("serve/[a-z0-9:]+/r\\d/request_rate=4");
        assertThat(p.jobs().stream().map(Job::jobId).distinct().count()).isEqualTo(p.jobs().size());
        // a task without a sweep keeps one job per arm and round, no point
        assertThat(p.jobs().stream().filter(j -> j.taskId().equals("plain") && j.kind() == Job.Kind.MEASURE))
                .hasSize(2 * 4).allMatch(j -> j.sweepPoint() == null);
        // the dry run shows the points
        String text = p.toText();
        assertThat(text).contains("baseline@request_rate=1", "human@request_rate=4", "--request-rate 4");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(p.toMap()))
                .contains("\"sweep_point\":{\"request_rate\":4.0,\"index\":2}");
    }

    @Test
    void theSlotsAreInterleavedInARandomOrderThatDiffersBetweenRounds() throws Exception {
        Plan p = Planner.plan(suite("{max_concurrency: [1, 4, 16]}"), new Planner.Options(8, 3L, dir.resolve("w")));
        Map<Integer, List<String>> order = new TreeMap<>();
        for (Plan.RoundEntry e : p.order()) {
            if (e.taskId().equals("serve")) {
                order.computeIfAbsent(e.round(), k -> new ArrayList<>()).addAll(e.arms());
            }
        }
        assertThat(order).hasSize(8);
        assertThat(new HashSet<>(order.values())).as("not the same order every round").hasSizeGreaterThan(1);
        // points are not run in ascending blocks: some round has a higher point of one arm before a lower one
        boolean mixed = order.values().stream().anyMatch(l -> l.indexOf("baseline@max_concurrency=16")
                < l.indexOf("baseline@max_concurrency=1"));
        assertThat(mixed).isTrue();
        // the same seed gives the same plan
        Plan again = Planner.plan(suite("{max_concurrency: [1, 4, 16]}"), new Planner.Options(8, 3L, dir.resolve("w")));
        assertThat(again.order()).isEqualTo(p.order());
    }

    @Test
    void theSweepDemoSuitePlansEveryArmAtEveryPoint() {
        Suite demo = SuiteLoader.load(Path.of("examples/toy-engine/sweep-suite.yaml"), false);
        Plan p = Planner.plan(demo, new Planner.Options(null, null, dir.resolve("w")));
        // baseline, its repeat and the human's checks; adaptive rounds: up to 8 rounds × 2 arms × 3 concurrency limits
        assertThat(p.header().roundsPlan().adaptive()).isTrue();
        assertThat(p.jobs().stream().filter(j -> j.kind() == Job.Kind.CHECK)).hasSize(3);
        assertThat(p.jobs().stream().filter(j -> j.kind() == Job.Kind.MEASURE)).hasSize(48)
                .allMatch(j -> j.client().argv().contains("--goodput") && j.sweepPoint() != null);
        assertThat(p.skipped()).isEmpty();
    }

    @Test
    void autoBeforeItsPilotsPlansThePilotJobAndNoRoundsAndSaysSoInTheDryRun() throws Exception {
        Plan p = Planner.plan(suite("{auto: true, start_rps: 2, max_pilots: 3}"),
                new Planner.Options(null, null, dir.resolve("w")));
        assertThat(p.skipped()).isEmpty();
        // the checks run as for any task; no measured round yet; one pilot template, the baseline's, at the start rate
        assertThat(p.jobs().stream().filter(j -> j.taskId().equals("serve"))).allMatch(j -> j.kind() == Job.Kind.CHECK)
                .isNotEmpty();
        assertThat(p.order()).noneMatch(e -> e.taskId().equals("serve"));
        assertThat(p.pilots()).singleElement().satisfies(j -> {
            assertThat(j.arm()).isEqualTo(io.isobench.Arm.BASELINE);
            assertThat(j.jobId()).isEqualTo("serve/baseline/pilot");
            assertThat(j.client().argv()).containsSubsequence("--request-rate", "2").contains("--goodput");
            assertThat(AutoSweep.isPilot(j)).isTrue();
            Job second = AutoSweep.pilotJob(j, 2, 4);
            assertThat(second.jobId()).isEqualTo("serve/baseline/pilot2/request_rate=4");
            assertThat(second.client().argv()).containsSubsequence("--request-rate", "4").doesNotContain("2");
            assertThat(AutoSweep.isPilot(second)).isTrue();
        });
        assertThat(p.toText()).contains("sweep auto serve: points decided by pilots against the baseline before round"
                + " 1: rule from 2 req/s, doubling until a pilot breaks (good fraction < 0.9, throughput growth < 10 %,"
                + " or achieved < 90 % of offered), then 2 geometric bisection(s), at most 3 pilot(s); points ="
                + " saturation × 0.5, 1, 2, 4");
        assertThat(p.toJson()).contains("\"sweep_pilots\"");
    }

    @Test
    void autoWithDecidedPointsIsPlannedLikeAListForEveryArm() throws Exception {
        Suite s = suite("auto");
        Plan listed = Planner.plan(suite("{request_rate: [1.42, 2.83, 5.66]}"), new Planner.Options(null, null,
                dir.resolve("w")));
        Plan decided = Planner.plan(s, new Planner.Options(null, null, dir.resolve("w"), null, null,
                Map.of("serve", List.of(1.42, 2.83, 5.66))));
        assertThat(decided.pilots()).isEmpty();
        assertThat(decided.jobs().stream().map(Job::jobId).toList())
                .isEqualTo(listed.jobs().stream().map(Job::jobId).toList());
        assertThat(decided.jobs().stream().map(Job::client).toList())
                .isEqualTo(listed.jobs().stream().map(Job::client).toList());
        // every arm (baseline, human, agent a1) at the same three points in every round
        Map<String, Set<String>> pointsByArm = new TreeMap<>();
        decided.jobs().stream().filter(j -> j.taskId().equals("serve") && j.kind() == Job.Kind.MEASURE)
                .forEach(j -> pointsByArm.computeIfAbsent(j.arm().label() + "/r" + j.round(), k -> new HashSet<>())
                        .add(j.sweepPoint().name()));
        assertThat(pointsByArm).hasSize(3 * 4).allSatisfy((k, v) -> assertThat(v)
                .containsExactlyInAnyOrder("request_rate=1.42", "request_rate=2.83", "request_rate=5.66"));
    }

    @Test
    void autoPilotKeysAreCheckedWithAFix() {
        assertThatThrownBy(() -> suite("{auto: false}")).hasMessageContaining("must be true");
        assertThatThrownBy(() -> suite("{auto: true, request_rate: [1]}")).hasMessageContaining("not both");
        assertThatThrownBy(() -> suite("{request_rate: [1], max_pilots: 3}")).hasMessageContaining("add auto: true");
        assertThatThrownBy(() -> suite("{auto: true, max_pilots: 0}")).hasMessageContaining("max_pilots");
    }
}
