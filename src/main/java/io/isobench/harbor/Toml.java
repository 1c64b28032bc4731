package io.isobench.harbor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A strict reader of the TOML 1.0 subset Harbor task files use (docs/harbor.md, "TOML"): comments, bare, quoted and
 * dotted keys, {@code [table]} and {@code [[array of tables]]} headers, basic and literal strings (single and multi
 * line), integers (decimal, {@code 0x}, {@code 0o}, {@code 0b}, underscores), floats ({@code inf}, {@code nan}),
 * booleans, arrays (over lines, trailing comma) and inline tables. Date-time values are refused with a one-line error
 * (no Harbor field takes one). A duplicate key, a table defined twice, or anything else TOML forbids is an error
 * naming the line. Tables are {@code LinkedHashMap}s in file order; integers are {@code Long}, floats {@code Double}.
 */
public final class Toml {

    /** A document TOML (or this subset) does not accept: the message names the line. */
    public static final class TomlError extends RuntimeException {
        TomlError(int line, String message) {
            super("line " + line + ": " + message);
        }
    }

    private final String s;
    private int i;
    private int line = 1;
    private final Map<String, Object> root = new LinkedHashMap<>();
    /** Tables opened by a header or a dotted key (identity), so that a second header for them fails. */
    private final List<Object> defined = new ArrayList<>();
    /** The table the last header opened (for messages). */
    private String at = "";

    private Toml(String text) {
        this.s = text;
    }

    /** The document as nested maps; a {@link TomlError} naming the line on anything it does not accept. */
    public static Map<String, Object> parse(String text) {
        Toml t = new Toml(text.replace("\r\n", "\n"));
        t.document();
        return t.root;
    }

