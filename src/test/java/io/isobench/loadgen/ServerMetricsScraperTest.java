package io.isobench.loadgen;

import io.isobench.engine.Engines;
import io.isobench.parse.Metric;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scraper against what a server's {@code /metrics} may do: nothing listening, an HTTP error, a malformed body,
 * then a good one. Served by the JDK's own HTTP server (a real socket and HTTP stack; the toy engine's real exporter
 * is scraped in {@code exec.ServerMetricsLocalTest}).
 */
class ServerMetricsScraperTest {
    /** vLLM's names, from its engine adapter (the summaries under test are engine-neutral). */
    private static final ServerMetricNames VLLM = Engines.vllm().serverMetrics();


    /** The scrapes of a series' artifact, in order. */
    static List<JsonNode> scrapes(ServerMetricsScraper.Series series) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        new ObjectMapper().readTree(series.json()).get("scrapes").forEach(out::add);
        return out;
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void unreachableEndpointIsRecordedNeverThrown() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        ServerMetricsScraper scraper = ServerMetricsScraper.start(URI.create("http://127.0.0.1:" + port),
                Duration.ofMillis(100), VLLM);
        sleep(350);
        ServerMetricsScraper.Series series = scraper.stop();
        assertThat(series.counts().scrapes()).isGreaterThanOrEqualTo(2);
        assertThat(series.counts().ok()).isZero();
        assertThat(series.counts().failures()).isEqualTo(series.counts().scrapes());
        assertThat(series.counts().firstError()).contains("ConnectException");
        assertThat(scrapes(series).get(0).get("error").asText()).contains("ConnectException");
        assertThat(ServerMetricsSummary.summarize(series)).extracting(Metric::name)
                .containsExactly("server_metrics_scrapes", "server_metrics_scrape_failures",
                        "server_metrics_bad_lines");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void httpErrorsAndMalformedBodiesAreCountedAndTheGoodScrapesKept() throws IOException {
        AtomicInteger n = new AtomicInteger();
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/metrics", ex -> {
            int i = n.getAndIncrement();
            int status = i == 0 ? 500 : 200;
            String body = switch (i) {
                case 0 -> "oops";
                case 1 -> "<html>not prometheus</html>\n";
                default -> "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running " + i + "\n";
            };
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        http.start();
        try {
            ServerMetricsScraper scraper = ServerMetricsScraper.start(
                    URI.create("http://127.0.0.1:" + http.getAddress().getPort()), Duration.ofMillis(100), VLLM);
            while (n.get() < 4) {
                sleep(20);
            }
            ServerMetricsScraper.Series series = scraper.stop();
            List<JsonNode> scrapes = scrapes(series);
            assertThat(scrapes.get(0).get("error").asText()).isEqualTo("HTTP 500");
            assertThat(scrapes.get(1).get("bad_lines").asInt()).isEqualTo(1);
            assertThat(series.counts().failures()).isEqualTo(1);
            assertThat(series.counts().badLines()).isEqualTo(1);
            assertThat(series.endpoint()).endsWith("/metrics");
            Map<String, Double> m = ServerMetricsSummaryTest.byName(ServerMetricsSummary.summarize(series));
            assertThat(m.get("server_metrics_scrape_failures")).isEqualTo(1.0);
            assertThat(m.get("server_metrics_bad_lines")).isEqualTo(1.0);
            assertThat(m.get("vllm:num_requests_running_max")).isGreaterThanOrEqualTo(3.0);
            // scrape times in order, spaced by about the interval
            double prev = -1;
            for (JsonNode s : scrapes) {
                assertThat(s.get("t_ms").asDouble()).isGreaterThan(prev);
                prev = s.get("t_ms").asDouble();
            }
        } finally {
            http.stop(0);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theMeasuredPhaseStartsAfterTheWarmUpRequests() throws IOException {
        // a real load-generator run with 3 warm-up requests: the hook runs once, after those 3 (and the length
        // calibration request random prompts without a tokenizer make) and before any of the 5 measured requests;
        // a scraper marked there counts from that scrape on
        try (StreamingTestServer server = new StreamingTestServer(0, 1, 1, 0)) {
            AtomicInteger atMark = new AtomicInteger(-1);
            AtomicInteger calls = new AtomicInteger();
            LoadgenConfig config = LoadgenConfig.builder().baseUrl(URI.create(server.baseUrl())).model("m")
                    .numPrompts(5).numWarmups(3).build();
            LoadgenResult r = LoadGenerator.run(config, null, () -> {
                calls.incrementAndGet();
                atMark.set(server.requests.get());
            });
            assertThat(calls.get()).isEqualTo(1);
            assertThat(atMark.get()).isGreaterThanOrEqualTo(3);
            assertThat(server.requests.get() - atMark.get()).isEqualTo(5);
            assertThat(r.summary().completed()).isEqualTo(5);
        }
        AtomicInteger n = new AtomicInteger();
        HttpServer http = preemptionsServer(() -> 10 * n.incrementAndGet());
        try {
            ServerMetricsScraper scraper = ServerMetricsScraper.start(
                    URI.create("http://127.0.0.1:" + http.getAddress().getPort()), Duration.ofSeconds(30), VLLM);
            while (scraper.scrapeCount() < 1) {
                sleep(10);
            }
            scraper.markMeasuredStart(); // the counter reads 20 here (10 at the first scrape)
            ServerMetricsScraper.Series series = scraper.stop(); // 30 at the last
            List<JsonNode> scrapes = scrapes(series);
            assertThat(scrapes).hasSize(3);
            assertThat(Math.round(series.measuredFromMs() * 10) / 10.0).isEqualTo(scrapes.get(1).get("t_ms").asDouble());
            assertThat(ServerMetricsSummaryTest.byName(series.summaries())).containsEntry("server_metrics_scrapes", 2.0);
            assertThat(ServerMetricsSummaryTest.byName(ServerMetricsSummary.summarize(series)))
                    .containsEntry("vllm:num_preemptions_delta", 10.0);
        } finally {
            http.stop(0);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theFirstScrapeIsTakenBeforeStartReturns() throws IOException {
        // every request the caller sends after start() (the warm-up too) falls inside the series' first and last
        // scrape, however late the scraper thread gets a core: the first scrape is start()'s own
        AtomicInteger served = new AtomicInteger();
        HttpServer http = preemptionsServer(served::get);
        try {
            ServerMetricsScraper scraper = ServerMetricsScraper.start(
                    URI.create("http://127.0.0.1:" + http.getAddress().getPort()), Duration.ofSeconds(30), VLLM);
            assertThat(scraper.scrapeCount()).isEqualTo(1);
            served.addAndGet(7); // the caller's requests, sent after start() returned
            List<JsonNode> scrapes = scrapes(scraper.stop());
            assertThat(scrapes).hasSize(2);
            String key = "vllm:num_preemptions_total";
            assertThat(scrapes.get(0).path("samples").path(key).asDouble()).isZero();
            assertThat(scrapes.get(1).path("samples").path(key).asDouble()).isEqualTo(7.0);
        } finally {
            http.stop(0);
        }
    }

    @Test
    void intervalMustBePositive() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ServerMetricsScraper.start(
                URI.create("http://127.0.0.1:1"), Duration.ZERO, VLLM)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A started loopback {@code /metrics} server exposing one counter, {@code value} read at each scrape. */
    private static HttpServer preemptionsServer(IntSupplier value) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/metrics", ex -> {
            byte[] b = ("# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total "
                    + value.getAsInt() + "\n").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(b);
            }
        });
        http.start();
        return http;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
