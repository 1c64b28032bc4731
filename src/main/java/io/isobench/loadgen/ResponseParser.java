package io.isobench.loadgen;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import static io.isobench.loadgen.Conn.CHUNK_SIZE;
import static io.isobench.loadgen.Conn.LENGTH;
import static io.isobench.loadgen.Conn.UNTIL_EOF;

/**
 * The {@link EventLoop}'s HTTP response reading, without allocating on the hot path: the response head (status,
 * framing, Content-Type), body bytes (SSE lines to the chunk handler, other bodies collected), chunk-size lines and
 * the byte scans behind them. Loop thread only.
 */
final class ResponseParser {

    /** An error body (non-200) is kept up to this many bytes for the failure's message; the rest is dropped. */
    static final int ERROR_BODY_BYTES = 4096;

    private ResponseParser() {
    }

    /**
     * Parses one response head into {@code c}; false for an interim response ({@code 1xx} but {@code 101}: {@code 100
     * Continue}, {@code 103 Early Hints}, RFC 9110 §15.2), which has no body and is followed by the real one: the
     * caller reads the next head.
     */
    static boolean parseHead(Conn c, String head, boolean streamReq) throws IOException {
        // lines are split on LF (a CR before it dropped) by hand: no regex and no array per response
        int n = head.length();
        int pos = 0;
        String status = "";
        while (pos < n) {
            int nl = head.indexOf('\n', pos);
            int end = lineEnd(head, pos, nl);
            int start = pos;
            pos = nl < 0 ? n : nl + 1;
            if (end > start) {
                status = head.substring(start, end);
                break;
            }
        }
        if (!status.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + HttpConn.abbreviate(status));
        }
        int sp = status.indexOf(' ');
        try {
            c.status = Integer.parseInt(status.substring(sp + 1, Math.min(status.length(), sp + 4)));
        } catch (RuntimeException e) {
            throw new IOException("bad HTTP status line: " + HttpConn.abbreviate(status));
        }
        if (interim(c.status)) {
            return false;
        }
        boolean chunked = false;
        long len = -1;
        Boolean close = null;
        c.contentType = null;
        while (pos < n) {
            int nl = head.indexOf('\n', pos);
            int end = lineEnd(head, pos, nl);
            int start = pos;
            pos = nl < 0 ? n : nl + 1;
            int colon = head.indexOf(':', start);
            if (colon <= start || colon >= end) {
                continue;
            }
            int ns = start;
            int ne = colon;
            while (ns < ne && head.charAt(ns) <= ' ') {
                ns++;
            }
            while (ne > ns && head.charAt(ne - 1) <= ' ') {
                ne--;
            }
            int vs = colon + 1;
            int ve = end;
            while (vs < ve && head.charAt(vs) <= ' ') {
                vs++;
            }
            while (ve > vs && head.charAt(ve - 1) <= ' ') {
                ve--;
            }
            if (named(head, ns, ne, "content-type")) {
                c.contentType = head.substring(vs, ve);
            } else if (named(head, ns, ne, "transfer-encoding")) {
                chunked = head.substring(vs, ve).toLowerCase(Locale.ROOT).contains("chunked");
            } else if (named(head, ns, ne, "content-length")) {
                String value = head.substring(vs, ve);
                try {
                    len = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new IOException("bad Content-Length: " + HttpConn.abbreviate(value));
                }
            } else if (named(head, ns, ne, "connection")) {
                close = head.regionMatches(true, vs, "close", 0, 5) && ve - vs == 5;
            }
        }
        c.keepAlive = close != null ? !close : !status.startsWith("HTTP/1.0");
        if (chunked) {
            c.state = CHUNK_SIZE;
        } else if (len >= 0) {
            c.state = LENGTH;
            c.remaining = len;
        } else {
            c.state = UNTIL_EOF;
            c.keepAlive = false;
        }
        c.sse = c.status == 200 && streamReq
                && (c.contentType == null || c.contentType.toLowerCase(Locale.ROOT).contains("event-stream"));
        if (!c.sse) {
            c.body = new ByteArrayOutputStream();
        }
        return true;
    }

    /** An interim status: informational, not {@code 101 Switching Protocols} (which ends HTTP on the connection). */
    static boolean interim(int status) {
        return status >= 100 && status < 200 && status != 101;
    }

    /**
     * Body bytes: SSE lines go to the chunk handler (a line longer than {@link LoadgenConfig#MAX_SSE_LINE_BYTES} fails
     * the request); an unstreamed 200 body is collected up to {@link LoadgenConfig#MAX_TEXT_BYTES} (beyond:
     * {@code response_too_large}), an error body up to {@value #ERROR_BODY_BYTES} bytes (the rest is dropped).
     */
    static void body(Conn c, int off, int n, long now, ChunkParser parser) {
        if (!c.sse) {
            int cap = c.status == 200 ? LoadgenConfig.MAX_TEXT_BYTES : ERROR_BODY_BYTES;
            int room = cap - c.body.size();
            if (n > room && c.status == 200) {
                c.x.o.fail("response_too_large", "the response body passed " + (LoadgenConfig.MAX_TEXT_BYTES >> 20)
                        + " MiB, the most read from an unstreamed response");
                return;
            }
            c.body.write(c.buf, off, Math.min(n, Math.max(0, room)));
            return;
        }
        Exchange x = c.x;
        if (x.o.done) {
            return; // after [DONE]: drain to the end of the body so the connection can be reused
        }
        byte[] b = c.buf;
        int end = off + n;
        int seg = off;
        long at = now - x.send;
        for (int i = off; i < end; i++) {
            if (b[i] == '\n') {
                if (c.ll == 0) {
                    RequestExecutor.handleLine(b, seg, i - seg, at, parser, x.o);
                } else {
                    if (lineTooLong(c, x, i - seg)) {
                        return;
                    }
                    c.line = RequestExecutor.append(c.line, c.ll, b, seg, i - seg);
                    c.ll += i - seg;
                    RequestExecutor.handleLine(c.line, 0, c.ll, at, parser, x.o);
                    c.ll = 0;
                }
                seg = i + 1;
                if (x.o.errorKind != null || x.o.done) {
                    return;
                }
            }
        }
        if (seg < end && !lineTooLong(c, x, end - seg)) {
            c.line = RequestExecutor.append(c.line, c.ll, b, seg, end - seg);
            c.ll += end - seg;
        }
    }

    static boolean lineTooLong(Conn c, Exchange x, int more) {
        if ((long) c.ll + more <= LoadgenConfig.MAX_SSE_LINE_BYTES) {
            return false;
        }
        x.o.fail("response_too_large", "an SSE line passed " + (LoadgenConfig.MAX_SSE_LINE_BYTES >> 20)
                + " MiB, the longest read");
        c.ll = 0;
        c.line = new byte[1024];
        return true;
    }

    static void flushLine(Conn c, long now, ChunkParser parser) {
        if (c.sse && c.ll > 0 && c.x != null && !c.x.o.done && c.x.o.errorKind == null) {
            RequestExecutor.handleLine(c.line, 0, c.ll, now - c.x.send, parser, c.x.o);
            c.ll = 0;
        }
    }

    /** End of the line that starts at {@code from} and ends at LF {@code nl} (-1: the end), a CR before it excluded. */
    static int lineEnd(String s, int from, int nl) {
        int end = nl < 0 ? s.length() : nl;
        return end > from && s.charAt(end - 1) == '\r' ? end - 1 : end;
    }

    /** {@code s[from, to)} is the header name {@code name} (ASCII, case-insensitive). */
    static boolean named(String s, int from, int to, String name) {
        return to - from == name.length() && s.regionMatches(true, from, name, 0, name.length());
    }

    /** The hex size of a chunk-size line {@code b[from, nl)} (extensions after ';' ignored), without a String. */
    static long chunkSize(byte[] b, int from, int nl) throws IOException {
        int i = from;
        int end = nl;
        while (i < end && (b[i] == ' ' || b[i] == '\t')) {
            i++;
        }
        long size = 0;
        int digits = 0;
        for (; i < end; i++) {
            int d = hexDigit(b[i]);
            if (d < 0) {
                break;
            }
            if (++digits > 15) {
                throw new IOException("bad chunk size: " + HttpConn.abbreviate(new String(b, from, nl - from, StandardCharsets.ISO_8859_1)));
            }
            size = size << 4 | d;
        }
        while (i < end && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r')) {
            i++;
        }
        if (digits == 0 || (i < end && b[i] != ';')) {
            throw new IOException("bad chunk size: " + HttpConn.abbreviate(new String(b, from, nl - from, StandardCharsets.ISO_8859_1).trim()));
        }
        return size;
    }

    /** The value of an ASCII hex digit, -1 for any other byte (what {@code Character.digit(b, 16)} gives a byte). */
    static int hexDigit(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        int lower = c | 0x20;
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    static int headEnd(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == '\n') {
                if (i + 1 < to && b[i + 1] == '\n') {
                    return i + 2;
                }
                if (i + 2 < to && b[i + 1] == '\r' && b[i + 2] == '\n') {
                    return i + 3;
                }
            }
        }
        return -1;
    }

    static int indexOf(byte[] b, int from, int to, byte v) {
        for (int i = from; i < to; i++) {
            if (b[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