    private void document() {
        Map<String, Object> current = root;
        while (true) {
            skipBlank();
            if (i >= s.length()) {
                return;
            }
            char c = s.charAt(i);
            if (c == '[') {
                boolean array = s.startsWith("[[", i);
                i += array ? 2 : 1;
                List<String> path = key();
                expect(array ? "]]" : "]");
                endOfLine();
                at = String.join(".", path);
                current = array ? arrayTable(path) : table(path);
            } else {
                keyValue(current, current);
                endOfLine();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> table(List<String> path) {
        Map<String, Object> t = root;
        for (int k = 0; k < path.size(); k++) {
            Object o = t.get(path.get(k));
            if (o == null) {
                Map<String, Object> n = new LinkedHashMap<>();
                t.put(path.get(k), n);
                t = n;
            } else if (o instanceof Map<?, ?> m) {
                t = (Map<String, Object>) m;
            } else if (o instanceof List<?> l && k < path.size() - 1 && !l.isEmpty() && l.getLast() instanceof Map) {
                t = (Map<String, Object>) l.getLast();
            } else {
                throw err("[" + String.join(".", path) + "]: '" + path.get(k) + "' is already a value");
            }
        }
        for (Object d : defined) {
            if (d == t) {
                throw err("table [" + String.join(".", path) + "] is defined twice");
            }
        }
        defined.add(t);
        return t;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> arrayTable(List<String> path) {
        Map<String, Object> parent = path.size() == 1 ? root : table(path.subList(0, path.size() - 1), true);
        String last = path.getLast();
        Object o = parent.get(last);
        List<Object> list;
        if (o == null) {
            list = new ArrayList<>();
            parent.put(last, list);
        } else if (o instanceof List<?> l && (l.isEmpty() || l.getFirst() instanceof Map)) {
            list = (List<Object>) l;
        } else {
            throw err("[[" + String.join(".", path) + "]]: '" + last + "' is already a value");
        }
        Map<String, Object> n = new LinkedHashMap<>();
        list.add(n);
        defined.add(n);
        return n;
    }

    /** The table at {@code path}, created on the way, without marking it defined (the parent of an array table). */
    @SuppressWarnings("unchecked")
    private Map<String, Object> table(List<String> path, boolean implicit) {
        Map<String, Object> t = root;
        for (String k : path) {
            Object o = t.get(k);
            if (o == null) {
                Map<String, Object> n = new LinkedHashMap<>();
                t.put(k, n);
                t = n;
            } else if (o instanceof Map<?, ?> m) {
                t = (Map<String, Object>) m;
            } else if (o instanceof List<?> l && !l.isEmpty() && l.getLast() instanceof Map) {
                t = (Map<String, Object>) l.getLast();
            } else {
                throw err("'" + k + "' is already a value");
            }
        }
        return t;
    }

    @SuppressWarnings("unchecked")
    private void keyValue(Map<String, Object> table) {
        keyValue(table, null);
    }

    @SuppressWarnings("unchecked")
    private void keyValue(Map<String, Object> table, Map<String, Object> current) {
        List<String> path = key();
        skipSpaces();
        expect("=");
        skipSpaces();
        Object v = value();
        Map<String, Object> t = table;
        for (int k = 0; k < path.size() - 1; k++) {
            Object o = t.get(path.get(k));
            if (o == null) {
                Map<String, Object> n = new LinkedHashMap<>();
                t.put(path.get(k), n);
                defined.add(n);
                t = n;
            } else if (o instanceof Map<?, ?> m) {
                t = (Map<String, Object>) m;
            } else {
                throw err("key " + String.join(".", path) + ": '" + path.get(k) + "' is already a value");
            }
        }
        if (t.containsKey(path.getLast())) {
            throw err("duplicate key " + (at.isEmpty() || table != current ? "" : "[" + at + "].")
                    + String.join(".", path));
        }
        t.put(path.getLast(), v);
    }

    /** A dotted key: bare and quoted parts. */
    private List<String> key() {
        List<String> parts = new ArrayList<>();
        while (true) {
            skipSpaces();
            if (i >= s.length()) {
                throw err("a key is missing");
            }
            char c = s.charAt(i);
            if (c == '"') {
                parts.add(basicString());
            } else if (c == '\'') {
                parts.add(literalString());
            } else {
                int start = i;
                while (i < s.length() && isBare(s.charAt(i))) {
                    i++;
                }
                if (start == i) {
                    throw err("a key is missing or has a character TOML does not allow in a bare key: '" + c + "'");
                }
                parts.add(s.substring(start, i));
            }
            skipSpaces();
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
            } else {
                return parts;
            }
        }
    }

    private static boolean isBare(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-';
    }

    private Object value() {
        if (i >= s.length()) {
            throw err("a value is missing");
        }
        char c = s.charAt(i);
        if (s.startsWith("\"\"\"", i)) {
            return multiLine("\"\"\"", true);
        }
        if (s.startsWith("'''", i)) {
            return multiLine("'''", false);
        }
        if (c == '"') {
            return basicString();
        }
        if (c == '\'') {
            return literalString();
        }
        if (c == '[') {
            return array();
        }
        if (c == '{') {
            return inlineTable();
        }
        if (s.startsWith("true", i) && !bareAt(i + 4)) {
            i += 4;
            return Boolean.TRUE;
        }
        if (s.startsWith("false", i) && !bareAt(i + 5)) {
            i += 5;
            return Boolean.FALSE;
        }
        return number();
    }

    private boolean bareAt(int k) {
        return k < s.length() && isBare(s.charAt(k));
    }

    private Object number() {
        int start = i;
        while (i < s.length() && "0123456789abcdefABCDEFxXoO_+-.:TZ".indexOf(s.charAt(i)) >= 0
                || i < s.length() && s.startsWith("inf", i) || i < s.length() && s.startsWith("nan", i)) {
            i += s.startsWith("inf", i) || s.startsWith("nan", i) ? 3 : 1;
        }
        String t = s.substring(start, i);
        if (t.isEmpty()) {
            throw err("a value is missing or is not TOML: '" + rest() + "'");
        }
        if (t.matches("\\d{4}-\\d{2}-\\d{2}.*") || t.matches("\\d{2}:\\d{2}.*")) {
            throw err("date-time value '" + t + "': isobench's TOML subset does not read dates (no Harbor field takes"
                    + " one)");
        }
        String n = t.replace("_", "");
        if (t.contains("__") || t.startsWith("_") || t.endsWith("_")) {
            throw err("number '" + t + "': underscores must stand between digits");
        }
        try {
            if (n.startsWith("0x")) {
                return Long.parseLong(n.substring(2), 16);
            }
            if (n.startsWith("0o")) {
                return Long.parseLong(n.substring(2), 8);
            }
            if (n.startsWith("0b")) {
                return Long.parseLong(n.substring(2), 2);
            }
            if (n.matches("[+-]?(0|[1-9]\\d*)")) {
                return Long.parseLong(n);
            }
            if (n.matches("[+-]?inf")) {
                return n.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            if (n.matches("[+-]?nan")) {
                return Double.NaN;
            }
            if (n.matches("[+-]?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?") && (n.contains(".") || n.contains("e")
                    || n.contains("E"))) {
                return Double.parseDouble(n);
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw err("value '" + t + "' is not a TOML string, number, boolean, array or table");
    }

    private List<Object> array() {
        i++; // [
        List<Object> out = new ArrayList<>();
        while (true) {
            skipBlank();
            if (i >= s.length()) {
                throw err("array not closed");
            }
            if (s.charAt(i) == ']') {
                i++;
                return out;
            }
            out.add(value());
            skipBlank();
            if (i >= s.length()) {
                throw err("array not closed");
            }
            if (s.charAt(i) == ',') {
                i++;
            } else if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return out;
            } else {
                throw err("array: ',' or ']' expected, found '" + rest() + "'");
            }
        }
    }

    private Map<String, Object> inlineTable() {
        i++; // {
        Map<String, Object> t = new LinkedHashMap<>();
        skipSpaces();
        if (i < s.length() && s.charAt(i) == '}') {
            i++;
            return t;
        }
        while (true) {
            keyValue(t);
            skipSpaces();
            if (i < s.length() && s.charAt(i) == ',') {
                i++;
            } else if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return t;
            } else {
                throw err("inline table: ',' or '}' expected (one line), found '" + rest() + "'");
            }
        }
    }

    private String basicString() {
        i++; // "
        StringBuilder b = new StringBuilder();
        while (true) {
            if (i >= s.length() || s.charAt(i) == '\n') {
                throw err("string not closed on its line");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\') {
                escape(b);
            } else {
                b.append(c);
            }
        }
    }

    private void escape(StringBuilder b) {
        if (i >= s.length()) {
            throw err("escape at the end of the file");
        }
        char e = s.charAt(i++);
        switch (e) {
            case 'b' -> b.append('\b');
            case 't' -> b.append('\t');
            case 'n' -> b.append('\n');
            case 'f' -> b.append('\f');
            case 'r' -> b.append('\r');
            case '"' -> b.append('"');
            case '\\' -> b.append('\\');
            case 'u', 'U' -> {
                int len = e == 'u' ? 4 : 8;
                if (i + len > s.length() || !s.substring(i, i + len).matches("[0-9a-fA-F]+")) {
                    throw err("\\" + e + " needs " + len + " hex digits");
                }
                b.appendCodePoint(Integer.parseInt(s.substring(i, i + len), 16));
                i += len;
            }
            default -> throw err("unknown escape \\" + e);
        }
    }

    private String literalString() {
        i++; // '
        int end = s.indexOf('\'', i);
        int nl = s.indexOf('\n', i);
        if (end < 0 || nl >= 0 && nl < end) {
            throw err("literal string not closed on its line");
        }
        String out = s.substring(i, end);
        i = end + 1;
        return out;
    }

    private String multiLine(String quote, boolean basic) {
        i += 3;
        if (s.startsWith("\n", i)) {
            i++;
            line++;
        }
        StringBuilder b = new StringBuilder();
        while (true) {
            if (i >= s.length()) {
                throw err("multi-line string not closed");
            }
            if (s.startsWith(quote, i)) {
                i += 3;
                for (int extra = 0; extra < 2 && i < s.length() && s.charAt(i) == quote.charAt(0); extra++) {
                    b.append(quote.charAt(0)); // up to two quotes may close the string's content
                    i++;
                }
                return b.toString();
            }
            char c = s.charAt(i++);
            if (c == '\n') {
                line++;
            }
            if (basic && c == '\\') {
                if (i < s.length() && (s.charAt(i) == '\n' || s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
                    while (i < s.length() && Character.isWhitespace(s.charAt(i))) { // line-ending backslash
                        if (s.charAt(i++) == '\n') {
                            line++;
                        }
                    }
                } else {
                    escape(b);
                }
            } else {
                b.append(c);
            }
        }
    }

    private void skipSpaces() {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
    }

    /** Spaces, newlines and comments. */
    private void skipBlank() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t') {
                i++;
            } else if (c == '\n') {
                i++;
                line++;
            } else if (c == '#') {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++;
                }
            } else {
                return;
            }
        }
    }

    private void endOfLine() {
        skipSpaces();
        if (i < s.length() && s.charAt(i) == '#') {
            while (i < s.length() && s.charAt(i) != '\n') {
                i++;
            }
        }
        if (i < s.length() && s.charAt(i) != '\n') {
            throw err("end of line expected, found '" + rest() + "'");
        }
    }

    private void expect(String t) {
        if (!s.startsWith(t, i)) {
            throw err("'" + t + "' expected, found '" + rest() + "'");
        }
        i += t.length();
    }

    private String rest() {
        int nl = s.indexOf('\n', i);
        String r = s.substring(i, nl < 0 ? s.length() : nl);
        return r.length() > 40 ? r.substring(0, 40) + "…" : r;
    }

    private TomlError err(String message) {
        return new TomlError(line, message);
    }

    /** A TOML basic string for {@code v} (quotes, backslashes and control characters escaped). */
    public static String quote(String v) {
        StringBuilder b = new StringBuilder("\"");
        for (int k = 0; k < v.length(); k++) {
            char c = v.charAt(k);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
