package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.AtifStores;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mapping rules of {@link AtifWriter} that the adapters' goldens do not reach: arguments that are not a JSON
 * object, blank and repeated call ids, an empty trajectory, the version when the CLI gave none, reasoning, and
 * ATIF's agent-only fields refused on other steps. Every document is checked valid as the store checks it.
 */
class AtifWriterTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode write(Trajectory t, Usage u) throws Exception {
        String json = t.toJson(new Trajectory.Header("agents-1", "command", null, null, Map.of("task", "t1",
                "attempt", 2)), u);
        AtifStores.assertValid(json);
        return JSON.readTree(json);
    }

    @Test
    void argumentsAreAlwaysAnObjectWithTheRawKept() throws Exception {
        Trajectory t = new Trajectory(List.of(new Trajectory.Step("agent", "", List.of(
                new Trajectory.ToolCall("a", "Bash", "{\"command\":\"ls\"}", "ok"),
                new Trajectory.ToolCall("b", "Edit", "[1,2]", null),
                new Trajectory.ToolCall("c", "Think", "not json {", null),
                new Trajectory.ToolCall("d", "Noop", "", null),
                new Trajectory.ToolCall("e", "Half", "{\"a\":1} trailing", null)), 10L, 2L)));
        JsonNode calls = write(t, Usage.NONE).path("steps").get(0).path("tool_calls");
        assertThat(calls.get(0).path("arguments").toString()).isEqualTo("{\"command\":\"ls\"}");
        assertThat(calls.get(0).has("extra")).isFalse();
        assertThat(calls.get(1).path("arguments").toString()).isEqualTo("{\"input\":[1,2]}");
        assertThat(calls.get(1).path("extra").path("raw_arguments").asText()).isEqualTo("[1,2]");
        assertThat(calls.get(2).path("arguments").toString()).isEqualTo("{\"input\":\"not json {\"}");
        assertThat(calls.get(3).path("arguments").toString()).isEqualTo("{\"input\":\"\"}");
        assertThat(calls.get(4).path("arguments").toString()).isEqualTo("{\"input\":\"{\\\"a\\\":1} trailing\"}");
    }

    @Test
    void callIdsAreUniqueWithinAStepAndResultsNameThem() throws Exception {
        Trajectory t = new Trajectory(List.of(new Trajectory.Step("agent", "", List.of(
                new Trajectory.ToolCall("x", "f", "{}", "one"),
                new Trajectory.ToolCall("x", "g", "{}", "two"),
                new Trajectory.ToolCall("", "h", "{}", "three")), null, null)));
        JsonNode s = write(t, Usage.NONE).path("steps").get(0);
        assertThat(s.path("tool_calls").findValuesAsText("tool_call_id")).containsExactly("x", "x#2", "call_1_2");
        assertThat(s.path("tool_calls").get(1).path("extra").path("isobench_original_tool_call_id").asText())
                .isEqualTo("x");
        assertThat(s.path("observation").path("results").findValuesAsText("source_call_id"))
                .containsExactly("x", "x#2", "call_1_2");
    }

    @Test
    void anEmptyTrajectoryIsOneSystemStepAndTotalsGoToExtra() throws Exception {
        JsonNode d = write(Trajectory.EMPTY, new Usage(3, 100, 20, 0.5));
        assertThat(d.path("schema_version").asText()).isEqualTo("ATIF-v1.7");
        assertThat(d.path("session_id").asText()).isEqualTo("agents-1");
        assertThat(d.path("agent").path("version").asText()).isEqualTo("unknown");
        assertThat(d.path("agent").has("model_name")).isFalse();
        assertThat(d.path("steps")).hasSize(1);
        assertThat(d.path("steps").get(0).path("source").asText()).isEqualTo("system");
        JsonNode fm = d.path("final_metrics");
        assertThat(fm.path("total_steps").asInt()).isEqualTo(1);
        assertThat(fm.path("total_cost_usd").asDouble()).isEqualTo(0.5);
        assertThat(fm.has("total_turns")).isFalse();
        assertThat(fm.path("extra").path("isobench_total_turns").asInt()).isEqualTo(3);
        assertThat(d.path("extra").path("isobench").path("task").asText()).isEqualTo("t1");
        assertThat(d.path("extra").path("isobench").path("attempt").asInt()).isEqualTo(2);
        assertThat(d.path("extra").path("isobench").path("summary_chars").asInt()).isEqualTo(400);
    }

    @Test
    void reasoningAndMetricsStayOnAgentSteps() throws Exception {
        Trajectory t = new Trajectory(List.of(new Trajectory.Step("user", "do it", List.of(), null, null),
                new Trajectory.Step("agent", "", List.of(), 5L, null, "thinking")));
        JsonNode steps = write(t, Usage.NONE).path("steps");
        assertThat(steps.get(0).has("metrics")).isFalse();
        assertThat(steps.get(1).path("reasoning_content").asText()).isEqualTo("thinking");
        assertThat(steps.get(1).path("metrics").path("prompt_tokens").asLong()).isEqualTo(5);
        assertThatThrownBy(() -> new Trajectory.Step("system", "x", List.of(), 5L, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("agent steps only");
        assertThatThrownBy(() -> new Trajectory.Step("tool", "x", List.of(), null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
