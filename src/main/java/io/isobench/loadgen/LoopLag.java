package io.isobench.loadgen;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The I/O loop's lateness: a tick falls due every {@link #TICK_NS} while requests are in flight or waiting, and the
 * turn that reaches it records how late the loop was ({@link #tickLagNs}: a turn that runs long, a thread starved of
 * CPU show; so does a GC pause that falls in a turn, and one that falls while the loop waits in its select is added
 * from the JVM's own report, {@link #withPauses}). The tick's state and the select timeout it asks for
 * ({@link #waitMs}) are the loop thread's; the samples are written by the loop thread and read by the dispatcher: a
 * phase takes a {@link #mark()} at its start and the samples {@link #since(int)} it at its end. One sample per tick
 * (200 a second, 4 bytes each).
 *
 * <p>Also holds the fault-injection knob {@value #STALL_ENV}: a number of microseconds the loop thread busy-spins in
 * every turn, so a test can make the client really slow (docs/loadgen.md, "Client self-check").
 */
final class LoopLag {

    /** Environment variable (or system property {@value #STALL_PROPERTY}) naming the per-turn stall in µs. */
    static final String STALL_ENV = "ISOBENCH_LOADGEN_LOOP_STALL_US";
    static final String STALL_PROPERTY = "isobench.loadgen.loopStallUs";

    /** The tick's period. */
    static final long TICK_NS = 5_000_000L;

    private int[] lagUs = new int[1024];
    private int n;
    /**
     * Loop thread: when the next tick is due, and its run-queue wait, sampled at each tick (null where the kernel
     * keeps none): with it, a select waits for events past a tick's due time, as the wait for a core is read, not timed.
     */
    private long tickDue;
    private RunDelay runDelay;

    /** Loop thread, as it starts ({@code now}: {@code System.nanoTime}). */
    void start(long now) {
        tickDue = now + TICK_NS;
        runDelay = RunDelay.open();
    }

    /** Loop thread, as it ends. */
    void stop() {
        if (runDelay != null) {
            runDelay.close();
            runDelay = null;
        }
    }

    /**
     * Loop thread: the timeout (ms; -1 none) of a select that starts after a turn that ended at {@code turnEnd}.
     * Where the run-queue wait is known, a tick that falls due while the loop waits for events is reached by the next
     * turn, so the select has no timeout at all where the poller wakes the loop every {@code scanNs} by itself
     * ({@code periodic}: a timeout set and cancelled per select costs the client more than the select), else it wakes
     * after a tick's worth of silence. Where the wait is not known, with requests in flight or waiting
     * ({@code working}), it wakes when the tick is due (whole ms, rounded up: its unit). An idle loop has no tick.
     */
    long waitMs(boolean working, boolean periodic, long turnEnd, long scanNs) {
        if (periodic && runDelay != null) {
            return -1;
        }
        long untilTick = runDelay != null ? Math.max(TICK_NS, tickDue - turnEnd) : tickDue - turnEnd;
        return !working ? scanNs / 1_000_000L
                : Math.min(scanNs / 1_000_000L, Math.max(1, (untilTick + 999_999) / 1_000_000L));
    }

    /**
     * Loop thread, at the end of a turn ({@code now}) whose select ({@code waitMs}, after the turn that ended at
     * {@code turnEnd}) returned at {@code woke}, {@code forReadiness} when a connection was ready: records the tick
     * when it is due. A select that timed out cannot have returned before its whole-ms timeout: that is not lag; one
     * without a timeout, or that returned for readiness, waited for events.
     */
    void turnEnded(boolean working, boolean forReadiness, long waitMs, long turnEnd, long woke, long now) {
        if (!working) {
            tickDue = now + TICK_NS;
            sampleRunDelay();
            return;
        }
        if (now - tickDue < 0) {
            return;
        }
        boolean forEvents = forReadiness || waitMs < 0;
        long due = forEvents ? tickDue : Math.max(tickDue, turnEnd + waitMs * 1_000_000L);
        long waited = -1;
        if (runDelay != null) {
            long w0 = runDelay.waitNs;
            long s0 = runDelay.slices;
            if (sampleRunDelay()) {
                waited = RunDelay.meanWaitNs(w0, s0, runDelay.waitNs, runDelay.slices);
            }
        }
        record(tickLagNs(due, now, woke, forEvents, waited));
        tickDue = now + TICK_NS;
    }

    /** Samples the run-queue wait; where it can no longer be read, the loop's select wakes for every tick again. */
    private boolean sampleRunDelay() {
        if (runDelay == null) {
            return false;
        }
        if (runDelay.sample()) {
            return true;
        }
        stop();
        return false;
    }

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

    /**
     * The phase's tick lags ({@code lagsNs}) with the ticks its JVM pauses ({@code pausesNs}, {@link JvmPauses})
     * covered: a pause of d ns counts as the ticks that fell due in it, one every {@link #TICK_NS}, late by d, d − 5 ms,
     * … (those > 0). The loop cannot see a pause that falls while it waits in its select: it stamps its wake-up once the
     * pause has ended, so the turn records only its own part. A pause inside a turn is in that turn's sample as well:
     * counted twice, it errs towards a late loop.
     */
    static long[] withPauses(long[] lagsNs, long[] pausesNs) {
        int extra = 0;
        for (long d : pausesNs) {
            extra += (int) Math.max(0, (d + TICK_NS - 1) / TICK_NS);
        }
        long[] out = Arrays.copyOf(lagsNs, lagsNs.length + extra);
        int k = lagsNs.length;
        for (long d : pausesNs) {
            for (long late = d; late > 0 && k < out.length; late -= TICK_NS) {
                out[k++] = late;
            }
        }
        return out;
    }

    /**
     * How late the loop was for a tick due at {@code dueNs}, recorded at the end of the turn that reached it
     * ({@code nowNs}). {@code wokeNs}: when this turn's select returned; {@code byEvents}: it returned for readiness
     * (not its timeout). A tick that fell due while the loop waited in its select for events was not missed by the
     * loop: only this turn's part counts ({@code nowNs - wokeNs}), and the wait for a core before the turn is in
     * {@code runDelayNs} (the thread's mean run-queue wait per wake-up since the last tick, -1 unknown), which counts
     * when longer. Without it the loop's select never waits past a tick ({@link #waitMs}), so every tick is late by at
     * most its own turn's part and its wake-up: the loop's lateness as a timer measures it.
     */
    static long tickLagNs(long dueNs, long nowNs, long wokeNs, boolean byEvents, long runDelayNs) {
        long from = byEvents && runDelayNs >= 0 && wokeNs - dueNs > 0 ? wokeNs : dueNs;
        return Math.max(Math.max(0, nowNs - from), runDelayNs);
    }

    /**
     * The calling thread's run-queue wait and its count of times on a CPU ({@code /proc/thread-self/schedstat}: ns
     * spent runnable but not running, then the number of times it got a CPU), read without allocating. Open it on
     * the thread it is about: {@code thread-self} names the opener. Read with libc's {@code pread} where the
     * {@code ffm} transport's bindings exist ({@link Libc}): a channel's read costs the loop several times more in
     * Java (its interruptible begin and end, the thread set, a JNI call), at every tick.
     */
    static final class RunDelay implements AutoCloseable {
        private static final String FILE = "/proc/thread-self/schedstat";
        /** The file as a channel, or null when libc reads it. */
        private final FileChannel ch;
        /** libc's {@code FILE *} and its descriptor (0 and -1 with a channel). */
        private final long stream;
        private final int fd;
        private final ByteBuffer buf = ByteBuffer.allocateDirect(96);
        private final long bufAt;
        private final byte[] bytes = new byte[96];
        /** The last {@link #sample()}: run-queue wait (ns) and times on a CPU. */
        long waitNs;
        long slices;

        private RunDelay(FileChannel ch, long stream, int fd) {
            this.ch = ch;
            this.stream = stream;
            this.fd = fd;
            this.bufAt = ch == null ? Libc.address(buf) : 0;
        }

        /**
         * The calling thread's reader, or null where there is none: no such file, or a kernel that keeps no figures
         * (the process's main thread, which has run, shows 0 time on a CPU).
         */
        static RunDelay open() {
            return open(Libc.UNAVAILABLE == null);
        }

        /** {@link #open()} with libc's reader ({@code libc}, where its bindings exist) or a channel's. */
        static RunDelay open(boolean libc) {
            try {
                if (fields(Files.readAllBytes(Path.of("/proc/self/schedstat")), 0) <= 0) {
                    return null;
                }
                RunDelay r = libc ? openWithLibc() : null;
                if (r == null) {
                    r = new RunDelay(FileChannel.open(Path.of(FILE)), 0, -1);
                }
                if (!r.sample()) {
                    r.close();
                    return null;
                }
                return r;
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        /** {@code fopen} and {@code fileno} (open(2) is variadic); null when either fails. */
        private static RunDelay openWithLibc() {
            ByteBuffer text = ByteBuffer.allocateDirect(64);
            text.put(0, (FILE + "\0r\0").getBytes(StandardCharsets.US_ASCII));
            long at = Libc.address(text);
            try {
                long stream = (long) Libc.FOPEN.invokeExact(at, at + FILE.length() + 1);
                if (stream == 0) {
                    return null;
                }
                int fd = (int) Libc.FILENO.invokeExact(stream);
                RunDelay r = new RunDelay(null, stream, fd);
                if (fd < 0) {
                    r.close();
                    return null;
                }
                return r;
            } catch (Throwable t) {
                return null;
            } finally {
                Reference.reachabilityFence(text); // only its address went to libc
            }
        }

        /** Reads the figures into {@link #waitNs} and {@link #slices}; false when they cannot be read. */
        boolean sample() {
            int n;
            try {
                n = ch != null ? ch.read(buf.clear(), 0) : (int) (long) Libc.PREAD.invokeExact(fd, bufAt, 96L, 0L);
            } catch (Throwable t) {
                return false;
            }
            if (n <= 0) {
                return false;
            }
            buf.get(0, bytes, 0, n);
            long w = fields(bytes, n, 1);
            long c = fields(bytes, n, 2);
            if (w < 0 || c < 0) {
                return false;
            }
            waitNs = w;
            slices = c;
            return true;
        }

        /** Which way the figures are read: {@code libc} or {@code channel} (for the tests). */
        String reader() {
            return ch == null ? "libc" : "channel";
        }

        /**
         * The mean run-queue wait per time on a CPU between two samples ({@code w0, s0} then {@code w1, s1}): how
         * long a wake-up of the thread waited for a core, on average, in that stretch; 0 with no time on a CPU.
         */
        static long meanWaitNs(long w0, long s0, long w1, long s1) {
            return s1 - s0 <= 0 ? 0 : Math.max(0, w1 - w0) / (s1 - s0);
        }

        @Override
        public void close() {
            try {
                if (ch != null) {
                    ch.close();
                } else {
                    int ignored = (int) Libc.FCLOSE.invokeExact(stream);
                }
            } catch (Throwable ignored) { // a read-only procfs file
            }
        }
    }

    /** Field {@code k} (0-based) of a schedstat line {@code "cpu_ns wait_ns slices"}; -1 when it is not there. */
    static long fields(byte[] b, int k) {
        return fields(b, b.length, k);
    }

    static long fields(byte[] b, int len, int k) {
        int i = 0;
        for (int f = 0; f <= k; f++) {
            while (i < len && b[i] == ' ') {
                i++;
            }
            long v = 0;
            int digits = 0;
            for (; i < len && b[i] >= '0' && b[i] <= '9' && digits < 19; i++, digits++) {
                v = v * 10 + (b[i] - '0');
            }
            if (digits == 0 || (i < len && b[i] != ' ' && b[i] != '\n')) {
                return -1;
            }
            if (f == k) {
                return v;
            }
        }
        return -1;
    }

    /** The stall the knob asks for, in ns: the environment variable, else the system property; 0 when neither. */
    static long stallNs() {
        String v = System.getenv(STALL_ENV);
        if (v == null || v.isBlank()) {
            v = System.getProperty(STALL_PROPERTY);
        }
        return stallNs(v);
    }

    /** The stall {@code v} (µs, or null/blank for none) asks for, in ns. */
    static long stallNs(String v) {
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
