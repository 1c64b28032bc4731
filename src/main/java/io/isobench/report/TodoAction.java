package io.isobench.report;

import io.isobench.parse.FailureCategory;
import io.isobench.report.Rows.Cell;
import io.isobench.report.Rows.CellBuilder;

import java.util.EnumSet;
import java.util.Set;

/**
 * The to-do list's action for a failure (imported rows and native tasks alike): what to fix or rerun, from the failure
 * category of the arm; agent outcomes say so (nothing to rerun).
 */
final class TodoAction {

    private TodoAction() {
    }

    /** Outcomes of {@code isobench agents run}: a new attempt or a larger budget, nothing to rerun here. */
    private static final Set<FailureCategory> AGENT_RUN_OUTCOMES = EnumSet.of(
            FailureCategory.AGENT_TIMEOUT, FailureCategory.BUDGET_EXCEEDED, FailureCategory.AGENT_CRASH,
            FailureCategory.OUTPUT_TOO_LARGE, FailureCategory.PATCH_TOO_LARGE, FailureCategory.PATCH_HAS_SECRET,
            FailureCategory.ATTEMPT_CRASHED);

    /** What to do about a failure of {@code category} of {@code arm} (a to-do list's action cell). */
    static Cell of(String category, String arm) {
        FailureCategory c = Html.category(category);
        if (c == null) {
            return Cell.text("investigate the " + arm + " arm");
        }
        if (AGENT_RUN_OUTCOMES.contains(c)) {
            return new CellBuilder().text("agent outcome of ").code("isobench agents run")
                    .text(" (a new attempt, or a larger budget)").build();
        }
        return Cell.text(actionText(c, arm));
    }

    private static String actionText(FailureCategory c, String arm) {
        return switch (c) {
            case INFRA_TRANSIENT, PORT_CONFLICT, GIT_ERROR -> "retry the " + arm + " arm (transient)";
            case DISK_FULL -> "free disk space, then rerun the " + arm + " arm";
            case ENV_MISSING -> "build or publish the " + arm + " environment (image/wheel), then rerun";
            case ENV_MISMATCH -> "point the " + arm + " arm at the artifact of its own commit (version, sha256),"
                    + " then rerun";
            case BUILD_FAILED -> "fix the " + arm + " build, then rerun";
            case DEPENDENCY_CONFLICT -> "add a fix recipe (dependency pin), then rerun the " + arm + " arm";
            case MODEL_UNSUPPORTED -> "pick a model this engine version supports, then rerun all arms";
            case MODEL_ACCESS -> "provide an HF token with access to the model, then rerun";
            case GPU_OOM -> "rerun the " + arm + " arm with memory flags (smaller batch/max-model-len) or more GPUs";
            case RESOURCES_INSUFFICIENT -> "run on a machine with enough GPUs";
            case BAD_PERF_COMMAND, NO_PERF_COMMAND -> "fix the task's perf_command, then rerun all arms";
            case NO_METRICS -> "check the benchmark client/output of the " + arm + " arm, then rerun";
            case REQUESTS_FAILED -> "read the server log of the " + arm + " arm: requests failed, so the run did "
                    + "less work than the others";
            case TIMEOUT, SERVER_START_TIMEOUT -> "rerun the " + arm + " arm with a longer timeout";
            case SERVER_CRASHED, CUDA_ERROR -> arm.equals("agent") ? "agent outcome (patch breaks the engine)"
                    : "investigate the " + arm + " crash";
            case PATCH_FAILED, EMPTY_PATCH, PATCH_REJECTED, OUTPUT_MISMATCH -> "agent outcome (nothing to rerun)";
            case AGENT_TIMEOUT, BUDGET_EXCEEDED, AGENT_CRASH, OUTPUT_TOO_LARGE, PATCH_TOO_LARGE, PATCH_HAS_SECRET,
                 ATTEMPT_CRASHED -> "agent outcome of isobench agents run";
            case TREE_CHANGED -> arm.equals("agent") ? "agent outcome (its run rewrote its own tracked files)"
                    : "investigate the " + arm + " arm: a run rewrote its tracked files";
            case SANDBOX_UNSTOPPABLE -> "check the docker host: an agent container could not be stopped";
            case HARNESS_ERROR -> "rerun the task: the old harness failed, not an arm";
            case CANCELLED -> "rerun the task: it was cancelled";
            case UNKNOWN -> "investigate the " + arm + " log";
        };
    }
}
