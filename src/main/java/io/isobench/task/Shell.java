package io.isobench.task;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Shell-like tokenisation of a perf_command WITHOUT a shell: whitespace splits words, single quotes are literal,
 * double quotes honour {@code \" \\ \$ \`}, a backslash outside quotes escapes the next character. Control
 * operators ({@code ; && || | &}, redirections) split the command into segments and are reported, as are
 * expansions ({@code $VAR}, {@code $(…)}, backticks) that isobench will not perform.
 */
final class Shell {

    private static final Pattern ANGLE_PLACEHOLDER =
            Pattern.compile("<[A-Za-z_][A-Za-z0-9_-]*>(?=\\s|$)");

    private Shell() {
    }

    /** A word; {@code quoted} when any part of it was quoted or escaped (so it is never an operator). */
    record Word(String text, boolean quoted) {
    }

    record Result(List<List<Word>> segments, List<String> operators, List<String> expansions, String error) {
    }

    static Result tokenize(String text) {
        List<List<Word>> segments = new ArrayList<>();
        List<Word> current = new ArrayList<>();
        List<String> operators = new ArrayList<>();
        List<String> expansions = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        boolean quoted = false;
        String error = null;
        int backticks = 0;
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\'') {
                int end = text.indexOf('\'', i + 1);
                if (end < 0) {
                    error = "unterminated single quote at column " + (i + 1);
                    word.append(text, i + 1, n);
                    inWord = true;
                    quoted = true;
                    break;
                }
                word.append(text, i + 1, end);
                inWord = true;
                quoted = true;
                i = end + 1;
            } else if (c == '"') {
                int j = i + 1;
                boolean closed = false;
                while (j < n) {
                    char d = text.charAt(j);
                    if (d == '\\' && j + 1 < n && "\"\\$`\n".indexOf(text.charAt(j + 1)) >= 0) {
                        if (text.charAt(j + 1) != '\n') {
                            word.append(text.charAt(j + 1));
                        }
                        j += 2;
                    } else if (d == '"') {
                        closed = true;
                        j++;
                        break;
                    } else {
                        if (d == '$' && j + 1 < n && isExpansionStart(text.charAt(j + 1))) {
                            expansions.add(expansionAt(text, j));
                        } else if (d == '`' && (backticks++ % 2 == 0)) {
                            expansions.add("`…`");
                        }
                        word.append(d);
                        j++;
                    }
                }
                inWord = true;
                quoted = true;
                if (!closed) {
                    error = "unterminated double quote at column " + (i + 1);
                    break;
                }
                i = j;
            } else if (c == '\\') {
                if (i + 1 < n) {
                    char next = text.charAt(i + 1);
                    if (next != '\n') {
                        word.append(next);
                        inWord = true;
                        quoted = true;
                    }
                    i += 2;
                } else {
                    i++;
                }
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    current.add(new Word(word.toString(), quoted));
                    word.setLength(0);
                    inWord = false;
                    quoted = false;
                }
                i++;
            } else if (c == '<' && ANGLE_PLACEHOLDER.matcher(text).region(i, n).lookingAt()) {
                // `<model>` in a documented command is a placeholder, not a redirection
                var m = ANGLE_PLACEHOLDER.matcher(text).region(i, n);
                m.lookingAt();
                word.append(m.group());
                inWord = true;
                i = m.end();
            } else if (c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')') {
                if (inWord && (c == '>' || c == '<') && isFdNumber(word)) {
                    word.setLength(0);
                    inWord = false;
                }
                if (inWord) {
                    current.add(new Word(word.toString(), quoted));
                    word.setLength(0);
                    inWord = false;
                    quoted = false;
                }
                int j = i + 1;
                while (j < n && j - i < 2 && text.charAt(j) == c) {
                    j++;
                }
                if ((c == '>' || c == '<') && j < n && text.charAt(j) == '&') {
                    j++; // 2>&1: duplicate a descriptor
                }
                String op = text.substring(i, j);
                operators.add(op);
                if (c == '>' || c == '<') {
                    // redirection: the target word belongs to the operator, not to the command
                    while (j < n && Character.isWhitespace(text.charAt(j))) {
                        j++;
                    }
                    while (j < n && !Character.isWhitespace(text.charAt(j)) && ";&|<>".indexOf(text.charAt(j)) < 0) {
                        j++;
                    }
                } else {
                    segments.add(current);
                    current = new ArrayList<>();
                }
                i = j;
            } else if (c == '$' && i + 1 < n && isExpansionStart(text.charAt(i + 1))) {
                String e = expansionAt(text, i);
                expansions.add(e);
                word.append(e);
                inWord = true;
                i += e.length();
            } else if (c == '`') {
                int end = text.indexOf('`', i + 1);
                String e = end < 0 ? text.substring(i) : text.substring(i, end + 1);
                expansions.add(e);
                word.append(e);
                inWord = true;
                i += e.length();
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            current.add(new Word(word.toString(), quoted));
        }
        segments.add(current);
        segments.removeIf(List::isEmpty);
        return new Result(segments, operators, expansions, error);
    }

    private static boolean isFdNumber(StringBuilder word) {
        return word.length() == 1 && Character.isDigit(word.charAt(0));
    }

    private static boolean isExpansionStart(char c) {
        return c == '{' || c == '(' || c == '_' || Character.isLetter(c);
    }

    private static String expansionAt(String text, int i) {
        int j = i + 1;
        if (j < text.length() && (text.charAt(j) == '{' || text.charAt(j) == '(')) {
            char close = text.charAt(j) == '{' ? '}' : ')';
            int end = text.indexOf(close, j);
            return end < 0 ? text.substring(i) : text.substring(i, end + 1);
        }
        while (j < text.length() && (Character.isLetterOrDigit(text.charAt(j)) || text.charAt(j) == '_')) {
            j++;
        }
        return text.substring(i, j);
    }
}
