package io.isobench.env;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.isobench.guard.Secrets;

/**
 * One fix recipe applied to one arm environment: provenance recorded on every run of the arm.
 *
 * @param name   the recipe's name
 * @param kind   pip_pin, env, apply_patch, replace_in_file
 * @param params its parameters as the suite gave them (apply_patch: the absolute patch path)
 * @param ok     whether it applied
 * @param detail what happened (e.g. "replaced 1 occurrence", the pip error line)
 */
public record RecipeApplication(String name, String kind, Map<String, String> params, boolean ok, String detail) {

    public RecipeApplication {
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /** As stored in a run's {@code extra_json.recipes[]}. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("kind", kind);
        m.put("params", Secrets.env(params)); // env recipes: secret-named values are ***
        m.put("ok", ok);
        m.put("detail", detail);
        return m;
    }
}
