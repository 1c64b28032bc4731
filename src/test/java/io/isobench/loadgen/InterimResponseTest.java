package io.isobench.loadgen;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 9: a server that sends interim responses ({@code 100 Continue}, {@code 103 Early Hints}) before
 * its answer, from a raw socket on loopback ({@link HostileServer.Mode#INTERIM}). The load generator's event loop
 * and its blocking connection (readiness, /tokenize) skip them and read the real response. Before, every request
 * failed: the interim head was taken for the answer (no body, status 100).
 */
class InterimResponseTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void interimResponsesAreSkipped() throws Exception {
        try (HostileServer s = new HostileServer(HostileServer.Mode.INTERIM, 1024)) {
            LoadgenResult r = LoadGenerator.run(LoadgenConfig.builder().baseUrl(s.baseUrl()).model("m")
                    .dataset(DatasetSpec.random(8, 16, 0, 0)).numPrompts(4).maxConcurrency(2)
                    .requestTimeout(Duration.ofSeconds(20)).build(), null);
            assertThat(r.summary().failuresByReason()).isEmpty();
            assertThat(r.summary().completed()).isEqualTo(4);
            assertThat(r.summary().totalOutput()).isEqualTo(4 * 128);

            URIParts u = URIParts.of(s.baseUrl());
            try (HttpConn c = new HttpConn(new InetSocketAddress(u.host(), u.port()), 5000)) {
                c.deadline(System.nanoTime() + 5_000_000_000L);
                c.write(("GET /health HTTP/1.1\r\nHost: " + u.host() + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII), new byte[0]);
                assertThat(c.readHead().status()).as("the final response, not 100 or 103").isEqualTo(404);
            }
        }
    }

    private record URIParts(String host, int port) {
        static URIParts of(String url) {
            URI u = URI.create(url);
            return new URIParts(u.getHost(), u.getPort());
        }
    }
}
