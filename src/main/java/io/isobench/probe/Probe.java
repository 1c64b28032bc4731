package io.isobench.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One greedy probe output: the text and, where the server (or offline command) returns them, the token ids and the
 * per-token logprobs. Stored with every check run (extra_json {@code probe}, artifact {@code probe_outputs}).
 *
 * @param text     the completion text
 * @param tokenIds generated token ids; null when not returned
 * @param logprobs logprob of each generated token; null when not returned
 */
public record Probe(String text, List<Integer> tokenIds, List<Double> logprobs) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public Probe {
        text = text == null ? "" : text;
        tokenIds = tokenIds == null ? null : List.copyOf(tokenIds);
        logprobs = logprobs == null ? null : List.copyOf(logprobs);
    }

    public static Probe text(String text) {
        return new Probe(text, null, null);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("text", text);
        if (tokenIds != null) {
            m.put("token_ids", tokenIds);
        }
        if (logprobs != null) {
            m.put("logprobs", logprobs);
        }
        return m;
    }

    /** A JSON array of {@link #toMap()} objects. */
    public static String toJson(List<Probe> probes) {
        try {
            return JSON.writeValueAsString(probes.stream().map(Probe::toMap).toList());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads {@link #toJson} back; an empty list for null or malformed text. */
    public static List<Probe> fromJson(String json) {
        List<Probe> out = new ArrayList<>();
        if (json == null || json.isBlank()) {
            return out;
        }
        try {
            for (JsonNode n : JSON.readTree(json)) {
                out.add(of(n));
            }
        } catch (Exception e) {
            return new ArrayList<>();
        }
        return out;
    }

    /** A probe from a JSON object {@code {"text", "token_ids"?, "logprobs"?}} or a bare JSON string. */
    public static Probe of(JsonNode n) {
        if (n.isTextual()) {
            return text(n.asText());
        }
        List<Integer> ids = null;
        if (n.path("token_ids").isArray()) {
            ids = new ArrayList<>();
            for (JsonNode t : n.path("token_ids")) {
                ids.add(t.asInt());
            }
        }
        List<Double> lps = null;
        if (n.path("logprobs").isArray()) {
            lps = new ArrayList<>();
            for (JsonNode t : n.path("logprobs")) {
                lps.add(t.isNumber() ? t.asDouble() : Double.NaN);
            }
        }
        return new Probe(n.path("text").asText(""), ids, lps);
    }
}
