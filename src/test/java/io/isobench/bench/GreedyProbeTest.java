package io.isobench.bench;

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
        List<Probe> probes = Greedy.probe(base, "m", 3, 7, false);
        assertThat(probes).extracting(Probe::text).containsExactlyElementsOf(
                Greedy.prompts(3).stream().map(p -> "echo " + p).toList());
        assertThat(requests).hasSize(4); // 3 probes + prompt 0 again
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
        List<Probe> probes = Greedy.probe(base, "m", 2, 4, true);
        assertThat(requests.get(0).path("logprobs").asInt()).isEqualTo(1);
        assertThat(probes.get(1).tokenIds()).containsExactly(5, 9);
        assertThat(probes.get(1).logprobs()).containsExactly(-0.5, -1.25);
        assertThat(Probe.fromJson(Probe.toJson(probes))).isEqualTo(probes);
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
}
