package io.isobench.atif;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.atif.AtifValidator.Error;
import io.isobench.atif.AtifValidator.Profile;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The field checks under {@link AtifValidator}: one JSON value against one model field's type, each failure an
 * {@link Error} with its dotted path, in the profile's number rule (lax for {@link Profile#READ}, canonical JSON types
 * for {@link Profile#WRITE}).
 */
abstract class AtifChecks {

    private static final Set<String> TRUE_WORDS = Set.of("1", "on", "t", "true", "y", "yes");
    private static final Set<String> FALSE_WORDS = Set.of("0", "off", "f", "false", "n", "no");
    private static final Pattern INT_TEXT = Pattern.compile("\\s*[+-]?\\d+(_\\d+)*\\s*");
    private static final Pattern ISO = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})"
            + "(?:[T ](\\d{2})(?::(\\d{2})(?::(\\d{2})"
            + "(?:[.,](\\d{1,9}))?)?)?(?:[+-](\\d{2})(?::?(\\d{2})(?::?(\\d{2})(?:\\.\\d{1,6})?)?)?)?)?");

    final Profile profile;
    final List<Error> errors = new ArrayList<>();

    AtifChecks(Profile profile) {
        this.profile = profile;
    }

    final void keys(JsonNode o, Set<String> allowed, String p) {
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!allowed.contains(k)) {
                error(p + "." + k, "unexpected field (not part of ATIF schema)");
            }
        }
    }

    final boolean required(JsonNode o, String f, String p) {
        if (!o.has(f)) {
            error(p + "." + f, "required field is missing");
            return false;
        }
        if (o.get(f).isNull()) {
            error(p + "." + f, "expected a value, got null");
            return false;
        }
        return true;
    }

    static boolean present(JsonNode o, String f) {
        return !isNull(o.get(f));
    }

    static boolean isNull(JsonNode n) {
        return n == null || n.isNull();
    }

    /** Field {@code f}: a string (required or null/absent); true when it is a string. */
    final boolean string(JsonNode o, String f, String p, boolean req) {
        if (req && !required(o, f, p)) {
            return false;
        }
        JsonNode v = o.get(f);
        if (isNull(v)) {
            return false;
        }
        if (!v.isTextual()) {
            error(p + "." + f, "expected string type, got " + kind(v));
            return false;
        }
        return true;
    }

    final void integer(JsonNode o, String f, String p, Long min) {
        JsonNode v = o.get(f);
        if (isNull(v)) {
            return;
        }
        if (!isInteger(v)) {
            error(p + "." + f, "expected int type, got " + kind(v));
        } else if (min != null && asLong(v) < min) {
            error(p + "." + f, "Input should be greater than or equal to " + min);
        }
    }

    final boolean number(JsonNode o, String f, String p) {
        JsonNode v = o.get(f);
        if (isNull(v)) {
            return false;
        }
        if (!isNumber(v)) {
            error(p + "." + f, "expected float type, got " + kind(v));
            return false;
        }
        return true;
    }

    final void bool(JsonNode o, String f, String p) {
        JsonNode v = o.get(f);
        if (isNull(v) || v.isBoolean()) {
            return;
        }
        boolean lax = profile == Profile.READ && ((v.isIntegralNumber() && (v.asLong() == 0 || v.asLong() == 1))
                || (v.isTextual() && (TRUE_WORDS.contains(v.asText().toLowerCase())
                || FALSE_WORDS.contains(v.asText().toLowerCase()))));
        if (!lax) {
            error(p + "." + f, "expected bool type, got " + kind(v));
        }
    }

    final void extra(JsonNode o, String p) {
        JsonNode v = o.get("extra");
        if (!isNull(v) && !v.isObject()) {
            error(p + ".extra", "expected dict type, got " + kind(v));
        }
    }

    final boolean object(JsonNode v, String p) {
        if (v == null || !v.isObject()) {
            error(p, "expected dict type, got " + kind(v));
            return false;
        }
        return true;
    }

    final boolean array(JsonNode v, String p) {
        if (!v.isArray()) {
            error(p, "expected list type, got " + kind(v));
            return false;
        }
        return true;
    }

    final boolean isInteger(JsonNode v) {
        if (v.isIntegralNumber()) {
            return true;
        }
        if (profile == Profile.WRITE) {
            return false;
        }
        if (v.isBoolean()) {
            return true;
        }
        if (v.isFloatingPointNumber()) {
            double d = v.asDouble();
            return Double.isFinite(d) && d == Math.rint(d);
        }
        return v.isTextual() && INT_TEXT.matcher(v.asText()).matches();
    }

    final boolean isNumber(JsonNode v) {
        if (v.isNumber()) {
            return true;
        }
        if (profile == Profile.WRITE) {
            return false;
        }
        if (v.isBoolean()) {
            return true;
        }
        if (!v.isTextual()) {
            return false;
        }
        try {
            Double.parseDouble(v.asText().strip().replace("_", ""));
            return !v.asText().isBlank();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static long asLong(JsonNode v) {
        if (v.isBoolean()) {
            return v.asBoolean() ? 1 : 0;
        }
        if (v.isTextual()) {
            return Long.parseLong(v.asText().strip().replace("_", "").replace("+", ""));
        }
        return v.asLong();
    }

    static double asDouble(JsonNode v) {
        return v.isTextual() ? Double.parseDouble(v.asText().strip()) : v.asDouble();
    }

    /** ISO 8601 the way Python's {@code datetime.fromisoformat} reads it, {@code Z} read as {@code +00:00}. */
    static boolean isoTimestamp(String s) {
        Matcher m = ISO.matcher(s.replace("Z", "+00:00"));
        if (!m.matches()) {
            return false;
        }
        try {
            LocalDate.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
            if (m.group(4) != null) {
                LocalTime.of(Integer.parseInt(m.group(4)), m.group(5) == null ? 0 : Integer.parseInt(m.group(5)),
                        m.group(6) == null ? 0 : Integer.parseInt(m.group(6)));
            }
            return m.group(8) == null || Integer.parseInt(m.group(8)) < 24;
        } catch (DateTimeException e) {
            return false;
        }
    }

    static String kind(JsonNode v) {
        if (v == null || v.isNull()) {
            return "null";
        }
        return switch (v.getNodeType()) {
            case STRING -> "str";
            case NUMBER -> v.isIntegralNumber() ? "int" : "float";
            case BOOLEAN -> "bool";
            case ARRAY -> "list";
            case OBJECT -> "dict";
            default -> v.getNodeType().name().toLowerCase();
        };
    }

    static String text(JsonNode v) {
        return v.isTextual() ? v.asText() : v.toString();
    }

    final void error(String path, String message) {
        errors.add(new Error(path, message));
    }
}
