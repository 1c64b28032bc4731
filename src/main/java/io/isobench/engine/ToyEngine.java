package io.isobench.engine;

import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;

import java.util.List;
import java.util.Optional;

/**
 * The bundled demo engine (examples/toy-engine, docs/toy-engine.md): vLLM-shaped on purpose, so it speaks vLLM's
 * dialect, prints vLLM's output formats and exports {@code vllm:*} metrics; this adapter is vLLM's under its own
 * name: a toy command is a vLLM command.
 */
public final class ToyEngine implements EngineAdapter {

    private final VllmEngine vllm = new VllmEngine();

    @Override
    public String name() {
        return "toy";
    }

    /** vLLM's dialect: its entry points name the engine {@code vllm}, which is registered first. */
    @Override
    public Dialect dialect() {
        return VllmEngine.DIALECT;
    }

    @Override
    public Optional<ParsedOutput> parseConsole(String text) {
        return vllm.parseConsole(text);
    }

    @Override
    public ParsedOutput readConsole(String text, OutputParser.Truncation truncation) {
        return vllm.readConsole(text, truncation);
    }

    @Override
    public Optional<ParsedOutput> parseResult(String text) {
        return vllm.parseResult(text);
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
