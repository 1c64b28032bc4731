package io.isobench.agent;

/**
 * One finished attempt, as {@link AttemptRunner} saw it (raw output already redacted of the attempt's secrets).
 *
 * @param status     how it ended
 * @param detail     one line: the budget passed, the agent's error, or its final message
 * @param usage      turns, tokens, USD (from the adapter's reading of the stream)
 * @param wallS      seconds from start to exit (or kill)
 * @param patch      the collected patch ({@code ""} when empty)
 * @param cliVersion the CLI's {@code --version} line (or why it is unknown)
 * @param trajectory the normalised trajectory
 * @param rawStdout  the agent's whole stdout (redacted)
 * @param rawStderr  the agent's whole stderr (redacted)
 * @param exitCode   the process's exit status (-1 when killed)
 */
public record AttemptResult(AttemptStatus status, String detail, Usage usage, double wallS, String patch,
                            String cliVersion, Trajectory trajectory, String rawStdout, String rawStderr,
                            int exitCode) {

    /** The same attempt with other usage (a price added). */
    public AttemptResult withUsage(Usage other) {
        return new AttemptResult(status, detail, other, wallS, patch, cliVersion, trajectory, rawStdout, rawStderr,
                exitCode);
    }
}
