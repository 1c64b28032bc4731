package io.isobench.exec;

import io.isobench.store.Pipeline;
import io.isobench.Mode;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.guard.Secrets;
import io.isobench.loadgen.LoadgenResult;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.util.List;
import java.util.UUID;

/**
 * An ad-hoc {@code isobench loadgen} run stored as a measured run (no session): its detail JSON goes to the
 * artifact table, the run row carries the primary metric (TPOT mean), the workload and the redacted argv.
 */
public final class LoadgenRuns {

    private static final ObjectMapper JSON = new ObjectMapper();

    private LoadgenRuns() {
    }

    /**
     * What the run measured, as the user said it.
     *
     * @param arm    arm label to store the run under
     * @param commit commit the run measured, or null
     * @param argv   the command line as given (redacted before it is stored)
     */
    public record Tag(String arm, String commit, List<String> argv) {
    }

    /** Stores {@code result} as one run and returns its run id. */
    public static String store(Store st, LoadgenResult result, Tag tag) throws JsonProcessingException {
        String runId = "loadgen-" + UUID.randomUUID();
        byte[] detail = JSON.writeValueAsBytes(result.resultJson(true));
        String artifact = st.putArtifact("loadgen-detail", detail);
        ObjectNode extra = JSON.createObjectNode();
        extra.put("loadgen_detail_artifact", artifact);
        extra.put("base_url", result.config().baseUrl().toString());
        extra.put("endpoint", result.config().endpoint());
        extra.set("failures_by_reason", JSON.valueToTree(result.summary().failuresByReason()));
        boolean ok = result.summary().completed() > 0;
        double primary = result.summary().dists().get("tpot").mean();
        String commit = tag.commit();
        st.putRun(RunRecord.builder(runId)
                .kind(RunRecord.RunKind.MEASURED)
                .commit(commit, commit == null ? null : commit.substring(0, Math.min(8, commit.length())))
                .armLabel(tag.arm())
                .status(ok ? RunRecord.RunStatus.SUCCESS : RunRecord.RunStatus.FAILED)
                .failure(ok ? null : new RunRecord.FailureInfo("NO_METRICS",
                        "no request succeeded: " + result.summary().failuresByReason(), null, true))
                .mode(Mode.SERVING)
                .model(result.config().model())
                .pipeline(Pipeline.NATIVE)
                .primary("tpot_ms_mean", ok && result.summary().dists().get("tpot").count() > 0 ? primary : null,
                        "measured")
                .workload(JSON.writeValueAsString(result.workloadFingerprint()))
                .startedAt(result.startedAt())
                .durationMs(result.durationS() * 1000)
                .argvJson(JSON.writeValueAsString(Secrets.argv(tag.argv())))
                .notes(String.join("; ", result.notes()))
                .details(RunDetails.of(extra))
                .metrics(result.metrics())
                .build());
        return runId;
    }
}
