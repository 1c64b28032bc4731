package io.isobench.parse;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Where and how a declared rule reads a command's output (generic engine adapter, docs/suite-format.md): from its
 * stdout, its stderr or a file it writes, by a regular expression or a JSON path; neither reads the whole text.
 *
 * @param from     the stream or file
 * @param path     {@code from: file}: the file, relative to the arm's environment (or absolute); null otherwise
 * @param regex    a Java regular expression; its first group (else the whole match) is the value; null when none.
 *                 Matched with {@code find()}, so it also matches a last line without a trailing newline
 * @param jsonPath a dotted path ({@code results.tok_s}, {@code [n]} for lists) into the text as one JSON document,
 *                 else into its last line that is a JSON object; null when none
 */
public record ReadRule(Source from, String path, String regex, String jsonPath) {

    /** Where a rule reads. */
    public enum Source {
        STDOUT, STDERR, FILE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The source named {@code label} (stdout, stderr, file); null for anything else. */
        public static Source of(String label) {
            for (Source s : values()) {
                if (s.label().equals(label)) {
                    return s;
                }
            }
            return null;
        }
    }

    /** Dotted paths with optional list indexes: {@code a.b[0].c}. */
    public static final Pattern JSON_PATH = Pattern.compile("[^.\\[\\]]+(\\[\\d+])*(\\.[^.\\[\\]]+(\\[\\d+])*)*");

    public ReadRule {
        Objects.requireNonNull(from, "from");
        if ((from == Source.FILE) != (path != null)) {
            throw new IllegalArgumentException("a rule reads a file (from: file) exactly when it has a path (from "
                    + from.label() + ", path " + path + ")");
        }
        if (regex != null && jsonPath != null) {
            throw new IllegalArgumentException("a rule has a regex or a json_path, not both");
        }
        if (regex != null) {
            try {
                Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("regex (" + regex + ") is not valid: " + e.getDescription(), e);
            }
        }
        if (jsonPath != null && !JSON_PATH.matcher(jsonPath).matches()) {
            throw new IllegalArgumentException("json_path (" + jsonPath + ") is not a dotted path");
        }
    }

    /** One line for plans, reports and errors: {@code stderr /achieved tok\/s: ([0-9.]+)/}. */
    public String describe() {
        String where = from == Source.FILE ? "file " + path : from.label();
        return regex != null ? where + " /" + regex + "/" : jsonPath != null ? where + " json_path " + jsonPath
                : where + " (whole text)";
    }
}
