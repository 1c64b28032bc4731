package io.isobench.loadgen;

import java.util.Arrays;

/**
 * The I/O loop's lateness: the loop schedules itself a tick every {@link EventLoop#TICK_NS} and records, at the end
 * of the turn that reaches it, how much later than due that was (a turn that runs long, a thread starved of CPU, a
 * GC pause all show). Written by the loop thread, read by the dispatcher: a phase takes a {@link #mark()} at its start
 * and the samples {@link #since(int)} it at its end. One sample per tick (200 a second, 4 bytes each).
 *
 * <p>Also holds the fault-injection knob {@value #STALL_ENV}: a number of microseconds the loop thread busy-spins in
 * every turn, so a test can make the client really slow (docs/loadgen.md, "Client self-check").
 */
final class LoopLag {

    /** Environment variable (or system property {@value #STALL_PROPERTY}) naming the per-turn stall in µs. */
    static final String STALL_ENV = "ISOBENCH_LOADGEN_LOOP_STALL_US";
    static final String STALL_PROPERTY = "isobench.loadgen.loopStallUs";

    private int[] lagUs = new int[1024];
    private int n;

    /** Loop thread: one tick ran {@code lagNs} late. */
    synchronized void record(long lagNs) {
        if (n == lagUs.length) {
            lagUs = Arrays.copyOf(lagUs, n * 2);
        }
        lagUs[n++] = (int) Math.min(Integer.MAX_VALUE, lagNs / 1000);
    }

    /** Ticks recorded so far (a phase's start). */
    synchronized int mark() {
        return n;
    }

    /** The lags (ns) of the ticks recorded since {@code mark}. */
    synchronized long[] since(int mark) {
        long[] out = new long[Math.max(0, n - mark)];
        for (int i = 0; i < out.length; i++) {
            out[i] = lagUs[mark + i] * 1000L;
        }
        return out;
    }

    /** The stall the knob asks for, in ns: the environment variable, else the system property; 0 when neither. */
    static long stallNs() {
        String v = System.getenv(STALL_ENV);
        if (v == null || v.isBlank()) {
            v = System.getProperty(STALL_PROPERTY);
        }
        if (v == null || v.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(v.strip())) * 1000L;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(STALL_ENV + " (" + v + ") must be a whole number of microseconds");
        }
    }

    /** Busy-spins for {@code ns} on the calling thread (the knob's stall: CPU really used, as a slow client's). */
    static void spin(long ns) {
        long end = System.nanoTime() + ns;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
