package io.isobench.engine;

import io.isobench.parse.FailureCategory;

import java.util.Objects;

/**
 * A failure an engine's own tools print, and what it means: {@code text} is a line (or the part of one) the engine
 * prints, {@code category} the failure classifier's answer for it. The classifier keeps one signature table for
 * every engine (a legacy run's text names no engine; docs/parsing.md); an adapter lists its engine's signatures so
 * that a test holds the table to them (docs/engines.md).
 */
public record FailureSignature(String text, FailureCategory category) {

    public FailureSignature {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(category, "category");
    }
}
