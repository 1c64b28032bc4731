package io.isobench.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one codec of a run's details ↔ the {@code extra_json} column. The text a writer produced is kept verbatim
 * (a record read back and stored again writes the same bytes); text that is not a JSON object (never written by
 * isobench, but possible in old or hand-edited stores) reads as no details and is still written back unchanged.
 */
public final class RunDetailsCodec {

    static final ObjectMapper JSON = new ObjectMapper();

    private RunDetailsCodec() {
    }

    /** The details stored as {@code text} (null: none); the text is read on first use. */
    public static RunDetails decode(String text) {
        return text == null ? RunDetails.NONE : new RunDetails(text);
    }

    /** The JSON object of a column text: empty when null or not a JSON object. */
    static ObjectNode parse(String text) {
        if (text == null) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode n = JSON.readTree(text);
            return n != null && n.isObject() ? (ObjectNode) n : JSON.createObjectNode();
        } catch (JsonProcessingException e) {
            return JSON.createObjectNode();
        }
    }

    /** The column text of {@code details}: null when there are none. */
    public static String encode(RunDetails details) {
        return details == null ? null : details.text();
    }

    /**
     * The text of a native run's details: the typed parts, then the sections, in the order {@link NativeDetails}
     * documents (Jackson, compact; a typed null field left out, an environment's null commit written as null).
     */
    static String write(NativeDetails details) {
        return write(details.toMap());
    }

    /** The text of a value as the writers have always stored it (Jackson, insertion order, compact). */
    static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("run details not serializable: " + e.getMessage(), e);
        }
    }

    /** The {@code extra_json} keys that SQL over the run table reads (the HF export's fast path). */
    public enum SqlKey {
        SUBJECT("subject"), PERF_COMMAND("perf_command"), AGENT_MODEL("agent_model"), RECOVERED("recovered");

        private final String json;

        SqlKey(String json) {
            this.json = json;
        }
    }

    /** DuckDB: {@code column} (the run table's {@code extra_json}, or an expression of it) mentions {@code key}. */
    public static String sqlHas(String column, SqlKey key) {
        return "contains(" + column + ", '\"" + key.json + "\"')";
    }

    /** DuckDB: the text of {@code key} in {@code column}, or NULL. */
    public static String sqlText(String column, SqlKey key) {
        return "json_extract_string(" + column + ", '$." + key.json + "')";
    }
}
