package io.isobench.store;

import io.isobench.parse.Metric;

import java.time.Instant;
import java.util.List;

/**
 * One run of one arm of one task, as stored (DESIGN.md §8). Raw samples are the metrics; anything derived
 * (statistics, verdicts, 3-way rows) is computed from these and never stored instead of them.
 *
 * @param runId            stable id; legacy imports derive it from source path + arm so re-import is idempotent
 * @param sessionId        native session id, or null for imported data
 * @param kind             what the run is (measured, legacy 3-way source, superseded attempt, single-version, micro)
 * @param commit           commit id as known (8, 12 or 40 hex)
 * @param commitShort      first 8 hex characters of {@code commit}
 * @param agent            the agent whose suite/tree the run belongs to (legacy: the tree's agent, even for
 *                         baseline/human arms); null when not tied to one agent
 * @param arm              arm label: baseline, human, agent:NAME
 * @param round            measured round (0-based); 0 for single-run legacy data
 * @param status           outcome of the run
 * @param failure          classified failure, or null
 * @param mode             serving|throughput|latency|prefix_caching|micro, or null when unknown
 * @param model            model the arm actually used, or null
 * @param pipeline         legacy pipeline id (modal, docker_3way, …) or "native"
 * @param sourceId         the imported file this run came from, or null
 * @param primaryMetric    canonical name of the primary metric, or null
 * @param primaryValue     primary metric value, or null when none could be parsed
 * @param primaryOrigin    where the primary value came from: raw | json | measured
 * @param workload         workload fingerprint (requests/input tokens/output tokens/seed/dataset), JSON text or null
 * @param startedAt        start time, or null when unknown
 * @param durationMs       wall time in ms, or null
 * @param engineVersion    engine version string reported by the environment, or null
 * @param envRef           environment reference (commit verified in the env, image, wheel), or null
 * @param argvJson         argv that ran, as a JSON array, or null
 * @param logArtifact      sha256 of the full log in the artifact table, or null
 * @param notes            free text, {@code "; "}-separated (recovered file, corrected status, …)
 * @param extraJson        anything else worth keeping (subject, perf_command, source status/error), JSON object text
 * @param metrics          every metric the run produced
 */
public record RunRecord(
        String runId,
        String sessionId,
        RunKind kind,
        String commit,
        String commitShort,
        String agent,
        String arm,
        int round,
        RunStatus status,
        FailureInfo failure,
        String mode,
        String model,
        String pipeline,
        String sourceId,
        String primaryMetric,
        Double primaryValue,
        String primaryOrigin,
        String workload,
        Instant startedAt,
        Double durationMs,
        String engineVersion,
        String envRef,
        String argvJson,
        String logArtifact,
        String notes,
        String extraJson,
        List<Metric> metrics) {

    public RunRecord {
        if (runId == null || runId.isBlank()) {
            throw new IllegalArgumentException("runId must not be blank");
        }
        if (kind == null || status == null || arm == null) {
            throw new IllegalArgumentException("run " + runId + ": kind, status and arm are required");
        }
        if (round < 0) {
            throw new IllegalArgumentException("run " + runId + ": round (" + round + ") must be >= 0");
        }
        metrics = metrics == null ? List.of() : List.copyOf(metrics);
    }

    /** This run with another {@code extraJson}. */
    public RunRecord withExtraJson(String json) {
        return new RunRecord(runId, sessionId, kind, commit, commitShort, agent, arm, round, status, failure, mode,
                model, pipeline, sourceId, primaryMetric, primaryValue, primaryOrigin, workload, startedAt, durationMs,
                engineVersion, envRef, argvJson, logArtifact, notes, json, metrics);
    }

    /** What kind of record a run is. */
    public enum RunKind {
        /** Measured by isobench in a native session. */
        MEASURED,
        /** Imported from a legacy 3-way source (R1, R3, R4, R5, R7, R8). */
        LEGACY,
        /** Imported from an R2 progress log: a superseded attempt, kept but not used in tables. */
        LEGACY_SUPERSEDED,
        /** Imported from an R6 single-version file (often substitute models). */
        LEGACY_SINGLE_VERSION,
        /** Micro-benchmark (test-script) result: a different result kind. */
        MICRO,
        /** Imported from a published HF table row. */
        HF_IMPORT
    }

    /** Outcome of a run. */
    public enum RunStatus {
        SUCCESS, FAILED, SKIPPED, NOT_RUN
    }

    /** Failure as stored: category name, detail, evidence lines joined by newlines, retryability. */
    public record FailureInfo(String category, String detail, String evidence, boolean retryable) {
    }
}
