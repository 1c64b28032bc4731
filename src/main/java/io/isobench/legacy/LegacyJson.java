package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/** Reading values out of a legacy file's JSON (dotted paths, numbers as written, texts) and small text helpers. */
final class LegacyJson {

    private LegacyJson() {
    }

    static JsonNode at(JsonNode node, String dotted) {
        JsonNode cur = node;
        for (String part : dotted.split("\\.")) {
            if (cur == null || !cur.isObject()) {
                return null;
            }
            cur = cur.get(part);
        }
        return cur;
    }

    static RawText.Found number(JsonNode node, String dotted) {
        JsonNode v = node == null ? null : at(node, dotted);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isNumber()) {
            BigDecimal d = v.decimalValue();
            return new RawText.Found(d, d.toPlainString());
        }
        if (v.isTextual()) {
            return RawText.decimal(v.asText());
        }
        return null;
    }

    static RawText.Found firstNumber(JsonNode node, String... keys) {
        return node == null ? null : first(keys, k -> number(node, k), f -> true);
    }

    static boolean hasAny(JsonNode node, String... keys) {
        return first(keys, k -> at(node, k), v -> !v.isNull()) != null;
    }

    /** The first value read for one of the keys (in order) that is non-null and {@code ok}, or null. */
    private static <T> T first(String[] keys, Function<String, T> read, Predicate<T> ok) {
        for (String k : keys) {
            T v = read.apply(k);
            if (v != null && ok.test(v)) {
                return v;
            }
        }
        return null;
    }

    static boolean hasNumericTopLevel(JsonNode node) {
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isNumber() && !e.getKey().equals("duration_s")) {
                return true;
            }
        }
        return false;
    }

    static String text(JsonNode node, String key) {
        if (node == null || !node.isObject()) {
            return null;
        }
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }

    static String firstText(JsonNode node, String... keys) {
        return first(keys, k -> text(node, k), t -> !t.isBlank());
    }

    static JsonNode obj(JsonNode node, String key) {
        JsonNode v = node.get(key);
        return v != null && v.isObject() ? v : null;
    }

    @SafeVarargs
    static <T> T firstNonNull(T... values) {
        for (T v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    static Double seconds(JsonNode node, String key) {
        RawText.Found f = number(node, key);
        return f == null ? null : f.value().doubleValue() * 1000.0;
    }

    static String lastLine(String s) {
        if (s == null) {
            return null;
        }
        String[] lines = s.strip().split("\n");
        return lines[lines.length - 1].strip();
    }

    static void putIfText(RunDraft d, String key, String value) {
        if (value != null) {
            d.extra.put(key, value);
        }
    }

    static boolean isSuccess(String status) {
        return status != null && status.equalsIgnoreCase("success");
    }

    static String join(String... parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (p != null && !p.isBlank()) {
                if (!sb.isEmpty()) {
                    sb.append('\n');
                }
                sb.append(p);
            }
        }
        return sb.isEmpty() ? null : sb.toString();
    }
}
