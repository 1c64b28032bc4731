package io.isobench.engine;

import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;

import java.util.List;
import java.util.Map;
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

    /**
     * Everything its console reader says of {@code text}, metrics or not (the reader's warnings, a result header
     * without rows), for the run-time parse path and the legacy import (docs/engines.md, "At run time"): a run
     * succeeded when this holds metrics. {@code truncation} says which end of the text was kept (a legacy raw).
     * By default {@link #parseConsole}'s answer, or an empty reading; never throws.
     */
    default ParsedOutput readConsole(String text, OutputParser.Truncation truncation) {
        return parseConsole(text).orElseGet(() -> new ParsedOutput(null, List.of(), null, Map.of(), List.of(),
                List.of(), false));
    }

    /** The metrics of its benchmark tool's result file; empty when the text is not that format (never throws). */
    Optional<ParsedOutput> parseResult(String text);

    /**
     * The failures its own tools and server print (see {@link FailureSignature}): the classifier matches them after
     * its generic table for a run of this engine.
     */
    List<FailureSignature> failureSignatures();

    /** Its server's Prometheus names and their summaries. */
    ServerMetricNames serverMetrics();
}
