package io.isobench.loadgen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both socket layers under the event loop, against real loopback sockets: a request larger than one write buffer,
 * a reply read to EOF, a refused connect, IPv6, a wake-up from another thread. The ffm transport must be the one a
 * JDK 22+ on Linux x86-64/AArch64 gets (else the loop silently fell back to NIO and bench/loadgen measures the wrong
 * thing).
 */
@Isolated("it sets the JVM-wide transport property every load generator reads: nothing runs beside it (ItLocks)")
class PollerTest {

    private static boolean ffmHere() {
        String arch = System.getProperty("os.arch", "");
        return Runtime.version().feature() >= 22 && System.getProperty("os.name", "").toLowerCase(Locale.ROOT)
                .startsWith("linux") && (arch.equals("amd64") || arch.equals("aarch64"));
    }

    private static Poller poller(String name) {
        assumeTrue(!name.equals("ffm") || ffmHere(), "the ffm transport needs JDK 22+ on Linux x86-64/AArch64");
        return Poller.open(name);
    }

    @Test
    void autoPicksTheForeignFunctionTransportWhereItCanRun() {
        assumeTrue(ffmHere(), "JDK 22+ on Linux x86-64/AArch64 only");
        assertNull(FfmPoller.unavailable(), "FFM must link here (surefire runs with --enable-native-access)");
        try (Poller p = Poller.open("auto")) {
            assertEquals("ffm", p.name());
        }
        try (Poller p = Poller.open("nio")) {
            assertEquals("nio", p.name());
        }
    }

