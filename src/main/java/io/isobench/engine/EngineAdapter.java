package io.isobench.engine;

import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.ParsedOutput;

import java.util.List;
import java.util.Optional;

/**
 * What isobench knows of one inference engine (docs/engines.md): its benchmark tools' command dialect (for the
 * perf_command lint), readers of their console output and result files, the failures its tools print, and its
 * server's Prometheus names. An adapter holds tables and parsers, no state; the registry is {@link Engines}.
 *
 * <p>Adding an engine: one class implementing this interface and one line in
 * {@code META-INF/services/io.isobench.engine.EngineAdapter} (or {@link Engines}' built-in list), and its contract
 * test ({@code EnginesTest.everyAdapterKeepsTheContract} covers every registered adapter).
 */
public interface EngineAdapter {

    /** The engine's name as a suite's {@code engine.name} writes it; lower case, unique among adapters. */
    String name();

    /** Its benchmark tools' dialect; {@link Dialect#NONE} when its commands are declared argv (generic). */
    Dialect dialect();

    /**
     * The metrics of its benchmark tool's console output; empty when the text holds no result block of its tools
     * (never throws on any text).
     */
    Optional<ParsedOutput> parseConsole(String text);

    /** The metrics of its benchmark tool's result file; empty when the text is not that format (never throws). */
    Optional<ParsedOutput> parseResult(String text);

    /** The failures its own tools and server print (see {@link FailureSignature}). */
    List<FailureSignature> failureSignatures();

    /** Its server's Prometheus names and their summaries. */
    ServerMetricNames serverMetrics();
}
