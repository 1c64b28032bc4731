import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * The Java floor of bench/loadgen: bench/floor_client.c's loop written with the JDK's NIO (one thread, one Selector,
 * non-blocking keep-alive HTTP/1.1 connections, one read() per readiness event into a direct buffer, no JSON parsing:
 * it only finds each chunk's server stamp and the end of each response). It is what any Java 21 client pays per chunk
 * in the JDK's selector and channel layers, with no client logic on top: isobench's load generator minus this is
 * isobench's own code; this minus the C floor is the JDK's.
 *
 * <pre>java bench/FloorClient.java PORT CONCURRENCY REQUESTS WARMUPS MAX_TOKENS [USAGE]</pre>
 *
 * USAGE 1 asks for {@code stream_options.include_usage}, as isobench loadgen does by default: the server then sends
 * one more event per response (the usage chunk, no text: not a chunk here either), so both read the same stream.
 *
 * Prints one JSON line with floor_client.c's keys (client "floor-java"). CPU: the process's (all threads: the JIT and
 * GC threads count, as they do for isobench) over the measured phase, from the OS's per-process clock; the user/sys
 * split from /proc/self/stat (clock ticks).
 */
public final class FloorClient {

    private static final byte[] TEXT = "\"text\":\"".getBytes(StandardCharsets.US_ASCII);
    static final byte[] END = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** One connection's scan state; {@code ch} is null in FfmFloorClient, which keeps its descriptor in {@code fd}. */
    static final class Conn {
        final SocketChannel ch;
        int fd;
        final byte[] tail = new byte[16];
        int tailLen;
        long prevArrival;
        long prevStamp;
        boolean measured;

        Conn(SocketChannel ch) {
            this.ch = ch;
        }
    }

    static long[] lat;
    static long[] itl;
    static int nLat;
    static int nItl;
    static long chunks;

    public static void main(String[] args) throws IOException {
        if (args.length != 5 && args.length != 6) {
            System.err.println("usage: FloorClient PORT CONCURRENCY REQUESTS WARMUPS MAX_TOKENS [USAGE]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int conc = Integer.parseInt(args[1]);
        int total = Integer.parseInt(args[2]);
        int warm = Integer.parseInt(args[3]);
        int tokens = Integer.parseInt(args[4]);
        String body = "{\"model\":\"test\",\"prompt\":\"hello world\",\"max_tokens\":" + tokens
                + ",\"ignore_eos\":true,\"stream\":true"
                + (args.length == 6 && args[5].equals("1") ? ",\"stream_options\":{\"include_usage\":true}}" : "}");
        byte[] request = ("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
        int cap = total * (tokens + 2) + 16;
        lat = new long[cap];
        itl = new long[cap];
        Selector selector = Selector.open();
        int started = 0;
        int done = 0;
        double[] cpu0 = new double[3];
        long t0 = 0;
        long wall0 = System.nanoTime();
        if (warm == 0) {
            cpu0 = cpu();
            t0 = System.nanoTime();
        }
        InetSocketAddress addr = new InetSocketAddress("127.0.0.1", port);
        for (int i = 0; i < conc && started < total; i++) {
            SocketChannel ch = SocketChannel.open(addr);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            Conn c = new Conn(ch);
            ch.register(selector, SelectionKey.OP_READ, c);
            c.measured = started >= warm;
            send(ch, request);
            started++;
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(65536 + 16);
        byte[] bytes = new byte[65536 + 16];
        int[] state = {started, done};
        long[] t0Box = {t0};
        double[][] cpu0Box = {cpu0};
        while (state[1] < total) {
            selector.select(key -> {
                Conn c = (Conn) key.attachment();
                try {
                    buf.clear();
                    buf.put(c.tail, 0, c.tailLen);
                    int r = c.ch.read(buf);
                    if (r <= 0) {
                        System.err.println("read: connection closed");
                        System.exit(1);
                    }
                    long arrival = System.nanoTime();
                    int len = buf.position();
                    buf.flip();
                    buf.get(bytes, 0, len);
                    scan(c, bytes, len, arrival);
                    boolean end = len >= 5 && Arrays.equals(bytes, len - 5, len, END, 0, 5);
                    c.tailLen = Math.min(len, 15);
                    System.arraycopy(bytes, len - c.tailLen, c.tail, 0, c.tailLen);
                    if (end) {
                        state[1]++;
                        c.tailLen = 0;
                        c.prevStamp = 0;
                        if (state[1] == warm) {
                            cpu0Box[0] = cpu();
                            t0Box[0] = System.nanoTime();
                        }
                        if (state[0] < total) {
                            c.measured = state[0] >= warm;
                            send(c.ch, request);
                            state[0]++;
                        }
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
        }
        report("floor-java", cpu0Box[0], t0Box[0], wall0);
    }

    /** Prints floor_client.c's JSON line for the measured phase that began at {@code t0} with CPU {@code cpu0}. */
    static void report(String client, double[] cpu0, long t0, long wall0) {
        double[] cpu1 = cpu();
        double wall = (System.nanoTime() - t0) / 1e9;
        Arrays.sort(lat, 0, nLat);
        Arrays.sort(itl, 0, nItl);
        System.out.println(String.format(Locale.ROOT, "{\"client\": \"%s\", \"chunks\": %d, \"cpu_s\": %.6f, "
                        + "\"cpu_user_s\": %.6f, \"cpu_sys_s\": %.6f, \"cpu_total_s\": %.6f, \"wall_s\": %.6f, "
                        + "\"whole_wall_s\": %.6f, \"failed\": 0, \"lat_p50_ms\": %.4f, \"lat_p99_ms\": %.4f, "
                        + "\"lat_max_ms\": %.4f, \"itl_err_p99_ms\": %.4f}",
                client, chunks, cpu1[0] - cpu0[0], cpu1[1] - cpu0[1], cpu1[2] - cpu0[2], cpu1[0], wall,
                (System.nanoTime() - wall0) / 1e9, pct(lat, nLat, 50), pct(lat, nLat, 99),
                nLat > 0 ? lat[nLat - 1] / 1e6 : -1, pct(itl, nItl, 99)));
    }

    /** Finds each {@code "text":"<digits>} in the bytes after the carried tail, as floor_client.c does. */
    static void scan(Conn c, byte[] b, int len, long arrival) {
        outer:
        for (int p = 0; p + TEXT.length <= len; p++) {
            for (int k = 0; k < TEXT.length; k++) {
                if (b[p + k] != TEXT[k]) {
                    continue outer;
                }
            }
            int q = p + TEXT.length;
            if (q >= len || b[q] < '0' || b[q] > '9') {
                continue;
            }
            long stamp = 0;
            while (q < len && b[q] >= '0' && b[q] <= '9') {
                stamp = stamp * 10 + (b[q++] - '0');
            }
            if (p < c.tailLen) {
                continue; // counted in the previous read
            }
            if (c.measured) {
                chunks++;
                lat[nLat++] = arrival - stamp;
                if (c.prevStamp != 0) {
                    itl[nItl++] = Math.abs((arrival - c.prevArrival) - (stamp - c.prevStamp));
                }
            }
            c.prevArrival = arrival;
            c.prevStamp = stamp;
        }
    }

    private static void send(SocketChannel ch, byte[] request) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(request);
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    /** {process CPU s (ns clock), user s, sys s (/proc/self/stat ticks, 100 per second)}. */
    static double[] cpu() {
        double total = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new double[]{total, Long.parseLong(f[11]) / 100.0, Long.parseLong(f[12]) / 100.0};
        } catch (IOException e) {
            return new double[]{total, Double.NaN, Double.NaN};
        }
    }

    private static double pct(long[] v, int n, double p) {
        if (n == 0) {
            return -1;
        }
        return v[(int) (p / 100.0 * (n - 1) + 0.5)] / 1e6;
    }
}
