package io.isobench.plan;

import java.util.Optional;

/**
 * What a job is for in its session, stored with its run ({@code extra_json.role}, docs/store.md): a measured round,
 * an arm's correctness check, the baseline's second check (tolerance calibration), an arm's accuracy run, or a pilot
 * of a {@code sweep: auto} task (chooses the load points; never measured). Runs recorded before the role was stored
 * get theirs from {@link #ofStored} — the one place the old rule (pipeline, then the job id's suffix) is applied.
 */
public enum JobRole {
    /** One measured round. */
    MEASURE("measure"),
    /** An arm's correctness check (greedy outputs vs the baseline's). */
    CHECK("check"),
    /** The baseline's second check in a server of its own: it calibrates the tolerance, it is no gate. */
    CHECK_REPEAT("check-repeat"),
    /** The task's accuracy command, once per arm. */
    ACCURACY("accuracy"),
    /** A pilot round of a {@code sweep: auto} task: the baseline's, before round 1; shown, never counted. */
    PILOT("pilot");

    private final String label;

    JobRole(String label) {
        this.label = label;
    }

    /** The stored text. */
    public String label() {
        return label;
    }

    /** The role of a stored label; empty for text no role has. */
    public static Optional<JobRole> fromLabel(String label) {
        for (JobRole r : values()) {
            if (r.label.equals(label)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /**
     * The role of a stored native run: its recorded {@code role}; for a run recorded before roles were stored, the old
     * rule: pipeline {@code native-accuracy} → ACCURACY, {@code native-pilot} → PILOT, {@code native-check} →
     * CHECK_REPEAT when the job id ends in {@code /check-repeat}, else CHECK; {@code native} → MEASURE; empty for any
     * other pipeline (imported data).
     *
     * @param stored        the run's {@code role} text, or null when it has none
     * @param pipelineLabel the run's pipeline label
     * @param jobId         the run's job id ({@code task/arm/...}), or null
     */
    public static Optional<JobRole> ofStored(String stored, String pipelineLabel, String jobId) {
        Optional<JobRole> recorded = fromLabel(stored);
        if (recorded.isPresent() || pipelineLabel == null) {
            return recorded;
        }
        return switch (pipelineLabel) {
            case "native" -> Optional.of(MEASURE);
            case "native-check" -> Optional.of(jobId != null && jobId.endsWith("/" + Planner.REPEAT_CHECK)
                    ? CHECK_REPEAT : CHECK);
            case "native-accuracy" -> Optional.of(ACCURACY);
            case "native-pilot" -> Optional.of(PILOT);
            default -> Optional.empty();
        };
    }

    /** The role of a planned job. */
    static JobRole of(Job job) {
        return switch (job.kind()) {
            case ACCURACY -> ACCURACY;
            case CHECK -> job.repeatCheck() ? CHECK_REPEAT : CHECK;
            case MEASURE -> AutoSweep.isPilot(job) ? PILOT : MEASURE;
        };
    }
}
