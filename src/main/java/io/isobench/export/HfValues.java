package io.isobench.export;

import java.sql.Array;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Converts cell values of an HF table (CSV text, JSON values, DuckDB/JDBC objects) to the schema's Java types:
 * {@code String}, {@code List<String>}, {@code Boolean}, {@code Double}. Conversion is exact: a value that does not
 * fit the column's type is an error, never a silent null.
 */
final class HfValues {

    private HfValues() {
    }

    /** Thrown for a value that does not fit its column; the caller adds file and row. */
    static final class BadValue extends Exception {
        BadValue(String message) {
            super(message);
        }
    }

    /** Converts a value read from a typed source (JSON, parquet) or CSV text. CSV callers map "" to null first. */
    static Object convert(Object v, HfSchema.Type type) throws BadValue {
        if (v == null) {
            return null;
        }
        try {
            if (v instanceof Array a) {
                v = arrayToList(a);
            }
        } catch (SQLException e) {
            throw new BadValue("unreadable list value: " + e.getMessage());
        }
        return switch (type) {
            case STRING -> {
                if (v instanceof Collection<?>) {
                    throw new BadValue("expected a string, found a list");
                }
                yield v.toString();
            }
            case LIST_STRING -> {
                if (v instanceof Collection<?> c) {
                    List<String> out = new ArrayList<>(c.size());
                    for (Object o : c) {
                        out.add(o == null ? null : o.toString());
                    }
                    yield Collections.unmodifiableList(out);
                }
                if (v instanceof String s) {
                    yield ListCell.parse(s);
                }
                throw new BadValue("expected a list of strings, found " + v);
            }
            case BOOL -> {
                if (v instanceof Boolean b) {
                    yield b;
                }
                String s = v.toString().trim();
                yield switch (s.toLowerCase(Locale.ROOT)) {
                    case "true", "1", "1.0" -> Boolean.TRUE;
                    case "false", "0", "0.0" -> Boolean.FALSE;
                    case "none", "nan", "null" -> null;
                    default -> throw new BadValue("expected a bool (True/False), found '" + s + "'");
                };
            }
            case FLOAT64 -> {
                if (v instanceof Number n) {
                    yield n.doubleValue();
                }
                if (v instanceof Boolean) {
                    throw new BadValue("expected a float64, found a bool");
                }
                yield parseDouble(v.toString());
            }
            case INT32 -> {
                if (v instanceof Number n) {
                    yield n.intValue();
                }
                try {
                    yield Integer.parseInt(v.toString().trim());
                } catch (NumberFormatException e) {
                    throw new BadValue("expected an integer, found '" + v + "'");
                }
            }
        };
    }

    static Double parseDouble(String text) throws BadValue {
        String s = text.trim();
        switch (s.toLowerCase(Locale.ROOT)) {
            case "nan", "none", "null" -> {
                return null;
            }
            case "inf", "+inf", "infinity" -> {
                return Double.POSITIVE_INFINITY;
            }
            case "-inf", "-infinity" -> {
                return Double.NEGATIVE_INFINITY;
            }
            default -> {
            }
        }
        if (!s.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
            throw new BadValue("expected a float64, found '" + abbreviate(s) + "'");
        }
        return Double.parseDouble(s);
    }

    private static List<Object> arrayToList(Array a) throws SQLException {
        Object arr = a.getArray();
        List<Object> out = new ArrayList<>();
        if (arr instanceof Object[] objs) {
            Collections.addAll(out, objs);
        }
        return out;
    }

    /** Handles the escape whose letter is at {@code i}; returns the index after it. */
    static int unescape(String s, int i, StringBuilder sb) throws BadValue {
        char e = s.charAt(i);
        switch (e) {
            case 'n' -> sb.append('\n');
            case 'r' -> sb.append('\r');
            case 't' -> sb.append('\t');
            case 'b' -> sb.append('\b');
            case 'f' -> sb.append('\f');
            case '0' -> sb.append('\0');
            case '\\', '\'', '"', '/' -> sb.append(e);
            case 'x', 'u', 'U' -> {
                int len = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                if (i + 1 + len > s.length()) {
                    throw new BadValue("truncated \\" + e + " escape in '" + abbreviate(s) + "'");
                }
                try {
                    sb.appendCodePoint(Integer.parseInt(s.substring(i + 1, i + 1 + len), 16));
                } catch (IllegalArgumentException ex) {
                    throw new BadValue("bad \\" + e + " escape in '" + abbreviate(s) + "'");
                }
                return i + 1 + len;
            }
            default -> {
                sb.append('\\').append(e);
            }
        }
        return i + 1;
    }

    static String abbreviate(String s) {
        String one = s.replace('\n', ' ');
        return one.length() <= 60 ? one : one.substring(0, 57) + "...";
    }
}
