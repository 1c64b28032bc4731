package io.isobench.loadgen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * A JSON grammar walked over one byte range, without a tree: a subclass asks for members one by one
 * ({@link #firstMember}, {@link #keyEnd}, {@link #colon}, {@link #nextMember}), compares raw key bytes ({@link #is}),
 * decodes the string values it wants into the reused buffer {@code textBuf[0, textLen)} (escapes resolved, as UTF-8)
 * and skips the rest ({@link #skipValue}), which validates them all the same. Anything that is not JSON (RFC 8259)
 * is an {@link IOException} naming the byte offset; nesting deeper than {@value #MAX_DEPTH} is refused.
 */
abstract class JsonScanner {

    static final int MAX_DEPTH = 512;

    /** Decoded bytes of the strings kept so far; {@code textBuf[0, textLen)}. */
    byte[] textBuf = new byte[256];
    int textLen;

    byte[] b;
    int p;
    int end;
    private int start;

    /** Starts on {@code bytes[off, off + len)}. */
    final void begin(byte[] bytes, int off, int len) {
        b = bytes;
        p = off;
        start = off;
        end = off + len;
    }

    /** Lets go of the bytes. */
    final void done() {
        b = null;
    }

    /** After '{': true when the object has a member (positioned at its key), false when it was empty. */
    final boolean firstMember() throws IOException {
        ws();
        if (peek() == '}') {
            p++;
            return false;
        }
        if (peek() != '"') {
            throw err("expected a key");
        }
        return true;
    }

    /** After a member's value: true when another member follows (positioned at its key), false at '}'. */
    final boolean nextMember() throws IOException {
        ws();
        byte c = next();
        if (c == '}') {
            return false;
        }
        if (c != ',') {
            throw err("expected ',' or '}'");
        }
        ws();
        if (peek() != '"') {
            throw err("expected a key");
        }
        return true;
    }

    /** At a key's opening quote: skips the key and returns the index of its closing quote. */
    final int keyEnd() throws IOException {
        string(false);
        return p - 1;
    }

    final void colon() throws IOException {
        ws();
        if (next() != ':') {
            throw err("expected ':'");
        }
        ws();
    }

    /** Raw key bytes (between the quotes) equal {@code name}. */
    final boolean is(int quote, int closing, byte[] name) {
        int n = closing - quote - 1;
        if (n != name.length) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[quote + 1 + i] != name[i]) {
                return false;
            }
        }
        return true;
    }

    final void skipValue(int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw err("nested deeper than " + MAX_DEPTH);
        }
        ws();
        byte c = peek();
        switch (c) {
            case '{' -> {
                p++;
                if (!firstMember()) {
                    return;
                }
                do {
                    string(false);
                    colon();
                    skipValue(depth + 1);
                } while (nextMember());
            }
            case '[' -> {
                p++;
                ws();
                if (peek() == ']') {
                    p++;
                    return;
                }
                while (true) {
                    skipValue(depth + 1);
                    ws();
                    byte d = next();
                    if (d == ']') {
                        return;
                    }
                    if (d != ',') {
                        throw err("expected ',' or ']'");
                    }
                }
            }
            case '"' -> string(false);
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> number();
        }
    }

    private void literal(byte[] lit) throws IOException {
        if (end - p < lit.length) {
            throw err("unexpected end of JSON");
        }
        for (int i = 0; i < lit.length; i++) {
            if (b[p + i] != lit[i]) {
                throw err("unrecognized token");
            }
        }
        p += lit.length;
    }

    private void number() throws IOException {
        int s = p;
        if (p < end && b[p] == '-') {
            p++;
        }
        if (p >= end) {
            throw err("unexpected end of JSON");
        }
        if (b[p] == '0') {
            p++;
        } else if (b[p] >= '1' && b[p] <= '9') {
            while (p < end && isDigit(b[p])) {
                p++;
            }
        } else {
            p = s;
            throw err("unexpected character '" + printable(b[s]) + "'");
        }
        if (p < end && b[p] == '.') {
            p++;
            if (p >= end || !isDigit(b[p])) {
                throw err("expected a digit after '.'");
            }
            while (p < end && isDigit(b[p])) {
                p++;
            }
        }
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            if (p < end && (b[p] == '+' || b[p] == '-')) {
                p++;
            }
            if (p >= end || !isDigit(b[p])) {
                throw err("expected a digit in the exponent");
            }
            while (p < end && isDigit(b[p])) {
                p++;
            }
        }
    }

    /** A non-negative JSON integer in {@code b[s, e)}, or -1 when it is not one (fraction, exponent, too big…). */
    final int intValue(int s, int e) {
        if (s >= e || e - s > 9) {
            return -1;
        }
        int v = 0;
        for (int i = s; i < e; i++) {
            if (!isDigit(b[i])) {
                return -1;
            }
            v = v * 10 + (b[i] - '0');
        }
        return v;
    }

    final String stringValue() throws IOException {
        int save = textLen;
        string(true);
        String s = new String(textBuf, save, textLen - save, StandardCharsets.UTF_8);
        textLen = save;
        return s;
    }

    /**
     * At an opening quote: validates the string and leaves {@code p} after the closing quote; with {@code keep},
     * appends its decoded UTF-8 bytes to {@code textBuf}.
     */
    final void string(boolean keep) throws IOException {
        // the plain runs between escapes are scanned with locals (no field write per byte: the loop runs C1-compiled)
        byte[] bytes = b;
        int stop = end;
        int q = p + 1; // after the opening quote
        int run = q;
        while (true) {
            while (q < stop) {
                byte c = bytes[q];
                if (c == '"' || c == '\\' || (c & 0xff) < 0x20) {
                    break;
                }
                q++;
            }
            p = q;
            if (q >= stop) {
                throw err("unexpected end of JSON in a string");
            }
            byte c = bytes[q];
            if (c == '"') {
                if (keep) {
                    keep(run, q);
                }
                p = q + 1;
                return;
            }
            if (c != '\\') {
                throw err("unescaped control character in a string");
            }
            if (keep) {
                keep(run, p);
            }
            p++;
            if (p >= stop) {
                throw err("unexpected end of JSON in a string");
            }
            byte e = bytes[p++];
            switch (e) {
                case '"', '\\', '/' -> put(keep, e);
                case 'b' -> put(keep, (byte) '\b');
                case 'f' -> put(keep, (byte) '\f');
                case 'n' -> put(keep, (byte) '\n');
                case 'r' -> put(keep, (byte) '\r');
                case 't' -> put(keep, (byte) '\t');
                case 'u' -> unicodeEscape(keep);
                default -> throw err("bad escape '\\" + printable(e) + "'");
            }
            q = p;
            run = p;
        }
    }

    private void unicodeEscape(boolean keep) throws IOException {
        int cp = hex4();
        if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && b[p] == '\\' && b[p + 1] == 'u') {
            int save = p;
            p += 2;
            int lo = hex4();
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
                p = save; // a lone high surrogate; the next escape stands on its own
            }
        }
        if (!keep) {
            return;
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD; // lone surrogate: what a String decoder would show
        }
        if (cp < 0x80) {
            put(true, (byte) cp);
        } else if (cp < 0x800) {
            put(true, (byte) (0xC0 | cp >> 6));
            put(true, (byte) (0x80 | cp & 0x3F));
        } else if (cp < 0x10000) {
            put(true, (byte) (0xE0 | cp >> 12));
            put(true, (byte) (0x80 | cp >> 6 & 0x3F));
            put(true, (byte) (0x80 | cp & 0x3F));
        } else {
            put(true, (byte) (0xF0 | cp >> 18));
            put(true, (byte) (0x80 | cp >> 12 & 0x3F));
            put(true, (byte) (0x80 | cp >> 6 & 0x3F));
            put(true, (byte) (0x80 | cp & 0x3F));
        }
    }

    private int hex4() throws IOException {
        if (end - p < 4) {
            throw err("unexpected end of JSON in a \\u escape");
        }
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(b[p + i], 16);
            if (d < 0) {
                throw err("bad \\u escape");
            }
            v = v << 4 | d;
        }
        p += 4;
        return v;
    }

    private void keep(int from, int to) {
        int n = to - from;
        if (n == 0) {
            return;
        }
        if (textLen + n > textBuf.length) {
            textBuf = Arrays.copyOf(textBuf, Math.max(textBuf.length * 2, textLen + n));
        }
        System.arraycopy(b, from, textBuf, textLen, n);
        textLen += n;
    }

    private void put(boolean keep, byte v) {
        if (!keep) {
            return;
        }
        if (textLen == textBuf.length) {
            textBuf = Arrays.copyOf(textBuf, textBuf.length * 2);
        }
        textBuf[textLen++] = v;
    }

    final void ws() {
        byte[] bytes = b;
        int q = p;
        int stop = end;
        while (q < stop) {
            byte c = bytes[q];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                break;
            }
            q++;
        }
        p = q;
    }

    final byte peek() throws IOException {
        if (p >= end) {
            throw err("unexpected end of JSON");
        }
        return b[p];
    }

    final byte next() throws IOException {
        if (p >= end) {
            throw err("unexpected end of JSON");
        }
        return b[p++];
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static String printable(byte c) {
        return c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format(Locale.ROOT, "0x%02x", c & 0xff);
    }

    final IOException err(String what) {
        return new IOException(what + " at byte " + (p - start));
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static final byte[] TRUE = ascii("true");
    private static final byte[] FALSE = ascii("false");
    private static final byte[] NULL = ascii("null");
}
