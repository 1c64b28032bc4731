package io.isobench.loadgen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Reads one OpenAI response object (a stream chunk or a whole response) in a single pass over its bytes: validates
 * the JSON grammar and pulls out only what the metrics need ({@code choices} non-empty, the first choice's
 * {@code text} or {@code delta/message.content}, {@code finish_reason}, {@code usage} token counts, {@code error}).
 * Nothing is allocated per chunk: the text is decoded (escapes resolved) as UTF-8 bytes into the scanner's reused
 * buffer; only the rare {@code error}/{@code finish_reason} values become Strings. Keys are matched on their raw
 * bytes, so a key spelled with escapes ({@code "te\u0078t"}) counts as an unknown key. This class knows which
 * fields of the OpenAI schema count; the JSON grammar itself is {@link JsonScanner}'s (a superclass rather than a
 * field, so the per-chunk path reads one object's fields and calls final methods, as before the split).
 */
final class ChunkParser extends JsonScanner {

    boolean hasChoices;
    /** True when the object carried a text field; its UTF-8 bytes are {@code textBuf[0, textLen)}. */
    boolean hasText;
    String finishReason;
    int promptTokens;
    int completionTokens;
    String error;

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
        begin(bytes, off, len);
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
            done();
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
}
