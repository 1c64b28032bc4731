package io.isobench.history;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A track's progress on stderr, one line per run: {@code track TASK: 37/155 runs · commit 12/31 abc1234 · ETA 3 min}.
 * The ETA is the mean wall time per run measured so far in this attempt (runs stored by an earlier attempt are counted
 * as done, not timed) times the runs left. A terminal gets one line rewritten in place; a pipe gets lines.
 */
final class TrackProgress {

    /** A rewritten line is padded to this width, so a shorter line covers a longer one. */
    private static final int WIDTH = 80;

    private final PrintWriter err;
    private final boolean tty;
    private final String taskId;
    private final int totalRuns;
    private final int rangeSize;
    private final LongSupplier nanos;
    private final long startNs;
    private int done;
    private int ranNow;

    /**
     * @param totalRuns the slots of the order
     * @param rangeSize the commits of the range
     * @param nanos     the clock ({@link System#nanoTime})
     */
    TrackProgress(PrintWriter err, boolean tty, String taskId, int totalRuns, int rangeSize, LongSupplier nanos) {
        this.err = err;
        this.tty = tty;
        this.taskId = taskId;
        this.totalRuns = totalRuns;
        this.rangeSize = rangeSize;
        this.nanos = nanos;
        this.startNs = nanos.getAsLong();
    }

    /** A run stored by an earlier attempt. */
    synchronized void already() {
        done++;
    }

    /** A run of this attempt ended (commit {@code position} of the range): one progress line. */
    synchronized void ran(int position, String commitId) {
        done++;
        ranNow++;
        String line = line(position, commitId);
        if (tty) {
            err.print("\r" + String.format(Locale.ROOT, "%-" + WIDTH + "s", line));
            if (done == totalRuns) {
                err.print("\n");
            }
        } else {
            err.println(line);
        }
        err.flush();
    }

    /** The line after the run that ended at {@code position}. */
    String line(int position, String commitId) {
        double perRunS = ranNow == 0 ? 0 : (nanos.getAsLong() - startNs) / 1e9 / ranNow;
        return String.format(Locale.ROOT, "track %s: %d/%d runs · commit %d/%d %s · ETA %s", taskId, done, totalRuns,
                position + 1, rangeSize, commitId.substring(0, Math.min(7, commitId.length())),
                eta(Math.round(perRunS * (totalRuns - done))));
    }

    /** Seconds as the ETA shows them: {@code 45 s} below two minutes, else whole minutes. */
    static String eta(long seconds) {
        return seconds < 120 ? seconds + " s" : Math.round(seconds / 60.0) + " min";
    }
}
