package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.agent.ScriptedAnthropicServer.Request;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scripted Anthropic server (a named fake) answers as the Messages API does, by turn, and records requests. */
class ScriptedAnthropicServerTest {

    static final String KEY = "sk-ant-test-server-key";
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TOOLS = "\"tools\":[{\"name\":\"Bash\",\"input_schema\":{\"type\":\"object\"}}]";

    private final HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> post(ScriptedAnthropicServer s, String path, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.baseUrl() + path))
                .header("content-type", "application/json").header("anthropic-version", "2023-06-01")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("x-api-key", key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String messages(int assistantTurns, boolean stream, boolean tools) {
        StringBuilder m = new StringBuilder("[{\"role\":\"user\",\"content\":\"go\"}");
        for (int i = 0; i < assistantTurns; i++) {
            m.append(",{\"role\":\"assistant\",\"content\":\"x\"},{\"role\":\"user\",\"content\":\"y\"}");
        }
        return "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":100,\"stream\":" + stream + ","
                + (tools ? TOOLS + "," : "") + "\"messages\":" + m + "]}";
    }

    @Test
    void theTurnIsChosenByTheAssistantMessagesInTheRequestSoARetryGetsTheSameAnswer() throws Exception {
        try (var s = ScriptedAnthropicServer.start(ClaudeScripts.edit("/r"), KEY)) {
            JsonNode first = JSON.readTree(post(s, "/v1/messages", KEY, messages(1, false, true)).body());
            JsonNode again = JSON.readTree(post(s, "/v1/messages", KEY, messages(1, false, true)).body());
            assertEquals("tool_use", first.path("stop_reason").asText());
            assertEquals("Edit", first.path("content").get(0).path("name").asText());
            assertEquals(ScriptedAnthropicServer.toolUseId(1, 0), first.path("content").get(0).path("id").asText());
            assertEquals(ClaudeScripts.EDIT_NEW, first.path("content").get(0).path("input").path("new_string").asText());
            assertEquals(first.path("content"), again.path("content"));
            assertEquals(150, first.path("usage").path("input_tokens").asInt());
            assertEquals(1500, first.path("usage").path("cache_read_input_tokens").asInt());
            assertEquals(87, first.path("usage").path("output_tokens").asInt());
            assertEquals("claude-sonnet-4-5", first.path("model").asText(), "the request's model is echoed");
            JsonNode last = JSON.readTree(post(s, "/v1/messages", KEY, messages(3, false, true)).body());
            assertEquals("end_turn", last.path("stop_reason").asText());
            assertEquals(ClaudeScripts.EDIT_DONE, last.path("content").get(0).path("text").asText());
            JsonNode past = JSON.readTree(post(s, "/v1/messages", KEY, messages(4, false, true)).body());
            assertEquals(ScriptedAnthropicServer.PAST_SCRIPT_TEXT, past.path("content").get(0).path("text").asText());
            assertEquals(List.of("main:1", "main:1", "main:3", "past-script"),
                    s.requests().stream().map(Request::kind).toList());
            assertFalse(s.requests().get(3).answered());
        }
    }

    @Test
    void streamingSendsTheMessagesApiEventsWithDeltasThatJoinToTheBlocks() throws Exception {
        try (var s = ScriptedAnthropicServer.start(ClaudeScripts.edit("/r"), KEY)) {
            HttpResponse<String> r = post(s, "/v1/messages?beta=true", KEY, messages(0, true, true));
            assertEquals(200, r.statusCode());
            assertEquals("text/event-stream", r.headers().firstValue("content-type").orElse(""));
            List<String> events = r.body().lines().filter(l -> l.startsWith("event: "))
                    .map(l -> l.substring(7)).toList();
            assertEquals(List.of("message_start", "content_block_start", "content_block_delta", "content_block_delta",
                    "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta",
                    "content_block_stop", "message_delta", "message_stop"), events);
            StringBuilder text = new StringBuilder();
            StringBuilder json = new StringBuilder();
            JsonNode delta = null;
            JsonNode start = null;
            for (String l : r.body().lines().filter(l -> l.startsWith("data: ")).toList()) {
                JsonNode d = JSON.readTree(l.substring(6));
                switch (d.path("type").asText()) {
                    case "message_start" -> start = d;
                    case "content_block_delta" -> {
                        text.append(d.path("delta").path("text").asText(""));
                        json.append(d.path("delta").path("partial_json").asText(""));
                    }
                    case "message_delta" -> delta = d;
                    default -> { }
                }
            }
            assertEquals("I'll look at the engine's configuration first.", text.toString());
            assertEquals("/r/toyllm/config.py", JSON.readTree(json.toString()).path("file_path").asText());
            assertEquals(1200, start.path("message").path("usage").path("input_tokens").asInt());
            assertEquals(300, start.path("message").path("usage").path("cache_creation_input_tokens").asInt());
            assertEquals("tool_use", delta.path("delta").path("stop_reason").asText());
            assertEquals(41, delta.path("usage").path("output_tokens").asInt());
        }
    }

    @Test
    void sideRequestsCountTokensModelsUnknownPathsAndWrongKeysAreTellable() throws Exception {
        try (var s = ScriptedAnthropicServer.start(ClaudeScripts.bash("true"), KEY)) {
            JsonNode side = JSON.readTree(post(s, "/v1/messages", KEY, messages(5, false, false)).body());
            assertEquals(ScriptedAnthropicServer.SIDE_TEXT, side.path("content").get(0).path("text").asText());
            assertEquals(200, post(s, "/v1/messages/count_tokens", KEY, messages(0, false, true)).statusCode());
            assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + "/v1/models"))
                    .header("x-api-key", KEY).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(404, post(s, "/v1/complete", KEY, "{}").statusCode());
            assertEquals(401, post(s, "/v1/messages", "sk-ant-wrong", messages(0, false, true)).statusCode());
            assertEquals(401, post(s, "/v1/messages", null, messages(0, false, true)).statusCode());
            List<Request> got = s.requests();
            assertEquals(List.of("side", "count_tokens", "models", "unknown", "unauthorized", "unauthorized"),
                    got.stream().map(Request::kind).toList());
            assertEquals(List.of(true, true, true, false, false, false), got.stream().map(Request::answered).toList());
            assertEquals(List.of(true, true, true, true, false, false), got.stream().map(Request::keyMatched).toList());
            for (Request q : got) {
                assertFalse(q.headers().containsKey("x-api-key"), "credentials are not recorded");
                assertTrue(q.headers().containsKey("anthropic-version") || q.method().equals("GET"));
            }
        }
    }
}
