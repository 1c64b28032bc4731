package io.isobench.engine;

import io.isobench.loadgen.ServerMetricNames;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The engine adapters and the one rule that picks one (docs/engines.md, "Which adapter"): the built-in adapters
 * (vLLM, SGLang, the toy engine, generic, in that order), then those a jar declares in
 * {@code META-INF/services/io.isobench.engine.EngineAdapter}, each name once (the first wins); a declared adapter
 * that cannot be made is left out.
 */
public final class Engines {

    /** The engine a suite without {@code engine.name} runs, and the adapter of a command no dialect claims. */
    public static final String DEFAULT = "vllm";

    private static final Map<String, EngineAdapter> ALL = load();

    private Engines() {
    }

    private static Map<String, EngineAdapter> load() {
        Map<String, EngineAdapter> out = new LinkedHashMap<>();
        List<EngineAdapter> found = new ArrayList<>(List.of(new VllmEngine(), new SglangEngine(), new ToyEngine(),
                new GenericEngine()));
        Iterator<EngineAdapter> declared = ServiceLoader.load(EngineAdapter.class, Engines.class.getClassLoader())
                .iterator();
        while (true) {
            try {
                if (!declared.hasNext()) {
                    break;
                }
                found.add(declared.next());
            } catch (ServiceConfigurationError e) {
                // a declared adapter that cannot be made is left out; the built-ins and the others still serve
            }
        }
        for (EngineAdapter a : found) {
            out.putIfAbsent(a.name(), a);
        }
        return out;
    }

    /** Every adapter, in registration order. */
    public static List<EngineAdapter> all() {
        return List.copyOf(ALL.values());
    }

    /** The adapter named {@code name}, if any. */
    public static Optional<EngineAdapter> named(String name) {
        return Optional.ofNullable(name == null ? null : ALL.get(name));
    }

    /** The default engine's adapter (vLLM). */
    public static EngineAdapter vllm() {
        return ALL.get(DEFAULT);
    }

    /**
     * The adapter that lints a command, from its program words (environment assignments removed): the first adapter,
     * in registration order, whose dialect recognises the program as one of its tools; the default engine's (vLLM)
     * when none does, so that its lint says what the command is not.
     */
    public static EngineAdapter forCommand(List<String> words) {
        return toolOf(words).map(t -> ALL.get(t.engine())).orElse(vllm());
    }

    /** The entry point of the first adapter that recognises {@code words}; empty when none does. */
    public static Optional<EntryPoint> toolOf(List<String> words) {
        for (EngineAdapter a : ALL.values()) {
            Optional<EntryPoint> e = a.dialect().entryPoint(words);
            if (e.isPresent()) {
                return e;
            }
        }
        return Optional.empty();
    }

    /**
     * The server-metric names a run's metrics were stored under: those of the first adapter whose namespace
     * ({@code vllm:}, {@code sglang:}) prefixes one of {@code metricNames}; the default engine's when none does (a
     * run that was not scraped).
     */
    public static ServerMetricNames serverMetricsOf(Collection<String> metricNames) {
        for (EngineAdapter a : ALL.values()) {
            String ns = a.serverMetrics().namespace();
            for (String m : metricNames) {
                if (m.startsWith(ns)) {
                    return a.serverMetrics();
                }
            }
        }
        return vllm().serverMetrics();
    }
}
