package io.isobench.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads an HTTP/1.1 request head from the agent under fixed limits (a request line of at most
 * {@value #MAX_REQUEST_LINE} bytes, a head of at most {@value #MAX_HEAD_BYTES} bytes in {@value #MAX_HEADERS} lines:
 * over them, {@link TooLong} with the rest unread), and answers questions about its header lines.
 */
final class HttpHead {

    /** Bytes of a request line. */
    static final int MAX_REQUEST_LINE = 8 * 1024;
    /** Bytes of a request's header lines together. */
    static final int MAX_HEAD_BYTES = 32 * 1024;
    /** Header lines of a request. */
    static final int MAX_HEADERS = 100;

    private HttpHead() {
    }

    /** The first value of header {@code name} (any case), or null. */
    static String header(List<String[]> headers, String name) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                return h[1];
            }
        }
        return null;
    }

    /** The comma-separated tokens of a header value, stripped and lower-case (none for null). */
    static List<String> tokens(String value) {
        List<String> out = new ArrayList<>();
        if (value != null) {
            for (String t : value.split(",")) {
                out.add(t.strip().toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    /** The header lines up to the blank line, as name/value pairs. */
    static List<String[]> readHeaders(InputStream in) throws IOException {
        List<String[]> out = new ArrayList<>();
        int size = 0;
        String line;
        while ((line = readLine(in, MAX_HEAD_BYTES - size)) != null && !line.isEmpty()) {
            size += line.length() + 2;
            int colon = line.indexOf(':');
            if (out.size() >= MAX_HEADERS) {
                throw new TooLong();
            }
            if (colon <= 0) {
                throw new IOException("bad request head");
            }
            out.add(new String[]{line.substring(0, colon).strip(), line.substring(colon + 1).strip()});
        }
        return out;
    }

    /** A request line or head over its limit. */
    static final class TooLong extends IOException {
        TooLong() {
            super("over the limit");
        }
    }

    /** One CRLF- (or LF-) terminated line, ISO-8859-1; null at end of stream. */
    static String readLine(InputStream in) throws IOException {
        return readLine(in, MAX_HEAD_BYTES);
    }

    /** {@link #readLine(InputStream)} of at most {@code max} bytes (else {@link TooLong}, the rest unread). */
    static String readLine(InputStream in, int max) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                break;
            }
            if (b.size() >= max) {
                throw new TooLong();
            }
            b.write(c);
        }
        if (c < 0 && b.size() == 0) {
            return null;
        }
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }
}
