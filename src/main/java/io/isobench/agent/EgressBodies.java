package io.isobench.agent;

import java.io.IOException;
import java.io.InputStream;

/** The request bodies the egress proxy reads from an agent connection: fixed-length and chunked (never closing it). */
final class EgressBodies {

    private EgressBodies() {
    }

    static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The reason phrase of {@code status}. */
    static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 204 -> "No Content";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 414 -> "URI Too Long";
            case 431 -> "Request Header Fields Too Large";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }

    /** Exactly {@code limit} bytes of the underlying stream (never closes it). */
    static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long left;

        BoundedInputStream(InputStream in, long limit) {
            this.in = in;
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) {
                throw new IOException("request body ended early");
            }
            left -= n;
            return n;
        }

        @Override
        public void close() {
        }
    }

    /** The decoded body of a chunked request (never closes the underlying stream; trailers are dropped). */
    static final class ChunkedInputStream extends InputStream {
        private final InputStream in;
        private long left;
        private boolean done;

        ChunkedInputStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (done) {
                return -1;
            }
            if (left == 0) {
                String size = HttpHead.readLine(in);
                if (size == null) {
                    throw new IOException("chunked body ended early");
                }
                int semi = size.indexOf(';');
                left = Long.parseLong((semi >= 0 ? size.substring(0, semi) : size).strip(), 16);
                if (left == 0) {
                    String t;
                    while ((t = HttpHead.readLine(in)) != null && !t.isEmpty()) {
                        // trailers: dropped
                    }
                    done = true;
                    return -1;
                }
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) {
                throw new IOException("chunked body ended early");
            }
            left -= n;
            if (left == 0) {
                HttpHead.readLine(in); // the chunk's CRLF
            }
            return n;
        }

        @Override
        public void close() {
        }
    }
}
