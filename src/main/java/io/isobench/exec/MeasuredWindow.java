package io.isobench.exec;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The wall-clock bounds of a serving run's measured phase (docs/gpu-telemetry.md, "The energy window"): from the
 * moment the load generator's warm-up requests are done ({@code measuredStart}) to the moment the client returned.
 * Set by the executors that run the pinned client on this machine (local, Docker, Slurm); null on a job whose
 * benchmark prints no phase times (offline jobs), which keep the whole job as their window.
 *
 * @param start when the measured phase began
 * @param end   when the client returned (not before {@code start})
 */
public record MeasuredWindow(Instant start, Instant end) {

    public MeasuredWindow {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
        if (end.isBefore(start)) {
            throw new IllegalArgumentException("measured window ends (" + end + ") before it starts (" + start + ")");
        }
    }

    /** The window's length in seconds. */
    public double durationS() {
        return Duration.between(start, end).toNanos() / 1e9;
    }
}
