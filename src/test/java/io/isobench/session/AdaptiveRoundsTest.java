package io.isobench.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.analysis.SequentialDesign;
import io.isobench.parse.Metric;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adaptive rounds in a session, as a resumed session meets them (docs/statistics.md §20): an earlier attempt stored
 * three rounds of two tasks; the looks are replayed over the stored runs with the session's stored design, so the task
 * whose verdicts are decided runs no later round, and the other one goes on round by round until it is decided.
 */
class AdaptiveRoundsTest {

    @TempDir
    Path dir;

    private static final String S = "s-adaptive";
    private static final List<String> ARMS = List.of("baseline", "baseline-aa", "human");
    private int index;

    @Test
    void aResumedSessionStopsTheSameTasksAndRunsOnlyTheUndecidedOnes() throws Exception {
        SequentialDesign design = SequentialDesign.defaultAdaptive();
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            Map<String, Object> stats = new LinkedHashMap<>();
            stats.put(SequentialDesign.KEY, design.toMap(0.95));
            store.putSession(SessionRecord.builder(S).time(Instant.now(), null).statsConfigJson(
                    new ObjectMapper().writeValueAsString(stats)).seed(1L).status("running").build());
            // rounds 1-3 stored by an earlier attempt: "clear" is 2x faster (decided at the first look), "close" is
            // within the noise (undecided)
            double[] noise = {1.003, 0.996, 1.001, 0.998, 1.004, 0.997, 1.002, 0.999};
            for (int r = 0; r < 3; r++) {
                for (String arm : ARMS) {
                    store.putRun(run("clear", arm, r, 100 * noise[(r + arm.length()) % 8] / (arm.equals("human") ? 2
                            : 1)));
                    store.putRun(run("close", arm, r, 100 * noise[(r + 3 * arm.length()) % 8]
                            * (arm.equals("human") ? 0.99 : 1)));
                }
            }
            // the jobs still to run: rounds 4-8 of both tasks
            List<Job> todo = new ArrayList<>();
            for (int r = 3; r < 8; r++) {
                for (String task : List.of("clear", "close")) {
                    for (String arm : ARMS) {
                        todo.add(job(task, arm, r));
                    }
                }
            }
            List<String> ran = new ArrayList<>();
            List<String> stops = new ArrayList<>();
            AdaptiveRounds rounds = new AdaptiveRounds(store, S, design);
            rounds.run(todo, batch -> {
                for (Job j : batch) {
                    ran.add(j.taskId() + "/r" + j.round());
                    // what the executor would have stored: "close" stays within the noise
                    try {
                        store.putRun(run(j.taskId(), j.arm().label(), j.round(), 100 * noise[(j.round()
                                + 3 * j.arm().label().length()) % 8] * (j.arm().label().equals("human") ? 0.99 : 1)));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, (stop, skipped) -> stops.add(stop.taskId() + " after " + stop.stopping().lookRounds() + ", "
                    + skipped + " skipped"));
            assertThat(ran).noneMatch(s -> s.startsWith("clear/"));
            assertThat(stops.get(0)).isEqualTo("clear after 3, 15 skipped");
            assertThat(ran).contains("close/r3");
            assertThat(rounds.stops()).extracting(AdaptiveRounds.Stop::taskId).startsWith("clear");
        }
    }

    private Job job(String task, String arm, int round) {
        return new Job(new Job.Place(index++, task + "/" + arm + "/r" + round, task, round), Arm.fromLabel(arm),
                Mode.LATENCY, new JobSpec.Measure(Command.template(List.of("true")), ClientConfig.NONE, 0, null),
                new Job.Where(Path.of("."), Map.of(), 0), Job.Limits.ofSeconds(10, 10));
    }

    private RunRecord run(String task, String arm, int round, double value) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", task);
        x.put("job", task + "/" + arm + "/r" + round);
        x.put("job_index", index++);
        x.put("hardware_id", "hw-a");
        return RunRecord.builder(S + "/" + task + "/" + arm + "/r" + round)
                .session(S)
                .kind(RunRecord.RunKind.MEASURED)
                .commit("c0ffee00", "c0ffee00")
                .armLabel(arm)
                .round(round)
                .status(RunRecord.RunStatus.SUCCESS)
                .modeLabel("latency")
                .pipelineLabel("native")
                .primary("latency_ms_avg", value, "measured")
                .workload("{\"argv\":[\"x\"]}")
                .startedAt(Instant.now())
                .durationMs(1000.0)
                .argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(x))
                .metrics(List.of(Metric.of("latency_ms_avg", value)))
                .build();
    }
}
