package io.isobench.atif;

import io.isobench.atif.AtifValidator.Error;
import io.isobench.atif.AtifValidator.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ATIF checker against Harbor's own cases: its two fixtures (vendored, src/test/resources/atif/harbor/NOTICE)
 * validate; the negative cases of Harbor's {@code tests/unit/test_trajectory_validator.py} (invalid JSON, empty
 * object, missing fields, bad source, a step-id gap, all errors collected, tool-call fields and types, image paths)
 * and of its models (unknown keys, agent-only fields, call references, final_metrics keys) fail with their paths;
 * the number rule in both directions (READ lax as pydantic, WRITE canonical) and v1.8's rules.
 */
class AtifValidatorTest {

    static final Path HARBOR = Path.of("src/test/resources/atif/harbor");

    private static final String AGENT = "\"agent\": {\"name\": \"test-agent\", \"version\": \"1.0\"}";

    private static List<Error> read(String json) {
        return AtifValidator.validate(json, Profile.READ);
    }

    private static String doc(String steps) {
        return "{\"schema_version\": \"ATIF-v1.7\", \"session_id\": \"s\", " + AGENT + ", \"steps\": [" + steps + "]}";
    }

    private static List<String> lines(List<Error> errors) {
        return errors.stream().map(Error::toString).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"hello-world-invalid-json.trajectory.json", "hello-world-timeout.trajectory.json"})
    void harborFixturesValidate(String name) throws IOException {
        Path f = HARBOR.resolve(name);
        assertThat(AtifValidator.validate(Files.readString(f), Profile.READ, f.getParent())).isEmpty();
    }

    @Test
    void harborFixtureIsNotWhatIsobenchWrites() throws IOException {
        // the v1.6 fixture is read, never written: WRITE asks for v1.7
        assertThat(lines(AtifValidator.validate(Files.readString(HARBOR.resolve("hello-world-timeout.trajectory.json")),
                Profile.WRITE))).containsExactly("trajectory.schema_version: Input should be ATIF-v1.7, got"
                + " 'ATIF-v1.6'");
    }

    @Test
    void invalidJsonIsOneError() {
        assertThat(lines(read("{not json"))).singleElement().asString().startsWith("trajectory: Invalid JSON:");
        assertThat(lines(read("[1, 2]"))).containsExactly("trajectory: Trajectory must be a JSON object/dict");
    }

    @Test
    void emptyObjectMissesAgentAndSteps() {
        assertThat(lines(read("{}"))).containsExactly("trajectory.agent: required field is missing",
                "trajectory.steps: required field is missing");
        assertThat(lines(AtifValidator.validate("{}", Profile.WRITE))).first().asString()
                .startsWith("trajectory.schema_version: required field is missing");
    }

    @Test
    void minimalAndOptionalFieldsAreValid() {
        assertThat(read(doc("{\"step_id\": 1, \"source\": \"user\", \"message\": \"Hello\"},"
                + "{\"step_id\": 2, \"source\": \"agent\", \"message\": \"Hi\"}"))).isEmpty();
        assertThat(read("{\"schema_version\": \"ATIF-v1.0\", \"session_id\": \"test-123\", \"agent\": {\"name\": \"a\","
                + " \"version\": \"1.0\", \"model_name\": \"gpt-4\", \"extra\": {\"temperature\": 0.7}}, \"steps\": ["
                + "{\"step_id\": 1, \"source\": \"user\", \"message\": \"Hello\", \"timestamp\": \"2024-01-01T00:00:00Z\"},"
                + "{\"step_id\": 2, \"source\": \"agent\", \"message\": \"Hi\", \"model_name\": \"gpt-4\", \"metrics\":"
                + " {\"prompt_tokens\": 10, \"completion_tokens\": 5}, \"observation\": {\"results\": [{\"content\":"
                + " \"test output\"}]}}], \"final_metrics\": {\"total_prompt_tokens\": 10, \"total_completion_tokens\": 5,"
                + " \"total_steps\": 2}, \"notes\": \"Test trajectory\"}")).isEmpty();
    }

    @Test
    void badSourceNamesTheValue() {
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"invalid_source\", \"message\": \"test\"}"))))
                .containsExactly("trajectory.steps.0.source: Input should be 'system', 'user' or 'agent', got"
                        + " 'invalid_source'");
    }

    @Test
    void stepIdGapSaysTheExpectedId() {
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"user\", \"message\": \"test\"},"
                + "{\"step_id\": 3, \"source\": \"agent\", \"message\": \"test\"}")))).containsExactly(
                "trajectory.steps.1.step_id: steps[1].step_id: expected 2 (sequential from 1), got 3");
        assertThat(lines(read(doc("{\"step_id\": 0, \"source\": \"user\", \"message\": \"x\"}")))).containsExactly(
                "trajectory.steps.0.step_id: Input should be greater than or equal to 1");
    }

    @Test
    void allErrorsAreCollectedButCrossRulesWaitForValidFields() {
        List<String> e = lines(read("{\"schema_version\": \"INVALID-VERSION\", \"session_id\": 123, \"agent\":"
                + " {\"name\": \"test\"}, \"steps\": [{\"step_id\": 1, \"source\": \"invalid_source\", \"message\":"
                + " \"test\"}, {\"step_id\": 3, \"source\": \"agent\", \"message\": \"test\"}]}"));
        assertThat(e).hasSize(4);
        assertThat(String.join("\n", e)).contains("INVALID-VERSION", "trajectory.session_id: expected string type,"
                + " got int", "trajectory.agent.version: required field is missing", "invalid_source")
                .doesNotContain("expected 2");
    }

    @Test
    void toolCallFieldsAndTypes() {
        assertThat(read(doc("{\"step_id\": 1, \"source\": \"user\", \"message\": \"q\"}, {\"step_id\": 2, \"source\":"
                + " \"agent\", \"message\": \"\", \"tool_calls\": [{\"tool_call_id\": \"c1\", \"function_name\":"
                + " \"get_weather\", \"arguments\": {\"location\": \"San Francisco\"}}], \"observation\": {\"results\":"
                + " [{\"source_call_id\": \"c1\", \"content\": \"sunny\"}]}}"))).isEmpty();
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"agent\", \"message\": \"test\", \"tool_calls\":"
                + " [{\"function_name\": \"search\"}]}")))).containsExactly(
                "trajectory.steps.0.tool_calls.0.tool_call_id: required field is missing",
                "trajectory.steps.0.tool_calls.0.arguments: required field is missing");
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"agent\", \"message\": \"test\", \"tool_calls\":"
                + " [{\"tool_call_id\": 123, \"function_name\": \"search\", \"arguments\": \"not-a-dict\"}]}"))))
                .containsExactly("trajectory.steps.0.tool_calls.0.tool_call_id: expected string type, got int",
                        "trajectory.steps.0.tool_calls.0.arguments: expected dict type, got str");
    }

    @Test
    void unknownKeysAreRefusedExceptInsideExtra() {
        assertThat(lines(read("{\"schema_version\": \"ATIF-v1.7\", " + AGENT + ", \"steps\": [{\"step_id\": 1,"
                + " \"source\": \"user\", \"message\": \"x\", \"extra\": {\"anything\": [1]}}], \"total_turns\": 3}")))
                .containsExactly("trajectory.total_turns: unexpected field (not part of ATIF schema)");
        assertThat(lines(read("{" + AGENT + ", \"steps\": [{\"step_id\": 1, \"source\": \"user\", \"message\": \"x\"}],"
                + " \"final_metrics\": {\"total_steps\": 1, \"total_turns\": 4, \"total_tool_calls\": 0,"
                + " \"extra\": {\"total_turns\": 4}}}"))).containsExactly(
                "trajectory.final_metrics.total_turns: unexpected field (not part of ATIF schema)",
                "trajectory.final_metrics.total_tool_calls: unexpected field (not part of ATIF schema)");
    }

    @Test
    void agentOnlyFieldsOnAUserStepAreRefused() {
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"user\", \"message\": \"x\", \"metrics\":"
                + " {\"prompt_tokens\": 3}, \"tool_calls\": []}")))).containsExactly(
                "trajectory.steps.0: Value error, Field 'tool_calls' is only applicable when source is 'agent', but"
                        + " source is 'user'",
                "trajectory.steps.0: Value error, Field 'metrics' is only applicable when source is 'agent', but"
                        + " source is 'user'");
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"agent\", \"message\": \"x\", \"llm_call_count\": 0,"
                + " \"reasoning_content\": \"r\"}")))).containsExactly("trajectory.steps.0: Value error, Field"
                + " 'reasoning_content' must be absent when llm_call_count is 0");
    }

    @Test
    void sourceCallIdMustNameACallOfItsOwnStep() {
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"agent\", \"message\": \"\", \"tool_calls\":"
                + " [{\"tool_call_id\": \"c1\", \"function_name\": \"f\", \"arguments\": {}}]}, {\"step_id\": 2,"
                + " \"source\": \"user\", \"message\": \"\", \"observation\": {\"results\": [{\"source_call_id\": \"c1\","
                + " \"content\": \"late\"}, {\"source_call_id\": null, \"content\": \"system output\"}]}}"))))
                .containsExactly("trajectory.steps.1.observation.results.0.source_call_id: source_call_id 'c1' names"
                        + " no tool_call_id of step 2");
    }

    @Test
    void numbersAreLaxOnReadAndCanonicalOnWrite() {
        String lax = doc("{\"step_id\": \"1\", \"source\": \"agent\", \"message\": \"x\", \"metrics\": {\"prompt_tokens\":"
                + " 5.0, \"completion_tokens\": \"7\", \"cached_tokens\": true, \"cost_usd\": \"0.25\"},"
                + " \"is_copied_context\": \"no\"}");
        assertThat(read(lax)).isEmpty();
        assertThat(lines(AtifValidator.validate(lax, Profile.WRITE))).containsExactly(
                "trajectory.steps.0.step_id: expected int type, got str",
                "trajectory.steps.0.metrics.prompt_tokens: expected int type, got float",
                "trajectory.steps.0.metrics.completion_tokens: expected int type, got str",
                "trajectory.steps.0.metrics.cached_tokens: expected int type, got bool",
                "trajectory.steps.0.metrics.cost_usd: expected float type, got str",
                "trajectory.steps.0.is_copied_context: expected bool type, got str");
        // neither profile takes a fraction for an integer, nor a number for a string
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"agent\", \"message\": 5, \"metrics\":"
                + " {\"prompt_tokens\": 5.5}}")))).containsExactly(
                "trajectory.steps.0.message: expected string or list of content parts, got int",
                "trajectory.steps.0.metrics.prompt_tokens: expected int type, got float");
    }

    @Test
    void v18RulesApplyToV18DocumentsAndToWhatIsobenchWrites() {
        String steps = "{\"step_id\": 1, \"source\": \"agent\", \"message\": \"\", \"tool_calls\": [{\"tool_call_id\":"
                + " \"c\", \"function_name\": \"f\", \"arguments\": {}}, {\"tool_call_id\": \"c\", \"function_name\":"
                + " \"g\", \"arguments\": {}}]}";
        assertThat(read(doc(steps))).isEmpty();
        String dup = "trajectory.steps.0.tool_calls.1.tool_call_id: duplicate tool_call_id 'c' within the step"
                + " (ATIF-v1.8)";
        assertThat(lines(read(doc(steps).replace("ATIF-v1.7", "ATIF-v1.8")))).containsExactly(dup);
        assertThat(lines(AtifValidator.validate(doc(steps), Profile.WRITE))).containsExactly(dup);
        String audio = "{\"step_id\": 1, \"source\": \"user\", \"message\": [{\"type\": \"audio\", \"source\":"
                + " {\"media_type\": \"audio/wav\", \"path\": \"https://x/a.wav\", \"duration_sec\": 1.5}}]}";
        assertThat(read(doc(audio).replace("ATIF-v1.7", "ATIF-v1.8"))).isEmpty();
        // before v1.8 the part is an image part: its type, the source's duration and media type are refused
        assertThat(lines(read(doc(audio)))).containsExactly("trajectory.steps.0.message.0.type: Input should be"
                + " text or image, got 'audio'", "trajectory.steps.0.message.0.source.duration_sec: unexpected field"
                + " (not part of ATIF schema)", "trajectory.steps.0.message.0.source.media_type: Input should be"
                + " image/jpeg, image/png, image/gif, image/webp, got 'audio/wav'");
    }

    @Test
    void contentPartsAndImagePaths(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("shot.png"), "png");
        String ok = doc("{\"step_id\": 1, \"source\": \"agent\", \"message\": [{\"type\": \"text\", \"text\": \"see\"},"
                + " {\"type\": \"image\", \"source\": {\"media_type\": \"image/png\", \"path\": \"shot.png\"}},"
                + " {\"type\": \"image\", \"source\": {\"media_type\": \"image/png\", \"path\": \"s3://b/k.png\"}},"
                + " {\"type\": \"image\", \"source\": {\"media_type\": \"image/png\", \"path\": \"" + dir.resolve("shot.png")
                + "\"}}]}");
        assertThat(AtifValidator.validate(ok, Profile.READ, dir)).isEmpty();
        String missing = ok.replace("\"shot.png\"", "\"nonexistent.png\"");
        assertThat(lines(AtifValidator.validate(missing, Profile.READ, dir))).containsExactly(
                "trajectory.steps.0.message.1.source.path: referenced image file does not exist: nonexistent.png");
        assertThat(AtifValidator.validate(missing, Profile.READ, null)).as("no folder: paths not checked").isEmpty();
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"user\", \"message\": [{\"type\": \"text\"},"
                + " {\"type\": \"image\", \"text\": \"t\", \"source\": {\"media_type\": \"image/bmp\", \"path\": \"p\"}}]}"))))
                .containsExactly("trajectory.steps.0.message.0: Value error, 'text' field is required when type='text'",
                        "trajectory.steps.0.message.1.source.media_type: Input should be image/jpeg, image/png,"
                                + " image/gif, image/webp, got 'image/bmp'");
    }

    @Test
    void timestampsAsPythonReadsThem() {
        for (String ok : List.of("2025-10-16T14:30:00Z", "2025-10-16T14:30:00.123456+02:00", "2025-10-16",
                "2025-10-16 14:30")) {
            assertThat(AtifValidator.isoTimestamp(ok)).as(ok).isTrue();
        }
        for (String bad : List.of("yesterday", "2025-13-01T00:00:00Z", "2025-10-16T25:00:00", "16/10/2025")) {
            assertThat(AtifValidator.isoTimestamp(bad)).as(bad).isFalse();
        }
        assertThat(lines(read(doc("{\"step_id\": 1, \"source\": \"user\", \"message\": \"x\", \"timestamp\":"
                + " \"yesterday\"}")))).containsExactly("trajectory.steps.0.timestamp: Invalid ISO 8601 timestamp:"
                + " yesterday");
    }

    @Test
    void embeddedSubagentsAreCheckedWholeWithUniqueIds() {
        String sub = "{" + AGENT + ", \"steps\": [{\"step_id\": 1, \"source\": \"user\", \"message\": \"x\"}]}";
        String withId = sub.replace("{" + AGENT, "{\"trajectory_id\": \"t1\", " + AGENT);
        String root = doc("{\"step_id\": 1, \"source\": \"user\", \"message\": \"x\"}");
        String two = root.substring(0, root.length() - 1) + ", \"subagent_trajectories\": [" + withId + ", " + withId
                + ", " + sub + "]}";
        assertThat(lines(read(two))).containsExactly(
                "trajectory.subagent_trajectories.1.trajectory_id: duplicate trajectory_id 't1' among"
                        + " subagent_trajectories",
                "trajectory.subagent_trajectories.2.trajectory_id: embedded subagent trajectories must set"
                        + " trajectory_id");
        String bad = root.substring(0, root.length() - 1) + ", \"subagent_trajectories\": [" + withId.replace(
                "\"user\"", "\"bot\"") + "]}";
        assertThat(lines(read(bad))).singleElement().asString()
                .startsWith("trajectory.subagent_trajectories.0.steps.0.source:");
    }
}
