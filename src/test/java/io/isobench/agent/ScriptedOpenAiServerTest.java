package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.agent.ScriptedOpenAiServer.Script;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scripted model server (a named fake) answers by the conversation's length, records, and refuses bad keys. */
class ScriptedOpenAiServerTest {

    static final ObjectMapper JSON = new ObjectMapper();
    final HttpClient http = HttpClient.newHttpClient();

    HttpResponse<String> post(ScriptedOpenAiServer s, String path, String key, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + path)).header("Authorization", "Bearer " + key)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static List<JsonNode> events(String sse) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : sse.split("\n")) {
            if (line.startsWith("data: {")) {
                out.add(JSON.readTree(line.substring(6)));
            }
        }
        return out;
    }

    @Test
    void theTurnFollowsTheModelOutputsAlreadyInTheInputSoARetryGetsTheSameAnswer() throws Exception {
        Script script = Script.builder().usage(100, 7).shell("ls").usage(200, 9).text("bye").build();
        try (ScriptedOpenAiServer s = ScriptedOpenAiServer.start(script, "k1")) {
            String first = "{\"stream\":true,\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":[]}]}";
            List<JsonNode> a = events(post(s, "/responses", "k1", first).body());
            List<JsonNode> retry = events(post(s, "/responses", "k1", first).body());
            assertEquals(a, retry);
            assertEquals(List.of("response.created", "response.output_item.added",
                    "response.function_call_arguments.delta", "response.output_item.done", "response.completed"),
                    a.stream().map(e -> e.path("type").asText()).toList());
            JsonNode call = a.get(3).path("item");
            assertEquals("exec_command", call.path("name").asText());
            assertEquals("{\"cmd\":\"ls\"}", call.path("arguments").asText());
            assertEquals(100, a.get(4).path("response").path("usage").path("input_tokens").asLong());
            assertEquals(10, a.get(4).path("response").path("usage").path("input_tokens_details")
                    .path("cached_tokens").asLong());

            String second = "{\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":[]}," + call
                    + ",{\"type\":\"function_call_output\",\"call_id\":\"call_0_0\",\"output\":\"a\"}]}";
            List<JsonNode> b = events(post(s, "/responses", "k1", second).body());
            assertEquals("bye", b.get(b.size() - 2).path("item").path("content").get(0).path("text").asText());
            assertEquals(9, b.get(b.size() - 1).path("response").path("usage").path("output_tokens").asLong());

            String third = second.substring(0, second.length() - 2)
                    + ",{\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}]}";
            post(s, "/responses", "k1", third);
            assertEquals(List.of(0, 0, 1, 2), s.modelCalls().stream().map(ScriptedOpenAiServer.Request::turn).toList());
            assertTrue(s.requests().get(3).unscripted());
            assertEquals(400, post(s, "/responses", "k1", "{not json").statusCode());
            assertFalse(s.requests().get(2).unscripted());
        }
    }

    @Test
    void badKeysUnknownPathsAndModelListingAreAnsweredAndRecordedWithoutTheKey() throws Exception {
        try (ScriptedOpenAiServer s = ScriptedOpenAiServer.start(Script.builder().text("x").build(), "good-key")) {
            assertEquals(401, post(s, "/responses", "bad-key", "{}").statusCode());
            assertEquals(404, post(s, "/embeddings", "good-key", "{}").statusCode());
            HttpResponse<String> models = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + "/models"))
                    .header("Authorization", "Bearer good-key").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, models.statusCode());
            List<ScriptedOpenAiServer.Request> r = s.requests();
            assertEquals(List.of(false, true, true), r.stream().map(ScriptedOpenAiServer.Request::keyOk).toList());
            assertEquals(List.of(false, false, true), r.stream().map(ScriptedOpenAiServer.Request::answered).toList());
            r.forEach(q -> assertFalse(q.headers().containsKey("authorization")));
            r.forEach(q -> assertFalse(q.headers().toString().contains("good-key")));
        }
    }

    @Test
    void chatCompletionsStreamToolCallsAndUsage() throws Exception {
        Script script = Script.builder().usage(50, 5).applyPatch("*** Begin Patch\n*** End Patch\n").text("ok").build();
        try (ScriptedOpenAiServer s = ScriptedOpenAiServer.start(script, "k")) {
            String body = post(s, "/chat/completions", "k", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                    .body();
            assertTrue(body.endsWith("data: [DONE]\n\n"), body);
            List<JsonNode> ev = events(body);
            JsonNode tc = ev.get(0).path("choices").get(0).path("delta").path("tool_calls").get(0);
            assertEquals("apply_patch", tc.path("function").path("name").asText());
            assertEquals("tool_calls", ev.get(1).path("choices").get(0).path("finish_reason").asText());
            assertEquals(50, ev.get(1).path("usage").path("prompt_tokens").asLong());
            String next = post(s, "/chat/completions", "k", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                    + "{\"role\":\"assistant\",\"tool_calls\":[{}]},{\"role\":\"tool\",\"content\":\"done\"}]}").body();
            assertEquals("ok", events(next).get(0).path("choices").get(0).path("delta").path("content").asText());
        }
    }
}
