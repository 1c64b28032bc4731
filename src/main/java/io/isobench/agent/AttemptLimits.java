package io.isobench.agent;

import java.util.Map;

/**
 * The size limits of one attempt (docs/agents.md, "Limits"), enforced while the bytes stream, never after reading
 * them whole: a limit hit is the attempt's outcome ({@link AttemptStatus#OUTPUT_TOO_LARGE},
 * {@link AttemptStatus#PATCH_TOO_LARGE}), never a crash of isobench.
 *
 * @param outputBytes      most bytes of stdout, and of stderr, the agent may print: past it the attempt is killed
 * @param patchBytes       most bytes of the collected patch, and of the files it would carry (apparent sizes: a
 *                         sparse file counts whole, each hard link counts)
 * @param trajectorySteps  most steps kept in the normalised trajectory (the rest is said in a last step)
 */
public record AttemptLimits(long outputBytes, long patchBytes, int trajectorySteps) {

    /** 256 MiB of output, 32 MiB of patch, 20,000 steps. */
    public static final AttemptLimits DEFAULT = new AttemptLimits(256L << 20, 32L << 20, 20_000);

    /** The runner keys ({@code limits:} of {@code agents[].runner}). */
    public static final String OUTPUT_MB = "output_mb";
    public static final String PATCH_MB = "patch_mb";
    public static final String TRAJECTORY_STEPS = "trajectory_steps";

    public AttemptLimits {
        if (outputBytes < 1 || patchBytes < 1 || trajectorySteps < 1) {
            throw new IllegalArgumentException("attempt limits must be positive (fix: runner.limits: {output_mb: 256,"
                    + " patch_mb: 32, trajectory_steps: 20000})");
        }
    }

    /** {@link #DEFAULT} with the suite's {@code limits:} ({@code output_mb}, {@code patch_mb}, {@code trajectory_steps}). */
    public static AttemptLimits of(Map<String, Double> limits) {
        Double out = limits.get(OUTPUT_MB);
        Double patch = limits.get(PATCH_MB);
        Double steps = limits.get(TRAJECTORY_STEPS);
        return new AttemptLimits(out == null ? DEFAULT.outputBytes : Math.round(out * (1 << 20)),
                patch == null ? DEFAULT.patchBytes : Math.round(patch * (1 << 20)),
                steps == null ? DEFAULT.trajectorySteps : (int) Math.min(Integer.MAX_VALUE, Math.round(steps)));
    }
}
