package io.isobench.loadgen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads one OpenAI response object (a stream chunk or a whole response) in a single pass over its bytes: validates
 * the JSON grammar and pulls out only what the metrics need ({@code choices} non-empty, the first choice's
 * {@code text} or {@code delta/message.content}, {@code finish_reason}, {@code usage} token counts, {@code error}).
 * Nothing is allocated per chunk: the text is decoded (escapes resolved) as UTF-8 bytes into a reused buffer; only
 * the rare {@code error}/{@code finish_reason} values become Strings. Keys are matched on their raw bytes, so a key
 * spelled with escapes ({@code "te\u0078t"}) counts as an unknown key.
 */
final class ChunkParser {

    private static final int MAX_DEPTH = 512;

    boolean hasChoices;
    /** True when the object carried a text field; its UTF-8 bytes are {@code textBuf[0, textLen)}. */
    boolean hasText;
    byte[] textBuf = new byte[256];
    int textLen;
    String finishReason;
    int promptTokens;
    int completionTokens;
    String error;

    private byte[] b;
    private int p;
    private int end;
    private int start;

    private void reset() {
        hasChoices = false;
        hasText = false;
        textLen = 0;
        finishReason = null;
        promptTokens = -1;
        completionTokens = -1;
        error = null;
    }

    /** The text as a String, or null when the object had none. */
    String text() {
        return hasText ? new String(textBuf, 0, textLen, StandardCharsets.UTF_8) : null;
    }

    /** Parses one object; throws {@link IOException} when the bytes are not one well-formed JSON object. */
    void parse(byte[] bytes, int off, int len) throws IOException {
        reset();
        b = bytes;
        p = off;
        start = off;
        end = off + len;
        try {
            ws();
            if (p >= end || b[p] != '{') {
                throw err("not a JSON object");
            }
            p++;
            if (!firstMember()) {
                return;
            }
            do {
                int ks = p;
                int ke = keyEnd();
                colon();
                if (is(ks, ke, CHOICES)) {
                    choices();
                } else if (is(ks, ke, USAGE)) {
                    usage();
                } else if (is(ks, ke, ERROR)) {
                    error();
                } else {
                    skipValue(1);
                }
            } while (nextMember());
            ws();
            if (p != end) {
                throw err("trailing data after the JSON object");
            }
        } finally {
            b = null;
        }
    }

    // ------------------------------------------------------------------ the fields that matter

    private void choices() throws IOException {
        ws();
        if (peek() != '[') {
            skipValue(1);
            return;
        }
        p++;
        ws();
        if (peek() == ']') {
            p++;
            return;
        }
        boolean first = true;
        while (true) {
            ws();
            hasChoices = true;
            if (first && peek() == '{') {
                choice();
            } else {
                skipValue(2);
            }
            first = false;
            ws();
            byte c = next();
            if (c == ']') {
                return;
            }
            if (c != ',') {
                throw err("expected ',' or ']' in choices");
            }
        }
    }

    private void choice() throws IOException {
        p++; // '{'
        if (!firstMember()) {
            return;
        }
        do {
            int ks = p;
            int ke = keyEnd();
            colon();
            if (is(ks, ke, TEXT)) {
                if (peek() == '"') {
                    textLen = 0; // the last "text" wins
                    hasText = true;
                    string(true);
                } else {
                    skipValue(3);
                }
            } else if (is(ks, ke, DELTA) || is(ks, ke, MESSAGE)) {
                if (peek() == '{') {
                    delta();
                } else {
                    skipValue(3);
                }
            } else if (is(ks, ke, FINISH_REASON)) {
                if (peek() == '"') {
                    finishReason = stringValue();
                } else {
                    skipValue(3);
                }
            } else {
                skipValue(3);
            }
        } while (nextMember());
    }

    private void delta() throws IOException {
        p++; // '{'
        if (!firstMember()) {
            return;
        }
        do {
            int ks = p;
            int ke = keyEnd();
            colon();
            if ((is(ks, ke, CONTENT) || is(ks, ke, REASONING_CONTENT)) && peek() == '"') {
                hasText = true; // appended: content and reasoning_content both count
                string(true);
            } else {
                skipValue(4);
            }
        } while (nextMember());
    }

