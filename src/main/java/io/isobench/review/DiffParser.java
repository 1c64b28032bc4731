package io.isobench.review;

import io.isobench.review.PatchFile.Hunk;
import io.isobench.review.PatchFile.Kind;
import io.isobench.review.PatchFile.Line;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
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
    /** A file's header (and a binary payload) is kept up to this many characters; the rest is counted. */
    static final int MAX_HEADER_CHARS = 1 << 20;

    record Parsed(List<PatchFile> files, int unparsedLines) {
    }

    /**
     * What the parser finds, in patch order: each file's header (a {@link PatchFile} without hunks) before its hunks,
     * then each hunk, then the end of the file. Only one hunk is held at a time.
     */
    interface Sink {
        void file(PatchFile header);

        void hunk(Hunk hunk);

        void endFile();
    }

    private DiffParser() {
    }

    /** Parses a whole patch held in memory (tests, short patches). */
    static Parsed parse(String text) {
        List<PatchFile> files = new ArrayList<>();
        List<Hunk> hunks = new ArrayList<>();
        PatchFile[] cur = new PatchFile[1];
        int unparsed;
        try {
            unparsed = parse(new Lines(new StringReader(text)), new Sink() {
                @Override
                public void file(PatchFile header) {
                    cur[0] = header;
                    hunks.clear();
                }

                @Override
                public void hunk(Hunk hunk) {
                    hunks.add(hunk);
                }

                @Override
                public void endFile() {
                    PatchFile h = cur[0];
                    files.add(new PatchFile(h.oldPath(), h.newPath(), h.binary(), h.header(), hunks));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Parsed(files, unparsed);
    }

    /** Streams a patch through {@code sink}; returns the number of lines outside any file or hunk. */
    static int parse(Lines in, Sink sink) throws IOException {
        int unparsed = 0;
        FileBuilder cur = null;
        String line;
        while ((line = in.peek(0)) != null) {
            if (line.startsWith("diff --git ")) {
                finish(cur, sink);
                in.next();
                cur = new FileBuilder();
                cur.append(line);
                String[] ab = gitPaths(line.substring("diff --git ".length()));
                cur.oldPath = ab[0];
                cur.newPath = ab[1];
                readExtendedHeader(in, cur);
            } else if (line.startsWith("--- ") && startsWith(in.peek(1), "+++ ")) {
                finish(cur, sink);
                cur = new FileBuilder();
                readExtendedHeader(in, cur);
            } else if (line.startsWith("@@ ") && cur != null && HUNK.matcher(line).matches()) {
                Hunk h = readHunk(in);
                if (h != null) {
                    start(cur, sink);
                    if (cur.started) {
                        sink.hunk(h);
                    }
                }
            } else {
                unparsed++;
                in.next();
            }
        }
        finish(cur, sink);
        return unparsed;
    }

    private static boolean startsWith(String s, String prefix) {
        return s != null && s.startsWith(prefix);
    }

    /**
     * Lines of a patch read from a stream: split on LF only, a CR before it dropped (a lone CR stays in its line),
     * with a look-ahead of a few lines; counts the UTF-8 bytes read.
     */
    static final class Lines {
        private final Reader in;
        private final char[] buf = new char[1 << 16];
        private int pos;
        private int lim;
        private boolean eof;
        private final ArrayDeque<String> ahead = new ArrayDeque<>();
        private long utf8Bytes;

        Lines(Reader in) {
            this.in = in;
        }

        /** The line {@code k} lines ahead (0: the next), or null past the end. */
        String peek(int k) throws IOException {
            while (ahead.size() <= k) {
                String l = read();
                if (l == null) {
                    return null;
                }
                ahead.addLast(l);
            }
            return k == 0 ? ahead.peekFirst() : List.copyOf(ahead).get(k);
        }

        /** The next line, or null at the end. */
        String next() throws IOException {
            return ahead.isEmpty() ? read() : ahead.pollFirst();
        }

        /** UTF-8 bytes of what was read so far (line ends included). */
        long utf8Bytes() {
            return utf8Bytes;
        }

        private String read() throws IOException {
            StringBuilder sb = null;
            while (true) {
                if (pos == lim) {
                    if (eof || (lim = in.read(buf, 0, buf.length)) < 0) {
                        eof = true;
                        lim = 0;
                        pos = 0;
                        return sb == null || sb.isEmpty() ? null : strip(sb);
                    }
                    pos = 0;
                }
                int start = pos;
                while (pos < lim && buf[pos] != '\n') {
                    pos++;
                }
                count(start, pos < lim ? pos + 1 : pos);
                if (sb == null) {
                    sb = new StringBuilder(Math.max(16, pos - start));
                }
                sb.append(buf, start, pos - start);
                if (pos < lim) {
                    pos++;
                    return strip(sb);
                }
            }
        }

        private void count(int from, int to) {
            for (int i = from; i < to; i++) {
                char c = buf[i];
                utf8Bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
            }
        }

        private static String strip(StringBuilder sb) {
            int n = sb.length();
            return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
        }
    }

    /** Splits on LF, dropping a CR before it (for printing evidence). */
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

    /** Tells the sink about the file (once, before its first hunk or at its end). */
    private static void start(FileBuilder b, DiffParser.Sink sink) {
        if (b.announced) {
            return;
        }
        b.announced = true;
        String oldPath = b.isNewFile ? null : b.oldPath;
        String newPath = b.deleted ? null : b.newPath;
        if (oldPath == null && newPath == null) {
            return;
        }
        b.started = true;
        sink.file(new PatchFile(oldPath, newPath, b.binary, b.header(), List.of()));
    }

    private static void finish(FileBuilder b, Sink sink) {
        if (b == null) {
            return;
        }
        start(b, sink);
        if (b.started) {
            sink.endFile();
        }
    }

    /** Reads the lines after {@code diff --git} (or a bare {@code ---}/{@code +++} pair) up to the first hunk. */
    private static void readExtendedHeader(Lines in, FileBuilder b) throws IOException {
        String l;
        while ((l = in.peek(0)) != null) {
            if (l.startsWith("diff --git ") || l.startsWith("@@ ")) {
                return;
            }
            if (l.startsWith("--- ") && startsWith(in.peek(1), "+++ ")) {
                in.next();
                String plus = in.next();
                String from = markerPath(l.substring(4));
                String to = markerPath(plus.substring(4));
                b.append(l);
                b.append(plus);
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
                return;
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
                b.append(l);
                in.next();
                // literal/delta sections of base85 lines, each closed by a blank line; runs to the next file.
                String p;
                while ((p = in.peek(0)) != null && !p.startsWith("diff --git ")) {
                    if (p.isEmpty() || p.startsWith("literal ") || p.startsWith("delta ") || isBase85Line(p)) {
                        b.append(p);
                        in.next();
                    } else {
                        break;
                    }
                }
                return;
            } else if (!(l.startsWith("index ") || l.startsWith("old mode") || l.startsWith("new mode")
                    || l.startsWith("similarity index") || l.startsWith("dissimilarity index"))) {
                return; // anything else ends the header (commit message, garbage, next mail)
            }
            b.append(l);
            in.next();
        }
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

    /** Reads one hunk (its header line is next); null when the header does not parse (the line is consumed). */
    private static Hunk readHunk(Lines in) throws IOException {
        String header = in.next();
        Matcher m = HUNK.matcher(header);
        if (!m.matches()) {
            return null;
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
        String l;
        while ((l = in.peek(0)) != null) {
            if (l.startsWith("\\")) {
                out.add(new Line(Kind.NO_NEWLINE, l.substring(1), 0, 0));
                in.next();
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
            in.next();
        }
        return new Hunk(oldStart, oldCount, newStart, newCount, header, out);
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
        private final StringBuilder header = new StringBuilder();
        private int omittedLines;
        String oldPath;
        String newPath;
        boolean isNewFile;
        boolean deleted;
        boolean binary;
        boolean announced;
        boolean started;

        void append(String line) {
            if (header.length() + line.length() < MAX_HEADER_CHARS) {
                header.append(line).append('\n');
            } else {
                omittedLines++;
            }
        }

        String header() {
            return omittedLines == 0 ? header.toString()
                    : header + "[" + omittedLines + " more header/binary lines not kept]\n";
        }
    }
}
