package io.isobench.report;

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
 * The report explains a missing value by the failure of the same source only: it never borrows one (issue 14); where
 * another pipeline of the commit recorded a failure of that arm, it points at it instead of "no failure recorded"
 * (issue 28), without counting it.
 */
class ReportNoBorrowingTest {

    private static RunRecord run(String id, String pipeline, String arm, RunStatus status, Double value,
                                 RunRecord.FailureInfo failure) {
        return RunRecord.builder(id)
                .kind(RunRecord.RunKind.LEGACY)
                .commit("abcdef1234", "abcdef12")
                .agent("claude_code")
                .armLabel(arm)
                .status(status)
                .failure(failure)
                .modeLabel("serving")
                .model("m")
                .pipelineLabel(pipeline)
                .source("src-" + pipeline)
                .primary("tpot_ms_mean", value, value == null ? null : "raw")
                .detailsJson("{\"path\":\"" + pipeline + "/" + id + "\"}")
                .metrics(value == null ? List.of() : List.of(Metric.of("tpot_ms_mean", value)))
                .build();
    }

    @Test
    void aMissingAgentValueIsNotChargedToAnotherPipelinesFailureButPointsAtIt(@TempDir Path dir) {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            store.putRuns(List.of(
                    // the modal source: baseline and human ran, the agent arm left no record there
                    run("m-b", "modal", "baseline", RunStatus.SUCCESS, 10.0, null),
                    run("m-h", "modal", "human", RunStatus.SUCCESS, 9.0, null),
                    // another pipeline's agent failure
                    run("s-a", "separate", "agent:claude_code", RunStatus.FAILED, null,
                            new RunRecord.FailureInfo("GPU_OOM", "GPU out of memory", "CUDA out of memory", false))));
            String report = ReportText.markdown(store);
            String row = report.lines().filter(l -> l.startsWith("| `abcdef12` | incomplete | modal")).findFirst()
                    .orElseThrow();
            // pointed at, not borrowed (issue 28): the row names the other pipeline's failure as that pipeline's
            assertThat(row).contains("agent: no value in modal; the separate run failed: GPU_OOM `CUDA out of memory`")
                    .doesNotContain("no failure recorded");
            String todo = report.lines().filter(l -> l.startsWith("| `abcdef12` | claude_code | incomplete"))
                    .findFirst().orElseThrow();
            assertThat(todo).contains("agent: no value in modal, the separate run failed: GPU_OOM")
                    .doesNotContain("no failure recorded");
            // no agent failure is counted for the agent: none happened in the source of the row
            assertThat(report).contains("| claude_code | 1 | 0 |").doesNotContain("### Agent failures");
        }
    }
}
