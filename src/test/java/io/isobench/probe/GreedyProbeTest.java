package io.isobench.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The probe client against small HTTP servers: greedy outputs, rejected probes, servers that do not decode greedily. */
class GreedyProbeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private HttpServer server;
    private final List<JsonNode> requests = new ArrayList<>();

    /** A /v1/completions server answering each request body with (status, body). */
    private URI serve(Function<JsonNode, Object[]> handler) throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/completions", ex -> {
            JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
            synchronized (requests) {
                requests.add(body);
            }
            Object[] r = handler.apply(body);
            byte[] bytes = ((String) r[1]).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders((Integer) r[0], bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static String ok(String text) {
        return "{\"choices\":[{\"index\":0,\"text\":" + JSON.valueToTree(text) + ",\"logprobs\":null}]}";
    }

    @Test
    void greedyProbesAreSentWithTemperatureZeroSeedAndMaxTokensAndRepeatedOnce() throws Exception {
        URI base = serve(b -> new Object[] {200, ok("echo " + b.path("prompt").asText())});
        List<Probe> probes = Greedy.probe(base, "m", 3, 7, false).sequential();
        assertThat(probes).extracting(Probe::text).containsExactlyElementsOf(
                Greedy.prompts(3).stream().map(p -> "echo " + p).toList());
        assertThat(requests).hasSize(4 + 8); // 3 probes + prompt 0 again, then 8 at once (the 3 prompts, repeated)
        for (JsonNode r : requests) {
            assertThat(r.path("temperature").asInt()).isZero();
            assertThat(r.path("max_tokens").asInt()).isEqualTo(7);
            assertThat(r.path("seed").isNumber()).isTrue();
            assertThat(r.has("logprobs")).isFalse();
        }
        assertThat(probes.get(0).tokenIds()).isNull();
    }

    @Test
    void tokenIdsAndLogprobsAreKeptWhenTheServerReturnsThem() throws Exception {
        URI base = serve(b -> new Object[] {200, "{\"choices\":[{\"text\":\"a b\",\"token_ids\":[5,9],"
                + "\"logprobs\":{\"tokens\":[\"a\",\" b\"],\"token_logprobs\":[-0.5,-1.25]}}]}"});
        Greedy.ProbeRun run = Greedy.probe(base, "m", 2, 4, true);
        List<Probe> probes = run.sequential();
        assertThat(requests.get(0).path("logprobs").asInt()).isEqualTo(1);
        assertThat(probes.get(1).tokenIds()).containsExactly(5, 9);
        assertThat(probes.get(1).logprobs()).containsExactly(-0.5, -1.25);
        assertThat(run.batched().get(1).logprobs()).containsExactly(-0.5, -1.25);
        assertThat(Greedy.ProbeRun.fromJson(run.toJson())).isEqualTo(run);
    }

    @Test
    void aRejectedProbeNamesTheProbeTheStatusAndTheServersMessage() throws Exception {
        URI base = serve(b -> b.path("prompt").asText().equals(Greedy.prompts(2).get(1))
                ? new Object[] {400, "{\"object\":\"error\",\"message\":\"This model's maximum context length is 8\"}"}
                : new Object[] {200, ok("x")});
        assertThatThrownBy(() -> Greedy.probe(base, "m", 2, 4, false))
                .isInstanceOfSatisfying(ProbeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProbeException.Kind.PROBE_REJECTED);
                    assertThat(e.getMessage()).contains("rejected probe 1").contains("HTTP 400")
                            .contains("maximum context length is 8");
                });
    }

    @Test
    void aServerThatRefusesTemperatureZeroHasNoGreedySupport() throws Exception {
        URI base = serve(b -> new Object[] {400, "{\"message\":\"temperature must be > 0 for this sampler\"}"});
        assertThatThrownBy(() -> Greedy.probe(base, "m", 2, 4, false))
                .isInstanceOfSatisfying(ProbeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProbeException.Kind.NO_GREEDY_SUPPORT);
                    assertThat(e.getMessage()).contains("refuses greedy decoding").contains("temperature must be > 0");
                });
    }

    @Test
    void aServerThatSamplesAtTemperatureZeroHasNoGreedySupport() throws Exception {
        AtomicInteger n = new AtomicInteger();
        URI base = serve(b -> new Object[] {200, ok("sample " + n.incrementAndGet())});
        assertThatThrownBy(() -> Greedy.probe(base, "m", 2, 4, false))
                .isInstanceOfSatisfying(ProbeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProbeException.Kind.NO_GREEDY_SUPPORT);
                    assertThat(e.getMessage()).contains("two identical temperature-0 requests")
                            .contains("\"sample 1\" then \"sample 3\"");
                });
    }

    @Test
    void aBodyWithoutChoicesIsARejectedProbe() throws Exception {
        URI base = serve(b -> new Object[] {200, "{\"result\":\"ok\"}"});
        assertThatThrownBy(() -> Greedy.probe(base, "m", 1, 4, false))
                .isInstanceOfSatisfying(ProbeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProbeException.Kind.PROBE_REJECTED);
                    assertThat(e.getMessage()).contains("no choices[0].text");
                });
    }

    @Test
    void theConcurrentPassHasAtLeastEightRequestsInFlightAndKeepsEachPromptsFirstAnswer() throws Exception {
        // the handler holds each request of the concurrent pass until 8 are in flight at once (or 10 s pass: then the
        // assertion fails)
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger served = new AtomicInteger();
        CountDownLatch eight = new CountDownLatch(8);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext("/v1/completions", ex -> {
            JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
            int n = served.incrementAndGet();
            String text = "echo " + body.path("prompt").asText();
            if (n > 4) { // past the sequential pass (3 prompts) and the repeat of prompt 0
                most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                eight.countDown();
                try {
                    eight.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] bytes = ok(text).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
            if (n > 4) {
                inFlight.decrementAndGet();
            }
        });
        server.start();
        URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        Greedy.ProbeRun run = Greedy.probe(base, "m", 3, 5, false);
        assertThat(most.get()).isGreaterThanOrEqualTo(8);
        assertThat(served.get()).isEqualTo(4 + 8);
        assertThat(run.batchSize()).isEqualTo(8);
        // 3 prompts padded to 8 requests: one answer per prompt kept, in prompt order
        assertThat(run.batched()).extracting(Probe::text).containsExactlyElementsOf(run.texts());
    }

    @Test
    void morePromptsThanEightAreAllSentAtOnce() {
        assertThat(Greedy.batchSize(1)).isEqualTo(8);
        assertThat(Greedy.batchSize(8)).isEqualTo(8);
        assertThat(Greedy.batchSize(12)).isEqualTo(12);
    }

    @Test
    void aProbeRejectedInTheConcurrentPassSaysSo() throws Exception {
        AtomicInteger n = new AtomicInteger();
        URI base = serve(b -> n.incrementAndGet() > 3 ? new Object[] {503, "{\"message\":\"queue full\"}"}
                : new Object[] {200, ok("x")});
        assertThatThrownBy(() -> Greedy.probe(base, "m", 2, 4, false))
                .isInstanceOfSatisfying(ProbeException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProbeException.Kind.PROBE_REJECTED);
                    assertThat(e.getMessage()).contains("HTTP 503").contains("queue full")
                            .contains("concurrent pass, 8 requests in flight");
                });
    }

    @Test
    void probeJsonOfStoredSessionsABareArrayStillReads() {
        List<Probe> old = List.of(new Probe("a", List.of(1), List.of(-0.5)), Probe.text("b"));
        Greedy.ProbeRun run = Greedy.ProbeRun.fromJson(Probe.toJson(old));
        assertThat(run.sequential()).isEqualTo(old);
        assertThat(run.batched()).isEmpty();
        assertThat(run.hasBatched()).isFalse();
        Greedy.ProbeRun both = new Greedy.ProbeRun(old, List.of(Probe.text("a"), Probe.text("c")), 8);
        assertThat(Greedy.ProbeRun.fromJson(both.toJson())).isEqualTo(both);
        assertThat(Greedy.ProbeRun.fromJson("not json").sequential()).isEmpty();
        assertThat(Greedy.ProbeRun.fromJson(null).sequential()).isEmpty();
    }

    @Test
    void aBatchSizeWithoutBatchedProbesIsRefused() {
        assertThatThrownBy(() -> new Greedy.ProbeRun(List.of(Probe.text("a")), List.of(), 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batchSize (8)");
    }
}
