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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A NAMED FAKE of the OpenAI API (test code; docs/agents.md, "Codex"): an HTTP server on 127.0.0.1 that speaks the
 * Responses API ({@code POST /v1/responses}, streamed as server-sent events) and the Chat Completions API
 * ({@code POST /v1/chat/completions}, streamed) well enough for the real Codex CLI, and replays a {@link Script}
 * instead of running a model. Nothing real can answer here (no model API is reachable from the test machines), so
 * this fake stands in for the model; everything else in the tests (the CLI, its tools, the repository) is real.
 *
 * <p>The answer to a request is chosen by counting the model's earlier outputs in the request's {@code input}
 * (function calls, custom tool calls, assistant messages): a retried request gets the same turn. Requests after the
 * script's end get a final text answer and are marked {@code unscripted}. {@code GET /v1/models} gets an empty list.
 * Every request is recorded ({@link Request}: method, path, headers without {@code authorization}, body), and so is
 * whether it carried the expected bearer key; a request with a wrong key gets 401.
 */
public final class ScriptedOpenAiServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Item types of the Responses API that are the model's own output (what a turn is counted by). */
    private static final Set<String> MODEL_OUTPUT = Set.of("function_call", "custom_tool_call", "message");

    /**
     * One recorded request.
     *
     * @param method     HTTP method
     * @param path       the path (query included)
     * @param headers    lower-case header names → first value; {@code authorization} is left out
     * @param body       the body as text
     * @param keyOk      whether {@code Authorization: Bearer KEY} carried the expected key
     * @param turn       the script turn answered (0-based), or -1 for requests that are not model calls
     * @param unscripted true when the script had no turn left (a fixed final answer was sent)
     * @param answered   true when the server sent a 2xx answer
     */
    public record Request(String method, String path, Map<String, String> headers, String body, boolean keyOk,
                          int turn, boolean unscripted, boolean answered) {
    }

    private final Script script;
    private final String apiKey;
    private final HttpServer http;
    private final List<Request> requests = new CopyOnWriteArrayList<>();

    private ScriptedOpenAiServer(Script script, String apiKey) throws IOException {
        this.script = script;
        this.apiKey = apiKey;
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "scripted-openai");
            t.setDaemon(true);
            return t;
        }));
        http.createContext("/", this::handle);
        http.start();
    }

    /** Starts a server replaying {@code script} and accepting only {@code apiKey}. */
    public static ScriptedOpenAiServer start(Script script, String apiKey) throws IOException {
        return new ScriptedOpenAiServer(script, apiKey);
    }

    /** The base URL an OpenAI client is given ({@code http://127.0.0.1:PORT/v1}). */
    public String baseUrl() {
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /** Every request so far, in arrival order. */
    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /** The model calls so far (Responses or Chat Completions requests). */
    public List<Request> modelCalls() {
        return requests.stream().filter(r -> r.turn() >= 0).toList();
    }

    @Override
    public void close() {
        http.stop(0);
        ((ExecutorService) http.getExecutor()).shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Map<String, String> headers = new LinkedHashMap<>();
            ex.getRequestHeaders().forEach((k, v) -> {
                String name = k.toLowerCase(Locale.ROOT);
                if (!name.equals("authorization") && !v.isEmpty()) {
                    headers.put(name, v.get(0));
                }
            });
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            boolean keyOk = apiKey != null && ("Bearer " + apiKey).equals(auth);
            String method = ex.getRequestMethod();
            String path = ex.getRequestURI().toString();
            String p = ex.getRequestURI().getPath();
            if (!keyOk) {
                requests.add(new Request(method, path, headers, body, false, -1, false, false));
                send(ex, 401, "application/json", "{\"error\":{\"message\":\"invalid api key\",\"type\":"
                        + "\"invalid_request_error\",\"code\":\"invalid_api_key\"}}");
                return;
            }
            if (method.equals("GET") && p.equals("/v1/models")) {
                requests.add(new Request(method, path, headers, body, true, -1, false, true));
                send(ex, 200, "application/json", "{\"object\":\"list\",\"data\":[],\"models\":[]}");
                return;
            }
            if (method.equals("POST") && (p.equals("/v1/responses") || p.equals("/v1/chat/completions"))) {
                JsonNode req;
                try {
                    req = JSON.readTree(body);
                } catch (IOException e) {
                    requests.add(new Request(method, path, headers, body, true, -1, false, false));
                    send(ex, 400, "application/json", "{\"error\":{\"message\":\"unreadable JSON body\"}}");
                    return;
                }
                boolean chat = p.endsWith("/chat/completions");
                int outputs = chat ? countChatOutputs(req.path("messages")) : countOutputs(req.path("input"));
                int turn = script.turnAfter(outputs);
                boolean unscripted = turn >= script.turns().size();
                Script.Turn t = unscripted ? Script.Turn.text("(the script has no turn left)", 1, 0, 1, 0)
                        : script.turns().get(turn);
                requests.add(new Request(method, path, headers, body, true, turn, unscripted, true));
                String sse = chat ? chatStream(t, turn) : responsesStream(t, turn);
                send(ex, 200, "text/event-stream", sse);
                return;
            }
            requests.add(new Request(method, path, headers, body, true, -1, false, false));
            send(ex, 404, "application/json", "{\"error\":{\"message\":\"not found: " + p + "\"}}");
        }
    }

    private static int countOutputs(JsonNode input) {
        int n = 0;
        for (JsonNode item : input) {
            String type = item.path("type").asText("message");
            if (MODEL_OUTPUT.contains(type) && (!type.equals("message") || "assistant".equals(item.path("role").asText()))) {
                n++;
            }
        }
        return n;
    }

    private static int countChatOutputs(JsonNode messages) {
        int n = 0;
        for (JsonNode m : messages) {
            if ("assistant".equals(m.path("role").asText())) {
                n += Math.max(1, m.path("tool_calls").size() + (m.path("content").asText("").isEmpty() ? 0 : 1));
            }
        }
        return n;
    }

    /** The Responses API's event stream for one turn. */
    static String responsesStream(Script.Turn t, int turn) {
        StringBuilder sb = new StringBuilder();
        String respId = "resp_" + turn;
        ObjectNode created = JSON.createObjectNode().put("type", "response.created");
        created.putObject("response").put("id", respId).put("object", "response").put("status", "in_progress");
        event(sb, created);
        int i = 0;
        for (Script.Item item : t.items()) {
            String id = "item_" + turn + "_" + i;
            ObjectNode done = itemJson(item, id, turn, i);
            ObjectNode added = done.deepCopy();
            switch (item) {
                case Script.Text x -> added.putArray("content");
                case Script.Call x -> added.put("arguments", "");
                case Script.CustomCall x -> added.put("input", "");
            }
            event(sb, JSON.createObjectNode().put("type", "response.output_item.added").put("output_index", i)
                    .set("item", added));
            ObjectNode delta = JSON.createObjectNode().put("item_id", id).put("output_index", i);
            switch (item) {
                case Script.Text x -> event(sb, delta.put("type", "response.output_text.delta").put("content_index", 0)
                        .put("delta", x.text()));
                case Script.Call x -> event(sb, delta.put("type", "response.function_call_arguments.delta")
                        .put("delta", x.argumentsJson()));
                case Script.CustomCall x -> event(sb, delta.put("type", "response.custom_tool_call_input.delta")
                        .put("delta", x.input()));
            }
            event(sb, JSON.createObjectNode().put("type", "response.output_item.done").put("output_index", i)
                    .set("item", done));
            i++;
        }
        ObjectNode completed = JSON.createObjectNode().put("type", "response.completed");
        ObjectNode resp = completed.putObject("response").put("id", respId).put("object", "response")
                .put("status", "completed");
        ObjectNode usage = resp.putObject("usage");
        usage.put("input_tokens", t.inputTokens());
        usage.putObject("input_tokens_details").put("cached_tokens", t.cachedTokens());
        usage.put("output_tokens", t.outputTokens());
        usage.putObject("output_tokens_details").put("reasoning_tokens", t.reasoningTokens());
        usage.put("total_tokens", t.inputTokens() + t.outputTokens());
        event(sb, completed);
        return sb.toString();
    }

    private static ObjectNode itemJson(Script.Item item, String id, int turn, int i) {
        ObjectNode o = JSON.createObjectNode();
        String callId = "call_" + turn + "_" + i;
        switch (item) {
            case Script.Text x -> {
                o.put("type", "message").put("id", id).put("role", "assistant").put("status", "completed");
                o.putArray("content").addObject().put("type", "output_text").put("text", x.text())
                        .putArray("annotations");
            }
            case Script.Call x -> o.put("type", "function_call").put("id", id).put("call_id", callId)
                    .put("name", x.name()).put("arguments", x.argumentsJson()).put("status", "completed");
            case Script.CustomCall x -> o.put("type", "custom_tool_call").put("id", id).put("call_id", callId)
                    .put("name", x.name()).put("input", x.input()).put("status", "completed");
        }
        return o;
    }

    private static void event(StringBuilder sb, ObjectNode data) {
        sb.append("event: ").append(data.path("type").asText()).append('\n')
                .append("data: ").append(data).append("\n\n");
    }

    /** The Chat Completions stream for one turn (custom tool calls are sent as function calls with {@code input}). */
    static String chatStream(Script.Turn t, int turn) {
        StringBuilder sb = new StringBuilder();
        String id = "chatcmpl_" + turn;
        int callIndex = 0;
        boolean calls = false;
        for (Script.Item item : t.items()) {
            ObjectNode chunk = chatChunk(id);
            ObjectNode delta = ((ObjectNode) chunk.withArray("choices").get(0)).putObject("delta");
            delta.put("role", "assistant");
            switch (item) {
                case Script.Text x -> delta.put("content", x.text());
                case Script.Call x -> {
                    addChatCall(delta, callIndex++, "call_" + turn + "_" + callIndex, x.name(), x.argumentsJson());
                    calls = true;
                }
                case Script.CustomCall x -> {
                    addChatCall(delta, callIndex++, "call_" + turn + "_" + callIndex, x.name(),
                            JSON.createObjectNode().put("input", x.input()).toString());
                    calls = true;
                }
            }
            sb.append("data: ").append(chunk).append("\n\n");
        }
        ObjectNode last = chatChunk(id);
        ((ObjectNode) last.withArray("choices").get(0)).put("finish_reason", calls ? "tool_calls" : "stop")
                .putObject("delta");
        ObjectNode usage = last.putObject("usage");
        usage.put("prompt_tokens", t.inputTokens()).put("completion_tokens", t.outputTokens())
                .put("total_tokens", t.inputTokens() + t.outputTokens());
        usage.putObject("prompt_tokens_details").put("cached_tokens", t.cachedTokens());
        sb.append("data: ").append(last).append("\n\n").append("data: [DONE]\n\n");
        return sb.toString();
    }

    private static ObjectNode chatChunk(String id) {
        ObjectNode c = JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk").put("model", "scripted");
        c.putArray("choices").addObject().put("index", 0);
        return c;
    }

    private static void addChatCall(ObjectNode delta, int index, String callId, String name, String args) {
        ArrayNode arr = delta.putArray("tool_calls");
        ObjectNode c = arr.addObject().put("index", index).put("id", callId).put("type", "function");
        c.putObject("function").put("name", name).put("arguments", args);
    }

    private static void send(HttpExchange ex, int status, String type, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(b);
        }
    }

    /**
     * A scripted conversation: the model's turns in order, each a list of output items (text, function calls, custom
     * tool calls) and the usage it reports. Data only: build with {@link #builder()}.
     */
    public record Script(List<Turn> turns) {
        public Script {
            turns = List.copyOf(turns);
        }

        public static Builder builder() {
            return new Builder();
        }

        /** The turn that answers a request whose input holds {@code outputs} earlier model outputs. */
        int turnAfter(int outputs) {
            int seen = 0;
            for (int k = 0; k < turns.size(); k++) {
                if (seen >= outputs) {
                    return k;
                }
                seen += turns.get(k).items().size();
            }
            return turns.size();
        }

        /** Sum of the scripted input tokens of the first {@code n} turns. */
        public long inputTokens(int n) {
            return turns.stream().limit(n).mapToLong(Turn::inputTokens).sum();
        }

        /** Sum of the scripted output tokens of the first {@code n} turns. */
        public long outputTokens(int n) {
            return turns.stream().limit(n).mapToLong(Turn::outputTokens).sum();
        }

        /** One model response: its output items and usage (input tokens include the cached ones). */
        public record Turn(List<Item> items, long inputTokens, long cachedTokens, long outputTokens,
                           long reasoningTokens) {
            public Turn {
                items = List.copyOf(items);
                if (items.isEmpty()) {
                    throw new IllegalArgumentException("a turn has at least one item");
                }
            }

            static Turn text(String text, long in, long cached, long out, long reasoning) {
                return new Turn(List.of(new Text(text)), in, cached, out, reasoning);
            }
        }

        /** Builds a script turn by turn. */
        public static final class Builder {
            private final List<Turn> turns = new ArrayList<>();
            private long in = 1000;
            private long out = 50;

            /** Usage of the turns added next: input tokens (10% of them cached) and output tokens. */
            public Builder usage(long inputTokens, long outputTokens) {
                in = inputTokens;
                out = outputTokens;
                return this;
            }

            public Builder turn(Item... items) {
                turns.add(new Turn(List.of(items), in, in / 10, out, 0));
                return this;
            }

            public Builder text(String text) {
                return turn(new Text(text));
            }

            /** Codex's shell tool ({@code exec_command} with {@code cmd}). */
            public Builder shell(String command) {
                return turn(execCommand(command));
            }

            /** Codex's freeform {@code apply_patch} tool with a patch in its own format. */
            public Builder applyPatch(String patch) {
                return turn(new CustomCall("apply_patch", patch));
            }

            public Script build() {
                return new Script(turns);
            }
        }

        /** An output item. */
        public sealed interface Item permits Text, Call, CustomCall {
        }

        /** Assistant text. */
        public record Text(String text) implements Item {
        }

        /** A function call with JSON arguments. */
        public record Call(String name, String argumentsJson) implements Item {
        }

        /** A custom (freeform) tool call with raw input. */
        public record CustomCall(String name, String input) implements Item {
        }

        /** {@code exec_command} running {@code command}. */
        public static Call execCommand(String command) {
            return new Call("exec_command", JSON.createObjectNode().put("cmd", command).toString());
        }
    }
}
