package io.isobench.loadgen;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link Poller} on libc: {@code epoll_wait}, {@code read} and {@code send} called through
 * {@code java.lang.foreign} (JDK 22 and later), Linux on x86-64 or AArch64. What it saves over {@link NioPoller} is the
 * JDK's selector and channel layers: per ready connection a selection-key update, the channel's locks and begin/end
 * bookkeeping, and the thread-state transition of each read, which {@code read} and {@code send} skip as critical
 * calls (non-blocking sockets: they never block). bench/loadgen measures it (docs/loadgen.md, "Transport").
 *
 * <p>The source is Java 21: the foreign-function API is reached by reflection once, at class initialisation, and
 * every call goes through a {@link MethodHandle} of primitive types (pointers as addresses in a {@code long}, the
 * errno capture segment as an {@code Object}), so a Java 21 runtime, where that API is a preview, simply does not
 * get this transport ({@link #unavailable()} says why).
 */
final class FfmPoller extends Poller {

    // Linux constants: the same on x86-64 and AArch64 (asm-generic)
    private static final int AF_INET = 2, AF_INET6 = 10;
    private static final int SOCK_STREAM = 1, SOCK_NONBLOCK = 0x800, SOCK_CLOEXEC = 0x80000;
    private static final int IPPROTO_TCP = 6, TCP_NODELAY = 1, SOL_SOCKET = 1, SO_ERROR = 4;
    private static final int EPOLL_CTL_ADD = 1, EPOLL_CTL_MOD = 3;
    private static final int EPOLLIN = 0x1, EPOLLOUT = 0x4, EPOLLERR = 0x8, EPOLLHUP = 0x10;
    private static final int EFD_NONBLOCK = 0x800, EFD_CLOEXEC = 0x80000;
    private static final int CLOCK_MONOTONIC = 1;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int EINTR = 4, EAGAIN = 11, EINPROGRESS = 115;
    /** struct epoll_event {u32 events; u64 data}: packed on x86-64 (12 bytes, data at 4), aligned on AArch64. */
    private static final boolean PACKED = "amd64".equals(System.getProperty("os.arch"));
    private static final int EVENT_BYTES = PACKED ? 12 : 16, DATA_AT = PACKED ? 4 : 8;
    /** Events taken per epoll_wait: more than the connections a run keeps open, so every ready one is read at once. */
    private static final int MAX_EVENTS = 4096;

    private final int epfd;
    private final int eventFd;
    /** The periodic timer's fd ({@link #periodic}), -1 without one. */
    private int timerFd = -1;
    /** The errno capture of the loop thread's calls, and its address as the handles take it. */
    private final ByteBuffer errnoBuf = direct(16);
    private final Object errnoSeg;
    private final ByteBuffer events = direct(EVENT_BYTES * MAX_EVENTS);
    private final long eventsAt;
    /** Where reads go: a Java array, filled by a critical call (no copy out of native memory), and its segment. */
    private final byte[] readArr = new byte[64 * 1024];
    private final Object readSeg;
    /** A read that failed is asked again into this native buffer, through the call that captures errno. */
    private final ByteBuffer readBuf = direct(64 * 1024);
    private final long readAt;
    private final ByteBuffer writeBuf = direct(64 * 1024);
    private final long writeAt;
    private final ByteBuffer scratch = direct(64); // sockaddr, epoll_event, socket options (loop thread)
    private final long scratchAt;
    /** The wake-up's 8-byte counter increment, and its address (any thread: only ever read by the kernel). */
    private final ByteBuffer one = direct(8);
    private final long oneAt;
    private final AtomicBoolean woken = new AtomicBoolean();
    private final Object closeLock = new Object();
    private boolean closed; // under closeLock
    private FfmSock[] byFd = new FfmSock[1024];

    FfmPoller() {
        errnoSeg = Libc.segment(errnoBuf);
        eventsAt = Libc.address(events);
        readAt = Libc.address(readBuf);
        readSeg = Libc.segment(readArr);
        writeAt = Libc.address(writeBuf);
        scratchAt = Libc.address(scratch);
        one.putLong(0, 1L);
        oneAt = Libc.address(one);
        try {
            epfd = (int) Libc.EPOLL_CREATE1.invokeExact(0x80000 /* EPOLL_CLOEXEC */);
            eventFd = (int) Libc.EVENTFD.invokeExact(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot open an epoll instance: " + t, t);
        }
        if (epfd < 0 || eventFd < 0) {
            throw new IllegalStateException("cannot open an epoll instance (epoll_create1/eventfd failed)");
        }
        if (ctl(EPOLL_CTL_ADD, eventFd, EPOLLIN) != 0) {
            throw new IllegalStateException("cannot register the wake-up eventfd: " + strerror(errno()));
        }
    }

    /** Why this transport cannot run here, or null when it can. */
    static String unavailable() {
        return Libc.UNAVAILABLE;
    }

    @Override
    String name() {
        return "ffm";
    }

    @Override
    Sock open(Conn c, InetSocketAddress to) throws IOException {
        InetAddress a = to.getAddress();
        if (a == null) {
            throw new IOException("unresolved address " + to.getHostString());
        }
        int family = a instanceof Inet6Address ? AF_INET6 : AF_INET;
        int fd = call3(Libc.SOCKET, family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw new IOException("socket: " + strerror(errno()));
        }
        FfmSock s = new FfmSock(fd, c);
        try {
            scratch.putInt(0, 1);
            if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY) != 0) {
                throw new IOException("setsockopt(TCP_NODELAY): " + strerror(errno()));
            }
            int len = sockaddr(a, to.getPort());
            int rc;
            try {
                rc = (int) Libc.CONNECT.invokeExact(errnoSeg, fd, scratchAt, len);
            } catch (Throwable t) {
                throw new IOException("connect: " + t, t);
            }
            if (rc == 0) {
                s.connected = true;
            } else if (errno() != EINPROGRESS) {
                throw connectFailure(errno());
            }
            if (fd >= byFd.length) {
                byFd = Arrays.copyOf(byFd, Math.max(byFd.length * 2, fd + 1));
            }
            byFd[fd] = s;
            s.interest = s.connected ? 0 : OP_CONNECT;
            if (ctl(EPOLL_CTL_ADD, fd, events(s.interest)) != 0) {
                throw new IOException("epoll_ctl: " + strerror(errno()));
            }
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private int sockaddr(InetAddress a, int port) {
        for (int i = 0; i < 32; i++) {
            scratch.put(i, (byte) 0);
        }
        scratch.put(2, (byte) (port >> 8)); // network byte order
        scratch.put(3, (byte) port);
        byte[] ip = a.getAddress();
        if (a instanceof Inet4Address) {
            scratch.putShort(0, (short) AF_INET);
            scratch.put(4, ip);
            return 16;
        }
        scratch.putShort(0, (short) AF_INET6);
        scratch.put(8, ip);
        scratch.putInt(24, ((Inet6Address) a).getScopeId());
        return 28;
    }

    @Override
    int select(Ready r, long timeoutMs) throws IOException {
        int n;
        try {
            n = (int) Libc.EPOLL_WAIT_PLAIN.invokeExact(epfd, eventsAt, MAX_EVENTS,
                    (int) Math.min(Integer.MAX_VALUE, timeoutMs));
            if (n < 0) {
                // why, asked again without waiting: a signal's EINTR is gone by now (events, or none), an error stays
                n = (int) Libc.EPOLL_WAIT.invokeExact(errnoSeg, epfd, eventsAt, MAX_EVENTS, 0);
            }
        } catch (Throwable t) {
            throw new IOException("epoll_wait: " + t, t);
        }
        if (n < 0) {
            if (errno() == EINTR) {
                return 0;
            }
            throw new IOException("epoll_wait: " + strerror(errno()));
        }
        int socks = 0;
        for (int k = 0; k < n; k++) {
            int ev = events.getInt(EVENT_BYTES * k);
            int fd = events.getInt(EVENT_BYTES * k + DATA_AT);
            if (fd == eventFd) {
                drainWakeup();
                continue;
            }
            if (fd == timerFd) {
                drain(timerFd);
                continue;
            }
            FfmSock s = fd < byFd.length ? byFd[fd] : null;
            if (s == null || s.fd != fd) {
                continue; // closed earlier in this batch
            }
            int ops = 0;
            if ((ev & EPOLLIN) != 0) {
                ops |= OP_READ;
            }
            if ((ev & EPOLLOUT) != 0) {
                ops |= s.connected ? OP_WRITE : OP_CONNECT;
            }
            if ((ev & (EPOLLERR | EPOLLHUP)) != 0) {
                // as NIO reports them: every operation asked for is ready (its call then sees the error or EOF); with
                // none asked for, a read, so the loop learns the connection is gone instead of being woken forever
                ops |= s.interest != 0 ? s.interest : OP_READ;
            }
            ops &= s.interest != 0 ? s.interest : OP_READ;
            if (ops != 0) {
                socks++;
                r.ready(s.conn, ops);
            }
        }
        return socks;
    }

    private void drainWakeup() {
        woken.set(false);
        drain(eventFd);
    }

    /** Reads an eventfd's or timerfd's 8-byte counter (EAGAIN when already drained). */
    private void drain(int fd) {
        try {
            long ignored = (long) Libc.READ.invokeExact(errnoSeg, fd, readAt, 8L);
        } catch (Throwable t) {
            throw new IllegalStateException("eventfd/timerfd read: " + t, t);
        }
    }

    /**
     * A timerfd in the epoll set that expires every {@code periodNs} on its own: the kernel re-arms it at each expiry,
     * so a select can wait without a timeout of its own and no timer is set and cancelled per call.
     */
    @Override
    boolean periodic(long periodNs) {
        if (timerFd >= 0) {
            return true;
        }
        int fd;
        try {
            fd = (int) Libc.TIMERFD_CREATE.invokeExact(CLOCK_MONOTONIC, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            return false;
        }
        if (fd < 0) {
            return false;
        }
        // struct itimerspec {it_interval; it_value}, each {tv_sec; tv_nsec} of 8 bytes
        long sec = periodNs / 1_000_000_000L;
        long nsec = periodNs % 1_000_000_000L;
        scratch.putLong(0, sec).putLong(8, nsec).putLong(16, sec).putLong(24, nsec);
        int rc;
        try {
            rc = (int) Libc.TIMERFD_SETTIME.invokeExact(fd, 0, scratchAt, 0L);
        } catch (Throwable t) {
            rc = -1;
        }
        if (rc != 0 || ctl(EPOLL_CTL_ADD, fd, EPOLLIN) != 0) {
            closeFd(fd);
            return false;
        }
        timerFd = fd;
        return true;
    }

    @Override
    void wakeup() {
        if (!woken.compareAndSet(false, true)) {
            return; // a wake-up is pending: the next epoll_wait returns at once anyway
        }
        synchronized (closeLock) {
            if (!closed) {
                try {
                    long ignored = (long) Libc.WRITE_PLAIN.invokeExact(eventFd, oneAt, 8L);
                } catch (Throwable t) {
                    throw new IllegalStateException("eventfd write: " + t, t);
                }
            }
        }
    }

    @Override
    byte[] readArray() {
        return readArr;
    }

    @Override
    public void close() {
        for (FfmSock s : byFd) {
            if (s != null) {
                s.close();
            }
        }
        synchronized (closeLock) {
            if (!closed) {
                closed = true;
                closeFd(eventFd);
                if (timerFd >= 0) {
                    closeFd(timerFd);
                }
                closeFd(epfd);
            }
        }
    }

    private int ctl(int op, int fd, int ev) {
        scratch.putInt(32, ev);
        scratch.putInt(32 + DATA_AT, fd);
        if (DATA_AT == 8) {
            scratch.putInt(36, 0);
            scratch.putInt(44, 0);
        } else {
            scratch.putInt(40, 0);
        }
        try {
            return (int) Libc.EPOLL_CTL.invokeExact(errnoSeg, epfd, op, fd, scratchAt + 32);
        } catch (Throwable t) {
            throw new IllegalStateException("epoll_ctl: " + t, t);
        }
    }

    private static int events(int ops) {
        return ((ops & OP_READ) != 0 ? EPOLLIN : 0) | ((ops & (OP_WRITE | OP_CONNECT)) != 0 ? EPOLLOUT : 0);
    }

    private int setsockopt(int fd, int level, int name) {
        try {
            return (int) Libc.SETSOCKOPT.invokeExact(errnoSeg, fd, level, name, scratchAt, 4);
        } catch (Throwable t) {
            throw new IllegalStateException("setsockopt: " + t, t);
        }
    }

    private int call3(MethodHandle h, int a, int b, int c) {
        try {
            return (int) h.invokeExact(errnoSeg, a, b, c);
        } catch (Throwable t) {
            throw new IllegalStateException(t.toString(), t);
        }
    }

    private static void closeFd(int fd) {
        try {
            int ignored = (int) Libc.CLOSE.invokeExact(fd);
        } catch (Throwable ignored) { // closing: nothing to recover
        }
    }

    private int errno() {
        return errnoBuf.getInt(0);
    }

    private static IOException connectFailure(int errno) {
        return errno == 111 ? new ConnectException("Connection refused") : new IOException("connect: " + strerror(errno));
    }

    /** The usual message for the socket errors a client meets; others by number. */
    static String strerror(int errno) {
        return switch (errno) {
            case 104 -> "Connection reset by peer";
            case 111 -> "Connection refused";
            case 110 -> "Connection timed out";
            case 113 -> "No route to host";
            case 101 -> "Network is unreachable";
            case 32 -> "Broken pipe";
            case 24 -> "Too many open files";
            case 99 -> "Cannot assign requested address";
            case 9 -> "Bad file descriptor";
            case 22 -> "Invalid argument";
            default -> "errno " + errno;
        };
    }

    private static ByteBuffer direct(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    private final class FfmSock extends Sock {
        private int fd;
        private final Conn conn;
        private boolean connected;
        private int interest;

        FfmSock(int fd, Conn conn) {
            this.fd = fd;
            this.conn = conn;
        }

        @Override
        boolean connected() {
            return connected;
        }

        @Override
        void finishConnect() throws IOException {
            scratch.putInt(0, 0);
            scratch.putInt(8, 4);
            int rc;
            try {
                rc = (int) Libc.GETSOCKOPT.invokeExact(errnoSeg, fd, SOL_SOCKET, SO_ERROR, scratchAt, scratchAt + 8);
            } catch (Throwable t) {
                throw new IOException("getsockopt: " + t, t);
            }
            int err = rc != 0 ? errno() : scratch.getInt(0);
            if (err != 0) {
                throw connectFailure(err);
            }
            connected = true;
        }

        @Override
        void interest(int ops) throws IOException {
            if (fd < 0) {
                throw new IOException("connection closed");
            }
            if (ops != interest) {
                interest = ops;
                if (ctl(EPOLL_CTL_MOD, fd, events(ops)) != 0) {
                    throw new IOException("epoll_ctl: " + strerror(errno()));
                }
            }
        }

        @Override
        int read() throws IOException {
            if (fd < 0) {
                throw new IOException("connection closed");
            }
            long n;
            boolean askedAgain = false;
            try {
                n = (long) Libc.READ_HEAP.invokeExact(fd, readSeg, (long) readArr.length);
                if (n < 0) {
                    askedAgain = true;
                    // why, asked again through the read that captures errno (its checks showed in perf on every
                    // read). The loop reads only a socket epoll reported readable (data or its end), so the first
                    // call failed with a socket error (ECONNRESET, ETIMEDOUT), not EAGAIN; taking it cleared it, and
                    // the socket now reads as at its end: that end, right after a failed read, is the error's
                    n = (long) Libc.READ.invokeExact(errnoSeg, fd, readAt, (long) readBuf.capacity());
                    if (n > 0) {
                        readBuf.get(0, readArr, 0, (int) n);
                    }
                }
            } catch (Throwable t) {
                throw new IOException("read: " + t, t);
            }
            if (n > 0) {
                return (int) n;
            }
            if (n == 0) {
                if (askedAgain) {
                    throw new IOException("read failed, and the connection is at its end (reset by the peer or"
                            + " another socket error)");
                }
                return -1;
            }
            int e = errno();
            if (e == EAGAIN || e == EINTR) {
                return 0;
            }
            throw new IOException(strerror(e));
        }

        @Override
        int write(ByteBuffer src) throws IOException {
            if (fd < 0) {
                throw new IOException("connection closed");
            }
            int total = 0;
            while (src.hasRemaining()) {
                int len = Math.min(src.remaining(), writeBuf.capacity());
                writeBuf.clear();
                writeBuf.put(0, src, src.position(), len);
                long n;
                try {
                    n = (long) Libc.SEND.invokeExact(errnoSeg, fd, writeAt, (long) len, MSG_NOSIGNAL);
                } catch (Throwable t) {
                    throw new IOException("send: " + t, t);
                }
                if (n < 0) {
                    int e = errno();
                    if (e == EAGAIN || e == EINTR) {
                        return total;
                    }
                    throw new IOException(strerror(e));
                }
                src.position(src.position() + (int) n);
                total += (int) n;
                if (n < len) {
                    return total;
                }
            }
            return total;
        }

        @Override
        boolean isOpen() {
            return fd >= 0;
        }

        @Override
        void close() {
            if (fd < 0) {
                return;
            }
            if (fd < byFd.length && byFd[fd] == this) {
                byFd[fd] = null;
            }
            closeFd(fd); // also leaves the epoll set
            fd = -1;
        }
    }
}
