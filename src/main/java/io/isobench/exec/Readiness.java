package io.isobench.exec;

import io.isobench.proc.ProcessGroup;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * How the executor decides a server is ready. The default probes {@code GET /health} and then
 * {@code GET /v1/models} (both 200) every few milliseconds, and reports a crash as soon as the server process exits.
 */
public interface Readiness {

    /** Result of waiting. */
    enum State { READY, CRASHED, TIMEOUT }

    record Outcome(State state, Integer exitCode, long waitedMs) {
    }

    Outcome await(ProcessGroup server, String host, int port, Duration limit) throws InterruptedException;

    /** The HTTP probe of DESIGN §4 with the given poll interval. */
    static HttpProbe http(Duration pollInterval) {
        return new HttpProbe(List.of("/health", "/v1/models"), pollInterval);
    }

    /** Probes each path in turn until it answers 200. */
    record HttpProbe(List<String> paths, Duration pollInterval) implements Readiness {

        @Override
        public Outcome await(ProcessGroup server, String host, int port, Duration limit) throws InterruptedException {
            long t0 = System.nanoTime();
            long end = t0 + limit.toNanos();
            int stage = 0;
            while (true) {
                Integer exit = server.exitCode();
                if (exit != null) {
                    return new Outcome(State.CRASHED, exit, (System.nanoTime() - t0) / 1_000_000);
                }
                if (ok(host, port, paths.get(stage))) {
                    stage++;
                    if (stage == paths.size()) {
                        return new Outcome(State.READY, null, (System.nanoTime() - t0) / 1_000_000);
                    }
                    continue;
                }
                if (System.nanoTime() > end) {
                    return new Outcome(State.TIMEOUT, null, (System.nanoTime() - t0) / 1_000_000);
                }
                Thread.sleep(pollInterval.toMillis(), 0);
            }
        }

        /** The most one probe may take, whatever the server sends (a read timeout alone lets a drip go on). */
        static final Duration PROBE_LIMIT = Duration.ofSeconds(2);

        /**
         * Whether {@code GET path} answers 200: only the status line is read (at most 256 bytes, within
         * {@link #PROBE_LIMIT}), then the connection is closed, so a body that drips or never ends costs nothing.
         */
        static boolean ok(String host, int port, String path) {
            long end = System.nanoTime() + PROBE_LIMIT.toNanos();
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 500);
                s.setSoTimeout(100);
                s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                InputStream in = s.getInputStream();
                StringBuilder status = new StringBuilder();
                while (status.length() < 256 && System.nanoTime() < end) {
                    int b;
                    try {
                        b = in.read();
                    } catch (SocketTimeoutException e) {
                        continue;
                    }
                    if (b < 0 || b == '\n') {
                        String[] f = status.toString().split(" ", 3);
                        return f.length >= 2 && f[0].startsWith("HTTP/") && f[1].equals("200");
                    }
                    status.append((char) b);
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        }
    }
}
