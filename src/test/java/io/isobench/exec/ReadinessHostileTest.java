package io.isobench.exec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The readiness probe talks to the server under test, whose output is untrusted: a {@code /health} answer whose body
 * drips a byte at a time (each read within the read timeout) or never ends must not hold the probe past its limit nor
 * fill memory; the server start limit holds whatever the server sends.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@Isolated("it bounds measured probe times: nothing runs beside it (ItLocks)")
class ReadinessHostileTest {

    /** Accepts every connection and answers with {@code head}, then {@code body} bytes every {@code everyMs}. */
    private static ServerSocket server(String head, int chunk, long everyMs) throws IOException {
        ServerSocket ss = new ServerSocket(0);
        Thread t = new Thread(() -> {
            while (!ss.isClosed()) {
                try {
                    Socket s = ss.accept();
                    Thread w = new Thread(() -> {
                        try (s; OutputStream out = s.getOutputStream()) {
                            s.getInputStream().read(new byte[4096]);
                            out.write(head.getBytes(StandardCharsets.US_ASCII));
                            byte[] b = new byte[chunk];
                            while (true) {
                                out.write(b);
                                out.flush();
                                if (everyMs > 0) {
                                    Thread.sleep(everyMs);
                                }
                            }
                        } catch (IOException | InterruptedException e) {
                            // the probe hung up
                        }
                    });
                    w.setDaemon(true);
                    w.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return ss;
    }

    private static long probeMs(ServerSocket ss) {
        long t0 = System.nanoTime();
        Readiness.HttpProbe.ok("127.0.0.1", ss.getLocalPort(), "/health");
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    @Test
    void aDrippingBodyDoesNotHoldTheProbe() throws Exception {
        try (ServerSocket ss = server("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n", 1, 500)) {
            assertThat(probeMs(ss)).isLessThan(4000);
        }
        try (ServerSocket ss = server("HTTP/1.1 200 OK\r\nX-Slow: ", 1, 500)) {
            assertThat(probeMs(ss)).as("headers that never end").isLessThan(4000);
        }
    }

    @Test
    void anEndlessBodyIsNotRead() throws Exception {
        try (ServerSocket ss = server("HTTP/1.1 200 OK\r\n\r\n", 1 << 16, 0)) {
            long t0 = System.nanoTime();
            boolean ok = Readiness.HttpProbe.ok("127.0.0.1", ss.getLocalPort(), "/health");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(4000);
            assertThat(ok).isTrue();
        }
    }
}
