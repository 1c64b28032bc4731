package io.isobench.export;

import io.isobench.AdaptiveSessions;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.SweepRuns;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reading columns of the HF export ({@link ReadingColumns}, docs/hf-export.md) on both export paths: a session with
 * adaptive rounds ({@link AdaptiveSessions}: the rounds run, the look read, the design's maximum, why each task
 * stopped, the level of the repeated CI) and a sweep's capacity ({@link SweepRuns}: ordinal, so no interval — the CI
 * columns are null, never a zero-width interval — the sign test and its grid).
 */
class HfReadingColumnsTest {

    static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

    @TempDir
    Path dir;

    @Test
    void adaptiveRowsSayTheirRoundsWhyTheyStoppedAndTheLevelOfTheirInterval() throws Exception {
        try (Store store = TestStores.open(dir, "a")) {
            AdaptiveSessions.session(store, T0);
            SessionAnalysis a = SessionAnalysis.of(store, AdaptiveSessions.SESSION, StatsConfig.defaults());
            for (boolean sql : new boolean[] {true, false}) {
                Path out = dir.resolve("out-" + sql);
                HfExporter.export(store, out, sql);
                Map<String, Map<String, Object>> rows = new HashMap<>();
                for (Map<String, Object> r : HfSessionRowsTest.read(out.resolve(HfExporter.PARQUET))) {
                    rows.put((String) r.get("isobench_task_id"), r);
                }
                assertThat(rows).as("sql=%s", sql).containsOnlyKeys("fast", "same", "noisy", "long", "unstable");
                Object[][] expected = {{"fast", 3, 3, "decided"}, {"same", 3, 3, "decided"}, {"noisy", 5, 5, "futile"},
                    {"long", 8, 8, "max_rounds"}, {"unstable", 3, 3, "decided"}};
                for (Object[] e : expected) {
                    Map<String, Object> row = rows.get((String) e[0]);
                    TaskAnalysis ta = task(a, (String) e[0]);
                    AgentOutcome o = ta.agent("agent:x").orElseThrow();
                    assertThat(row).as("%s sql=%s", e[0], sql).containsEntry("isobench_rounds_run", e[1])
                            .containsEntry("isobench_look_rounds", e[2]).containsEntry("isobench_max_rounds", 8)
                            .containsEntry("isobench_stop_reason", e[3])
                            .containsEntry("isobench_ci_method", ReadingColumns.PAIRED_T)
                            .containsEntry("isobench_ci_level", ta.humanVsBaseline().read().ciConfidence())
                            .containsEntry("isobench_margin_pct", ta.humanVsBaseline().marginPct())
                            .containsEntry("isobench_sweep_grid", null)
                            .containsEntry("isobench_agent_ci_low", o.vsBaseline().ciLowSpeedup())
                            .containsEntry("isobench_agent_verdict", o.vsBaseline().verdict().label());
                }
                // a repeated CI at the first look is wider than 95 %, at the last look narrower than the first
                assertThat((Double) rows.get("fast").get("isobench_ci_level")).isGreaterThan(0.998);
                assertThat((Double) rows.get("long").get("isobench_ci_level")).isBetween(0.96, 0.98);
                assertThat(rows.get("same")).containsEntry("isobench_agent_verdict", "equivalent");
                assertThat(rows.get("noisy")).containsEntry("isobench_agent_inconclusive_reason", "futile");
                // the A/A check: unstable, every verdict of the task inconclusive
                assertThat(rows.get("unstable")).containsEntry("isobench_aa_verdict", "worse")
                        .containsEntry("isobench_human_verdict", "inconclusive")
                        .containsEntry("isobench_human_inconclusive_reason", "A/A unstable")
                        .containsEntry("isobench_agent_inconclusive_reason", "A/A unstable")
                        .containsEntry("isobench_agent_vs_human_inconclusive_reason", "A/A unstable");
            }
        }
    }

    @Test
    void capacityRowsHaveNoIntervalButTheSignTestAndItsGrid() throws Exception {
        try (Store store = TestStores.open(dir, "s")) {
            store.putSession(SessionRecord.builder(SweepRuns.S).time(T0, T0.plusSeconds(600))
                    .machine("host", "2 cpu", "none", "{}").seed(3L).status("complete").build());
            new SweepRuns().session(store);
            for (boolean sql : new boolean[] {true, false}) {
                Path out = dir.resolve("out-" + sql);
                HfExporter.export(store, out, sql);
                List<Map<String, Object>> rows = HfSessionRowsTest.read(out.resolve(HfExporter.PARQUET));
                assertThat(rows).as("sql=%s", sql).extracting(r -> r.get("isobench_agent")).containsExactly("hi", "lo");
                for (Map<String, Object> row : rows) {
                    assertThat(row).as("%s sql=%s", row.get("isobench_agent"), sql)
                            .containsEntry("isobench_ci_method", ReadingColumns.SIGN_TEST)
                            .containsEntry("isobench_ci_level", null)
                            .containsEntry("isobench_sweep_grid", "1,2,4,8")
                            .containsEntry("isobench_stop_reason", "fixed").containsEntry("isobench_rounds_run", 6)
                            .containsEntry("isobench_primary_metric", "capacity_request_rate_rps");
                    for (String cmp : List.of("human", "agent", "agent_vs_human")) {
                        assertThat(row).containsEntry("isobench_" + cmp + "_ci_low", null)
                                .containsEntry("isobench_" + cmp + "_ci_high", null);
                    }
                }
                // decided all the same: the human's capacity is one grid step above the baseline's in every round
                assertThat(rows.get(0)).containsEntry("isobench_human_verdict", "better")
                        .containsEntry("isobench_agent_verdict", "better");
                assertThat(rows.get(1)).containsEntry("isobench_agent_verdict", "worse");
            }
        }
    }

    private static TaskAnalysis task(SessionAnalysis a, String id) {
        return a.tasks().stream().filter(t -> t.taskId().equals(id)).findFirst().orElseThrow().analysis();
    }
}
