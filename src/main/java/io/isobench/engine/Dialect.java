package io.isobench.engine;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An engine's benchmark command dialect (docs/engines.md): which programs are its benchmark tools, and the flag
 * names (never values) each accepts, as tables. The perf_command lint ({@code task.PerfCommand}) reads a command
 * through the dialect of the adapter {@link Engines#forCommand} chooses.
 */
public interface Dialect {

    /** What a flag's value must be. */
    enum ValueRule {
        ANY, POSITIVE_INT, NON_NEGATIVE_INT
    }

    /** A dialect with no tool: an engine whose commands are argv the suite declares (generic). */
    Dialect NONE = new Dialect() {
        @Override
        public Optional<EntryPoint> entryPoint(List<String> words) {
            return Optional.empty();
        }

        @Override
        public Set<String> known() {
            return Set.of();
        }

        @Override
        public Set<String> accepted(EntryPoint tool) {
            return Set.of();
        }

        @Override
        public boolean isBoolean(String canonical) {
            return false;
        }
    };

    /**
     * The engine tool that {@code words} (the command's program words: environment assignments removed, the
     * interpreter first) runs; empty when it is none of this engine's programs.
     */
    Optional<EntryPoint> entryPoint(List<String> words);

    /** Every flag any of its tools accepts (lint's "known"; nearest-name suggestions). */
    Set<String> known();

    /** The flags {@code tool} accepts. */
    Set<String> accepted(EntryPoint tool);

    /** A flag's canonical name as {@code tool} reads it (aliases, unambiguous prefixes); the name itself otherwise. */
    default String canonical(EntryPoint tool, String flag) {
        return flag;
    }

    /** True when the flag takes no value ({@code store_true}). */
    boolean isBoolean(String canonical);

    /** True when the flag takes an optional {@code true|false} value (old vLLM). */
    default boolean isOptionalBoolean(String canonical) {
        return false;
    }

    /** True when every following word up to the next flag is a value too ({@code nargs="+"}). */
    default boolean isMultiValue(String canonical) {
        return false;
    }

    /** What the flag's value must be. */
    default ValueRule rule(String canonical) {
        return ValueRule.ANY;
    }
}
