import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The foreign-function floor of bench/loadgen (client {@code ffloor}): bench/FloorClient.java's loop with the JDK's NIO
 * replaced by direct calls into libc through {@code java.lang.foreign} (Java 22+): {@code socket}, {@code connect},
 * {@code epoll_wait}, and {@code read}/{@code write} as critical calls straight into the heap array. The same one read
 * per readiness event and the same byte scan for the stamps, so ffloor − jfloor is what the JDK's selector and channel
 * layers cost per chunk, and ffloor − the C floor what a JVM costs with them out of the way: the measure of what a
 * foreign-function transport in isobench could save (docs/loadgen.md, "The cost claim as a paired verdict").
 *
 * <pre>java --enable-native-access=ALL-UNNAMED FfmFloorClient PORT CONCURRENCY REQUESTS WARMUPS MAX_TOKENS [USAGE]</pre>
 *
 * Linux only (its socket, fcntl and epoll constants). Built with FloorClient.java, whose scan, CPU clock and JSON line
 * (client "floor-ffm") it uses, so the two floors differ only in their transport.
 */
public final class FfmFloorClient {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final MethodHandle SOCKET = call("socket", FunctionDescriptor.of(INT, INT, INT, INT));
    private static final MethodHandle CONNECT = call("connect", FunctionDescriptor.of(INT, INT, ValueLayout.ADDRESS, INT));
    private static final MethodHandle SETSOCKOPT = call("setsockopt",
            FunctionDescriptor.of(INT, INT, INT, INT, ValueLayout.ADDRESS, INT));
    private static final MethodHandle FCNTL = call("fcntl", FunctionDescriptor.of(INT, INT, INT, INT),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle EPOLL_CREATE1 = call("epoll_create1", FunctionDescriptor.of(INT, INT));
    private static final MethodHandle EPOLL_CTL = call("epoll_ctl",
            FunctionDescriptor.of(INT, INT, INT, INT, ValueLayout.ADDRESS));
    private static final MethodHandle EPOLL_WAIT = call("epoll_wait",
            FunctionDescriptor.of(INT, INT, ValueLayout.ADDRESS, INT, INT));
    // non-blocking sockets: read and write never block, so they may skip the thread-state transition
    private static final MethodHandle READ = call("read", FunctionDescriptor.of(LONG, INT, ValueLayout.ADDRESS, LONG),
            Linker.Option.critical(true));
    private static final MethodHandle WRITE = call("write", FunctionDescriptor.of(LONG, INT, ValueLayout.ADDRESS, LONG),
            Linker.Option.critical(true));
    private static final int AF_INET = 2;
    private static final int SOCK_STREAM = 1;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_NODELAY = 1;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLLIN = 1;
    // struct epoll_event {u32 events; u64 data}: packed on x86-64 (12 bytes, data at 4), aligned elsewhere (16, at 8)
    private static final boolean PACKED = System.getProperty("os.arch").equals("amd64");
    private static final int EVENT_BYTES = PACKED ? 12 : 16;
    private static final int DATA_AT = PACKED ? 4 : 8;


    // the loop's state, in fields so that turn() is a method of its own the JIT compiles (main's loop would stay
    // interpreted: it is called once)
    private static int epfd;
    private static MemorySegment events;
    private static FloorClient.Conn[] byFd;
    private static byte[] bytes;
    private static MemorySegment heap;
    private static byte[] request;
    private static int started;
    private static int done;
    private static int total;
    private static int warm;
    private static double[] cpu0;
    private static long t0;

    public static void main(String[] args) throws Throwable {
        if (args.length != 5 && args.length != 6) {
            System.err.println("usage: FfmFloorClient PORT CONCURRENCY REQUESTS WARMUPS MAX_TOKENS [USAGE]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int conc = Integer.parseInt(args[1]);
        total = Integer.parseInt(args[2]);
        warm = Integer.parseInt(args[3]);
        int tokens = Integer.parseInt(args[4]);
        String body = "{\"model\":\"test\",\"prompt\":\"hello world\",\"max_tokens\":" + tokens
                + ",\"ignore_eos\":true,\"stream\":true"
                + (args.length == 6 && args[5].equals("1") ? ",\"stream_options\":{\"include_usage\":true}}" : "}");
        request = ("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
        int cap = total * (tokens + 2) + 16;
        FloorClient.lat = new long[cap];
        FloorClient.itl = new long[cap];
        Arena arena = Arena.global();
        epfd = (int) EPOLL_CREATE1.invokeExact(0);
        MemorySegment addr = arena.allocate(16); // struct sockaddr_in for 127.0.0.1:port
        addr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
        addr.set(ValueLayout.JAVA_BYTE, 2, (byte) (port >> 8));
        addr.set(ValueLayout.JAVA_BYTE, 3, (byte) port);
        addr.set(ValueLayout.JAVA_BYTE, 4, (byte) 127);
        addr.set(ValueLayout.JAVA_BYTE, 7, (byte) 1);
        MemorySegment one = arena.allocate(4);
        one.set(INT, 0, 1);
        MemorySegment ev = arena.allocate(EVENT_BYTES);
        events = arena.allocate((long) EVENT_BYTES * 256);
        byFd = new FloorClient.Conn[65536];
        bytes = new byte[65536 + 16];
        heap = MemorySegment.ofArray(bytes);
        long wall0 = System.nanoTime();
        cpu0 = FloorClient.cpu();
        t0 = wall0;
        for (int i = 0; i < conc && started < total; i++) {
            int fd = (int) SOCKET.invokeExact(AF_INET, SOCK_STREAM, 0);
            if (fd < 0 || fd >= byFd.length || (int) CONNECT.invokeExact(fd, addr, 16) != 0
                    || (int) SETSOCKOPT.invokeExact(fd, IPPROTO_TCP, TCP_NODELAY, one, 4) != 0
                    || (int) FCNTL.invokeExact(fd, F_SETFL, O_NONBLOCK) != 0) {
                System.err.println("connect: cannot open a connection to 127.0.0.1:" + port);
                System.exit(1);
            }
            FloorClient.Conn c = new FloorClient.Conn(null);
            c.fd = fd;
            byFd[fd] = c;
            ev.set(INT, 0, EPOLLIN);
            ev.set(ValueLayout.JAVA_INT_UNALIGNED, DATA_AT, fd);
            if ((int) EPOLL_CTL.invokeExact(epfd, EPOLL_CTL_ADD, fd, ev) != 0) {
                System.err.println("epoll_ctl failed");
                System.exit(1);
            }
            c.measured = started >= warm;
            send(fd);
            started++;
        }
        while (done < total) {
            turn();
        }
        FloorClient.report("floor-ffm", cpu0, t0, wall0);
    }

    private static void turn() throws Throwable {
        int n = (int) EPOLL_WAIT.invokeExact(epfd, events, 256, -1);
        for (int k = 0; k < n; k++) {
            readOne(byFd[events.get(ValueLayout.JAVA_INT_UNALIGNED, (long) EVENT_BYTES * k + DATA_AT)]);
        }
    }

    private static void readOne(FloorClient.Conn c) throws Throwable {
        System.arraycopy(c.tail, 0, bytes, 0, c.tailLen);
        long r = (long) READ.invokeExact(c.fd, heap.asSlice(c.tailLen), 65536L);
        if (r <= 0) {
            System.err.println("read: connection closed");
            System.exit(1);
        }
        long arrival = System.nanoTime();
        int len = c.tailLen + (int) r;
        FloorClient.scan(c, bytes, len, arrival);
        boolean end = len >= 5 && Arrays.equals(bytes, len - 5, len, FloorClient.END, 0, 5);
        c.tailLen = Math.min(len, 15);
        System.arraycopy(bytes, len - c.tailLen, c.tail, 0, c.tailLen);
        if (end) {
            done++;
            c.tailLen = 0;
            c.prevStamp = 0;
            if (done == warm) {
                cpu0 = FloorClient.cpu();
                t0 = System.nanoTime();
            }
            if (started < total) {
                c.measured = started >= warm;
                send(c.fd);
                started++;
            }
        }
    }


    private static void send(int fd) throws Throwable {
        MemorySegment m = MemorySegment.ofArray(request);
        long off = 0;
        while (off < request.length) {
            long w = (long) WRITE.invokeExact(fd, m.asSlice(off), request.length - off);
            if (w > 0) {
                off += w;
            }
        }
    }

    private static MethodHandle call(String name, FunctionDescriptor d, Linker.Option... options) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), d, options);
    }

}
