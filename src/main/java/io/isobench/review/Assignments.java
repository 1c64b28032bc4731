package io.isobench.review;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds {@code name = value} / {@code name: Type = value} / {@code "name": value} / {@code name=value} (keyword
 * argument) pairs on one source line, and argparse {@code add_argument("--name", ..., default=value)}. Names are
 * normalised to lower case with {@code -} as {@code _}; values are the expression text up to the next top-level
 * comma, closing bracket or comment.
 */
final class Assignments {

    record Pair(String name, String value, boolean keywordArg) {
    }

    static final int MAX_LINE_CHARS = 4000;

    private static final Pattern QUOTED_FLAG =
            Pattern.compile("[\"']--([A-Za-z0-9_-]+)[\"']");

    private Assignments() {
    }

    static List<Pair> on(String line, String argparseFlag, boolean cLike) {
        if (line.length() > MAX_LINE_CHARS) {
            return List.of(); // generated or minified text, not a settings line; keeps the scan linear
        }
        String code = stripComment(line, cLike);
        List<Pair> out = new ArrayList<>();
        int n = code.length();
        int i = 0;
        while (i < n) {
            char c = code.charAt(i);
            if (!(Character.isLetter(c) || c == '_')) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && (Character.isLetterOrDigit(code.charAt(i)) || code.charAt(i) == '_')) {
                i++;
            }
            String ident = code.substring(start, i);
            if (start > 0 && Character.isDigit(code.charAt(start - 1))) {
                continue;
            }
            int j = i;
            if (j < n && (code.charAt(j) == '"' || code.charAt(j) == '\'')) {
                j++; // "name": value (dict literal / JSON)
            }
            while (j < n && code.charAt(j) == ' ') {
                j++;
            }
            if (j >= n) {
                break;
            }
            char op = code.charAt(j);
            String value = null;
            if (op == '=' && (j + 1 >= n || code.charAt(j + 1) != '=')
                    && (j == 0 || "!<>=+-*/%&|^".indexOf(code.charAt(j - 1)) < 0)) {
                value = expression(code, j + 1);
            } else if (op == ':' && (j + 1 >= n || code.charAt(j + 1) != '=')) {
                String rest = expression(code, j + 1);
                int eq = topLevelAssign(code, j + 1);
                value = eq >= 0 ? expression(code, eq + 1) : rest;
            }
            if (value != null && !value.isEmpty()) {
                boolean kw = isKeywordArg(code, start);
                String key = ident.toLowerCase(Locale.ROOT);
                if (key.equals("default") && argparseFlag != null) {
                    out.add(new Pair(argparseFlag, value, false));
                } else {
                    out.add(new Pair(key, value, kw));
                }
            }
        }
        return out;
    }

    /** The flag of an {@code add_argument("--output-len", ...)} call on this line, normalised; null if none. */
    static String argparseFlag(String line) {
        int a = line.indexOf("add_argument(");
        if (a < 0) {
            return null;
        }
        String rest = line.substring(a);
        Matcher m = QUOTED_FLAG.matcher(rest);
        String last = null;
        while (m.find()) {
            last = m.group(1);
        }
        return last == null ? null : last.toLowerCase(Locale.ROOT).replace('-', '_');
    }

    private static boolean isKeywordArg(String code, int start) {
        int k = start - 1;
        while (k >= 0 && code.charAt(k) == ' ') {
            k--;
        }
        return k < 0 || code.charAt(k) == '(' || code.charAt(k) == ',';
    }

    private static int topLevelAssign(String code, int from) {
        int depth = 0;
        for (int k = from; k < code.length(); k++) {
            char c = code.charAt(k);
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0) {
                    return -1;
                }
                depth--;
            } else if (depth == 0 && c == ',') {
                return -1;
            } else if (depth == 0 && c == '=' && (k + 1 >= code.length() || code.charAt(k + 1) != '=')
                    && "!<>=".indexOf(code.charAt(k - 1)) < 0) {
                return k;
            }
        }
        return -1;
    }

    private static String expression(String code, int from) {
        int depth = 0;
        char quote = 0;
        int k = from;
        for (; k < code.length(); k++) {
            char c = code.charAt(k);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0) {
                    break;
                }
                depth--;
            } else if (depth == 0 && (c == ',' || c == ';')) {
                break;
            }
        }
        return code.substring(from, k).strip();
    }

    /** The line without its trailing comment: {@code #} for Python/YAML/shell, {@code //} for C-like sources. */
    static String stripComment(String line, boolean cLike) {
        char quote = 0;
        for (int k = 0; k < line.length(); k++) {
            char c = line.charAt(k);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (!cLike && c == '#') {
                return line.substring(0, k);
            } else if (cLike && c == '/' && k + 1 < line.length() && line.charAt(k + 1) == '/') {
                return line.substring(0, k);
            }
        }
        return line;
    }

    /** The number a value denotes, when it is a plain numeric literal (underscores, exponent allowed); else null. */
    static Double number(String value) {
        String v = value.strip().replace("_", "");
        if (v.endsWith("L") || v.endsWith("f")) {
            v = v.substring(0, v.length() - 1);
        }
        if (!v.matches("[-+]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][-+]?\\d+)?")) {
            return null;
        }
        return Double.parseDouble(v);
    }
}
