package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run whose load generator was saturated (its {@code client_check} section) is excluded from every comparison as
 * {@code client_saturated}, with the client's reasons (docs/statistics.md, "Which rounds count"); the others count;
 * too few rounds left by such exclusions make the verdict {@code inconclusive: client saturated}, open at an interim
 * look so an adaptive design runs more rounds.
 */
class ClientSaturatedRoundsTest {

    @TempDir
    Path dir;

    private static final String S = "s1";
    private static final String WORK = "{\"requests\":8,\"input_tokens\":256,\"output_tokens\":1024,\"seed\":0}";
    private static final String REASON = "event-loop lag p99 38.2 ms > 10 ms";
    private static final double[] WIGGLE = {0.001, -0.002, 0.0015, 0.0, -0.001};

    private int job;

    /** A measured serving run; {@code saturated} null: no client_check section (an older store). */
    private RunRecord run(String arm, int round, double tpot, Boolean saturated) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("job", "tpot/" + arm + "/r" + round);
        x.put("job_index", job++);
        x.put("hardware_id", "hw-a");
        if (saturated != null) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("saturated", saturated);
            c.put("reasons", saturated ? List.of(REASON, "client CPU 99 % > 90 %") : List.of());
            c.put("cpu_busy_pct", saturated ? 99.0 : 12.0);
            c.put("loop_lag_ms_p99", saturated ? 38.2 : 0.4);
            c.put("loop_lag_ms_max", saturated ? 51.0 : 1.1);
            c.put("send_lag_ms_p99", null);
            x.put("client_check", c);
        }
        return ServingRuns.measured(S + "/" + x.get("job"), S, arm, round, tpot, WORK, x,
                List.of(Metric.of("tpot_ms_mean", tpot), Metric.of("failed_requests", 0)));
    }

    /** Three arms over {@code rounds} rounds; the (arm, round) pairs in {@code saturated} had a saturated client. */
    private TaskAnalysis analyse(Store store, int rounds, Set<String> saturated) throws Exception {
        for (int r = 0; r < rounds; r++) {
            double base = 100 * (1 + WIGGLE[r % WIGGLE.length]);
            for (String arm : List.of("baseline", "human", "agent:x")) {
                double v = arm.equals("baseline") ? base : arm.equals("human") ? base / 1.2 : base / 1.1;
                Boolean sat = saturated.contains(arm + "@" + r) ? Boolean.TRUE : r == 0 ? null : Boolean.FALSE;
                store.putRun(run(arm, r, v, sat));
            }
        }
        return SessionAnalysis.of(store, S, StatsConfig.defaults()).tasks().get(0).analysis();
    }

    @Test
    void aSaturatedRunIsExcludedWithItsReasonsAndTheOthersCount() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            TaskAnalysis a = analyse(store, 5, Set.of("human@2"));
            assertThat(a.exclusions()).extracting(RoundExclusion::oneLine).containsExactly(
                    "round 3, human: client_saturated (" + REASON + "; client CPU 99 % > 90 %)");
            assertThat(a.exclusions().get(0).cause()).isEqualTo(RoundExclusion.Cause.CLIENT_SATURATED);
            // the human keeps 4 pairs (still a verdict); the agent and the baseline keep all 5 rounds
            assertThat(a.humanVsBaseline().pairs()).isEqualTo(4);
            assertThat(a.humanVsBaseline().roundsExcluded()).isEqualTo(1);
            assertThat(a.humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
            Comparison ab = a.agent("agent:x").orElseThrow().vsBaseline();
            assertThat(ab.pairs()).isEqualTo(5);
            assertThat(ab.roundsExcluded()).isZero();
            assertThat(a.toMap().get("exclusions").toString()).contains("cause=client_saturated");
        }
    }

    @Test
    void runsWhoseClientWasNotSaturatedOrNotCheckedAllCount() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            TaskAnalysis a = analyse(store, 5, Set.of()); // round 1 without a section, the others not saturated
            assertThat(a.exclusions()).isEmpty();
            assertThat(a.humanVsBaseline().pairs()).isEqualTo(5);
        }
    }

    @Test
    void tooFewRoundsLeftBySaturatedClientsSaySo() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            TaskAnalysis a = analyse(store, 3, Set.of("human@1", "human@2"));
            Comparison c = a.humanVsBaseline();
            assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
            assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.CLIENT_SATURATED);
            assertThat(c.reason()).isEqualTo("1 valid paired round (< 3): 2 round(s) excluded, 2 of them because the"
                    + " load generator was saturated (client_saturated: the client, not the server, set the numbers)");
            assertThat(c.verdictShown()).contains("client saturated");
            // the agent's rounds were not touched: too few rounds, as before
            assertThat(a.agent("agent:x").orElseThrow().vsBaseline().inconclusiveReason())
                    .isEqualTo(InconclusiveReason.TOO_FEW_ROUNDS);
        }
    }

    @Test
    void everyRunSaturatedLeavesNoVerdictButClientSaturated() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            TaskAnalysis a = analyse(store, 2, Set.of("baseline@0", "baseline@1", "human@0", "human@1",
                    "agent:x@0", "agent:x@1"));
            assertThat(a.exclusions()).hasSize(6).allMatch(e -> e.cause() == RoundExclusion.Cause.CLIENT_SATURATED);
            for (Comparison c : List.of(a.humanVsBaseline(), a.agent("agent:x").orElseThrow().vsBaseline(),
                    a.agent("agent:x").orElseThrow().vsHuman())) {
                assertThat(c.verdict()).isEqualTo(Verdict.INCONCLUSIVE); // not "failed": the runs ran
                assertThat(c.inconclusiveReason()).isEqualTo(InconclusiveReason.CLIENT_SATURATED);
                assertThat(c.reason()).contains("has no valid runs: 2 round(s) excluded because its load generator"
                        + " was saturated");
            }
        }
    }

    @Test
    void aClientSaturatedComparisonStaysOpenAtAnInterimLook() {
        // an adaptive design's look after 3 of up to 8 rounds: 2 of 3 rounds excluded for a saturated client
        SequentialDesign d = SequentialDesign.adaptive(3, 8, SequentialDesign.Spending.OBRIEN_FLEMING);
        ArmSamples base = ArmSamples.of(Arm.BASELINE, 100, 101, 99);
        ArmSamples hum = ArmSamples.ofRounds(Arm.HUMAN, new int[] {0}, new double[] {83});
        Comparison interim = Comparison.compute(hum, base, null, Better.LOWER, new Comparison.Excluded(2, 2, 2, 0),
                StatsConfig.defaults(), LookLevels.of(d, 3, StatsConfig.defaults()));
        assertThat(interim.inconclusiveReason()).isEqualTo(InconclusiveReason.CLIENT_SATURATED);
        assertThat(interim.decided()).isFalse(); // the planner runs the next round
        // the same rounds excluded for another cause keep the workload-mismatch reason and text
        Comparison other = Comparison.compute(hum, base, null, Better.LOWER, 2, StatsConfig.defaults(),
                LookLevels.of(d, 3, StatsConfig.defaults()));
        assertThat(other.inconclusiveReason()).isEqualTo(InconclusiveReason.WORKLOAD_MISMATCH);
        assertThat(other.reason()).endsWith("excluded because the work or hardware differed or requests failed");
    }
}
