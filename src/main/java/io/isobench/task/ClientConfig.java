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

    /** No client: a job that is not a serving round. */
    public static final ClientConfig NONE = new ClientConfig(List.of());

    public ClientConfig {
        flags = List.copyOf(flags);
    }

    /**
     * Client flags as a user writes them (a generic task's {@code client:} list): a word starting with {@code -} is
     * a flag, {@code --name=value} splits at the first {@code =}; the words after a flag up to the next one
     * ({@code --}, or {@code -} after the first value) are its value, several of them space-joined
     * ({@code --goodput ttft:500 tpot:50}).
     */
    public static ClientConfig ofArgv(List<String> words) {
        List<Flag> out = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (!w.startsWith("-")) {
                throw new IllegalArgumentException("client word '" + w + "' follows no flag (fix: write its flag"
                        + " before it)");
            }
            int eq = w.indexOf('=');
            if (eq > 0) {
                out.add(new Flag(w.substring(0, eq), w.substring(eq + 1)));
                continue;
            }
            String value = null;
            if (i + 1 < words.size() && !words.get(i + 1).startsWith("--")) {
                StringBuilder sb = new StringBuilder(words.get(++i));
                while (i + 1 < words.size() && !words.get(i + 1).startsWith("-")) {
                    sb.append(' ').append(words.get(++i));
                }
                value = sb.toString();
            }
            out.add(new Flag(w, value));
        }
        return new ClientConfig(out);
    }

    /**
     * The flags as the serving client takes them ({@code probe.ServingClient}, {@code loadgen.ServeFlags}): names
     * without their leading dashes, a flag without a value as {@code "true"}, a repeated flag's last value, the
     * values of a flag of several values ({@code --goodput}) space-joined.
     */
    public Map<String, String> loadgenFlags() {
        Map<String, String> m = new LinkedHashMap<>();
        for (Flag f : flags) {
            String value = f.value == null ? "true" : VllmFlags.MULTI_VALUE.contains(f.name)
                    ? String.join(" ", f.value.strip().split("\\s+")) : f.value;
            m.put(f.name.replaceFirst("^-+", ""), value);
        }
        return Collections.unmodifiableMap(m);
    }

    /** These flags with {@code name} set to {@code value}: every earlier {@code name} dropped, the new one last. */
    public ClientConfig with(String name, String value) {
        List<Flag> out = new ArrayList<>(flags.stream().filter(f -> !f.name.equals(name)).toList());
        out.add(new Flag(name, value));
        return new ClientConfig(out);
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
