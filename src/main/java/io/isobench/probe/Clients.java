package io.isobench.probe;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Factory of the serving client, and flag helpers. */
public final class Clients {

    private Clients() {
    }

    /** The pinned serving client every arm uses: isobench's load generator, in-process. */
    public static ServingClient serving() {
        return new LoadgenServingClient();
    }

    /**
     * {@code [--num-prompts, 8, --ignore-eos]} → {@code {num-prompts=8, ignore-eos=true}}; a flag followed by several
     * values ({@code --goodput ttft:500 tpot:50}) maps to them space-joined.
     */
    public static Map<String, String> flagMap(List<String> argv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < argv.size(); i++) {
            String a = argv.get(i);
            if (!a.startsWith("-")) {
                continue;
            }
            String name = a.replaceFirst("^-+", "");
            String value = "true";
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < argv.size() && !argv.get(i + 1).startsWith("--")) {
                value = argv.get(++i);
                // a flag of several values (--goodput ttft:500 tpot:50): the values space-joined
                while (i + 1 < argv.size() && !argv.get(i + 1).startsWith("-")) {
                    value = value + " " + argv.get(++i);
                }
            }
            m.put(name, value);
        }
        return m;
    }
}