    @Test
    void aBadChoiceIsAOneLineErrorNamingTheVariable() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Poller.open("epoll"));
        assertEquals("ISOBENCH_LOADGEN_TRANSPORT (epoll) must be auto, ffm or nio", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffm", "nio"})
    void sendsALargeRequestAndReadsTheReplyToEof(String transport) throws Exception {
        byte[] request = new byte[200_000 + 7]; // more than the 64 KiB a write takes at once
        for (int i = 0; i < request.length; i++) {
            request[i] = (byte) (i * 31 + 7);
        }
        try (Poller p = poller(transport); ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> got = serveOnce(server, request.length, "hello from the server");
            byte[] reply = exchange(p, new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), request);
            assertEquals("hello from the server", new String(reply, StandardCharsets.US_ASCII));
            assertArrayEquals(request, got.get(10, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffm", "nio"})
    void worksOverIpv6(String transport) throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        ServerSocket server;
        try {
            server = new ServerSocket(0, 8, v6);
        } catch (IOException e) {
            assumeTrue(false, "no IPv6 loopback here: " + e.getMessage());
            return;
        }
        assertTrue(v6 instanceof Inet6Address);
        try (Poller p = poller(transport); server) {
            CompletableFuture<byte[]> got = serveOnce(server, 5, "six!");
            byte[] reply = exchange(p, new InetSocketAddress(v6, server.getLocalPort()), "abcde".getBytes(StandardCharsets.US_ASCII));
            assertEquals("six!", new String(reply, StandardCharsets.US_ASCII));
            assertEquals("abcde", new String(got.get(10, TimeUnit.SECONDS), StandardCharsets.US_ASCII));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffm", "nio"})
    void aRefusedConnectIsAConnectException(String transport) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try (Poller p = poller(transport)) {
            ConnectException e = assertThrows(ConnectException.class, () -> {
                Poller.Sock s = p.open(new Conn(null), to);
                if (!s.connected()) {
                    int[] ops = {0};
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (ops[0] == 0 && System.nanoTime() < end) {
                        p.select((c, o) -> ops[0] = o, 100);
                    }
                    assertEquals(Poller.OP_CONNECT, ops[0] & Poller.OP_CONNECT);
                    s.finishConnect();
                }
            });
            assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
        }
    }

    @Test
    void theForeignFunctionPollersPeriodicTimerEndsAWaitWithoutATimeoutAgainAndAgain() throws Exception {
        try (Poller p = poller("ffm")) {
            assertTrue(p.periodic(30_000_000L), "a timerfd in the epoll set");
            long t0 = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                assertEquals(0, p.select((c, o) -> { }, -1)); // no timeout: only the timer can end it
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            // five expiries of a 30 ms period: 150 ms, give or take the first; never at once (a counter left unread
            // would keep the fd ready and the loop spinning)
            assertTrue(ms >= 110 && ms < 10_000, "five waits took " + ms + " ms");
        }
        try (Poller p = poller("nio")) {
            assertFalse(p.periodic(30_000_000L), "NIO's selector cannot hold a timerfd: its selects keep timeouts");
        }
    }

    @Test
    void theForeignFunctionPollersFailedWaitSaysWhyThoughTheWaitItselfCapturesNoErrno() {
        Poller p = poller("ffm");
        p.close(); // its epoll fd is closed: the wait fails, not with EINTR, every time
        IOException e = assertThrows(IOException.class, () -> p.select((c, o) -> { }, 0));
        // EBADF; EINVAL should another test's file have taken the number meanwhile
        assertTrue(e.getMessage().equals("epoll_wait: Bad file descriptor")
                || e.getMessage().equals("epoll_wait: Invalid argument"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffm", "nio"})
    void aWakeupFromAnotherThreadEndsTheWait(String transport) throws Exception {
        try (Poller p = poller(transport)) {
            long t0 = System.nanoTime();
            Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                p.wakeup();
            });
            assertEquals(0, p.select((c, o) -> { }, 20_000));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 10_000, "the wake-up did not end a 20 s wait (" + ms + " ms)");
            p.wakeup(); // before the wait: the next one returns at once, as NIO's does
            assertEquals(0, p.select((c, o) -> { }, 20_000));
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 15_000);
        }
    }

    @Test
    void aWholeRunGivesTheSameResultsOverBothTransportsAndRecordsWhichOneRan() throws Exception {
        assumeTrue(ffmHere(), "the ffm transport needs JDK 22+ on Linux x86-64/AArch64");
        try (StreamingTestServer server = new StreamingTestServer(0, 2, 1, 0)) {
            LoadgenConfig c = LoadgenConfig.builder().baseUrl(server.baseUrl()).model("test")
                    .dataset(DatasetSpec.fixed("hello world", 20)).ignoreEos(true)
                    .maxConcurrency(8).numPrompts(64).build();
            Map<String, LoadgenResult> byTransport = new LinkedHashMap<>();
            for (String t : new String[] {"ffm", "nio"}) {
                System.setProperty(Poller.TRANSPORT_PROPERTY, t);
                try {
                    byTransport.put(t, LoadGenerator.run(c, null));
                } finally {
                    System.clearProperty(Poller.TRANSPORT_PROPERTY);
                }
            }
            for (var e : byTransport.entrySet()) {
                LoadgenResult r = e.getValue();
                assertEquals(e.getKey(), r.clientCpu().transport());
                assertEquals(64, r.summary().completed());
                assertEquals(0, r.summary().failed());
                assertEquals(64 * 20, r.summary().chunks());
                assertTrue(r.requests().stream().allMatch(q -> q.outputTokens() == 20), e.getKey());
            }
            assertEquals(byTransport.get("ffm").requests().stream().map(RequestResult::generatedText).toList(),
                    byTransport.get("nio").requests().stream().map(RequestResult::generatedText).toList());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ffm", "nio"})
    void aConnectionResetByTheServerIsAReadFailureNotAnEnd(String transport) throws Exception {
        // the ffm read captures no errno: its failure is asked again, after the first call took the error (the socket
        // then reads as at its end); a reset must still be a failure there, as it is on NIO, never a clean end
        try (Poller p = poller(transport); ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> got = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = server.accept()) {
                    got.complete(s.getInputStream().readNBytes(5));
                    s.getOutputStream().write("partial".getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    s.setSoLinger(true, 0); // close sends a reset
                } catch (IOException e) {
                    got.completeExceptionally(e);
                }
            });
            Reply r = talk(p, new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
                    "abcde".getBytes(StandardCharsets.US_ASCII));
            assertEquals("abcde", new String(got.get(10, TimeUnit.SECONDS), StandardCharsets.US_ASCII));
            assertTrue(r.failure() != null, "a reset read as a clean end; got " + r.bytes().length + " bytes");
            String bytes = new String(r.bytes(), StandardCharsets.US_ASCII);
            assertTrue(bytes.isEmpty() || bytes.equals("partial"), bytes); // the bytes before the reset, if read first
        }
    }

    /** What one connection got: the reply's bytes, and the read or write failure that ended it (null at EOF). */
    private record Reply(byte[] bytes, IOException failure) { }

    /** One connection: connect, write all of {@code request}, read the reply until the server closes. */
    private static byte[] exchange(Poller p, InetSocketAddress to, byte[] request) throws IOException {
        Reply r = talk(p, to, request);
        assertNull(r.failure());
        return r.bytes();
    }

    /** One connection: connect, write all of {@code request}, read until the server closes or a call fails. */
    private static Reply talk(Poller p, InetSocketAddress to, byte[] request) throws IOException {
        Conn conn = new Conn(null);
        Poller.Sock s = p.open(conn, to);
        conn.sock = s;
        ByteBuffer out = ByteBuffer.wrap(request);
        ByteArrayOutputStream reply = new ByteArrayOutputStream();
        boolean[] eof = {false};
        IOException[] failed = {null};
        Runnable send = () -> {
            try {
                s.write(out);
                s.interest(out.hasRemaining() ? Poller.OP_WRITE | Poller.OP_READ : Poller.OP_READ);
            } catch (IOException e) {
                failed[0] = e;
            }
        };
        if (s.connected()) {
            send.run();
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!eof[0] && failed[0] == null && System.nanoTime() < end) {
            p.select((c, ops) -> {
                assertTrue(c == conn);
                try {
                    if ((ops & Poller.OP_CONNECT) != 0) {
                        s.finishConnect();
                        send.run();
                        return;
                    }
                    if ((ops & Poller.OP_WRITE) != 0) {
                        send.run();
                    }
                    if ((ops & Poller.OP_READ) != 0) {
                        int n = s.read();
                        if (n < 0) {
                            eof[0] = true;
                        } else {
                            reply.write(p.readArray(), 0, n);
                        }
                    }
                } catch (IOException e) {
                    failed[0] = e;
                }
            }, 100);
        }
        s.close();
        assertTrue(eof[0] || failed[0] != null, "neither an EOF nor a failure within 20 s");
        assertTrue(!s.isOpen());
        return new Reply(reply.toByteArray(), failed[0]);
    }

    /** Accepts one connection, reads exactly {@code expect} bytes, answers {@code reply} and closes. */
    private static CompletableFuture<byte[]> serveOnce(ServerSocket server, int expect, String reply) {
        CompletableFuture<byte[]> got = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                byte[] b = in.readNBytes(expect);
                s.getOutputStream().write(reply.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                got.complete(b);
            } catch (IOException e) {
                got.completeExceptionally(e);
            }
        });
        return got;
    }
}
