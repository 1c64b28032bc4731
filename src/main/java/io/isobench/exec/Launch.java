package io.isobench.exec;

import io.isobench.plan.Job;
import io.isobench.proc.ProcessGroup;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How an executor starts a job's command and ends it: the {@link Placement} the command runs in, and the grace its
 * stop gives what the command started before it is killed. The commands {@link LocalExecutor} runs to their end
 * ({@link GenericRun}, {@link OfflineProbe}) take the two together: every start there is followed by its stop.
 *
 * @param placement where the command starts
 * @param grace     how long a stop waits for the command's processes to end before it kills them
 */
record Launch(Placement placement, Duration grace) {

    Launch {
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(grace, "grace");
    }

    /** Starts {@code argv} of {@code job}, output appended to {@code log} ({@link Placement#start}). */
    ProcessGroup start(Job job, List<String> argv, Path log) throws IOException {
        return placement.start(job, argv, log);
    }

    /** Starts {@code argv} behind isobench's own prefix {@code outside} (the placement's wall around {@code argv}). */
    ProcessGroup start(Job job, List<String> outside, List<String> argv, Path log) throws IOException {
        return placement.start(job, outside, argv, log);
    }

    /** Tears down everything the job started, within the grace; true when nothing is left. */
    boolean stop(Job job, ProcessGroup group) {
        return placement.stop(job, group, grace);
    }
}
