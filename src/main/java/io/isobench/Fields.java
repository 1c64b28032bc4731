package io.isobench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one way a record writes its fields as a JSON-ready map: names and values in a fixed order, null values kept
 * ({@code toMap()} of hardware facts, output diffs, correctness calibration, process-group identities).
 */
public final class Fields {

    private Fields() {
    }

    /**
     * A mutable map in the given order.
     *
     * @param namesAndValues name, value, name, value, …: each name a {@code String}, each value anything (null too)
     */
    public static Map<String, Object> inOrder(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values come in pairs, got " + namesAndValues.length);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return m;
    }
}
