package io.isobench.loadgen;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.ServerSocket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad server behaviour is recorded per request with its reason; the run completes and reports it. */
class LoadgenFailureTest {

    static LoadgenResult run(StreamingTestServer s, int n, Duration timeout, boolean stream) {
        return LoadGenerator.run(LoadgenConfig.builder().baseUrl(s.baseUrl()).model("m")
                .dataset(DatasetSpec.random(8, 5, 0, 0)).numPrompts(n).maxConcurrency(3).stream(stream)
                .requestTimeout(timeout).build(), null);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"HTTP_500, http_500, HTTP 500", "HTTP_429, http_429, slow down", "NON_SSE, non_sse, non-SSE response",
            "MALFORMED_JSON, malformed_json, malformed JSON in SSE chunk 2",
            "MALFORMED_SSE, malformed_sse, malformed SSE line: this is not SSE",
            "ERROR_EVENT, server_error, engine died", "STALL, timeout, stalled after 2 chunks"})
    void faultIsRecordedWithItsReason(StreamingTestServer.Behavior b, String kind, String detail) throws Exception {
        try (StreamingTestServer s = new StreamingTestServer(0, 1, 1, 0)) {
            s.behavior = b;
            LoadgenResult r = run(s, 6, Duration.ofMillis(800), true);
            assertThat(r.summary().completed()).isZero();
            assertThat(r.summary().failed()).isEqualTo(6);
            assertThat(r.summary().failuresByReason()).containsEntry(kind, 6);
            assertThat(r.requests()).allSatisfy(q -> assertThat(q.error()).contains(detail));
            assertThat(r.consoleBlock()).contains("Failed requests:                         6 ");
            // the server is fine again: the same client recovers
            s.behavior = StreamingTestServer.Behavior.NORMAL;
            assertThat(run(s, 3, Duration.ofSeconds(10), true).summary().completed()).isEqualTo(3);
        }
    }

    @Test
    void noUsageFallsBackToCountedChunksAndSaysSo() throws Exception {
        try (StreamingTestServer s = new StreamingTestServer(0, 1, 1, 0)) {
            s.behavior = StreamingTestServer.Behavior.NO_USAGE;
            LoadgenResult r = run(s, 4, Duration.ofSeconds(10), true);
            assertThat(r.summary().completed()).isEqualTo(4);
            assertThat(r.summary().totalOutput()).isEqualTo(20);
            assertThat(r.summary().outputFromUsage()).isZero();
            assertThat(r.requests()).allSatisfy(q -> assertThat(q.outputTokensFromUsage()).isFalse());
            assertThat(r.notes()).anyMatch(n -> n.contains("output length is the chunk count"));
        }
    }

    @Test
    void unstreamedRequestsUseTheWholeResponse() throws Exception {
        try (StreamingTestServer s = new StreamingTestServer(0, 1, 1, 0)) {
            LoadgenResult r = run(s, 4, Duration.ofSeconds(10), false);
            assertThat(r.summary().completed()).isEqualTo(4);
            assertThat(r.summary().totalOutput()).isEqualTo(20);
            assertThat(r.requests()).allSatisfy(q -> assertThat(q.ttftNs()).isEqualTo(q.latencyNs()));
        }
    }

    @Test
    void unreachableServerFailsEveryRequestWithConnect() throws Exception {
        int port;
        try (ServerSocket ss = new ServerSocket(0)) {
            port = ss.getLocalPort();
        }
        LoadgenResult r = LoadGenerator.run(LoadgenConfig.builder().baseUrl("http://127.0.0.1:" + port).model("m")
                .dataset(DatasetSpec.random(8, 5, 0, 0)).numPrompts(5).build(), null);
        assertThat(r.summary().failuresByReason()).containsEntry("connect", 5);
        assertThat(r.requests().get(0).error()).startsWith("server not reachable at 127.0.0.1:" + port);
    }
}
