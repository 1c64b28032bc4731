package io.isobench.export;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads a list cell of a published CSV table as the old system's exports wrote it: a Python literal ({@code ['a',
 * "b's"]}, pandas' {@code str(list)}), a JSON array, or a numpy repr ({@code ['a' 'b']}: items separated by whitespace,
 * line breaks inside the brackets, numbers bare: {@code [1. 2.5 nan]}). Items are quoted strings (with Python escapes)
 * or bare numbers and words ({@code nan}, {@code inf}, {@code True}, {@code False}), kept as
 * written; {@code None}/{@code null} become null. A trailing comma is allowed, as in Python.
 *
 * <p>Guarantee: a cell is either read whole into its items or refused with {@link HfValues.BadValue}; never half read.
 * Refused: text outside one pair of brackets, a nested bracket, an unterminated string, an empty item between two
 * commas, an unquoted word, and numpy's summary marker {@code ...} (a long array printed with its middle left out:
 * the items are not all there).
 */
final class ListCell {

    /** The items a list may hold unquoted: numbers (numpy writes {@code 1.} and {@code 1e-05}) and Python's words. */
    private static final Pattern BARE = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?"
            + "|[+-]?(nan|inf)|True|False|None|null");

    private ListCell() {
    }

    static List<String> parse(String text) throws HfValues.BadValue {
        String s = text.trim();
        if (!s.startsWith("[") || !s.endsWith("]")) {
            throw new HfValues.BadValue("expected a list like ['a', 'b'] or ['a' 'b'], found '" + HfValues.abbreviate(s) + "'");
        }
        List<String> out = new ArrayList<>();
        int i = 1;
        int end = s.length() - 1;
        boolean afterComma = false;
        while (true) {
            while (i < end && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= end) {
                break;
            }
            char c = s.charAt(i);
            if (c == ',') {
                if (out.isEmpty() || afterComma) {
                    throw new HfValues.BadValue("empty item in list '" + HfValues.abbreviate(s) + "'");
                }
                afterComma = true;
                i++;
                continue;
            }
            afterComma = false;
            if (c == '\'' || c == '"') {
                StringBuilder sb = new StringBuilder();
                i = quoted(s, i, end, sb);
                out.add(sb.toString());
            } else {
                int start = i;
                while (i < end && !Character.isWhitespace(s.charAt(i)) && s.charAt(i) != ',') {
                    char d = s.charAt(i);
                    if (d == '[' || d == ']' || d == '\'' || d == '"' || d == '{' || d == '}') {
                        throw new HfValues.BadValue("not a flat list (a '" + d + "' inside the brackets): '"
                                + HfValues.abbreviate(s) + "'");
                    }
                    i++;
                }
                String token = s.substring(start, i);
                if (token.equals("...")) {
                    throw new HfValues.BadValue("a numpy summary ('...'): items are missing in '"
                            + HfValues.abbreviate(s) + "'");
                }
                if (!BARE.matcher(token).matches()) {
                    throw new HfValues.BadValue("unquoted item '" + HfValues.abbreviate(token) + "' (only numbers,"
                            + " nan, inf, True, False and None may stand bare) in '" + HfValues.abbreviate(s) + "'");
                }
                out.add(token.equals("None") || token.equals("null") ? null : token);
            }
            if (i < end && !Character.isWhitespace(s.charAt(i)) && s.charAt(i) != ',') {
                throw new HfValues.BadValue("malformed list at character " + i + ": '" + HfValues.abbreviate(s) + "'");
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** Reads the quoted string starting at {@code i} into {@code sb}; returns the index after its closing quote. */
    private static int quoted(String s, int i, int end, StringBuilder sb) throws HfValues.BadValue {
        char q = s.charAt(i);
        i++;
        while (i < end) {
            char d = s.charAt(i);
            if (d == '\\' && i + 1 < end) {
                i = HfValues.unescape(s, i + 1, sb);
                continue;
            }
            if (d == q) {
                return i + 1;
            }
            sb.append(d);
            i++;
        }
        throw new HfValues.BadValue("unterminated string in list '" + HfValues.abbreviate(s) + "'");
    }
}
