package io.isobench.session;

import io.isobench.Arm;
import io.isobench.analysis.PilotTable;
import io.isobench.parse.Metric;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.plan.Planner;
import io.isobench.store.Pipeline;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * sweep: auto's pilot phase against a real store: the pilots stored as native-pilot runs, the points read back from
 * them (--resume never pilots again), a killed phase continued with only the missing pilots. The server is a named
 * simulation (the store and the rule are real; PilotSessionIT runs the real toy engine): it serves at most 5 req/s and
 * keeps the SLO up to 3 req/s.
 */
class PilotPhaseTest {

    @TempDir
    Path dir;

    private Plan plan() throws Exception {
        Files.createDirectories(dir.resolve("repo"));
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
                "    perf_command: vllm bench serve --model toy-1m --num-prompts 8 --goodput tpot:9",
                "    sweep: {auto: true, start_rps: 1, max_pilots: 6}",
                "run: {rounds: 2, seed: 3, aa: false}",
                ""));
        return Planner.plan(SuiteLoader.load(f), new Planner.Options(null, null, dir.resolve("w")));
    }

    /** Stores the pilot's run as the session's JobRunner would: pipeline, details section, the client's metrics. */
    private static Consumer<Job> simulated(Store store, String session, List<Double> ran) {
        return job -> {
            double rate = job.sweepPoint().value();
            ran.add(rate);
            double achieved = Math.min(rate, 5);
            double good = rate <= 3 ? 1.0 : 0.5;
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("task", job.taskId());
            extra.put("job", job.jobId());
            extra.put(PilotTable.DETAILS_KEY, PilotTable.detailsOf(job.sweepPoint().index() + 1, rate,
                    job.sweepPoint().sweep()));
            store.putRun(RunRecord.builder(RunRecorder.runId(session, job)).session(session)
                    .kind(RunRecord.RunKind.MEASURED).arm(Arm.BASELINE).pipeline(RunRecorder.pipelineOf(job))
                    .status(RunRecord.RunStatus.SUCCESS).details(RunDetails.of(extra))
                    .metrics(List.of(Metric.of("request_throughput_rps", achieved),
                            Metric.of("request_goodput_rps", achieved * good), Metric.of("completed_requests", 8),
                            Metric.of("failed_requests", 0))).build());
        };
    }

    @Test
    void thePilotsAreStoredAndTheirPointsReadBackWithoutPilotingAgain() throws Exception {
        Plan plan = plan();
        assertThat(plan.pilots()).hasSize(1);
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            List<Double> ran = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            assertThat(PilotPhase.decided(store, "s1", plan)).isEmpty();
            Map<String, List<Double>> points = PilotPhase.run(store, "s1", plan, t -> true, simulated(store, "s1", ran),
                    notes::add);
            // 1, 2 met; 4 broke the SLO; bisection 2.83 met, 3.36 broke: saturation 2.83
            assertThat(ran).containsExactly(1.0, 2.0, 4.0, 2.83, 3.36);
            assertThat(points).containsExactly(Map.entry("serve", List.of(1.42, 2.83, 5.66, 11.3)));
            assertThat(notes).containsExactly("sweep auto serve: points 1.42, 2.83, 5.66, 11.3 req/s, decided by its"
                    + " pilots against the baseline");
            List<RunRecord> stored = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, "s1", true), stored::add);
            assertThat(stored).hasSize(5).allMatch(r -> Pipeline.NATIVE_PILOT.equals(r.pipeline()));
            // --resume: the same points from the store, nothing run
            assertThat(PilotPhase.decided(store, "s1", plan)).isEqualTo(points);
            List<Double> again = new ArrayList<>();
            assertThat(PilotPhase.run(store, "s1", plan, t -> true, simulated(store, "s1", again), n -> { }))
                    .isEqualTo(points);
            assertThat(again).isEmpty();
            // the report's table from the same runs
            PilotTable table = PilotTable.of(stored).orElseThrow();
            assertThat(table.points()).isEqualTo(points.get("serve"));
            assertThat(table.saturationRps()).isEqualTo(2.83);
            assertThat(table.rows()).extracting(PilotTable.Row::sloMet).containsExactly(true, true, false, true, false);
            assertThat(table.rows().get(1).growth()).isEqualTo(1.0);
            assertThat(table.rows().get(0).growth()).isNull();
        }
    }

    @Test
    void aKilledPilotPhaseRunsOnlyTheMissingPilots() throws Exception {
        Plan plan = plan();
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            List<Double> first = new ArrayList<>();
            Consumer<Job> sim = simulated(store, "s2", first);
            // killed while its third pilot ran: two finished, the third only its placeholder
            assertThatThrownBy(() -> PilotPhase.run(store, "s2", plan, t -> true, job -> {
                if (first.size() == 2) {
                    store.putRun(RunRecord.builder(RunRecorder.runId("s2", job)).session("s2")
                            .kind(RunRecord.RunKind.MEASURED).arm(Arm.BASELINE).pipeline(Pipeline.NATIVE_PILOT)
                            .status(RunRecord.RunStatus.NOT_RUN).build());
                    throw new IllegalStateException("killed");
                }
                sim.accept(job);
            }, n -> { })).hasMessage("killed");
            assertThat(first).containsExactly(1.0, 2.0);
            // a resumed session reaps the killed pilot's container / cluster job by its job
            assertThat(PilotPhase.jobOf(plan, "s2", "s2/serve/baseline/pilot3/request_rate=4")).hasValueSatisfying(
                    j -> assertThat(j.client().argv()).containsSubsequence("--request-rate", "4"));
            assertThat(PilotPhase.jobOf(plan, "s2", "s2/serve/baseline/r0/request_rate=4")).isEmpty();
            assertThat(PilotPhase.decided(store, "s2", plan)).isEmpty();
            List<Double> second = new ArrayList<>();
            Map<String, List<Double>> points = PilotPhase.run(store, "s2", plan, t -> true,
                    simulated(store, "s2", second), n -> { });
            assertThat(second).containsExactly(4.0, 2.83, 3.36);
            assertThat(points.get("serve")).containsExactly(1.42, 2.83, 5.66, 11.3);
        }
    }

    @Test
    void aTaskWhoseBaselineIsNotReadyIsNotPiloted() throws Exception {
        Plan plan = plan();
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            List<Double> ran = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            assertThat(PilotPhase.run(store, "s3", plan, t -> false, simulated(store, "s3", ran), notes::add)).isEmpty();
            assertThat(ran).isEmpty();
            assertThat(notes).singleElement().asString().contains("not piloted");
        }
    }
}
