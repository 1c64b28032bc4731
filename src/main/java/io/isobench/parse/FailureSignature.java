package io.isobench.parse;

import java.util.List;
import java.util.Objects;

/**
 * A failure line an engine's own tools or server print, and what it means (docs/engines.md, docs/parsing.md): an
 * engine adapter lists its own; the failure classifier matches them after its generic table
 * ({@link FailureClassifier#classify(String, String, String, List)}), where a run's engine is known.
 *
 * @param text        the line, or the part of one that the engine always prints (matched case-insensitively, as
 *                    the generic table's needles are; never on an INFO/WARNING record or a traceback's code line)
 * @param category    the classifier's answer for it
 * @param description what the failure is, in words (the start of the classification's detail)
 */
public record FailureSignature(String text, FailureCategory category, String description) {

    public FailureSignature {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(category, "category");
        Objects.requireNonNull(description, "description");
        if (text.isBlank() || !text.chars().allMatch(c -> c < 128)) {
            throw new IllegalArgumentException("a signature's text is non-blank ASCII: " + text);
        }
        if (text.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a signature's text is one line: " + text);
        }
    }
}
