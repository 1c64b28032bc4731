package io.isobench.export;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One row of the 76 schema-v5 columns, typed per {@link HfSchema#V5}: {@code String}, {@code List<String>},
 * {@code Boolean} or {@code Double}; null where the table has no value.
 */
public record HfRow(List<Object> values) {

    public HfRow {
        if (values == null || values.size() != HfSchema.V5.size()) {
            throw new IllegalArgumentException("an HF row has " + HfSchema.V5.size() + " values, got "
                    + (values == null ? "null" : values.size()));
        }
        values = Collections.unmodifiableList(new ArrayList<>(values));
    }

    static HfRow of(Object[] values) {
        return new HfRow(Arrays.asList(values));
    }

    public Object get(String column) {
        return values.get(HfSchema.require(column));
    }

    public String string(String column) {
        Object v = get(column);
        return v == null ? null : v.toString();
    }

    public Double number(String column) {
        return (Double) get(column);
    }
}
