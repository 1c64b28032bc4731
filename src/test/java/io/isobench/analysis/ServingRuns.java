package io.isobench.analysis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Test helper: one successful measured serving run of the toy model, as the round rules read it. */
final class ServingRuns {

    private ServingRuns() {
    }

    /**
     * A run of {@code arm} in {@code round} (0-based) with primary {@code tpot_ms_mean = tpot}, the given workload
     * fingerprint, details sections and metrics.
     */
    static RunRecord measured(String runId, String session, String arm, int round, double tpot, String workload,
                              Map<String, Object> details, List<Metric> metrics) throws JsonProcessingException {
        return RunRecord.builder(runId)
                .session(session)
                .kind(RunRecord.RunKind.MEASURED)
                .commit("c0ffee00", "c0ffee00")
                .agent(arm.startsWith("agent:") ? arm.substring(6) : null)
                .armLabel(arm)
                .round(round)
                .status(RunRecord.RunStatus.SUCCESS)
                .modeLabel("serving")
                .model("toy-1m")
                .pipelineLabel("native")
                .primary("tpot_ms_mean", tpot, "measured")
                .workload(workload)
                .startedAt(Instant.now())
                .durationMs(1000.0)
                .argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(details))
                .metrics(metrics)
                .build();
    }
}
