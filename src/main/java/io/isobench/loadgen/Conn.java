package io.isobench.loadgen;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * One HTTP/1.1 connection of the {@link EventLoop} and the state of the response being read on it: the read buffer,
 * the framing state, the SSE line being assembled. Loop thread only.
 */
final class Conn {

    /** Where the response parse is: the head, chunked framing, a Content-Length body or a body until EOF. */
    static final int HEAD = 0, CHUNK_SIZE = 1, CHUNK_DATA = 2, CHUNK_CRLF = 3, TRAILERS = 4, LENGTH = 5,
            UNTIL_EOF = 6;

    private final EventLoop loop;
    /** The socket, from the loop's {@link Poller}; set right after construction. */
    Poller.Sock sock;
    Exchange x;
    ByteBuffer out;
    byte[] buf = new byte[16 * 1024];
    int pos;
    int lim;
    int state;
    long remaining;
    boolean keepAlive;
    boolean sse;
    int status;
    String contentType;
    boolean gotBytes;
    boolean reused;
    ByteArrayOutputStream body;
    byte[] line = new byte[1024];
    int ll;
    int busyIdx = -1;
    /** When the bytes not yet processed were read (System.nanoTime), and whether they wait in {@code readNow}. */
    long readAt;
    boolean queued;

    Conn(EventLoop loop) {
        this.loop = loop;
    }

    void close() {
        if (sock != null) {
            sock.close();
        }
        loop.forget(this);
    }
}
