package io.isobench.analysis;

import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The GPU clock rule of a round (docs/statistics.md, "Which rounds count"): a run whose mean SM clock or throttle
 * share differs from the baseline's run of the same round beyond {@link ClockRule} is flagged, and excluded only
 * with {@code exclude_on_clock_mismatch}; runs without telemetry are never flagged.
 */
class ClockRuleTest {

    static final String WORK = "{\"requests\":8,\"output_tokens\":1024}";

    @Test
    void differenceNamesWhatDiffered() {
        ClockRule r = ClockRule.defaults();
        assertThat(r.difference(1980.0, 0.0, 1980.0, 0.0)).isNull();
        assertThat(r.difference(1930.0, 0.0, 1980.0, 0.0)).as("-2.5 % is inside 3 %").isNull();
        assertThat(r.difference(1755.0, 0.0, 1980.0, 0.0))
                .isEqualTo("sm clock 1755 vs 1980 MHz (-11.4 %, limit 3 %)");
        assertThat(r.difference(1980.0, 0.5, 1980.0, 0.1)).isEqualTo("throttle share 0.5 vs 0.1 (limit 0.25)");
        assertThat(r.difference(1755.0, 1.0, 1980.0, 0.0)).contains("sm clock").contains(", throttle share 1 vs 0");
        assertThat(r.difference(null, null, 1980.0, 0.0)).as("no telemetry: never flagged").isNull();
        assertThat(r.difference(1755.0, 1.0, null, null)).isNull();
        assertThatThrownBy(() -> new ClockRule(0, 0.2, false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ClockRule(3, 1.5, false)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aThrottledRoundIsFlaggedAndStillCountsByDefault() throws Exception {
        Rounds rounds = new Rounds();
        addSession(rounds);
        Rounds.Valid v = rounds.valid();
        assertThat(v.values().get("human")).containsOnlyKeys(0, 1, 2);
        assertThat(v.exclusions()).hasSize(1);
        RoundExclusion e = v.exclusions().get(0);
        assertThat(e.arm()).isEqualTo("human");
        assertThat(e.round()).isEqualTo(1);
        assertThat(e.cause()).isEqualTo(RoundExclusion.Cause.CLOCK_MISMATCH);
        assertThat(e.excluded()).isFalse();
        assertThat(e.oneLine()).isEqualTo("round 2, human: clock_mismatch (sm clock 1755 vs 1980 MHz (-11.4 %, limit"
                + " 3 %), throttle share 0.9 vs 0 (limit 0.25) (vs the baseline's run of this round))"
                + " [flagged, still counted]");
    }

    @Test
    void excludeOnClockMismatchKeepsTheRoundOut() throws Exception {
        Rounds rounds = new Rounds(ClockRule.defaults().excluding(true));
        addSession(rounds);
        Rounds.Valid v = rounds.valid();
        assertThat(v.values().get("human")).containsOnlyKeys(0, 2);
        assertThat(v.values().get("baseline")).containsOnlyKeys(0, 1, 2);
        assertThat(v.exclusions()).singleElement().satisfies(e -> {
            assertThat(e.excluded()).isTrue();
            assertThat(e.oneLine()).doesNotContain("flagged");
        });
    }

    @Test
    void theExclusionReachesTheComparisonCount() {
        ArmSamples base = ArmSamples.ofRounds(io.isobench.Arm.BASELINE, new int[]{0, 1, 2, 3, 4, 5},
                new double[]{10, 10, 10, 10, 10, 10});
        ArmSamples human = ArmSamples.ofRounds(io.isobench.Arm.HUMAN, new int[]{0, 1, 2, 3, 4, 5},
                new double[]{8, 8, 8, 8, 8, 8});
        List<RoundExclusion> flagged = List.of(new RoundExclusion("human", 6, RoundExclusion.Cause.CLOCK_MISMATCH,
                "sm clock", false));
        List<RoundExclusion> excluded = List.of(new RoundExclusion("human", 6, RoundExclusion.Cause.CLOCK_MISMATCH,
                "sm clock", true));
        TaskAnalysis a = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                base, null, human, List.of(), flagged));
        TaskAnalysis b = TaskAnalysis.analyse(new TaskAnalysis.Input("tpot_ms_mean", Better.LOWER,
                base, null, human, List.of(), excluded));
        assertThat(a.humanVsBaseline().toMap().get("rounds_excluded")).isEqualTo(0);
        assertThat(b.humanVsBaseline().toMap().get("rounds_excluded")).isEqualTo(1);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> ex = (List<Map<String, Object>>) a.toMap().get("exclusions");
        assertThat(ex.get(0)).containsEntry("cause", "clock_mismatch").containsEntry("excluded", false);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> exB = (List<Map<String, Object>>) b.toMap().get("exclusions");
        assertThat(exB.get(0)).doesNotContainKey("excluded");
    }

    /** Three rounds of baseline and human at 1980 MHz; the human's round 2 power-capped at 1755 MHz. */
    private static void addSession(Rounds rounds) throws Exception {
        for (int round = 0; round < 3; round++) {
            rounds.add(run("baseline", round, 10.0, 1980.0, 0.0));
            rounds.add(round == 1 ? run("human", round, 9.0, 1755.0, 0.9) : run("human", round, 8.0, 1975.0, 0.0));
        }
        rounds.add(run("agent:a", 0, 8.0, null, null)); // no telemetry: never flagged
    }

    private static RunRecord run(String arm, int round, double tpot, Double sm, Double throttle) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "tpot");
        x.put("job", "tpot/" + arm + "/r" + round);
        x.put("hardware_id", "hw-a");
        if (sm != null) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("available", true);
            t.put("gpu_sm_clock_mhz_mean", sm);
            t.put("gpu_throttle_share", throttle);
            x.put("gpu_telemetry", t);
        }
        return ServingRuns.measured("s/" + arm + "/" + round, "s", arm, round, tpot, WORK, x,
                List.of(Metric.of("tpot_ms_mean", tpot)));
    }
}
