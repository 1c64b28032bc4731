package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One attempt's model usage as the egress proxy sees it (docs/agents.md, "Usage"): the source isobench controls, not
 * what the agent prints. A turn is one model request ({@code POST …/messages}, {@code …/responses},
 * {@code …/chat/completions}; {@code …/count_tokens} is not a turn), counted before it is forwarded; tokens are read
 * from the response the proxy relays — Anthropic {@code /v1/messages} (JSON, or server-sent events:
 * {@code message_start} and {@code message_delta} usage), OpenAI {@code /v1/responses} ({@code response.completed})
 * and chat completions ({@code usage}: prompt and completion tokens); input includes cached input. A response the
 * meter cannot read (compressed, over {@value #MAX_JSON_BYTES} bytes of JSON) is counted as unread, never guessed.
 * The listener sees the cumulative usage after every turn and every response; once {@link #refuseFurther} is called
 * the proxy forwards no more model requests.
 */
public final class EgressMeter {

    /** The most bytes of one JSON response (or one event line) the meter reads; past it the response is unread. */
    static final int MAX_JSON_BYTES = 16 << 20;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final AtomicLong turns = new AtomicLong();
    private final AtomicLong tokensIn = new AtomicLong();
    private final AtomicLong tokensOut = new AtomicLong();
    private final AtomicLong unread = new AtomicLong();
    private volatile Consumer<Usage> listener = u -> { };
    private volatile String refusal;

    /** Sets who hears about every change (one listener: the attempt's runner). */
    public void listen(Consumer<Usage> l) {
        listener = l == null ? u -> { } : l;
    }

    /** From now on model requests are refused (403) with {@code why}: the budget is spent. */
    public void refuseFurther(String why) {
        refusal = why;
    }

    /** The usage so far (no cost: the runner prices it). */
    public Usage usage() {
        return new Usage((int) Math.min(Integer.MAX_VALUE, turns.get()), tokensIn.get(), tokensOut.get(), null);
    }

    /** Model responses whose usage could not be read (compressed, too large, not JSON). */
    public long unreadResponses() {
        return unread.get();
    }

    /** Whether {@code method path} is a model request (a turn). */
    static boolean isModelCall(String method, String path) {
        if (!"POST".equalsIgnoreCase(method)) {
            return false;
        }
        String p = path.toLowerCase(Locale.ROOT);
        return p.endsWith("/messages") || p.endsWith("/responses") || p.endsWith("/chat/completions")
                || p.endsWith("/completions");
    }

    /** Counts one model request about to be forwarded; why it may not be, or null. */
    String admit() {
        String why = refusal;
        if (why != null) {
            return why;
        }
        turns.incrementAndGet();
        listener.accept(usage());
        return refusal; // the listener may have found this turn over the budget
    }

    /** A reader for one model response's body with {@code contentType} and {@code contentEncoding} (null: none). */
    Tap tap(String contentType, String contentEncoding) {
        boolean plain = contentEncoding == null || contentEncoding.isBlank()
                || "identity".equalsIgnoreCase(contentEncoding.strip());
        boolean sse = contentType != null && contentType.toLowerCase(Locale.ROOT).contains("text/event-stream");
        return new Tap(plain, sse);
    }

    /** Reads one response body as the proxy relays it; {@link #close} adds its usage. */
    final class Tap {
        private final boolean readable;
        private final boolean sse;
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        private boolean overflow;
        private boolean seenUsage;
        private long in;
        private long out;

        private Tap(boolean readable, boolean sse) {
            this.readable = readable;
            this.sse = sse;
        }

        /** More body bytes. */
        void write(byte[] b, int off, int len) {
            if (!readable) {
                return;
            }
            for (int i = off; i < off + len; i++) {
                if (sse && b[i] == '\n') {
                    line(buf.toByteArray());
                    buf.reset();
                    overflow = false;
                } else if (buf.size() < MAX_JSON_BYTES) {
                    buf.write(b[i]);
                } else {
                    overflow = true;
                }
            }
        }

        /** The body has ended (or the relay stopped): adds what it read. */
        void close() {
            if (readable && !sse && !overflow) {
                read(buf.toByteArray(), 0);
            } else if (readable && sse && buf.size() > 0) {
                line(buf.toByteArray());
            }
            if (!seenUsage) {
                unread.incrementAndGet();
            }
            tokensIn.addAndGet(in);
            tokensOut.addAndGet(out);
            listener.accept(usage());
        }

        private void line(byte[] l) {
            String s = new String(l, StandardCharsets.UTF_8);
            if (!overflow && s.startsWith("data:")) {
                read(l, 5);
            }
        }

        /** One JSON object: a whole response or one event's data; usage fields are cumulative within a response. */
        private void read(byte[] b, int from) {
            JsonNode n;
            try {
                n = JSON.readTree(b, from, b.length - from);
            } catch (IOException e) {
                return;
            }
            if (n == null || !n.isObject()) {
                return;
            }
            for (JsonNode u : new JsonNode[]{n.path("usage"), n.path("message").path("usage"),
                    n.path("response").path("usage")}) {
                if (u.isObject()) {
                    usageObject(u);
                }
            }
        }

        private void usageObject(JsonNode u) {
            long i = count(u, "input_tokens") + count(u, "cache_creation_input_tokens")
                    + count(u, "cache_read_input_tokens") + count(u, "prompt_tokens");
            long o = count(u, "output_tokens") + count(u, "completion_tokens");
            if (i > 0 || o > 0 || u.has("input_tokens") || u.has("output_tokens") || u.has("prompt_tokens")) {
                seenUsage = true;
            }
            in = Math.max(in, i);
            out = Math.max(out, o);
        }

        private static long count(JsonNode u, String field) {
            JsonNode v = u.path(field);
            return v.canConvertToLong() && v.asLong() > 0 ? v.asLong() : 0;
        }
    }
}
