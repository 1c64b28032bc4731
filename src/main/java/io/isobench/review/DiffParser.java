package io.isobench.review;

import io.isobench.review.PatchFile.Hunk;
import io.isobench.review.PatchFile.Kind;
import io.isobench.review.PatchFile.Line;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lenient parser for unified diffs as {@code git diff}/{@code git format-patch} write them, and for plain
 * {@code diff -u} output. Never throws: CRLF line ends are dropped, lines it cannot place (mail headers, commit
 * messages, truncated hunks, garbage) are counted and skipped, hunk line counts decide where a hunk ends.
 */
final class DiffParser {

    private static final Pattern HUNK = Pattern.compile("^@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))? @@.*");

    record Parsed(List<PatchFile> files, int unparsedLines) {
    }

    private DiffParser() {
    }

    static Parsed parse(String text) {
        List<String> lines = splitLines(text);
        List<PatchFile> files = new ArrayList<>();
        int unparsed = 0;
        FileBuilder cur = null;
        int i = 0;
        while (i < lines.size()) {
            String line = lines.get(i);
            if (line.startsWith("diff --git ")) {
                finish(cur, files);
                cur = new FileBuilder();
                cur.header.append(line).append('\n');
                String[] ab = gitPaths(line.substring("diff --git ".length()));
                cur.oldPath = ab[0];
                cur.newPath = ab[1];
                i = readExtendedHeader(lines, i + 1, cur);
            } else if (line.startsWith("--- ") && i + 1 < lines.size() && lines.get(i + 1).startsWith("+++ ")) {
                finish(cur, files);
                cur = new FileBuilder();
                i = readExtendedHeader(lines, i, cur);
            } else if (line.startsWith("@@ ") && cur != null && HUNK.matcher(line).matches()) {
                i = readHunk(lines, i, cur);
            } else {
                unparsed++;
                i++;
            }
        }
        finish(cur, files);
        return new Parsed(files, unparsed);
    }

    static List<String> splitLines(String text) {
        List<String> out = new ArrayList<>();
        int start = 0;
        int n = text.length();
        for (int k = 0; k < n; k++) {
            if (text.charAt(k) == '\n') {
                int end = k > start && text.charAt(k - 1) == '\r' ? k - 1 : k;
                out.add(text.substring(start, end));
                start = k + 1;
            }
        }
        if (start < n) {
            String last = text.substring(start);
            out.add(last.endsWith("\r") ? last.substring(0, last.length() - 1) : last);
        }
        return out;
    }

    private static void finish(FileBuilder b, List<PatchFile> files) {
        if (b == null) {
            return;
        }
        String oldPath = b.isNewFile ? null : b.oldPath;
        String newPath = b.deleted ? null : b.newPath;
        if (oldPath == null && newPath == null) {
            return;
        }
        files.add(new PatchFile(oldPath, newPath, b.binary, b.header.toString(), b.hunks));
    }

    /** Reads the lines after {@code diff --git} (or a bare {@code ---}/{@code +++} pair) up to the first hunk. */
    private static int readExtendedHeader(List<String> lines, int i, FileBuilder b) {
        while (i < lines.size()) {
            String l = lines.get(i);
            if (l.startsWith("diff --git ") || l.startsWith("@@ ")) {
                return i;
            }
            if (l.startsWith("--- ") && i + 1 < lines.size() && lines.get(i + 1).startsWith("+++ ")) {
                String from = markerPath(l.substring(4));
                String to = markerPath(lines.get(i + 1).substring(4));
                b.header.append(l).append('\n').append(lines.get(i + 1)).append('\n');
                if (from == null) {
                    b.isNewFile = true;
                } else {
                    b.oldPath = from;
                }
                if (to == null) {
                    b.deleted = true;
                } else {
                    b.newPath = to;
                }
                return i + 2;
            }
            if (l.startsWith("new file mode")) {
                b.isNewFile = true;
            } else if (l.startsWith("deleted file mode")) {
                b.deleted = true;
            } else if (l.startsWith("rename from ") || l.startsWith("copy from ")) {
                b.oldPath = unquote(l.substring(l.indexOf(" from ") + 6));
            } else if (l.startsWith("rename to ") || l.startsWith("copy to ")) {
                b.newPath = unquote(l.substring(l.indexOf(" to ") + 4));
            } else if (l.startsWith("Binary files ") && l.endsWith(" differ")) {
                b.binary = true;
                if (l.contains(" /dev/null and ")) {
                    b.isNewFile = true;
                } else if (l.endsWith(" and /dev/null differ")) {
                    b.deleted = true;
                }
            } else if (l.equals("GIT binary patch")) {
                b.binary = true;
                b.header.append(l).append('\n');
                i++;
                // literal/delta sections of base85 lines, each closed by a blank line; runs to the next file.
                while (i < lines.size() && !lines.get(i).startsWith("diff --git ")) {
                    String p = lines.get(i);
                    if (p.isEmpty() || p.startsWith("literal ") || p.startsWith("delta ") || isBase85Line(p)) {
                        b.header.append(p).append('\n');
                        i++;
                    } else {
                        break;
                    }
                }
                return i;
            } else if (!(l.startsWith("index ") || l.startsWith("old mode") || l.startsWith("new mode")
                    || l.startsWith("similarity index") || l.startsWith("dissimilarity index"))) {
                return i; // anything else ends the header (commit message, garbage, next mail)
            }
            b.header.append(l).append('\n');
            i++;
        }
        return i;
    }

