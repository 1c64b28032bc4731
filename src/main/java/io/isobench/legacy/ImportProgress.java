package io.isobench.legacy;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Progress of a long {@code import legacy} on stderr (docs/legacy-import-usage.md "Progress"): files done of the total,
 * files per second and the time left. Only a long import shows it (more than {@link #FILES_LONG} files, or running
 * longer than {@link #LONG_NS}); never before the first second. On a terminal one line rewritten in place ({@code \r})
 * at most once a second; otherwise (a log file, a pipe) a plain line every {@link #PLAIN_INTERVAL_NS}. What to print
 * and when are pure functions ({@link #line}, {@link #due}); the clock is given.
 */
public final class ImportProgress {

    /** An import of more files than this is long from its first second. */
    static final int FILES_LONG = 1000;
    /** An import running longer than this is long whatever its size. */
    static final long LONG_NS = 2_000_000_000L;
    /** Between two lines on a terminal. */
    static final long TERMINAL_INTERVAL_NS = 1_000_000_000L;
    /** Between two plain lines. */
    static final long PLAIN_INTERVAL_NS = 10_000_000_000L;

    private final PrintWriter err;
    private final boolean terminal;
    private final LongSupplier clock;
    private long startNs;
    private long lastNs = -1;
    private int total;
    private boolean printed;

    /**
     * @param err      where the lines go (stderr)
     * @param terminal stderr is a terminal: one line rewritten in place
     */
    public ImportProgress(PrintWriter err, boolean terminal) {
        this(err, terminal, System::nanoTime);
    }

    ImportProgress(PrintWriter err, boolean terminal, LongSupplier clock) {
        this.err = err;
        this.terminal = terminal;
        this.clock = clock;
    }

    /** True when this process's stderr is most likely a terminal (a console is attached and says it is one). */
    public static boolean stderrIsTerminal() {
        Console c = System.console();
        if (c == null) {
            return false;
        }
        try { // Console.isTerminal() exists from Java 22 on; before it, a console means a terminal
            return (Boolean) Console.class.getMethod("isTerminal").invoke(c);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    void start(int files) {
        total = files;
        startNs = clock.getAsLong();
    }

    void fileDone(int done) {
        long now = clock.getAsLong();
        if (!due(now - startNs, lastNs < 0 ? -1 : now - lastNs, total, terminal)) {
            return;
        }
        lastNs = now;
        String line = line(done, total, (now - startNs) / 1e9);
        if (terminal) {
            err.print("\r" + line + "\u001b[K");
        } else {
            err.println(line);
        }
        err.flush();
        printed = true;
    }

    /** Clears the rewritten line (a terminal) before another stderr line is printed; the next tick redraws it. */
    void clearLine() {
        if (terminal && printed) {
            err.print("\r\u001b[K");
            err.flush();
        }
    }

    /** Ends the rewritten line (a terminal), so what follows starts on its own line. */
    void finish() {
        if (terminal && printed) {
            err.println();
            err.flush();
        }
    }

    /**
     * Whether a line is due.
     *
     * @param elapsedNs   since the import began
     * @param sinceLastNs since the last line, or -1 when none was printed
     */
    static boolean due(long elapsedNs, long sinceLastNs, int total, boolean terminal) {
        if (elapsedNs < TERMINAL_INTERVAL_NS || total <= FILES_LONG && elapsedNs <= LONG_NS) {
            return false;
        }
        return sinceLastNs < 0 || sinceLastNs >= (terminal ? TERMINAL_INTERVAL_NS : PLAIN_INTERVAL_NS);
    }

    /** {@code isobench: import legacy: 52,000/106,000 files (49 %), 420 files/s, about 2 min 8 s left}. */
    static String line(long done, long total, double elapsedS) {
        double rate = elapsedS <= 0 ? 0 : done / elapsedS;
        String left = rate <= 0 ? "time left unknown" : "about " + duration((total - done) / rate) + " left";
        return String.format(Locale.ROOT, "isobench: import legacy: %,d/%,d files (%d %%), " + (rate < 10 ? "%.1f" : "%,.0f")
                + " files/s, %s", done, total, total == 0 ? 100 : done * 100 / total, rate, left);
    }

    /** {@code 8 s}, {@code 2 min 8 s}, {@code 1 h 3 min}. */
    static String duration(double seconds) {
        long s = Math.round(Math.max(0, seconds));
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min " + s % 60 + " s";
        }
        return s / 3600 + " h " + s % 3600 / 60 + " min";
    }
}
