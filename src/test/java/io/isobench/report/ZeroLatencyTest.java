package io.isobench.report;

import io.isobench.legacy.ThreeWayRow;
import io.isobench.legacy.ThreeWayTable;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lower-is-better primary value of exactly 0 (a TPOT of 0.00: every request produced one token) is no measurement:
 * the 3-way row shows it as missing with the reason, never as a value or the base of a Δ (issue 28).
 */
class ZeroLatencyTest {

    private static RunRecord run(String id, String arm, double tpot) {
        return RunRecord.builder(id).kind(RunRecord.RunKind.LEGACY).commit("abcdef1234", "abcdef12")
                .agent("claude_code").armLabel(arm).status(RunStatus.SUCCESS).modeLabel("serving").model("m")
                .pipelineLabel("modal").source("src-modal").primary("tpot_ms_mean", tpot, "raw")
                .detailsJson("{\"path\":\"modal/" + id + "\"}").metrics(List.of(Metric.of("tpot_ms_mean", tpot)))
                .build();
    }

    private static final List<RunRecord> RUNS = List.of(run("b", "baseline", 0.0), run("h", "human", 5.0),
            run("a", "agent:claude_code", 6.0));

    @Test
    void aZeroTpotIsMissingWithItsReasonAndNoDeltaBase() {
        ThreeWayRow row = ThreeWayTable.row("abcdef12", RUNS).orElseThrow();
        assertThat(row.baselineValue()).isNull();
        assertThat(row.humanDeltaPct()).isNull();
        assertThat(row.agentDeltaPct()).isNull();
        assertThat(row.agentVsHumanPct()).isNotNull(); // human and agent are measurements
        assertThat(row.status()).isEqualTo("incomplete");
        assertThat(row.issues()).contains("baseline tpot_ms_mean = 0 is not a measurement");
    }

    @Test
    void everyArmZeroIsNoMetricsNotThreeValues() {
        List<RunRecord> zeros = List.of(run("b", "baseline", 0.0), run("h", "human", 0.0),
                run("a", "agent:claude_code", 0.0));
        ThreeWayRow row = ThreeWayTable.row("abcdef12", zeros).orElseThrow();
        assertThat(row.status()).isEqualTo("no_metrics");
        assertThat(row.issues()).contains("baseline tpot_ms_mean = 0", "human tpot_ms_mean = 0",
                "agent tpot_ms_mean = 0");
    }

    @Test
    void theReportSaysWhyTheValueIsMissing(@TempDir Path dir) {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            store.putRuns(RUNS);
            String report = ReportText.markdown(store);
            String row = report.lines().filter(l -> l.startsWith("| `abcdef12` | incomplete | modal")).findFirst()
                    .orElseThrow();
            assertThat(row).contains("— / 5.0 / 6.0 | baseline tpot_ms_mean = 0 is not a measurement"
                    + " (shown as missing)").doesNotContain("no failure recorded");
            String todo = report.lines().filter(l -> l.startsWith("| `abcdef12` | claude_code | incomplete"))
                    .findFirst().orElseThrow();
            assertThat(todo).contains("check the baseline arm's workload").contains("= 0 is not a measurement");
        }
    }
}
