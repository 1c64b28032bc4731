package io.isobench.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Mode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The mapping between schema-v5 columns and isobench's canonical metrics and modes, and the JSON form in which an
 * imported row is kept verbatim in the store.
 */
final class HfMapping {

    static final ObjectMapper JSON = new ObjectMapper();

    private HfMapping() {
    }

    /** v5 per-arm column suffix → canonical metric name, for the suffixes that do not depend on the mode. */
    static final Map<String, String> FIXED_METRICS;

    static {
        Map<String, String> m = new LinkedHashMap<>();
        for (String fam : List.of("ttft", "tpot", "itl")) {
            for (String stat : List.of("mean", "median", "p99")) {
                m.put(fam + "_" + stat, fam + "_ms_" + stat);
            }
        }
        m.put("latency_avg", "latency_ms_avg");
        FIXED_METRICS = Map.copyOf(m);
    }

    /**
     * Canonical metric behind {@code <arm>_throughput} (DESIGN.md §12): output tok/s for serving and prefix caching,
     * total tok/s for throughput runs, nothing for latency runs or an unknown mode.
     */
    static String throughputMetric(Mode mode) {
        if (mode == null) {
            return null;
        }
        return switch (mode) {
            case SERVING, PREFIX_CACHING -> "output_throughput_tok_s";
            case THROUGHPUT -> "total_throughput_tok_s";
            default -> null;
        };
    }

    /** The card's {@code benchmark_mode} label for an isobench mode. */
    static String benchmarkModeLabel(Mode mode) {
        if (mode == null) {
            return null;
        }
        return switch (mode) {
            case SERVING -> "serving";
            case PREFIX_CACHING -> "prefix_caching";
            case THROUGHPUT, LATENCY -> "standalone";
            case MICRO -> null;
        };
    }

    /**
     * isobench's mode of a published row: the perf command decides (as for legacy R1 files), then
     * {@code benchmark_mode}; "standalone" is latency when a latency value exists, else throughput.
     */
    static Mode modeOf(HfRow row) {
        Mode fromCommand = Mode.ofCommand(row.string("perf_command")).orElse(null);
        if (fromCommand != null) {
            return fromCommand;
        }
        String bm = row.string("benchmark_mode");
        if (bm == null) {
            return null;
        }
        String b = bm.trim().toLowerCase(Locale.ROOT);
        if (b.equals("serving")) {
            return Mode.SERVING;
        }
        if (b.contains("prefix")) {
            return Mode.PREFIX_CACHING;
        }
        if (b.equals("throughput")) {
            return Mode.THROUGHPUT;
        }
        if (b.equals("latency")) {
            return Mode.LATENCY;
        }
        if (b.equals("standalone")) {
            for (String arm : List.of("baseline", "human", "agent")) {
                if (row.number(arm + "_latency_avg") != null) {
                    return Mode.LATENCY;
                }
            }
            return Mode.THROUGHPUT;
        }
        return null;
    }

    /** The row as a JSON object in column order; doubles keep their exact value (Jackson writes shortest repr). */
    static byte[] toJson(HfRow row) {
        ObjectNode o = JSON.createObjectNode();
        for (int i = 0; i < HfSchema.V5.size(); i++) {
            HfSchema.Column c = HfSchema.V5.get(i);
            Object v = row.values().get(i);
            if (v == null) {
                o.putNull(c.name());
                continue;
            }
            switch (c.type()) {
                case STRING -> o.put(c.name(), (String) v);
                case BOOL -> o.put(c.name(), (Boolean) v);
                case FLOAT64 -> {
                    double d = (Double) v;
                    if (Double.isFinite(d)) {
                        o.put(c.name(), d);
                    } else {
                        o.put(c.name(), Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
                    }
                }
                case LIST_STRING -> {
                    ArrayNode a = o.putArray(c.name());
                    for (Object e : (List<?>) v) {
                        if (e == null) {
                            a.addNull();
                        } else {
                            a.add(e.toString());
                        }
                    }
                }
                case INT32 -> o.put(c.name(), ((Number) v).intValue());
            }
        }
        try {
            return JSON.writeValueAsBytes(o);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialise an HF row", e);
        }
    }

    static HfRow fromJson(byte[] bytes) {
        JsonNode o;
        try {
            o = JSON.readTree(new String(bytes, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("stored HF row is not valid JSON: " + e.getMessage(), e);
        }
        Object[] values = new Object[HfSchema.V5.size()];
        for (int i = 0; i < HfSchema.V5.size(); i++) {
            HfSchema.Column c = HfSchema.V5.get(i);
            JsonNode n = o.get(c.name());
            if (n == null || n.isNull()) {
                continue;
            }
            values[i] = switch (c.type()) {
                case STRING -> n.asText();
                case BOOL -> n.asBoolean();
                case FLOAT64 -> n.isNumber() ? n.doubleValue() : parseSpecial(n.asText());
                case INT32 -> n.intValue();
                case LIST_STRING -> {
                    List<String> l = new ArrayList<>();
                    for (JsonNode e : n) {
                        l.add(e == null || e.isNull() ? null : e.asText());
                    }
                    yield Collections.unmodifiableList(l);
                }
            };
        }
        return HfRow.of(values);
    }

    private static Double parseSpecial(String s) {
        return switch (s) {
            case "Infinity" -> Double.POSITIVE_INFINITY;
            case "-Infinity" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(s);
        };
    }
}
