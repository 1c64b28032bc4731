package io.isobench.loadgen;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A lean blocking HTTP/1.1 connection: one buffer, no copies on the hot path, and the time of every socket read
 * ({@link #lastReadNs}) so that chunk arrival is stamped when the bytes came off the socket, not when parsed.
 */
final class HttpConn implements Closeable {

    private static final int MAX_LINE = 64 * 1024;

    final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    final byte[] buf = new byte[32 * 1024];
    int pos;
    int lim;
    long lastReadNs;
    boolean reused;
    private long deadlineNs = Long.MAX_VALUE;
    private int currentTimeoutMs = -1;

    // body framing
    private static final int LENGTH = 0, CHUNKED = 1, EOF = 2;
    private int mode;
    private long remaining;
    private boolean bodyDone;
    private boolean firstChunk;
    boolean keepAlive;

    HttpConn(InetSocketAddress addr, int connectTimeoutMs) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(addr, connectTimeoutMs);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        in = s.getInputStream();
        out = s.getOutputStream();
    }

    void deadline(long deadlineNs) {
        this.deadlineNs = deadlineNs;
    }

    void write(byte[] head, byte[] body) throws IOException {
        out.write(head);
        out.write(body);
        out.flush();
    }

    /** Reads more bytes into the buffer; false at end of stream. */
    boolean fill() throws IOException {
        if (pos == lim) {
            pos = 0;
            lim = 0;
        } else if (lim == buf.length) {
            if (pos == 0) {
                throw new IOException("line longer than " + buf.length + " bytes");
            }
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        if (deadlineNs != Long.MAX_VALUE) {
            long leftMs = (deadlineNs - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                throw new SocketTimeoutException("request timeout");
            }
            int t = (int) Math.min(Integer.MAX_VALUE, leftMs);
            if (Math.abs(t - currentTimeoutMs) > 50 || t < 100) {
                socket.setSoTimeout(t);
                currentTimeoutMs = t;
            }
        }
        int n = in.read(buf, lim, buf.length - lim);
        lastReadNs = System.nanoTime();
        if (n < 0) {
            return false;
        }
        lim += n;
        return true;
    }

    /** One CRLF- or LF-terminated line as ASCII (for the status line, headers and chunk sizes). */
    String readLine() throws IOException {
        int scanFrom = pos;
        while (true) {
            for (int i = scanFrom; i < lim; i++) {
                if (buf[i] == '\n') {
                    int end = i > pos && buf[i - 1] == '\r' ? i - 1 : i;
                    String s = new String(buf, pos, end - pos, StandardCharsets.ISO_8859_1);
                    pos = i + 1;
                    return s;
                }
            }
            if (lim - pos > MAX_LINE) {
                throw new IOException("header line longer than " + MAX_LINE + " bytes");
            }
            int consumed = lim - pos;
            if (!fill()) {
                throw new EOFException("connection closed by the server");
            }
            scanFrom = pos + consumed;
        }
    }

    /** Parsed response head. */
    record Head(int status, String contentType, boolean chunked, long contentLength, boolean close) {
    }

    /** The final response's head: interim ones ({@code 100 Continue}, {@code 103 Early Hints}) are skipped. */
    Head readHead() throws IOException {
        while (true) {
            Head h = readOneHead();
            if (!ResponseParser.interim(h.status())) {
                return h;
            }
        }
    }

    private Head readOneHead() throws IOException {
        String status = readLine();
        while (status.isEmpty()) {
            status = readLine();
        }
        if (!status.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + abbreviate(status));
        }
        int sp = status.indexOf(' ');
        int code;
        try {
            code = Integer.parseInt(status.substring(sp + 1, Math.min(status.length(), sp + 4)));
        } catch (RuntimeException e) {
            throw new IOException("bad HTTP status line: " + abbreviate(status));
        }
        boolean http10 = status.startsWith("HTTP/1.0");
        String ct = null;
        boolean chunked = false;
        long len = -1;
        Boolean close = null;
        for (String h = readLine(); !h.isEmpty(); h = readLine()) {
            int c = h.indexOf(':');
            if (c <= 0) {
                continue;
            }
            String name = h.substring(0, c).trim();
            String value = h.substring(c + 1).trim();
            if (name.equalsIgnoreCase("content-type")) {
                ct = value;
            } else if (name.equalsIgnoreCase("transfer-encoding")) {
                chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            } else if (name.equalsIgnoreCase("content-length")) {
                try {
                    len = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new IOException("bad Content-Length: " + abbreviate(value));
                }
            } else if (name.equalsIgnoreCase("connection")) {
                close = value.equalsIgnoreCase("close");
            }
        }
        boolean closeConn = close != null ? close : http10;
        if (chunked) {
            mode = CHUNKED;
            firstChunk = true;
            remaining = 0;
        } else if (len >= 0) {
            mode = LENGTH;
            remaining = len;
        } else {
            mode = EOF;
            closeConn = true;
        }
        bodyDone = false;
        keepAlive = !closeConn;
        return new Head(code, ct, chunked, len, closeConn);
    }

    /**
     * Makes body bytes available at {@code buf[pos, pos + n)} and returns n (the caller advances {@code pos});
     * -1 at the end of the body.
     */
    int nextBody() throws IOException {
        if (bodyDone) {
            return -1;
        }
        switch (mode) {
            case LENGTH -> {
                if (remaining == 0) {
                    bodyDone = true;
                    return -1;
                }
                if (pos == lim && !fill()) {
                    throw new EOFException("connection closed before the end of the body");
                }
                int n = (int) Math.min(lim - pos, remaining);
                remaining -= n;
                return n;
            }
            case CHUNKED -> {
                if (remaining == 0) {
                    if (!firstChunk) {
                        String crlf = readLine();
                        if (!crlf.isEmpty()) {
                            throw new IOException("bad chunked encoding (no CRLF after chunk)");
                        }
                    }
                    firstChunk = false;
                    String sizeLine = readLine();
                    int semi = sizeLine.indexOf(';');
                    String hex = (semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim();
                    long size;
                    try {
                        size = Long.parseLong(hex, 16);
                    } catch (NumberFormatException e) {
                        throw new IOException("bad chunk size: " + abbreviate(sizeLine));
                    }
                    if (size == 0) {
                        while (!readLine().isEmpty()) {
                            // trailers
                        }
                        bodyDone = true;
                        return -1;
                    }
                    remaining = size;
                }
                if (pos == lim && !fill()) {
                    throw new EOFException("connection closed in the middle of a chunk");
                }
                int n = (int) Math.min(lim - pos, remaining);
                remaining -= n;
                return n;
            }
            default -> {
                if (pos == lim && !fill()) {
                    bodyDone = true;
                    return -1;
                }
                return lim - pos;
            }
        }
    }

    /** Reads and discards the rest of the body; true when the connection can be reused. */
    boolean drain() {
        try {
            int n;
            while ((n = nextBody()) >= 0) {
                pos += n;
            }
            return keepAlive && pos == lim;
        } catch (IOException e) {
            return false;
        }
    }

    /** Reads the whole body (bounded) as UTF-8. */
    String readBody(int max) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int n;
        while ((n = nextBody()) >= 0) {
            if (b.size() < max) {
                b.write(buf, pos, Math.min(n, max - b.size()));
            }
            pos += n;
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    static String abbreviate(String s) {
        String one = s.replace('\n', ' ').replace('\r', ' ');
        return one.length() > 200 ? one.substring(0, 200) + "…" : one;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing: nothing to recover
        }
    }
}
