package io.isobench.analysis;

import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A load sweep from stored runs to curves, capacities and the verdict on capacity (docs/statistics.md, "Load sweeps
 * and capacity"): constructed runs of a real store, each with its {@code sweep} details as the session writes them.
 */
class SweepAnalysisTest {

    @TempDir
    Path dir;

    private final SweepRuns runs = new SweepRuns();
    private static final String S = SweepRuns.S;
    private static final String WORK = SweepRuns.WORK;

    private RunRecord run(String arm, int round, int point, int good, int failed, String workload) throws Exception {
        return runs.run(arm, round, point, good, failed, workload);
    }

    private void arm(Store store, String arm, int round, int cap) throws Exception {
        runs.arm(store, arm, round, cap);
    }

    @Test
    void capacityPerArmAndTheVerdictOnCapacity() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            runs.session(store); // baseline 2 req/s, human 4, agent:lo below the lowest point, agent:hi every point
            SessionAnalysis a = SessionAnalysis.of(store, S, StatsConfig.defaults());
            SessionAnalysis.TaskResult t = a.tasks().get(0);
            SweepAnalysis sw = t.sweep();
            assertThat(sw).isNotNull();
            assertThat(sw.axis().points()).containsExactly(1.0, 2.0, 4.0, 8.0);
            assertThat(sw.axis().unit()).isEqualTo("req/s");
            assertThat(sw.capacity().get("baseline").value().median()).isEqualTo(2.0);
            assertThat(sw.capacity().get("human").value().median()).isEqualTo(4.0);
            assertThat(sw.capacityText("human")).isEqualTo("4 req/s");
            assertThat(sw.capacity().get("agent:lo").belowLowest()).isEqualTo(6);
            assertThat(sw.capacityText("agent:lo")).isEqualTo("< 1 req/s (lowest point not met)");
            assertThat(sw.capacity().get("agent:hi").atHighest()).isEqualTo(6);
            assertThat(sw.capacityText("agent:hi")).isEqualTo("≥ 8 req/s (highest point met)");
            // the task's verdict is the verdict on capacity, like any metric's
            assertThat(t.analysis()).isSameAs(sw.verdicts());
            assertThat(t.analysis().metric()).isEqualTo("capacity_request_rate_rps");
            assertThat(t.unit()).isEqualTo("req/s");
            assertThat(t.analysis().humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
            assertThat(t.analysis().humanVsBaseline().speedup()).isCloseTo(2.0, org.assertj.core.data.Offset.offset(1e-9));
            AgentOutcome lo = t.analysis().agents().stream().filter(o -> o.agent().contains("lo")).findFirst()
                    .orElseThrow();
            assertThat(lo.vsBaseline().verdict()).isEqualTo(Verdict.WORSE);
            // the curve: per point the median over rounds with its CI; the baseline's good fraction falls at 4 req/s
            SweepAnalysis.PointStats b4 = sw.curves().get("baseline").get(2);
            assertThat(b4.load()).isEqualTo(4.0);
            assertThat(b4.runs()).isEqualTo(6);
            assertThat(b4.met()).isZero();
            assertThat(b4.metrics().get("good_fraction").median()).isEqualTo(0.5);
            assertThat(b4.metrics().get("ttft_ms_p99").low()).isLessThanOrEqualTo(b4.metrics().get("ttft_ms_p99").median());
            assertThat(sw.curves().get("human").get(2).met()).isEqualTo(6);
        }
    }

    @Test
    void lostRequestsMissThePointAndAnIncomparableRunGivesNoSample() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            for (int r = 0; r < 5; r++) {
                arm(store, "baseline", r, 1);
                if (r == 0) {
                    // round 0: the human loses requests at 2 req/s (a failure outcome and an exclusion): not met
                    store.putRun(run("human", r, 0, 20, 0, WORK));
                    store.putRun(run("human", r, 1, 18, 2, WORK));
                    store.putRun(run("human", r, 2, 20, 0, WORK));
                    store.putRun(run("human", r, 3, 10, 0, WORK));
                } else if (r == 1) {
                    // round 1: the human did other work at 4 req/s: not comparable, the round has no capacity sample
                    arm(store, "human", r, 2);
                    store.putRun(run("human", r, 2, 20, 0, WORK.replace("2560", "2000")));
                } else {
                    arm(store, "human", r, 2);
                }
            }
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, S, StatsConfig.defaults()).tasks().get(0);
            SweepAnalysis.Capacity h = t.sweep().capacity().get("human");
            assertThat(h.perRound()).containsEntry(0, 1.0).doesNotContainKey(1).containsEntry(2, 4.0);
            assertThat(t.analysis().exclusions()).extracting(RoundExclusion::oneLine).anyMatch(l -> l.contains(
                    "round 1, human: requests_failed (request_rate=2")).anyMatch(l -> l.contains(
                    "round 2, human: workload_mismatch (request_rate=4: output_tokens 2000 vs 2560)"));
        }
    }
}