    private void usage() throws IOException {
        if (peek() != '{') {
            skipValue(1);
            return;
        }
        p++;
        if (!firstMember()) {
            return;
        }
        do {
            int ks = p;
            int ke = keyEnd();
            colon();
            boolean prompt = is(ks, ke, PROMPT_TOKENS);
            boolean completion = !prompt && is(ks, ke, COMPLETION_TOKENS);
            if (prompt || completion) {
                int vs = p;
                skipValue(2);
                int v = intValue(vs, p);
                if (v >= 0 && prompt) {
                    promptTokens = v;
                } else if (v >= 0) {
                    completionTokens = v;
                }
            } else {
                skipValue(2);
            }
        } while (nextMember());
    }

    private void error() throws IOException {
        byte c = peek();
        if (c == '"') {
            error = stringValue();
        } else if (c == '{') {
            error = "error";
            p++;
            if (!firstMember()) {
                return;
            }
            do {
                int ks = p;
                int ke = keyEnd();
                colon();
                if (is(ks, ke, MESSAGE_KEY) && peek() == '"') {
                    error = stringValue();
                } else {
                    skipValue(2);
                }
            } while (nextMember());
        } else {
            int vs = p;
            skipValue(1);
            String raw = new String(b, vs, p - vs, StandardCharsets.UTF_8);
            if (!raw.equals("null")) {
                error = raw;
            }
        }
    }

    // ------------------------------------------------------------------ grammar

    /** After '{': true when the object has a member (positioned at its key), false when it was empty. */
    private boolean firstMember() throws IOException {
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
    private boolean nextMember() throws IOException {
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
    private int keyEnd() throws IOException {
        string(false);
        return p - 1;
    }

    private void colon() throws IOException {
        ws();
        if (next() != ':') {
            throw err("expected ':'");
        }
        ws();
    }

    /** Raw key bytes (between the quotes) equal {@code name}. */
    private boolean is(int quote, int closing, byte[] name) {
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

    private void skipValue(int depth) throws IOException {
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
    private int intValue(int s, int e) {
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

    private String stringValue() throws IOException {
        int save = textLen;
        boolean had = hasText;
        string(true);
        String s = new String(textBuf, save, textLen - save, StandardCharsets.UTF_8);
        textLen = save;
        hasText = had;
        return s;
    }

    /**
     * At an opening quote: validates the string and leaves {@code p} after the closing quote; with {@code keep},
     * appends its decoded UTF-8 bytes to {@code textBuf}.
     */
    private void string(boolean keep) throws IOException {
        p++; // opening quote
        int run = p;
        while (true) {
            if (p >= end) {
                throw err("unexpected end of JSON in a string");
            }
            byte c = b[p];
            if (c == '"') {
                if (keep) {
                    keep(run, p);
                }
                p++;
                return;
            }
            if (c == '\\') {
                if (keep) {
                    keep(run, p);
                }
                p++;
                if (p >= end) {
                    throw err("unexpected end of JSON in a string");
                }
                byte e = b[p++];
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
                run = p;
                continue;
            }
            if ((c & 0xff) < 0x20) {
                throw err("unescaped control character in a string");
            }
            p++;
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

    private void ws() {
        while (p < end) {
            byte c = b[p];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            p++;
        }
    }

    private byte peek() throws IOException {
        if (p >= end) {
            throw err("unexpected end of JSON");
        }
        return b[p];
    }

    private byte next() throws IOException {
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

    private IOException err(String what) {
        return new IOException(what + " at byte " + (p - start));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static final byte[] CHOICES = ascii("choices");
    private static final byte[] USAGE = ascii("usage");
    private static final byte[] ERROR = ascii("error");
    private static final byte[] TEXT = ascii("text");
    private static final byte[] DELTA = ascii("delta");
    private static final byte[] MESSAGE = ascii("message");
    private static final byte[] MESSAGE_KEY = MESSAGE;
    private static final byte[] CONTENT = ascii("content");
    private static final byte[] REASONING_CONTENT = ascii("reasoning_content");
    private static final byte[] FINISH_REASON = ascii("finish_reason");
    private static final byte[] PROMPT_TOKENS = ascii("prompt_tokens");
    private static final byte[] COMPLETION_TOKENS = ascii("completion_tokens");
    private static final byte[] TRUE = ascii("true");
    private static final byte[] FALSE = ascii("false");
    private static final byte[] NULL = ascii("null");
}
