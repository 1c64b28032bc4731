package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * An OpenAI-style streaming server with programmed timing, for accuracy tests and the benchmark: the first chunk is
 * written {@code ttftMs} after the request arrived, chunk i at {@code ttftMs + i·itlMs} (+ jitter), each chunk's text
 * is {@code "<System.nanoTime() just before the write>;"} so a client in the same machine can be checked against
 * the server's own send times (same monotonic clock). Usage is reported when asked.
 * A {@link Behavior} switches in faults (HTTP errors, non-SSE bodies, malformed chunks, stalls).
 */
public final class StreamingTestServer implements AutoCloseable {

    public enum Behavior { NORMAL, HTTP_500, HTTP_429, NON_SSE, MALFORMED_JSON, MALFORMED_SSE, STALL, ERROR_EVENT, NO_USAGE }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServerSocket server;
    private final Thread acceptor;
    private volatile boolean running = true;
    public volatile double ttftMs;
    public volatile double itlMs;
    public volatile double jitterMs;
    public volatile Behavior behavior = Behavior.NORMAL;
    /** STALL: chunks sent before the server goes silent. */
    public volatile int stallAfter = 2;
    public final AtomicInteger requests = new AtomicInteger();
    public final AtomicInteger connections = new AtomicInteger();

    public StreamingTestServer(int port, double ttftMs, double itlMs, double jitterMs) throws IOException {
        this.ttftMs = ttftMs;
        this.itlMs = itlMs;
        this.jitterMs = jitterMs;
        server = new ServerSocket(port, 8192, InetAddress.getLoopbackAddress());
        acceptor = Thread.ofPlatform().daemon().name("test-server-accept").start(this::acceptLoop);
    }

    public int port() {
        return server.getLocalPort();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    private void acceptLoop() {
        while (running) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                connections.incrementAndGet();
                // virtual threads: the server's CPU is bounded by its carriers and cannot crowd out the client's
                // single I/O thread the way a thousand runnable platform threads would
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                if (!running) {
                    return;
                }
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = new BufferedInputStream(s.getInputStream(), 16384);
            OutputStream out = s.getOutputStream();
            while (running) {
                String line = readLine(in);
                if (line == null) {
                    return;
                }
                if (line.isEmpty()) {
                    continue;
                }
                long recv = System.nanoTime();
                String[] req = line.split(" ");
                int len = 0;
                for (String h = readLine(in); h != null && !h.isEmpty(); h = readLine(in)) {
                    if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                        len = Integer.parseInt(h.substring(15).trim());
                    }
                }
                byte[] body = in.readNBytes(len);
                requests.incrementAndGet();
                if (req[0].equals("GET")) {
                    respond(out, 200, "application/json", "{\"object\":\"list\",\"data\":[{\"id\":\"test\"}]}");
                    continue;
                }
                if (req[1].equals("/tokenize")) {
                    respond(out, 404, "application/json", "{\"detail\":\"Not Found\"}");
                    continue;
                }
                JsonNode b = JSON.readTree(body);
                if (!handle(out, b, recv)) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // client went away: nothing to do
        }
    }

    /** Returns false when the connection must be closed. */
    private boolean handle(OutputStream out, JsonNode b, long recv) throws IOException {
        Behavior beh = behavior;
        int n = b.path("max_tokens").asInt(16);
        boolean stream = b.path("stream").asBoolean(false);
        boolean usage = b.path("stream_options").path("include_usage").asBoolean(false) && beh != Behavior.NO_USAGE;
        String prompt = b.path("prompt").asText("");
        int promptTokens = prompt.isEmpty() ? 0 : prompt.split(" ").length;
        switch (beh) {
            case HTTP_500 -> {
                respond(out, 500, "application/json", "{\"error\":{\"message\":\"boom\"}}");
                return true;
            }
            case HTTP_429 -> {
                respond(out, 429, "application/json", "{\"error\":{\"message\":\"slow down\"}}");
                return true;
            }
            case NON_SSE -> {
                respond(out, 200, "application/json", "{\"choices\":[{\"text\":\"hi\"}]}");
                return true;
            }
            default -> {
            }
        }
        if (!stream) {
            pause(recv, ttftMs + (n - 1) * itlMs);
            respond(out, 200, "application/json", "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
                    + "\"text\":\"" + "x".repeat(n) + "\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":"
                    + promptTokens + ",\"completion_tokens\":" + n + ",\"total_tokens\":" + (promptTokens + n) + "}}");
            return true;
        }
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                + "Cache-Control: no-cache\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        double t = ttftMs;
        for (int i = 0; i < n; i++) {
            double jit = jitterMs > 0 ? ThreadLocalRandom.current().nextDouble(jitterMs) : 0;
            pause(recv, t + jit);
            if (beh == Behavior.STALL && i == stallAfter) {
                LockSupport.parkNanos(3_600_000_000_000L);
                return false;
            }
            if (beh == Behavior.MALFORMED_JSON && i == 1) {
                chunk(out, "data: {\"choices\":[{\"text\":\"oops\"\n\n");
                continue;
            }
            if (beh == Behavior.MALFORMED_SSE && i == 1) {
                chunk(out, "this is not SSE\n\n");
                continue;
            }
            if (beh == Behavior.ERROR_EVENT && i == 1) {
                chunk(out, "data: {\"error\":{\"message\":\"engine died\",\"code\":500}}\n\n");
                continue;
            }
            long stamp = System.nanoTime();
            chunk(out, "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":0,\"model\":\"test\","
                    + "\"choices\":[{\"index\":0,\"text\":\"" + stamp + ";\",\"logprobs\":null,\"finish_reason\":"
                    + (i == n - 1 ? "\"length\"" : "null") + "}]}\n\n");
            t += itlMs;
        }
        if (usage) {
            chunk(out, "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":0,\"model\":\"test\",\"choices\":[],"
                    + "\"usage\":{\"prompt_tokens\":" + promptTokens + ",\"completion_tokens\":" + n
                    + ",\"total_tokens\":" + (promptTokens + n) + "}}\n\n");
        }
        chunk(out, "data: [DONE]\n\n");
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return true;
    }

    private static void pause(long recv, double ms) {
        long target = recv + (long) (ms * 1e6);
        long left;
        while ((left = target - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    private static void chunk(OutputStream out, String data) throws IOException {
        byte[] b = data.getBytes(StandardCharsets.UTF_8);
        byte[] size = (Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[size.length + b.length + 2];
        System.arraycopy(size, 0, all, 0, size.length);
        System.arraycopy(b, 0, all, size.length, b.length);
        all[all.length - 2] = '\r';
        all[all.length - 1] = '\n';
        out.write(all); // one write, one segment
        out.flush();
    }

    private static void respond(OutputStream out, int code, String ct, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + code + " X\r\nContent-Type: " + ct + "\r\nContent-Length: " + b.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        running = false;
        server.close();
    }

    /** Benchmark entry: {@code StreamingTestServer PORT TTFT_MS ITL_MS}; runs until killed. */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        StreamingTestServer s = new StreamingTestServer(port, Double.parseDouble(args[1]), Double.parseDouble(args[2]), 0);
        System.out.println("listening on " + s.port());
        System.out.flush();
        Thread.currentThread().join();
    }
}
