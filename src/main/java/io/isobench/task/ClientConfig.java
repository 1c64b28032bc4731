package io.isobench.task;

import io.isobench.engine.VllmFlags;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The serving client's workload, in {@code vllm bench serve} flag names (which isobench's loadgen accepts). Host,
 * port and base URL are not part of it: isobench starts the server and points the client at it. Every arm of a task
 * gets this same config.
 */
public record ClientConfig(List<Flag> flags) {

    /** A client flag; {@code value} is null for a flag without a value ({@code --ignore-eos}). */
    public record Flag(String name, String value) {
        public Flag {
            Objects.requireNonNull(name, "name");
            if (!name.startsWith("-")) {
                throw new IllegalArgumentException("flag name (" + name + ") must start with '-'");
            }
        }
    }

    public ClientConfig {
        flags = List.copyOf(flags);
    }

    /** The last value of a flag ("" for a flag without a value); empty when absent. */
    public Optional<String> get(String name) {
        String found = null;
        for (Flag f : flags) {
            if (f.name.equals(name)) {
                found = f.value == null ? "" : f.value;
            }
        }
        return Optional.ofNullable(found);
    }

    /** Flags as an ordered map; a flag without a value maps to {@code "true"}; a repeated flag keeps its last value. */
    public Map<String, String> asMap() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Flag f : flags) {
            m.put(f.name, f.value == null ? "true" : f.value);
        }
        return Collections.unmodifiableMap(m);
    }

    /** The flags as command-line arguments, e.g. {@code [--model, M, --num-prompts, 100, --ignore-eos]}. */
    public List<String> argv() {
        List<String> out = new ArrayList<>();
        for (Flag f : flags) {
            out.add(f.name);
            if (f.value != null && VllmFlags.MULTI_VALUE.contains(f.name)) {
                out.addAll(List.of(f.value.strip().split("\\s+"))); // --goodput ttft:500 tpot:50
            } else if (f.value != null) {
                out.add(f.value);
            }
        }
        return List.copyOf(out);
    }
}
