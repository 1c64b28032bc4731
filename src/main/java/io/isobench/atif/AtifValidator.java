package io.isobench.atif;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The ATIF checker (docs/agents.md, "ATIF trajectories"): a document is checked against Harbor's trajectory models
 * (RFC 0001, harbor 0.20.0, {@code src/harbor/models/trajectories}) and their validators, and every error is
 * returned, each with a dotted path the way Harbor's {@code trajectory_validator} names it
 * ({@code trajectory.steps.2.tool_calls.0.arguments}; indices from 0).
 *
 * <p>What it guarantees: an empty list means the document is a JSON object that Harbor's models accept — unknown keys
 * refused at every level except inside {@code extra} objects and {@code agent.tool_definitions} items; required fields
 * present; enums ({@code schema_version}, {@code source}, content-part {@code type}, image {@code media_type}) held;
 * step ids 1, 2, 3 …; fields only an agent step may carry absent elsewhere; an agent step with {@code
 * llm_call_count} 0 without metrics or reasoning; every {@code source_call_id} naming a call of its own step;
 * embedded subagents checked whole, each with its own unique {@code trajectory_id}; timestamps ISO 8601 as Python's
 * {@code datetime.fromisoformat} reads them. As in pydantic, a model's cross-field rules (step ids, call references,
 * agent-only fields) are checked only once its own fields hold.
 *
 * <p>Numbers, decided once: {@link Profile#READ} (documents made elsewhere) mirrors pydantic's lax mode, which
 * Harbor validates in — an integer field takes {@code 5}, {@code 5.0}, {@code "5"} or a boolean, a number field a
 * number, a numeric string or a boolean, a boolean field {@code true}/{@code false}, 0/1 or pydantic's words; a string
 * field never takes a number. {@link Profile#WRITE} (what isobench writes) takes only canonical JSON types, requires
 * {@code schema_version} {@value #WRITTEN_VERSION}, and adds v1.8's rules (tool-call ids unique within a step; a
 * subagent reference without a path names an embedded trajectory), which READ applies to v1.8 documents only.
 */
public final class AtifValidator extends AtifChecks {

    /** The version isobench writes. */
    public static final String WRITTEN_VERSION = "ATIF-v1.7";

    /** The versions read: ATIF-v1.0 to v1.8. */
    public static final List<String> READ_VERSIONS = List.of("ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3",
            "ATIF-v1.4", "ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7", "ATIF-v1.8");

    /** How strict the checker is. */
    public enum Profile {
        /** A document produced elsewhere: v1.0–v1.8, pydantic's lax number and boolean coercions. */
        READ,
        /** A document isobench writes: v1.7 stated, canonical JSON types, v1.8's structural rules. */
        WRITE
    }

    /** One error: where and what. */
    public record Error(String path, String message) {
        @Override
        public String toString() {
            return path + ": " + message;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> ROOT = Set.of("schema_version", "session_id", "trajectory_id", "agent", "steps",
            "notes", "final_metrics", "continued_trajectory_ref", "extra", "subagent_trajectories");
    private static final Set<String> AGENT = Set.of("name", "version", "model_name", "tool_definitions", "extra");
    private static final Set<String> STEP = Set.of("step_id", "timestamp", "source", "model_name", "reasoning_effort",
            "message", "reasoning_content", "tool_calls", "observation", "metrics", "is_copied_context",
            "llm_call_count", "extra");
    private static final List<String> AGENT_ONLY = List.of("model_name", "reasoning_effort", "reasoning_content",
            "tool_calls", "metrics");
    private static final Set<String> TOOL_CALL = Set.of("tool_call_id", "function_name", "arguments", "extra");
    private static final Set<String> RESULT = Set.of("source_call_id", "content", "subagent_trajectory_ref", "extra");
    private static final Set<String> REF = Set.of("trajectory_id", "session_id", "trajectory_path", "extra");
    private static final Set<String> METRICS = Set.of("prompt_tokens", "completion_tokens", "cached_tokens",
            "cost_usd", "prompt_token_ids", "completion_token_ids", "logprobs", "extra");
    private static final Set<String> FINAL = Set.of("total_prompt_tokens", "total_completion_tokens",
            "total_cached_tokens", "total_cost_usd", "total_steps", "extra");
    private static final List<String> SOURCES = List.of("system", "user", "agent");
    private static final List<String> MEDIA = List.of("image/jpeg", "image/png", "image/gif", "image/webp");
    private static final List<String> AUDIO = List.of("audio/wav", "audio/mpeg", "audio/ogg", "audio/webm",
            "audio/flac", "audio/mp4", "audio/aac");

    private final Path imagesBase;
    private boolean v18;

    private AtifValidator(Profile profile, Path imagesBase) {
        super(profile);
        this.imagesBase = imagesBase;
    }

    /** Every error of the JSON text {@code json} (a parse failure is the one error "Invalid JSON: …"). */
    public static List<Error> validate(String json, Profile profile) {
        return validate(json, profile, null);
    }

    /**
     * Every error of {@code json}; with {@code imagesBase} (the folder of the file it came from) a local image path,
     * relative to it or absolute, must also exist (paths holding {@code ://} are URLs, not checked), as Harbor does.
     */
    public static List<Error> validate(String json, Profile profile, Path imagesBase) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            return List.of(new Error("trajectory", "Invalid JSON: " + e.getOriginalMessage()));
        }
        return validate(root, profile, imagesBase);
    }

    /** Every error of the parsed document {@code root}. */
    public static List<Error> validate(JsonNode root, Profile profile, Path imagesBase) {
        AtifValidator v = new AtifValidator(profile, imagesBase);
        if (root == null || !root.isObject()) {
            return List.of(new Error("trajectory", "Trajectory must be a JSON object/dict"));
        }
        v.v18 = "ATIF-v1.8".equals(root.path("schema_version").asText(null));
        v.trajectory(root, "trajectory");
        return List.copyOf(v.errors);
    }

    private void trajectory(JsonNode t, String p) {
        if (!object(t, p)) {
            return;
        }
        int before = errors.size();
        keys(t, ROOT, p);
        JsonNode version = t.get("schema_version");
        List<String> versions = profile == Profile.WRITE ? List.of(WRITTEN_VERSION) : READ_VERSIONS;
        if (version == null && profile == Profile.WRITE) {
            error(p + ".schema_version", "required field is missing (isobench always writes " + WRITTEN_VERSION + ")");
        } else if (version != null && (!version.isTextual() || !versions.contains(version.asText()))) {
            error(p + ".schema_version", "Input should be " + String.join(", ", versions) + ", got '"
                    + text(version) + "'");
        }
        for (String f : List.of("session_id", "trajectory_id", "notes", "continued_trajectory_ref")) {
            string(t, f, p, false);
        }
        extra(t, p);
        if (required(t, "agent", p)) {
            agent(t.get("agent"), p + ".agent");
        }
        if (required(t, "steps", p) && array(t.get("steps"), p + ".steps")) {
            JsonNode steps = t.get("steps");
            if (steps.isEmpty()) {
                error(p + ".steps", "List should have at least 1 item after validation, not 0");
            }
            for (int i = 0; i < steps.size(); i++) {
                step(steps.get(i), p + ".steps." + i);
            }
        }
        if (present(t, "final_metrics") && object(t.get("final_metrics"), p + ".final_metrics")) {
            JsonNode fm = t.get("final_metrics");
            keys(fm, FINAL, p + ".final_metrics");
            for (String f : List.of("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens")) {
                integer(fm, f, p + ".final_metrics", null);
            }
            integer(fm, "total_steps", p + ".final_metrics", 0L);
            number(fm, "total_cost_usd", p + ".final_metrics");
            extra(fm, p + ".final_metrics");
        }
        Set<String> embedded = new HashSet<>();
        if (present(t, "subagent_trajectories") && array(t.get("subagent_trajectories"),
                p + ".subagent_trajectories")) {
            JsonNode subs = t.get("subagent_trajectories");
            for (int i = 0; i < subs.size(); i++) {
                trajectory(subs.get(i), p + ".subagent_trajectories." + i);
            }
            if (errors.size() == before) {
                for (int i = 0; i < subs.size(); i++) {
                    JsonNode id = subs.get(i).get("trajectory_id");
                    if (id == null || id.isNull()) {
                        error(p + ".subagent_trajectories." + i + ".trajectory_id", "embedded subagent trajectories"
                                + " must set trajectory_id");
                    } else if (!embedded.add(id.asText())) {
                        error(p + ".subagent_trajectories." + i + ".trajectory_id", "duplicate trajectory_id '"
                                + id.asText() + "' among subagent_trajectories");
                    }
                }
            }
        }
        if (errors.size() == before) {
            crossChecks(t, p, embedded);
        }
    }

    /** The root's model validators: step ids in order, call references, (v1.8) ids and subagent references. */
    private void crossChecks(JsonNode t, String p, Set<String> embedded) {
        JsonNode steps = t.get("steps");
        for (int i = 0; i < steps.size(); i++) {
            long id = asLong(steps.get(i).get("step_id"));
            if (id != i + 1) {
                error(p + ".steps." + i + ".step_id", "steps[" + i + "].step_id: expected " + (i + 1) + " (sequential"
                        + " from 1), got " + id);
            }
        }
        boolean v18rules = profile == Profile.WRITE || v18;
        for (int i = 0; i < steps.size(); i++) {
            JsonNode s = steps.get(i);
            Set<String> ids = new HashSet<>();
            JsonNode calls = s.path("tool_calls");
            for (int j = 0; j < calls.size(); j++) {
                String id = calls.get(j).get("tool_call_id").asText();
                if (!ids.add(id) && v18rules) {
                    error(p + ".steps." + i + ".tool_calls." + j + ".tool_call_id", "duplicate tool_call_id '" + id
                            + "' within the step (ATIF-v1.8)");
                }
            }
            JsonNode results = s.path("observation").path("results");
            for (int j = 0; j < results.size(); j++) {
                JsonNode r = results.get(j);
                JsonNode ref = r.get("source_call_id");
                if (ref != null && !ref.isNull() && !ids.contains(ref.asText())) {
                    error(p + ".steps." + i + ".observation.results." + j + ".source_call_id", "source_call_id '"
                            + ref.asText() + "' names no tool_call_id of step " + (i + 1));
                }
                if (!v18rules) {
                    continue;
                }
                JsonNode refs = r.path("subagent_trajectory_ref");
                for (int k = 0; k < refs.size(); k++) {
                    JsonNode x = refs.get(k);
                    if (isNull(x.get("trajectory_path")) && !isNull(x.get("trajectory_id"))
                            && !embedded.contains(x.get("trajectory_id").asText())) {
                        error(p + ".steps." + i + ".observation.results." + j + ".subagent_trajectory_ref." + k,
                                "trajectory_id '" + x.get("trajectory_id").asText() + "' without trajectory_path"
                                        + " names no embedded subagent trajectory (ATIF-v1.8)");
                    }
                }
            }
        }
    }

    private void agent(JsonNode a, String p) {
        if (!object(a, p)) {
            return;
        }
        keys(a, AGENT, p);
        string(a, "name", p, true);
        string(a, "version", p, true);
        string(a, "model_name", p, false);
        if (present(a, "tool_definitions") && array(a.get("tool_definitions"), p + ".tool_definitions")) {
            JsonNode defs = a.get("tool_definitions");
            for (int i = 0; i < defs.size(); i++) {
                object(defs.get(i), p + ".tool_definitions." + i);
            }
        }
        extra(a, p);
    }

    private void step(JsonNode s, String p) {
        if (!object(s, p)) {
            return;
        }
        int before = errors.size();
        keys(s, STEP, p);
        if (required(s, "step_id", p)) {
            integer(s, "step_id", p, 1L);
        }
        String source = null;
        if (required(s, "source", p)) {
            JsonNode src = s.get("source");
            if (!src.isTextual() || !SOURCES.contains(src.asText())) {
                error(p + ".source", "Input should be 'system', 'user' or 'agent', got '" + text(src) + "'");
            } else {
                source = src.asText();
            }
        }
        if (present(s, "timestamp") && string(s, "timestamp", p, false) && !isoTimestamp(s.get("timestamp").asText())) {
            error(p + ".timestamp", "Invalid ISO 8601 timestamp: " + s.get("timestamp").asText());
        }
        string(s, "model_name", p, false);
        JsonNode effort = s.get("reasoning_effort");
        if (!isNull(effort) && !effort.isTextual() && !effort.isNumber()) {
            error(p + ".reasoning_effort", "expected string or number, got " + kind(effort));
        }
        if (required(s, "message", p)) {
            content(s.get("message"), p + ".message", false);
        }
        string(s, "reasoning_content", p, false);
        if (present(s, "tool_calls") && array(s.get("tool_calls"), p + ".tool_calls")) {
            JsonNode calls = s.get("tool_calls");
            for (int i = 0; i < calls.size(); i++) {
                toolCall(calls.get(i), p + ".tool_calls." + i);
            }
        }
        if (present(s, "observation")) {
            observation(s.get("observation"), p + ".observation");
        }
        if (present(s, "metrics")) {
            metrics(s.get("metrics"), p + ".metrics");
        }
        bool(s, "is_copied_context", p);
        integer(s, "llm_call_count", p, 0L);
        extra(s, p);
        if (errors.size() != before) {
            return;
        }
        if (!"agent".equals(source)) {
            for (String f : AGENT_ONLY) {
                if (present(s, f)) {
                    error(p, "Value error, Field '" + f + "' is only applicable when source is 'agent', but source"
                            + " is '" + source + "'");
                }
            }
        } else if (present(s, "llm_call_count") && asLong(s.get("llm_call_count")) == 0) {
            for (String f : List.of("metrics", "reasoning_content")) {
                if (present(s, f)) {
                    error(p, "Value error, Field '" + f + "' must be absent when llm_call_count is 0");
                }
            }
        }
    }

    private void toolCall(JsonNode c, String p) {
        if (!object(c, p)) {
            return;
        }
        keys(c, TOOL_CALL, p);
        string(c, "tool_call_id", p, true);
        string(c, "function_name", p, true);
        if (required(c, "arguments", p)) {
            object(c.get("arguments"), p + ".arguments");
        }
        extra(c, p);
    }

    private void observation(JsonNode o, String p) {
        if (!object(o, p)) {
            return;
        }
        keys(o, Set.of("results"), p);
        if (!required(o, "results", p) || !array(o.get("results"), p + ".results")) {
            return;
        }
        JsonNode results = o.get("results");
        for (int i = 0; i < results.size(); i++) {
            String rp = p + ".results." + i;
            JsonNode r = results.get(i);
            if (!object(r, rp)) {
                continue;
            }
            keys(r, RESULT, rp);
            string(r, "source_call_id", rp, false);
            if (present(r, "content")) {
                content(r.get("content"), rp + ".content", true);
            }
            if (present(r, "subagent_trajectory_ref") && array(r.get("subagent_trajectory_ref"),
                    rp + ".subagent_trajectory_ref")) {
                JsonNode refs = r.get("subagent_trajectory_ref");
                for (int k = 0; k < refs.size(); k++) {
                    ref(refs.get(k), rp + ".subagent_trajectory_ref." + k);
                }
            }
            extra(r, rp);
        }
    }

    private void ref(JsonNode r, String p) {
        if (!object(r, p)) {
            return;
        }
        int before = errors.size();
        keys(r, REF, p);
        for (String f : List.of("trajectory_id", "session_id", "trajectory_path")) {
            string(r, f, p, false);
        }
        extra(r, p);
        if (errors.size() == before && isNull(r.get("trajectory_id")) && isNull(r.get("trajectory_path"))) {
            error(p, "Value error, a subagent trajectory reference needs trajectory_id or trajectory_path");
        }
    }

    /** A message or result content: a string, or an array of content parts ({@code nullable}: null allowed). */
    private void content(JsonNode c, String p, boolean nullable) {
        if (c.isTextual() || (nullable && c.isNull())) {
            return;
        }
        if (!c.isArray()) {
            error(p, "expected string or list of content parts, got " + kind(c));
            return;
        }
        for (int i = 0; i < c.size(); i++) {
            part(c.get(i), p + "." + i);
        }
    }

    private void part(JsonNode part, String p) {
        if (!object(part, p)) {
            return;
        }
        int before = errors.size();
        keys(part, Set.of("type", "text", "source"), p);
        String type = null;
        if (required(part, "type", p)) {
            JsonNode t = part.get("type");
            List<String> types = v18 ? List.of("text", "image", "audio") : List.of("text", "image");
            if (!t.isTextual() || !types.contains(t.asText())) {
                error(p + ".type", "Input should be " + String.join(" or ", types) + ", got '" + text(t) + "'");
            } else {
                type = t.asText();
            }
        }
        string(part, "text", p, false);
        if (present(part, "source") && object(part.get("source"), p + ".source")) {
            source(part.get("source"), p + ".source", "audio".equals(type));
        }
        if (errors.size() != before || type == null) {
            return;
        }
        boolean text = present(part, "text");
        boolean src = present(part, "source");
        if (type.equals("text") && !text) {
            error(p, "Value error, 'text' field is required when type='text'");
        } else if (type.equals("text") && src) {
            error(p, "Value error, 'source' field is not allowed when type='text'");
        } else if (!type.equals("text") && !src) {
            error(p, "Value error, 'source' field is required when type='" + type + "'");
        } else if (!type.equals("text") && text) {
            error(p, "Value error, 'text' field is not allowed when type='" + type + "'");
        }
    }

    private void source(JsonNode s, String p, boolean audio) {
        keys(s, audio ? Set.of("media_type", "path", "duration_sec") : Set.of("media_type", "path"), p);
        List<String> types = audio ? AUDIO : MEDIA;
        if (required(s, "media_type", p) && (!s.get("media_type").isTextual()
                || !types.contains(s.get("media_type").asText()))) {
            error(p + ".media_type", "Input should be " + String.join(", ", types) + ", got '"
                    + text(s.get("media_type")) + "'");
        }
        if (required(s, "path", p) && string(s, "path", p, true) && imagesBase != null && !audio) {
            String path = s.get("path").asText();
            if (!path.isEmpty() && !path.contains("://") && !Files.exists(imagesBase.resolve(path))) {
                error(p + ".path", "referenced image file does not exist: " + path);
            }
        }
        if (audio && present(s, "duration_sec") && number(s, "duration_sec", p)
                && asDouble(s.get("duration_sec")) < 0) {
            error(p + ".duration_sec", "Input should be greater than or equal to 0");
        }
    }

    private void metrics(JsonNode m, String p) {
        if (!object(m, p)) {
            return;
        }
        keys(m, METRICS, p);
        for (String f : List.of("prompt_tokens", "completion_tokens", "cached_tokens")) {
            integer(m, f, p, null);
        }
        number(m, "cost_usd", p);
        for (String f : List.of("prompt_token_ids", "completion_token_ids", "logprobs")) {
            if (present(m, f) && array(m.get(f), p + "." + f)) {
                JsonNode a = m.get(f);
                for (int i = 0; i < a.size(); i++) {
                    if (f.equals("logprobs") ? !isNumber(a.get(i)) : !isInteger(a.get(i))) {
                        error(p + "." + f + "." + i, "expected " + (f.equals("logprobs") ? "float" : "int")
                                + " type, got " + kind(a.get(i)));
                    }
                }
            }
        }
        extra(m, p);
    }

    /** The errors as lines, for a message (at most {@code max}, then how many more). */
    public static String lines(List<Error> errors, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(max, errors.size()); i++) {
            b.append(i == 0 ? "" : "\n").append(errors.get(i));
        }
        if (errors.size() > max) {
            b.append("\n… and ").append(errors.size() - max).append(" more");
        }
        return b.toString();
    }
}
