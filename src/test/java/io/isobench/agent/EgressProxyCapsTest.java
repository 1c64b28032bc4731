package io.isobench.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The egress proxy's rules against the attacks of issue 27, each reproduced against the real proxy on its real UNIX
 * socket with a real upstream on loopback: the path, method and header rules ({@code ..;}, double encoding,
 * {@code TRACE}, {@code X-Forwarded-Host}), the caps that keep the control path alive (connections, request line and
 * head bytes, log memory) and the meter that counts model usage from the responses it relays.
 */
@Isolated("it counts this JVM's open file descriptors: nothing runs beside it (ItLocks)")
class EgressProxyCapsTest {

    @TempDir
    Path dir;

    private HttpServer upstream;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private EgressProxy proxy;

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.setExecutor(Executors.newCachedThreadPool());
        upstream.createContext("/", this::handle);
        upstream.start();
        proxy = EgressProxy.start(dir.resolve("egress.sock"),
                "http://127.0.0.1:" + upstream.getAddress().getPort() + "/v1", dir.resolve("egress.log"));
    }

    @AfterEach
    void stop() {
        proxy.close();
        upstream.stop(0);
    }

    /** The model endpoint stand-in: each path answers like one API, with known usage. */
    private void handle(HttpExchange ex) throws IOException {
        ex.getRequestBody().readAllBytes();
        StringBuilder hs = new StringBuilder();
        ex.getRequestHeaders().forEach((k, v) -> hs.append(k.toLowerCase()).append('=').append(v).append(' '));
        seen.add(ex.getRequestMethod() + " " + ex.getRequestURI().getRawPath() + " " + hs);
        String path = ex.getRequestURI().getPath();
        String type = "application/json";
        String body = switch (path) {
            case "/v1/messages" -> "{\"type\":\"message\",\"usage\":{\"input_tokens\":100,"
                    + "\"cache_read_input_tokens\":20,\"output_tokens\":7}}";
            case "/v1/sse/messages" -> {
                type = "text/event-stream";
                yield "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{"
                        + "\"input_tokens\":50,\"cache_creation_input_tokens\":5,\"output_tokens\":1}}}\n\n"
                        + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"
                        + "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":30}}\n\n"
                        + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
            }
            case "/v1/responses" -> {
                type = "text/event-stream";
                yield "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\n\n"
                        + "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":"
                        + "{\"input_tokens\":300,\"output_tokens\":40}}}\n\n";
            }
            case "/v1/chat/completions" -> "{\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":2}}";
            default -> "ok";
        };
        byte[] out = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", type);
        ex.sendResponseHeaders(200, type.equals("text/event-stream") ? 0 : out.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(out);
        }
    }

    private SocketChannel connect() throws IOException {
        return SocketChannel.open(UnixDomainSocketAddress.of(proxy.socket()));
    }

    /** Sends {@code request} on a new connection and returns the status line and head of the answer. */
    private String exchange(String request) throws IOException {
        try (SocketChannel c = connect()) {
            OutputStream o = Channels.newOutputStream(c);
            o.write(request.getBytes(StandardCharsets.ISO_8859_1));
            o.flush();
            InputStream in = new BufferedInputStream(Channels.newInputStream(c));
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** As {@link #exchange}, or "reset" when the proxy reset the connection (it closed a refused one under us). */
    private String exchangeOrReset(String request) {
        try {
            return exchange(request);
        } catch (IOException e) {
            return "reset: " + e.getMessage();
        }
    }

    private static void settled(EgressProxy p, int n) throws InterruptedException {
        for (int i = 0; i < 500 && p.summary().isEmpty() && p.log().size() < n; i++) {
            Thread.sleep(10);
        }
    }

    @Test
    @Timeout(30)
    void pathParametersDoubleEncodingAndOtherMethodsAreRefused() throws IOException {
        List<String> attacks = List.of(
                "GET /v1/..;/admin HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/%252e%252e/admin HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/%25252e%25252e/admin HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/messages;jsessionid=1 HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/a%252f..%252fadmin HTTP/1.1\r\nHost: x\r\n\r\n",
                "TRACE /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n",
                "PUT /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                "DELETE /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n",
                "OPTIONS /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n");
        for (String a : attacks) {
            assertThat(exchange(a)).as(a).matches("(?s)HTTP/1.1 40[35] .*isobench egress proxy: .*\n");
        }
        assertThat(seen).as("nothing reached the upstream").isEmpty();
    }

    @Test
    @Timeout(30)
    void forwardingAndHopByHopHeadersAreDropped() throws IOException {
        String r = exchange("GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Forwarded-Host: admin.internal\r\n"
                + "X-Forwarded-For: forged.invalid\r\nForwarded: for=forged.invalid;host=admin\r\nVia: 1.1 evil\r\n"
                + "X-Real-IP: forged.invalid\r\nX-HTTP-Method-Override: DELETE\r\nX-Hop: secret\r\n"
                + "Accept-Encoding: gzip\r\nConnection: close, X-Hop\r\nAnthropic-Version: 2023-06-01\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 200 ");
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0)).contains("anthropic-version=[2023-06-01]")
                .doesNotContain("x-forwarded").doesNotContain("forwarded=").doesNotContain("via=")
                .doesNotContain("x-real-ip").doesNotContain("override").doesNotContain("x-hop")
                .doesNotContain("gzip").doesNotContain("admin").doesNotContain("forged");
    }

    @Test
    @Timeout(60)
    void aConnectionFloodIsCappedAndTheProxyStillServes() throws Exception {
        long before = openFds();
        int flood = 1000;
        List<SocketChannel> held = new ArrayList<>();
        int refused = 0;
        try {
            for (int i = 0; i < flood; i++) {
                held.add(connect());
            }
            Thread.sleep(500);
            long during = openFds();
            // the test's own 1000 client ends plus at most the cap on the proxy's side (and a little slack)
            assertThat(during - before).isLessThan(flood + EgressProxy.MAX_CONNECTIONS + 50);
            for (SocketChannel c : held.subList(EgressProxy.MAX_CONNECTIONS, flood)) {
                InputStream in = Channels.newInputStream(c);
                if (new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 503 ")) {
                    refused++;
                }
            }
        } finally {
            for (SocketChannel c : held) {
                c.close();
            }
        }
        assertThat(refused).isEqualTo(flood - EgressProxy.MAX_CONNECTIONS);
        String get = "GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        for (int i = 0; i < 100 && !exchangeOrReset(get).startsWith("HTTP/1.1 200"); i++) {
            Thread.sleep(20); // the held connections' handlers are ending: a 503, or a reset while the cap is full
        }
        assertThat(exchange("GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 200 ");
        assertThat(proxy.summary().get(proxy.summary().size() - 1))
                .contains((flood - EgressProxy.MAX_CONNECTIONS) + " connections refused");
    }

    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    @Timeout(60)
    void longRequestLinesAndHeadsAreRefusedAndTheLogStaysBounded() throws Exception {
        String longPath = "/v1/" + "a".repeat(60 * 1024);
        assertThat(exchange("GET " + longPath + " HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 414 ");
        StringBuilder many = new StringBuilder("GET /v1/models HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 200; i++) {
            many.append("X-H").append(i).append(": v\r\n");
        }
        assertThat(exchange(many + "\r\n")).startsWith("HTTP/1.1 431 ");
        assertThat(exchange("GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(40 * 1024) + "\r\n\r\n"))
                .startsWith("HTTP/1.1 431 ");
        assertThat(seen).as("nothing reached the upstream").isEmpty();

        // a flood of refused requests with long (but allowed-length) paths: memory keeps a bounded head, every
        // request is counted, and the file holds one short line each
        int n = 600;
        String path = "/admin/" + "p".repeat(7000);
        for (int i = 0; i < n; i++) {
            assertThat(exchange("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 403 ");
        }
        settled(proxy, n + 3);
        assertThat(proxy.log()).hasSize(EgressLog.KEPT);
        assertThat(proxy.log()).allMatch(r -> r.path().length() < EgressLog.MAX_PATH_CHARS + 20);
        List<String> summary = proxy.summary();
        assertThat(summary).hasSize(EgressLog.KEPT + 1);
        assertThat(summary.get(EgressLog.KEPT)).contains((n + 3) + " requests in all")
                .contains("every request in egress.log");
        proxy.close();
        List<String> file = Files.readAllLines(dir.resolve("egress.log"));
        assertThat(file).hasSize(n + 3);
        assertThat(file.get(n + 2)).startsWith("GET /admin/ppp").contains("…(+").contains(" 403 ");
    }

    @Test
    @Timeout(30)
    void theMeterCountsTurnsAndTokensFromTheRelayedResponses() throws Exception {
        List<Usage> heard = new CopyOnWriteArrayList<>();
        proxy.meter().listen(heard::add);
        String post = " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
        assertThat(exchange("POST /v1/messages" + post)).startsWith("HTTP/1.1 200 ");
        assertThat(exchange("POST /v1/sse/messages" + post)).startsWith("HTTP/1.1 200 ").contains("message_delta");
        assertThat(exchange("POST /v1/responses" + post)).startsWith("HTTP/1.1 200 ");
        assertThat(exchange("POST /v1/chat/completions" + post)).startsWith("HTTP/1.1 200 ");
        assertThat(exchange("GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 200 ");
        settled(proxy, 5);
        assertThat(proxy.meter().usage()).isEqualTo(new Usage(4, 120 + 55 + 300 + 11, 7 + 30 + 40 + 2, null));
        assertThat(proxy.meter().unreadResponses()).isZero();
        assertThat(heard).isNotEmpty();

        // the runner found the budget spent: no more model requests reach the upstream
        proxy.meter().listen(u -> {
            if (u.turns() > 4) {
                proxy.meter().refuseFurther("turns " + u.turns() + " > 4");
            }
        });
        int before = seen.size();
        assertThat(exchange("POST /v1/messages" + post)).startsWith("HTTP/1.1 403 ").contains("budget is spent");
        assertThat(exchange("POST /v1/messages" + post)).startsWith("HTTP/1.1 403 ");
        assertThat(seen).hasSize(before);
        assertThat(proxy.meter().usage().turns()).as("the refused turn counted, later ones not").isEqualTo(5);
    }
}
