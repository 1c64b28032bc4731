package io.isobench.exec;

import io.isobench.proc.ProcessGroup;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
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
    static Readiness http(Duration pollInterval) {
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

        static boolean ok(String host, int port, String path) {
            HttpURLConnection c = null;
            try {
                c = (HttpURLConnection) URI.create("http://" + host + ":" + port + path).toURL().openConnection();
                c.setConnectTimeout(500);
                c.setReadTimeout(2000);
                c.setUseCaches(false);
                int code = c.getResponseCode();
                try (InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream()) {
                    if (in != null) {
                        in.readAllBytes();
                    }
                }
                return code == 200;
            } catch (IOException e) {
                return false;
            } finally {
                if (c != null) {
                    c.disconnect();
                }
            }
        }
    }
}