    private static boolean isBase85Line(String p) {
        if (p.length() < 2) {
            return false;
        }
        char c = p.charAt(0);
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
            return false;
        }
        for (int k = 1; k < p.length(); k++) {
            char ch = p.charAt(k);
            if (ch <= ' ' || ch > '~' || ch == '"' || ch == '\'' || ch == ',' || ch == '.' || ch == '/'
                    || ch == ':' || ch == '[' || ch == '\\' || ch == ']') {
                return false;
            }
        }
        return true;
    }

    private static int readHunk(List<String> lines, int i, FileBuilder b) {
        String header = lines.get(i);
        Matcher m = HUNK.matcher(header);
        if (!m.matches()) {
            return i + 1;
        }
        int oldStart = Integer.parseInt(m.group(1));
        int oldCount = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
        int newStart = Integer.parseInt(m.group(3));
        int newCount = m.group(4) == null ? 1 : Integer.parseInt(m.group(4));
        int remOld = oldCount;
        int remNew = newCount;
        int oldNo = oldStart;
        int newNo = newStart;
        List<Line> out = new ArrayList<>();
        i++;
        while (i < lines.size()) {
            String l = lines.get(i);
            if (l.startsWith("\\")) {
                out.add(new Line(Kind.NO_NEWLINE, l.substring(1), 0, 0));
                i++;
                continue;
            }
            if (remOld <= 0 && remNew <= 0) {
                break;
            }
            char c = l.isEmpty() ? ' ' : l.charAt(0);
            String body = l.isEmpty() ? "" : l.substring(1);
            if (c == ' ' && remOld > 0 && remNew > 0) {
                out.add(new Line(Kind.CONTEXT, body, oldNo++, newNo++));
                remOld--;
                remNew--;
            } else if (c == '+' && remNew > 0) {
                out.add(new Line(Kind.ADDED, body, 0, newNo++));
                remNew--;
            } else if (c == '-' && remOld > 0) {
                out.add(new Line(Kind.REMOVED, body, oldNo++, 0));
                remOld--;
            } else {
                break; // truncated or miscounted hunk: keep what was read
            }
            i++;
        }
        b.hunks.add(new Hunk(oldStart, oldCount, newStart, newCount, header, out));
        return i;
    }

    /** Path of a {@code ---}/{@code +++} line: null for /dev/null; a/ or b/ prefix and a trailing timestamp removed. */
    private static String markerPath(String s) {
        String p = s;
        if (!p.startsWith("\"")) {
            int tab = p.indexOf('\t');
            if (tab >= 0) {
                p = p.substring(0, tab);
            }
            p = p.strip();
        }
        p = unquote(p);
        if (p.equals("/dev/null")) {
            return null;
        }
        return stripPrefix(p);
    }

    private static String stripPrefix(String p) {
        return p.startsWith("a/") || p.startsWith("b/") ? p.substring(2) : p;
    }

    /** Splits the rest of a {@code diff --git} line into old and new path (prefixes removed). */
    static String[] gitPaths(String rest) {
        if (rest.startsWith("\"")) {
            int end = closingQuote(rest, 0);
            String a = unquote(rest.substring(0, end + 1));
            String b = rest.substring(Math.min(rest.length(), end + 2));
            return new String[] {stripPrefix(a), stripPrefix(unquote(b))};
        }
        int q = rest.indexOf(" \"");
        if (q > 0) {
            return new String[] {stripPrefix(rest.substring(0, q)), stripPrefix(unquote(rest.substring(q + 1)))};
        }
        // "a/X b/X": without a rename both halves are equal, which resolves names with spaces
        if ((rest.length() - 1) % 2 == 0) {
            int mid = (rest.length() - 1) / 2;
            String a = rest.substring(0, mid);
            String b = rest.substring(mid + 1);
            if (rest.charAt(mid) == ' ' && stripPrefix(a).equals(stripPrefix(b))) {
                return new String[] {stripPrefix(a), stripPrefix(b)};
            }
        }
        int sp = rest.lastIndexOf(" b/");
        if (sp < 0) {
            sp = rest.lastIndexOf(' ');
        }
        if (sp < 0) {
            return new String[] {stripPrefix(rest), stripPrefix(rest)};
        }
        return new String[] {stripPrefix(rest.substring(0, sp)), stripPrefix(rest.substring(sp + 1))};
    }

    private static int closingQuote(String s, int open) {
        for (int k = open + 1; k < s.length(); k++) {
            if (s.charAt(k) == '\\') {
                k++;
            } else if (s.charAt(k) == '"') {
                return k;
            }
        }
        return s.length() - 1;
    }

    /** Undoes git's C-style quoting ({@code "a/caf\303\251.py"}); unquoted input is returned unchanged. */
    static String unquote(String s) {
        if (s.length() < 2 || !s.startsWith("\"") || !s.endsWith("\"")) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int k = 1; k < s.length() - 1; k++) {
            char c = s.charAt(k);
            if (c == '\\' && k + 1 < s.length() - 1) {
                char n = s.charAt(++k);
                if (n >= '0' && n <= '7' && k + 2 < s.length()) {
                    int v = Integer.parseInt(s.substring(k, Math.min(k + 3, s.length() - 1)), 8);
                    bytes.write(v);
                    k += 2;
                    continue;
                }
                char esc = switch (n) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    case 'r' -> '\r';
                    case 'a' -> (char) 7;
                    case 'b' -> '\b';
                    case 'f' -> '\f';
                    case 'v' -> (char) 11;
                    default -> n;
                };
                bytes.write(esc);
            } else {
                byte[] enc = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(enc, 0, enc.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static final class FileBuilder {
        final StringBuilder header = new StringBuilder();
        final List<Hunk> hunks = new ArrayList<>();
        String oldPath;
        String newPath;
        boolean isNewFile;
        boolean deleted;
        boolean binary;
    }
}
