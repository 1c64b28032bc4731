package io.isobench.engine;

import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.ParsedOutput;

import java.util.List;
import java.util.Optional;

/**
 * Any other engine, described by the suite (docs/suite-format.md, generic tasks): its commands are argv lists the
 * suite declares, never a dialect to lint ({@link Dialect#NONE}); its output is read by the task's own read rules
 * ({@code parse.RuleReader}), not by a parser of this adapter; a server it runs is summarised under vLLM's
 * {@code vllm:*} names (a server that exports other names gives no server summary), as before the seam.
 */
public final class GenericEngine implements EngineAdapter {

    @Override
    public String name() {
        return "generic";
    }

    @Override
    public Dialect dialect() {
        return Dialect.NONE;
    }

    @Override
    public Optional<ParsedOutput> parseConsole(String text) {
        return Optional.empty();
    }

    @Override
    public Optional<ParsedOutput> parseResult(String text) {
        return Optional.empty();
    }

    @Override
    public List<FailureSignature> failureSignatures() {
        return List.of();
    }

    @Override
    public ServerMetricNames serverMetrics() {
        return VllmEngine.METRICS;
    }
}
