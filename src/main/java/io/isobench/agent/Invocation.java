package io.isobench.agent;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One attempt's process: argv (no shell), environment added to the sandbox's allowlist (never secrets: those come
 * from the env file), and config files written under the agent's home before it starts (relative path → text).
 */
public record Invocation(List<String> argv, Map<String, String> env, Map<String, String> homeFiles) {
    public Invocation {
        argv = List.copyOf(argv);
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("empty argv");
        }
        argv.forEach(a -> Objects.requireNonNull(a, "argv element"));
        env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
        homeFiles = Collections.unmodifiableMap(new LinkedHashMap<>(homeFiles));
    }
}
