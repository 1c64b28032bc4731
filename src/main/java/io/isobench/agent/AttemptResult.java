package io.isobench.agent;

import java.nio.charset.StandardCharsets;

/**
 * One finished attempt, as {@link AttemptRunner} saw it (raw output already redacted of the attempt's secrets).
 *
 * @param status     how it ended
 * @param detail     one line: the budget passed, the agent's error, or its final message
 * @param usage      turns, tokens, USD (from the adapter's reading of the stream)
 * @param wallS      seconds from start to exit (or kill)
 * @param patchBytes the collected patch, byte for byte as git wrote it (empty when there is none); with
 *                   {@link AttemptStatus#PATCH_HAS_SECRET} the attempt's secret values in it are masked
 * @param cliVersion the CLI's {@code --version} line (or why it is unknown)
 * @param trajectory the normalised trajectory
 * @param rawStdout  the agent's stdout (redacted; beyond 16 MiB its head and tail, with the cut said)
 * @param rawStderr  the agent's stderr, likewise
 * @param exitCode   the process's exit status (-1 when killed)
 */
public record AttemptResult(AttemptStatus status, String detail, Usage usage, double wallS, byte[] patchBytes,
                            String cliVersion, Trajectory trajectory, String rawStdout, String rawStderr,
                            int exitCode) {

    public AttemptResult {
        patchBytes = patchBytes == null ? new byte[0] : patchBytes;
    }

    /** An attempt isobench failed to run or collect ({@link AttemptStatus#ATTEMPT_CRASHED}): {@code reason} kept. */
    public static AttemptResult crashed(String reason, double wallS) {
        return new AttemptResult(AttemptStatus.ATTEMPT_CRASHED, reason, Usage.NONE, wallS, new byte[0],
                "unknown (the attempt crashed)", Trajectory.EMPTY, "", "", -1);
    }

    /** The patch as text, for reading only (UTF-8, invalid bytes replaced): never write it back as the patch. */
    public String patch() {
        return new String(patchBytes, StandardCharsets.UTF_8);
    }

    /** The same attempt with other usage (a price added). */
    public AttemptResult withUsage(Usage other) {
        return new AttemptResult(status, detail, other, wallS, patchBytes, cliVersion, trajectory, rawStdout,
                rawStderr, exitCode);
    }
}
