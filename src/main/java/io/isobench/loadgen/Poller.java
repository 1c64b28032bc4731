package io.isobench.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * The socket layer under the {@link EventLoop}: non-blocking TCP connections, one readiness poller, a wake-up from
 * other threads. Two implementations with the same semantics (level-triggered readiness, one read per ready
 * connection): {@link FfmPoller}, libc's epoll, {@code read} and {@code send} called through {@code java.lang.foreign}
 * on a JDK that has it (22 and later, Linux on x86-64 or AArch64), and {@link NioPoller}, the JDK's selector and
 * socket channels, everywhere else. The choice is {@value #TRANSPORT_ENV} ({@code auto}, the default, {@code ffm} or
 * {@code nio}) and is recorded with every run (docs/loadgen.md, "Transport").
 */
abstract class Poller implements AutoCloseable {

    /** Ready and interest operations. */
    static final int OP_CONNECT = 1, OP_READ = 2, OP_WRITE = 4;

    /** Environment variable (or system property {@value #TRANSPORT_PROPERTY}) choosing the transport. */
    static final String TRANSPORT_ENV = "ISOBENCH_LOADGEN_TRANSPORT";
    static final String TRANSPORT_PROPERTY = "isobench.loadgen.transport";

    /** Told, on the loop thread, of one ready connection and its ready operations. */
    interface Ready {
        void ready(Conn c, int ops);
    }

    /** One non-blocking TCP connection. Loop thread only. */
    abstract static class Sock {
        /** Whether the connect completed at once (else it waits for {@link #OP_CONNECT}). */
        abstract boolean connected();

        /** Completes a connect that {@link #OP_CONNECT} reported; throws when it failed. */
        abstract void finishConnect() throws IOException;

        /** The operations to be told about ({@code OP_*}, 0 for none). */
        abstract void interest(int ops) throws IOException;

        /** Reads into the poller's {@link #readArray()}, from index 0: bytes read, 0 for none, -1 at EOF. */
        abstract int read() throws IOException;

        /** Writes what {@code src} has left, as far as the socket takes it; advances its position. */
        abstract int write(ByteBuffer src) throws IOException;

        abstract boolean isOpen();

        /** Closes the connection (quietly: closing has nothing to recover). */
        abstract void close();
    }

    /** The transport's name as recorded: {@code ffm} or {@code nio}. */
    abstract String name();

    /** Opens a non-blocking connection to {@code to} with TCP_NODELAY, for {@code c}. */
    abstract Sock open(Conn c, InetSocketAddress to) throws IOException;

    /**
     * Waits up to {@code timeoutMs} (0: not at all; -1: until readiness, a wake-up or the {@link #periodic} timer, only
     * where that is set) for readiness and tells {@code r} of every ready connection; returns how many were ready (0
     * after a time-out, a {@link #wakeup()} or the periodic timer).
     */
    abstract int select(Ready r, long timeoutMs) throws IOException;

    /** Any thread: the current or next {@link #select} returns at once. */
    abstract void wakeup();

    /**
     * Before the loop starts: makes {@link #select} also return every {@code periodNs} (a timer the kernel re-arms on
     * its own), so the loop may wait with no timeout (-1) and still wake for its deadlines. False where this poller
     * cannot (NIO's selector): its selects keep their timeouts.
     */
    boolean periodic(long periodNs) {
        return false;
    }

    /** The array every {@link Sock#read} fills from index 0 (loop thread only; 64 KiB). */
    abstract byte[] readArray();

    /** Closes every connection still open and the poller. */
    @Override
    public abstract void close();

    /** The transport {@value #TRANSPORT_ENV} (else {@value #TRANSPORT_PROPERTY}) names, opened. */
    static Poller open() {
        String v = System.getenv(TRANSPORT_ENV);
        if (v == null || v.isBlank()) {
            v = System.getProperty(TRANSPORT_PROPERTY);
        }
        return open(v);
    }

    /** {@code choice}: {@code auto} (or null/blank), {@code ffm} or {@code nio}. */
    static Poller open(String choice) {
        String c = choice == null || choice.isBlank() ? "auto" : choice.strip().toLowerCase(Locale.ROOT);
        switch (c) {
            case "nio" -> {
                return new NioPoller();
            }
            case "ffm" -> {
                String why = FfmPoller.unavailable();
                if (why != null) {
                    throw new IllegalArgumentException(TRANSPORT_ENV + "=ffm: " + why + "; use auto or nio");
                }
                return new FfmPoller();
            }
            case "auto" -> {
                return FfmPoller.unavailable() == null ? new FfmPoller() : new NioPoller();
            }
            default -> throw new IllegalArgumentException(TRANSPORT_ENV + " (" + choice
                    + ") must be auto, ffm or nio");
        }
    }
}
