package io.isobench.engine;

import io.isobench.Mode;

import java.util.Objects;
import java.util.Optional;

/**
 * The benchmark tool a command runs, as its engine's {@link Dialect} reads the command's program words.
 *
 * @param engine    the adapter's name ({@code sglang})
 * @param tool      the tool as the command names it ({@code -m sglang.bench_serving})
 * @param mode      what it measures; null for a tool that is not a benchmark (a server launcher)
 * @param argsStart the index of the first flag in the program words
 * @param benchmark false for a program of the engine that is not a benchmark (it starts a server): lint says so
 */
public record EntryPoint(String engine, String tool, Mode mode, int argsStart, boolean benchmark) {

    public EntryPoint {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(tool, "tool");
        if (argsStart < 0) {
            throw new IllegalArgumentException("argsStart (" + argsStart + ") must be >= 0");
        }
    }

    public Optional<Mode> modeIfAny() {
        return Optional.ofNullable(mode);
    }
}
