package io.isobench.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Sends one request and measures it (vLLM's {@code backend_request_func} semantics), over a keep-alive pool. */
final class RequestExecutor implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LoadgenConfig config;
    private final InetSocketAddress addr;
    private final String hostHeader;
    private final String path;
    private final String apiKey;
    private final long timeoutNs;

    RequestExecutor(LoadgenConfig config) {
        this.config = config;
        URI u = config.requestUri();
        int port = u.getPort() > 0 ? u.getPort() : 80;
        this.addr = new InetSocketAddress(u.getHost(), port);
        this.hostHeader = u.getHost() + ":" + port;
        String p = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        this.path = u.getRawQuery() == null ? p : p + "?" + u.getRawQuery();
        String key = config.apiKeyEnv() == null ? null : System.getenv(config.apiKeyEnv());
        this.apiKey = key == null || key.isBlank() ? null : key;
        this.timeoutNs = config.requestTimeout().toNanos();
    }

    /** A request ready to go: head and body bytes are built before its send time; whether its text is kept. */
    record Prepared(byte[] head, byte[] body, Prompt prompt, boolean keepText) {
        /** Head and body in one array, written with one call. */
        byte[] wire() {
            byte[] w = Arrays.copyOf(head, head.length + body.length);
            System.arraycopy(body, 0, w, head.length, body.length);
            return w;
        }
    }

    Prepared prepare(Prompt prompt, String requestId) {
        return prepare(prompt, config.chat() ? List.of(Map.of("role", "user", "content", prompt.text())) : null,
                requestId, config.keepText());
    }

    /**
     * A request with the given chat {@code messages} on a chat endpoint (else {@code prompt.text()} as the prompt);
     * {@code keepText}: the reply's text is kept (a multi-turn conversation sends it back as context).
     */
    Prepared prepare(Prompt prompt, List<Map<String, String>> messages, String requestId, boolean keepText) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", config.model());
        if (config.chat()) {
            body.put("messages", messages);
            body.put("max_completion_tokens", prompt.outputLen());
        } else {
            body.put("prompt", prompt.text());
        }
        body.put("max_tokens", prompt.outputLen());
        body.put("stream", config.stream());
        if (config.stream() && config.includeUsage()) {
            body.put("stream_options", Map.of("include_usage", true));
        }
        body.put("temperature", 0.0);
        body.putAll(config.sampling());
        if (config.ignoreEos()) {
            body.put("ignore_eos", true);
        }
        body.putAll(config.extraBody());
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot serialize the request body: " + e.getMessage(), e);
        }
        StringBuilder h = new StringBuilder(256);
        h.append("POST ").append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(hostHeader).append("\r\n")
                .append("User-Agent: isobench-loadgen\r\n")
                .append("Content-Type: application/json\r\n")
                .append("Accept: ").append(config.stream() ? "text/event-stream" : "application/json").append("\r\n")
                .append("Content-Length: ").append(bytes.length).append("\r\n");
        if (requestId != null) {
            h.append("X-Request-Id: ").append(requestId).append("\r\n");
        }
        if (apiKey != null) {
            h.append("Authorization: Bearer ").append(apiKey).append("\r\n");
        }
        for (var e : config.headers().entrySet()) {
            h.append(e.getKey()).append(": ").append(e.getValue()).append("\r\n");
        }
        h.append("\r\n");
        return new Prepared(h.toString().getBytes(StandardCharsets.UTF_8), bytes, prompt, keepText);
    }

    HttpConn connect() throws IOException {
        long ms = Math.max(1, Math.min(30_000, timeoutNs / 1_000_000));
        return new HttpConn(addr, (int) ms);
    }

    static byte[] append(byte[] line, int ll, byte[] src, int off, int len) {
        if (ll + len > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, ll + len));
        }
        System.arraycopy(src, off, line, ll, len);
        return line;
    }

    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

    /** One SSE line (without its LF); a chunk is any {@code data:} object with non-empty choices (vLLM's rule). */
    static void handleLine(byte[] b, int off, int len, long atNs, ChunkParser cp, Outcome o) {
        int end = off + len;
        while (end > off && (b[end - 1] == '\r' || b[end - 1] == ' ' || b[end - 1] == '\t')) {
            end--;
        }
        int s = off;
        while (s < end && (b[s] == ' ' || b[s] == '\t')) {
            s++;
        }
        if (s == end) {
            return;
        }
        if (startsWith(b, s, end, DATA)) {
            int p = s + DATA.length;
            while (p < end && b[p] == ' ') {
                p++;
            }
            if (end - p == DONE.length && startsWith(b, p, end, DONE)) {
                o.done = true;
                return;
            }
            try {
                cp.parse(b, p, end - p);
            } catch (IOException e) {
                o.fail("malformed_json", "malformed JSON in SSE chunk " + (o.chunks + 1) + ": " + e.getMessage()
                        + " in " + HttpConn.abbreviate(new String(b, p, end - p, StandardCharsets.UTF_8)));
                return;
            }
            if (cp.error != null) {
                o.fail("server_error", "server error in stream: " + HttpConn.abbreviate(cp.error));
                return;
            }
            if (cp.hasChoices) {
                o.addChunk(atNs);
                if (cp.hasText) {
                    o.appendText(cp.textBuf, 0, cp.textLen);
                }
                if (o.errorKind != null) {
                    return;
                }
            }
            if (cp.promptTokens >= 0) {
                o.promptTokens = cp.promptTokens;
            }
            if (cp.completionTokens >= 0) {
                o.completionTokens = cp.completionTokens;
            }
            return;
        }
        byte c0 = b[s];
        if (c0 == ':' || startsWith(b, s, end, "event:") || startsWith(b, s, end, "id:")
                || startsWith(b, s, end, "retry:")) {
            return;
        }
        o.fail("malformed_sse", "malformed SSE line: " + HttpConn.abbreviate(new String(b, s, end - s, StandardCharsets.UTF_8)));
    }

    private static boolean startsWith(byte[] b, int s, int end, String prefix) {
        return startsWith(b, s, end, prefix.getBytes(StandardCharsets.US_ASCII));
    }

    private static boolean startsWith(byte[] b, int s, int end, byte[] prefix) {
        if (end - s < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (b[s + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Mutable per-request state while reading: only what the metrics need (chunk times, token counts), and the
     * generated text when asked for, each bounded ({@code response_too_large} beyond).
     */
    static final class Outcome {
        long[] chunkNs = new long[64];
        int chunks;
        /** Chunks this response may stream ({@link LoadgenConfig#maxChunks}). */
        final int maxChunks;
        /** The generated text is kept ({@link LoadgenConfig#keepText}), up to {@link LoadgenConfig#MAX_TEXT_BYTES}. */
        final boolean keepText;
        byte[] text = new byte[0];
        int textLen;
        int promptTokens = -1;
        int completionTokens = -1;
        boolean done;
        String errorKind;
        String error;

        Outcome(boolean keepText, int maxChunks) {
            this.keepText = keepText;
            this.maxChunks = maxChunks;
        }

        void addChunk(long ns) {
            if (chunks >= maxChunks) {
                fail("response_too_large", "the response streamed more than " + maxChunks + " chunks (at most one per"
                        + " requested token is expected)");
                return;
            }
            if (chunks == chunkNs.length) {
                chunkNs = Arrays.copyOf(chunkNs, chunks * 2);
            }
            chunkNs[chunks++] = ns;
        }

        /** Streamed text is kept (when asked for) as the UTF-8 bytes the server sent (decoded once, at the end). */
        void appendText(byte[] src, int off, int len) {
            if (!keepText || len == 0) {
                return;
            }
            if ((long) textLen + len > LoadgenConfig.MAX_TEXT_BYTES) {
                fail("response_too_large", "the generated text passed " + (LoadgenConfig.MAX_TEXT_BYTES >> 20)
                        + " MiB, the most kept per response");
                return;
            }
            if (textLen + len > text.length) {
                text = Arrays.copyOf(text, Math.min(LoadgenConfig.MAX_TEXT_BYTES,
                        Math.max(Math.max(256, text.length * 2), textLen + len)));
            }
            System.arraycopy(src, off, text, textLen, len);
            textLen += len;
        }

        void fail(String kind, String detail) {
            if (errorKind == null) {
                errorKind = kind;
                error = detail;
            }
        }

        /**
         * The result; {@code slotFree} is when a concurrency slot was free for it ({@code System.nanoTime}), or
         * {@link Long#MIN_VALUE} when one was free as it arrived.
         */
        RequestResult toResult(int index, Prepared req, long t0, long scheduledNs, long slotFree, long send, long end) {
            boolean success = errorKind == null && chunks > 0;
            String kind = errorKind;
            String err = error;
            if (errorKind == null && chunks == 0) {
                kind = "no_chunk";
                err = "Never received a valid chunk to calculate TTFT.";
            }
            long[] ch = Arrays.copyOf(chunkNs, chunks);
            long ttft = chunks > 0 ? ch[0] : -1;
            long latency = chunks > 0 ? ch[chunks - 1] : -1;
            boolean fromUsage = completionTokens >= 0;
            int out = fromUsage ? completionTokens : chunks;
            return new RequestResult(index, success, kind, err, scheduledNs, send - t0, end - t0, ttft, latency, ch,
                    req.prompt().expectedInputTokens(), promptTokens, out, fromUsage, req.prompt().outputLen(),
                    success ? new String(text, 0, textLen, StandardCharsets.UTF_8) : "",
                    slotFree == Long.MIN_VALUE ? scheduledNs : Math.max(scheduledNs, slotFree - t0));
        }
    }

    /** GET a path; status code, or -1 when nothing answered. Used for the readiness check and /tokenize. */
    int get(String p) {
        try (HttpConn c = connect()) {
            c.deadline(System.nanoTime() + 5_000_000_000L);
            c.write(("GET " + p + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII), new byte[0]);
            HttpConn.Head h = c.readHead();
            c.readBody(1 << 16);
            return h.status();
        } catch (IOException e) {
            return -1;
        }
    }

    /** POST JSON, returning the body on 200 or null. */
    String postJson(String p, Object body) {
        try (HttpConn c = connect()) {
            byte[] b = JSON.writeValueAsBytes(body);
            c.deadline(System.nanoTime() + 10_000_000_000L);
            c.write(("POST " + p + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + b.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII), b);
            HttpConn.Head h = c.readHead();
            String s = c.readBody(16 << 20);
            return h.status() == 200 ? s : null;
        } catch (IOException e) {
            return null;
        }
    }

    LoadgenConfig config() {
        return config;
    }

    InetSocketAddress address() {
        return addr;
    }

    String hostHeader() {
        return hostHeader;
    }

    long timeoutNs() {
        return timeoutNs;
    }

    @Override
    public void close() {
        // connections of the measured requests live in the EventLoop; nothing pooled here
    }
}
