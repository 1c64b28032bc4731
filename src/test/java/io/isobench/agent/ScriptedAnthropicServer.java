package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A NAMED FAKE of the Anthropic Messages API (test code only; docs/agents.md, "Proof offline"): an HTTP server on
 * 127.0.0.1 that lets the real Claude Code CLI run with no model behind it. It replays a {@link Script}, an ordered
 * list of assistant turns (text and tool_use blocks, each turn with its usage numbers), over {@code POST
 * /v1/messages} as Anthropic's streaming SSE ({@code message_start}, {@code content_block_start},
 * {@code content_block_delta} with {@code text_delta} / {@code input_json_delta}, {@code content_block_stop},
 * {@code message_delta} with {@code stop_reason} and usage, {@code message_stop}) or as one JSON message when the
 * request does not stream.
 *
 * <p>Which turn answers a request of the main conversation is the number of assistant messages already in the
 * request's {@code messages}, so a retried request gets the same answer. A request without {@code tools} is a side
 * request (titles, summaries, quota checks): it gets {@link #SIDE_TEXT} with {@link #SIDE_USAGE}. A request past
 * the script's end gets {@link #PAST_SCRIPT_TEXT} and is recorded as {@code past-script}. {@code POST
 * /v1/messages/count_tokens} and {@code GET /v1/models} are answered too; anything else gets 404 and is recorded as
 * {@code unknown}. Every request is recorded ({@link #requests()}) with its headers minus credentials (whether the
 * expected API key came is kept as a flag) and its body.
 */
public final class ScriptedAnthropicServer implements AutoCloseable {

    /** The text of every side request's answer. */
    public static final String SIDE_TEXT = "Scripted side reply.";
    /** The usage of every side request's answer. */
    public static final Usage SIDE_USAGE = new Usage(7, 3, 0, 0);
    /** The text answering a main request past the script's end. */
    public static final String PAST_SCRIPT_TEXT = "The scripted conversation has ended.";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One content block of an assistant turn.
     *
     * @param text      the text ({@code text} blocks)
     * @param toolName  the tool ({@code tool_use} blocks; null for text)
     * @param toolInput the tool's input as JSON text ({@code tool_use} blocks)
     */
    public record Block(String text, String toolName, String toolInput) {
        public static Block text(String text) {
            return new Block(Objects.requireNonNull(text), null, null);
        }

        public static Block tool(String name, Map<String, ?> input) {
            try {
                return new Block(null, name, JSON.writeValueAsString(input));
            } catch (IOException e) {
                throw new IllegalArgumentException(e);
            }
        }

        public boolean isTool() {
            return toolName != null;
        }
    }

    /** A turn's usage as the API reports it (input excludes the two cache counts). */
    public record Usage(long inputTokens, long outputTokens, long cacheCreationInputTokens,
                        long cacheReadInputTokens) {
        /** Input tokens counting cached input, as isobench counts them. */
        public long allInput() {
            return inputTokens + cacheCreationInputTokens + cacheReadInputTokens;
        }
    }

    /** One assistant turn: its blocks and usage; stops with {@code tool_use} when it calls a tool. */
    public record Turn(List<Block> blocks, Usage usage) {
        public Turn {
            blocks = List.copyOf(blocks);
        }

        public String stopReason() {
            return blocks.stream().anyMatch(Block::isTool) ? "tool_use" : "end_turn";
        }
    }

    /** The scripted conversation: data, built with {@link #builder()}; {@code model} null: echo the request's. */
    public record Script(String model, List<Turn> turns) {
        public Script {
            turns = List.copyOf(turns);
        }

        public static Builder builder() {
            return new Builder();
        }

        public long inputTokens() {
            return turns.stream().mapToLong(t -> t.usage().allInput()).sum();
        }

        public long outputTokens() {
            return turns.stream().mapToLong(t -> t.usage().outputTokens()).sum();
        }
    }

    /** Builds a {@link Script} turn by turn. */
    public static final class Builder {
        private String model;
        private final List<Turn> turns = new ArrayList<>();

        /** The model name every answer carries (default: the model the request asked for). */
        public Builder model(String m) {
            this.model = m;
            return this;
        }

        /** A turn that calls one tool (with an optional text before it). */
        public Builder tool(String text, String toolName, Map<String, ?> input, Usage usage) {
            List<Block> b = new ArrayList<>();
            if (text != null) {
                b.add(Block.text(text));
            }
            b.add(Block.tool(toolName, input));
            turns.add(new Turn(b, usage));
            return this;
        }

        /** A turn of text only (ends the agent's loop). */
        public Builder text(String text, Usage usage) {
            turns.add(new Turn(List.of(Block.text(text)), usage));
            return this;
        }

        public Script build() {
            return new Script(model, turns);
        }
    }

    /**
     * One request the server got.
     *
     * @param method     HTTP method
     * @param path       path with query
     * @param headers    headers, lower-cased names, credentials removed
     * @param keyMatched whether {@code x-api-key} (or a bearer token) was the expected key
     * @param body       the body text
     * @param kind       {@code main:N} (turn N answered), {@code side}, {@code count_tokens}, {@code models},
     *                   {@code past-script}, {@code unauthorized} or {@code unknown}
     * @param status     the HTTP status answered
     */
    public record Request(String method, String path, Map<String, String> headers, boolean keyMatched, String body,
                          String kind, int status) {
        /** Whether the request was one the server knows and answered with 200. */
        public boolean answered() {
            return status == 200 && !kind.equals("unknown") && !kind.equals("past-script");
        }
    }

    private final HttpServer server;
    private final Script script;
    private final String apiKey;
    private final List<Request> requests = new CopyOnWriteArrayList<>();

    private ScriptedAnthropicServer(Script script, String apiKey) throws IOException {
        this.script = script;
        this.apiKey = apiKey;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    /** Starts a server on a free 127.0.0.1 port replaying {@code script}, accepting only {@code apiKey}. */
    public static ScriptedAnthropicServer start(Script script, String apiKey) throws IOException {
        return new ScriptedAnthropicServer(script, apiKey);
    }

    /** {@code http://127.0.0.1:PORT} (what {@code ANTHROPIC_BASE_URL} is set to). */
    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public Script script() {
        return script;
    }

    /** Every request so far, in arrival order. */
    public List<Request> requests() {
        return List.copyOf(requests);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] raw = ex.getRequestBody().readAllBytes();
            String body = new String(raw, StandardCharsets.UTF_8);
            Map<String, String> headers = new TreeMap<>();
            boolean keyMatched = false;
            for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
                String name = h.getKey().toLowerCase(Locale.ROOT);
                String value = String.join(", ", h.getValue());
                if (name.equals("x-api-key") || name.equals("authorization")) {
                    keyMatched |= value.equals(apiKey) || value.equals("Bearer " + apiKey);
                    continue;
                }
                headers.put(name, value);
            }
            String method = ex.getRequestMethod();
            String path = ex.getRequestURI().toString();
            String bare = ex.getRequestURI().getPath();
            if (!keyMatched && bare.startsWith("/v1/")) {
                record(method, path, headers, false, body, "unauthorized", 401);
                send(ex, 401, "application/json", error("authentication_error", "invalid x-api-key"));
                return;
            }
            if (method.equals("POST") && bare.equals("/v1/messages")) {
                messages(ex, method, path, headers, body);
            } else if (method.equals("POST") && bare.equals("/v1/messages/count_tokens")) {
                record(method, path, headers, true, body, "count_tokens", 200);
                send(ex, 200, "application/json", "{\"input_tokens\":" + Math.max(1, body.length() / 4) + "}");
            } else if (method.equals("GET") && bare.startsWith("/v1/models")) {
                record(method, path, headers, true, body, "models", 200);
                String model = script.model() != null ? script.model() : "claude-scripted";
                send(ex, 200, "application/json", "{\"data\":[{\"type\":\"model\",\"id\":\"" + model
                        + "\",\"display_name\":\"scripted\",\"created_at\":\"2025-01-01T00:00:00Z\"}],"
                        + "\"has_more\":false,\"first_id\":\"" + model + "\",\"last_id\":\"" + model + "\"}");
            } else {
                record(method, path, headers, keyMatched, body, "unknown", 404);
                send(ex, 404, "application/json", error("not_found_error", "not scripted: " + method + " " + path));
            }
        }
    }

    private void messages(HttpExchange ex, String method, String path, Map<String, String> headers, String body)
            throws IOException {
        JsonNode req = JSON.readTree(body);
        boolean stream = req.path("stream").asBoolean(false);
        Turn turn;
        String kind;
        JsonNode tools = req.path("tools");
        if (!tools.isArray() || tools.isEmpty()) {
            turn = new Turn(List.of(Block.text(SIDE_TEXT)), SIDE_USAGE);
            kind = "side";
        } else {
            int n = 0;
            for (JsonNode m : req.path("messages")) {
                if ("assistant".equals(m.path("role").asText())) {
                    n++;
                }
            }
            if (n < script.turns().size()) {
                turn = script.turns().get(n);
                kind = "main:" + n;
            } else {
                turn = new Turn(List.of(Block.text(PAST_SCRIPT_TEXT)), new Usage(1, 1, 0, 0));
                kind = "past-script";
            }
        }
        record(method, path, headers, true, body, kind, 200);
        String model = script.model() != null ? script.model() : req.path("model").asText("claude-scripted");
        String id = "msg_scripted_" + UUID.randomUUID().toString().replace("-", "");
        int turnNo = kind.startsWith("main:") ? Integer.parseInt(kind.substring(5)) : 99;
        if (stream) {
            sendStream(ex, model, id, turnNo, turn);
        } else {
            send(ex, 200, "application/json", JSON.writeValueAsString(message(model, id, turnNo, turn, true)));
        }
    }

    private static ObjectNode message(String model, String id, int turnNo, Turn turn, boolean whole)
            throws IOException {
        ObjectNode m = JSON.createObjectNode();
        m.put("id", id);
        m.put("type", "message");
        m.put("role", "assistant");
        m.put("model", model);
        ArrayNode content = m.putArray("content");
        if (whole) {
            for (int i = 0; i < turn.blocks().size(); i++) {
                content.add(blockStart(turnNo, i, turn.blocks().get(i), true));
            }
        }
        m.put("stop_reason", whole ? turn.stopReason() : null);
        m.putNull("stop_sequence");
        ObjectNode u = m.putObject("usage");
        u.put("input_tokens", turn.usage().inputTokens());
        u.put("cache_creation_input_tokens", turn.usage().cacheCreationInputTokens());
        u.put("cache_read_input_tokens", turn.usage().cacheReadInputTokens());
        u.put("output_tokens", whole ? turn.usage().outputTokens() : 1);
        return m;
    }

    private static ObjectNode blockStart(int turnNo, int index, Block b, boolean whole) throws IOException {
        ObjectNode o = JSON.createObjectNode();
        if (b.isTool()) {
            o.put("type", "tool_use");
            o.put("id", toolUseId(turnNo, index));
            o.put("name", b.toolName());
            o.set("input", whole ? JSON.readTree(b.toolInput()) : JSON.createObjectNode());
        } else {
            o.put("type", "text");
            o.put("text", whole ? b.text() : "");
        }
        return o;
    }

    /** The id of the tool_use block {@code index} of turn {@code turnNo} (deterministic). */
    public static String toolUseId(int turnNo, int index) {
        return String.format(Locale.ROOT, "toolu_scripted_%02d_%d", turnNo, index);
    }

    private static void sendStream(HttpExchange ex, String model, String id, int turnNo, Turn turn)
            throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        ex.getResponseHeaders().set("request-id", "req_scripted_" + turnNo);
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        ObjectNode start = JSON.createObjectNode();
        start.put("type", "message_start");
        start.set("message", message(model, id, turnNo, turn, false));
        event(out, "message_start", start);
        for (int i = 0; i < turn.blocks().size(); i++) {
            Block b = turn.blocks().get(i);
            ObjectNode s = JSON.createObjectNode();
            s.put("type", "content_block_start");
            s.put("index", i);
            s.set("content_block", blockStart(turnNo, i, b, false));
            event(out, "content_block_start", s);
            for (String piece : halves(b.isTool() ? b.toolInput() : b.text())) {
                ObjectNode d = JSON.createObjectNode();
                d.put("type", "content_block_delta");
                d.put("index", i);
                ObjectNode delta = d.putObject("delta");
                if (b.isTool()) {
                    delta.put("type", "input_json_delta");
                    delta.put("partial_json", piece);
                } else {
                    delta.put("type", "text_delta");
                    delta.put("text", piece);
                }
                event(out, "content_block_delta", d);
            }
            ObjectNode stop = JSON.createObjectNode();
            stop.put("type", "content_block_stop");
            stop.put("index", i);
            event(out, "content_block_stop", stop);
        }
        ObjectNode md = JSON.createObjectNode();
        md.put("type", "message_delta");
        ObjectNode delta = md.putObject("delta");
        delta.put("stop_reason", turn.stopReason());
        delta.putNull("stop_sequence");
        md.putObject("usage").put("output_tokens", turn.usage().outputTokens());
        event(out, "message_delta", md);
        event(out, "message_stop", JSON.createObjectNode().put("type", "message_stop"));
        out.close();
    }

    /** The text in two pieces (the client must join deltas), or one when short. */
    private static List<String> halves(String s) {
        if (s.length() < 2) {
            return List.of(s);
        }
        int mid = s.length() / 2;
        return List.of(s.substring(0, mid), s.substring(mid));
    }

    private static void event(OutputStream out, String name, JsonNode data) throws IOException {
        out.write(("event: " + name + "\ndata: " + JSON.writeValueAsString(data) + "\n\n")
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private void record(String method, String path, Map<String, String> headers, boolean keyMatched, String body,
                        String kind, int status) {
        requests.add(new Request(method, path, Map.copyOf(headers), keyMatched, body, kind, status));
    }

    private static String error(String type, String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", "error");
        o.putObject("error").put("type", type).put("message", message);
        return o.toString();
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }
}
