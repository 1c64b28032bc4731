package io.isobench.legacy;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.io.IOException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads old result files leniently. Valid JSON is read as is (numbers keep their exact decimal text). Two known
 * kinds of damage are recovered, and the recovery is reported: a complete value followed by a stray fragment
 * (the fragment is dropped) and a member with no value ({@code "key": ,} read as {@code null}). Anything else is
 * refused with the parser's reason; an empty file is refused as such. {@code NaN}, {@code Infinity} and
 * {@code -Infinity} values (what Python's {@code json} writes for a float that is no number) are not damage: they are
 * read as missing values ({@code null}) and the file says so in {@link Parsed#note()}.
 */
final class LenientJson {

    static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    /** Reads the first value and stops (used to find where a complete object ends). */
    private static final ObjectMapper FIRST_VALUE = MAPPER.rebuild()
            .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** {@code "key": ,} or {@code "key": }} — a member whose value is missing. */
    private static final Pattern MISSING_VALUE = Pattern.compile("(\"(?:[^\"\\\\]++|\\\\.)*+\"\\s*+:\\s*+)(?=[,}\\]])");

    private LenientJson() {
    }

    /**
     * A parsed document; {@code recovery} says what was repaired, null when the file was valid JSON; {@code note} says
     * which values were {@code NaN}/{@code Infinity} and read as missing, null when none was.
     */
    record Parsed(JsonNode root, String recovery, String note) {
        Parsed(JsonNode root, String recovery) {
            this(root, recovery, null);
        }

        boolean recovered() {
            return recovery != null;
        }
    }

    /** Python's words for a float that is no number, as JSON values. */
    private static final String[] NON_FINITE = {"-Infinity", "Infinity", "NaN"};

    /** Thrown when the text cannot be read or recovered; the message is the reason. */
    static final class Unrecoverable extends Exception {
        Unrecoverable(String message) {
            super(message);
        }
    }

    static Parsed parse(String text) throws Unrecoverable {
        if (text.isBlank()) {
            throw new Unrecoverable(text.isEmpty() ? "empty file" : "empty file (white space only)");
        }
        try {
            return new Parsed(MAPPER.readTree(text), null);
        } catch (JsonProcessingException first) {
            StringBuilder keys = new StringBuilder();
            String finite = nonFiniteAsNull(text, keys);
            if (finite == null) {
                return recover(text, first);
            }
            String note = "Python's " + keys + " read as a missing value (null): the old system wrote a float that is"
                    + " no number so";
            Parsed p;
            try {
                p = new Parsed(MAPPER.readTree(finite), null);
            } catch (JsonProcessingException again) {
                p = recover(finite, again);
            }
            return new Parsed(p.root(), p.recovery(), note);
        }
    }

    /**
     * The text with every {@code NaN}, {@code Infinity} and {@code -Infinity} value outside a string replaced by
     * {@code null}, or null when it has none; {@code keys} gets what was replaced ({@code NaN for "ttft"}, …).
     */
    static String nonFiniteAsNull(String text, StringBuilder keys) {
        StringBuilder out = null;
        int copied = 0;
        int count = 0;
        String lastString = null;
        char lastSignificant = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                int end = i + 1;
                while (end < text.length() && text.charAt(end) != '"') {
                    end += text.charAt(end) == '\\' ? 2 : 1;
                }
                lastString = text.substring(i + 1, Math.min(end, text.length()));
                i = end;
                lastSignificant = '"';
                continue;
            }
            if (Character.isWhitespace(c)) {
                continue;
            }
            String word = null;
            if (lastSignificant == ':' || lastSignificant == ',' || lastSignificant == '[') {
                for (String w : NON_FINITE) {
                    int after = i + w.length();
                    if (text.startsWith(w, i) && (after >= text.length() || !Character.isLetterOrDigit(text.charAt(after)))) {
                        word = w;
                        break;
                    }
                }
            }
            if (word == null) {
                lastSignificant = c;
                continue;
            }
            if (out == null) {
                out = new StringBuilder(text.length());
            }
            out.append(text, copied, i).append("null");
            copied = i + word.length();
            if (count < 5) {
                keys.append(count == 0 ? "" : ", ").append(word).append(lastSignificant == ':' && lastString != null
                        ? " for \"" + lastString + "\"" : " in a list");
            } else if (count == 5) {
                keys.append(", …");
            }
            count++;
            i = copied - 1;
            lastSignificant = 'l';
        }
        if (out == null) {
            return null;
        }
        return out.append(text, copied, text.length()).toString();
    }

    private static Parsed recover(String text, JsonProcessingException first) throws Unrecoverable {
        String reason = describe(first);
        // 1. A complete value followed by a stray fragment.
        try (JsonParser p = FIRST_VALUE.getFactory().createParser(text)) {
            JsonNode node = FIRST_VALUE.readTree(p);
            if (node != null && node.isContainerNode()) {
                JsonLocation end = p.currentLocation();
                long offset = end.getCharOffset();
                String rest = offset >= 0 && offset <= text.length() ? text.substring((int) offset) : "";
                if (!rest.isBlank()) {
                    return new Parsed(node, String.format(Locale.ROOT,
                            "recovered: a complete JSON object followed by a stray fragment of %d chars (%s); "
                                    + "the fragment was dropped", rest.strip().length(), snippet(rest.strip())));
                }
            }
        } catch (IOException ignored) {
            // not this kind of damage
        }
        // 2. Members with a missing value.
        Matcher m = MISSING_VALUE.matcher(text);
        StringBuilder sb = new StringBuilder();
        StringBuilder keys = new StringBuilder();
        int count = 0;
        while (m.find()) {
            if (count++ > 0) {
                keys.append(", ");
            }
            String member = m.group(1);
            keys.append(member, 0, member.lastIndexOf(':')).append(':');
            m.appendReplacement(sb, Matcher.quoteReplacement(member + "null"));
        }
        m.appendTail(sb);
        if (count > 0) {
            try {
                JsonNode node = MAPPER.readTree(sb.toString());
                return new Parsed(node, "recovered: missing value for " + keys.toString().strip().replace("\" :", "\":")
                        + " read as null");
            } catch (JsonProcessingException e) {
                throw new Unrecoverable("invalid JSON (" + reason + "); repairing missing values did not help ("
                        + describe(e) + ")");
            }
        }
        throw new Unrecoverable("invalid JSON: " + reason);
    }

    /** The parser's own words, without its hints to a programmer ({@code enable `JsonReadFeature…` to allow}). */
    private static final Pattern LIBRARY_HINT = Pattern.compile(":? *\\(?(?:enable|disable) `[A-Za-z.]+_?[A-Z_]*` to allow\\)?");
    private static final Pattern SOURCE_REF = Pattern.compile("\\[Source: [^\\]]*?; (line: \\d+, column: \\d+)\\]");

    private static String describe(JsonProcessingException e) {
        String msg = e.getOriginalMessage();
        if (msg != null) {
            int nl = msg.indexOf('\n');
            msg = nl >= 0 ? msg.substring(0, nl) : msg;
            msg = SOURCE_REF.matcher(LIBRARY_HINT.matcher(msg).replaceAll("")).replaceAll("$1");
        }
        JsonLocation loc = e.getLocation();
        return loc == null ? String.valueOf(msg)
                : String.format(Locale.ROOT, "%s at line %d, column %d", msg, loc.getLineNr(), loc.getColumnNr());
    }

    private static String snippet(String s) {
        String one = s.replace("\n", "\\n");
        return one.length() <= 40 ? "'" + one + "'" : "'" + one.substring(0, 40) + "…'";
    }
}
