package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Map;

import static io.isobench.legacy.LegacyJson.number;
import static io.isobench.legacy.LegacyJson.text;

/** What the old system published about a task (its improvements and the values they came from), kept as evidence. */
final class Published {

    private Published() {
    }

    /**
     * The improvements the old harness published in a modal result ({@code human_improvement}, {@code
     * agent_improvement}, {@code agent_vs_human}: percent by its own metric names) and the stored values they came
     * from, for the report's list of corrections. Null when it published none.
     */
    static ObjectNode publishedModal(JsonNode result) {
        ObjectNode p = LenientJson.MAPPER.createObjectNode();
        copyNumbers(result.get("human_improvement"), p, "human");
        copyNumbers(result.get("agent_improvement"), p, "agent");
        copyNumbers(result.get("agent_vs_human"), p, "agent_vs_human");
        if (p.isEmpty()) {
            return null;
        }
        ObjectNode values = p.putObject("values");
        for (String arm : Extractor.ARMS) {
            copyNumbers(result.get(arm + "_metrics"), values, arm);
        }
        p.put("source", "the result file's *_improvement fields");
        return p;
    }

    /** A rerun's {@code analysis}: its primary metric, the three values and the two improvements it published. */
    static ObjectNode publishedAnalysis(JsonNode analysis) {
        String metric = text(analysis, "primary_metric");
        if (metric == null) {
            return null;
        }
        ObjectNode p = LenientJson.MAPPER.createObjectNode();
        ObjectNode values = LenientJson.MAPPER.createObjectNode();
        for (String arm : Extractor.ARMS) {
            RawText.Found v = number(analysis, arm + "_value");
            if (v != null) {
                values.putObject(arm).put(metric, v.value());
            }
            RawText.Found imp = number(analysis, arm + "_improvement_pct");
            if (imp != null) {
                p.putObject(arm).put(metric, imp.value());
            }
        }
        if (p.isEmpty()) {
            return null;
        }
        p.set("values", values);
        p.put("source", "the rerun's analysis");
        return p;
    }

    private static void copyNumbers(JsonNode from, ObjectNode to, String key) {
        if (from == null || !from.isObject()) {
            return;
        }
        ObjectNode o = null;
        Iterator<Map.Entry<String, JsonNode>> it = from.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isNumber()) {
                if (o == null) {
                    o = to.putObject(key);
                }
                o.set(e.getKey(), e.getValue());
            }
        }
    }
}
