package io.isobench.cli;

import io.isobench.SharedData;
import io.isobench.ToyRepo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench plan sweep-pilot} against the real toy engine's baseline server (examples/toy-engine): the pilots
 * double the rate until the TPOT SLO breaks or the server stops keeping up, bisect, and print the sweep's points.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class SweepPilotIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void pilotsFindTheBaselinesSaturationAndPrintThePoints() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git and setsid (util-linux) for the toy engine");
        Path repo = dir.resolve("toyllm-repo");
        ToyRepo.build(repo);
        Path wt = dir.resolve("baseline");
        ToyRepo.run(repo, "git", "worktree", "add", "-q", wt.toString(), "baseline");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process server = new ProcessBuilder("setsid", "python3", "-m", "toyllm.entrypoints.api_server", "--host",
                "127.0.0.1", "--port", Integer.toString(port), "--model", "toy-1m", "--disable-log-requests")
                .directory(wt.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile())
                .start();
        try {
            waitHealthy(port);
            Path suite = dir.resolve("sweep-suite.yaml");
            Files.writeString(suite, Files.readString(Path.of("examples/toy-engine/sweep-suite.yaml"))
                    .replace("sweep: {max_concurrency: [1, 4, 8], min_good_fraction: 0.9}", "sweep: auto"));
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "plan", "sweep-pilot",
                    suite.toString(), "--task", "tpot-sweep", "--base-url", "http://127.0.0.1:" + port, "--start-rps",
                    "2");
            assertThat(code).as(err.toString()).isZero();
            // the one-sequence-per-step baseline serves ≈ 6 req/s of these requests at most, and its TPOT passes 9 ms
            // under Poisson bursts well before that (measured here: 4 req/s broke the SLO, a bisection found 2.83)
            assertThat(err.toString()).contains("pilot 1 at 2 req/s", "pilot 2 at 4 req/s", "pilot 3 at ",
                    "saturation");
            assertThat(out.toString().strip()).matches("sweep: \\{request_rate: \\[[0-9.]+, [0-9.]+, [0-9.]+, [0-9.]+\\],"
                    + " min_good_fraction: 0\\.9}");
            double sat = Double.parseDouble(err.toString().replaceAll("(?s).*saturation ([0-9.]+) req/s.*", "$1"));
            assertThat(sat).as(err.toString()).isBetween(2.0, 8.0);
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
            server.destroyForcibly();
        }
    }

    private static void waitHealthy(int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the toy server did not start");
    }
}
