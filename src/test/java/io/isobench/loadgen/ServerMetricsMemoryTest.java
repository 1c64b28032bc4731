package io.isobench.loadgen;

import io.isobench.engine.Engines;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.isobench.parse.Metric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 6: a measured engine whose {@code /metrics} answers just under the 8 MiB body cap on every scrape.
 * The scraper runs in its own JVM with a {@value #HEAP} heap (no more than two scrapes' parsed samples fit) for
 * {@value #SCRAPES} scrapes: it survives, its summaries count every scrape, and the stored series stops at its byte
 * cap and says how many scrapes it left out. Before, every parsed scrape was kept for the whole run and the JVM died
 * of OutOfMemoryError after a few scrapes. Served by the JDK's HTTP server on loopback.
 */
class ServerMetricsMemoryTest {
    /** vLLM's names, from its engine adapter (the summaries under test are engine-neutral). */
    private static final ServerMetricNames VLLM = Engines.vllm().serverMetrics();


    static final String HEAP = "-Xmx256m";
    static final int SCRAPES = 24;

    /** The child JVM: scrapes {@code args[0]} until {@value #SCRAPES} scrapes, then prints what it kept. */
    public static void main(String[] args) throws Exception {
        ServerMetricsScraper scraper = ServerMetricsScraper.start(URI.create(args[0]), Duration.ofMillis(20), VLLM);
        while (scraper.scrapeCount() < SCRAPES - 1) {
            Thread.sleep(20);
        }
        ServerMetricsScraper.Series series = scraper.stop();
        JsonNode json = new ObjectMapper().readTree(series.json());
        System.out.println("ok " + series.counts().ok() + " failures " + series.counts().failures() + " left_out "
                + series.counts().leftOut() + " stored " + json.get("scrapes").size() + " json_bytes "
                + series.json().length() + " scrapes_left_out " + json.path("scrapes_left_out").asLong(-1));
        for (Metric m : series.summaries()) {
            System.out.println(m.name() + " " + m.value());
        }
        System.out.println("used_mib " + (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()
                >> 20));
    }

    /** A body just under 8 MiB: a counter that grows by 10 per scrape, then ~120,000 labelled samples. */
    static byte[] body(int n) {
        StringBuilder b = new StringBuilder(ServerMetricsScraper.MAX_BODY);
        b.append("# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total ").append(10 * n).append('\n');
        b.append("# TYPE vllm:filler gauge\n");
        for (int i = 0; b.length() < ServerMetricsScraper.MAX_BODY - 100; i++) {
            b.append("vllm:filler{engine=\"0\",model_name=\"m\",series=\"").append(i).append("\"} ").append(i % 97)
                    .append(".5\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void largeScrapesForAWholeRunFitASmallHeap() throws Exception {
        AtomicInteger n = new AtomicInteger();
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/metrics", ex -> {
            byte[] b = body(n.incrementAndGet());
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        http.start();
        Path out = Files.createTempFile("metrics-memory-out", ".txt");
        Path err = Files.createTempFile("metrics-memory-err", ".txt");
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    HEAP, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    ServerMetricsMemoryTest.class.getName(), "http://127.0.0.1:" + http.getAddress().getPort())
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean done = p.waitFor(200, TimeUnit.SECONDS);
            if (!done) {
                p.destroyForcibly().waitFor();
            }
            String o = Files.readString(out);
            String e = Files.readString(err);
            assertThat(done).as("the scraper's JVM ended; stderr: " + e).isTrue();
            assertThat(p.exitValue()).as("stdout: " + o + "\nstderr: " + e).isZero();
            assertThat(o).contains("ok " + SCRAPES + " failures 0");
            // the summaries count from the first to the last scrape: 10 per scrape in between (one the stop cut short
            // may have been served without being kept)
            double delta = Double.parseDouble(o.replaceAll("(?s).*vllm:num_preemptions_delta ([0-9.]+).*", "$1"));
            assertThat(delta).isBetween(10.0 * (SCRAPES - 1), 10.0 * SCRAPES);
            long stored = Long.parseLong(o.replaceAll("(?s).*stored (\\d+).*", "$1"));
            assertThat(stored).as("the stored series stops at its cap").isBetween(1L, (long) SCRAPES - 1);
            assertThat(o).contains("left_out " + (SCRAPES - stored))
                    .contains("scrapes_left_out " + (SCRAPES - stored));
            assertThat(List.of(n.get())).allMatch(k -> k >= SCRAPES);
        } finally {
            http.stop(0);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
