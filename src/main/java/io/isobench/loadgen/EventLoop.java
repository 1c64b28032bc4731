package io.isobench.loadgen;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The measuring transport: one thread, one selector, non-blocking HTTP/1.1 connections (kept alive and reused),
 * and a resumable parser for the response head, chunked/length/close framing and SSE lines. A readiness event costs
 * one read; bytes are stamped with the time that read returned, and every ready connection is read before any is
 * parsed. Request-level problems end as recorded errors.
 */
final class EventLoop implements AutoCloseable {

    private final RequestExecutor exec;
    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Exchange> incoming = new ConcurrentLinkedQueue<>();
    private final ArrayDeque<Conn> idle = new ArrayDeque<>();
    private final List<Conn> busy = new ArrayList<>(); // index kept in Conn.busyIdx: O(1) add/remove
    /** Submitted exchanges waiting for a connection slot (loop thread only). */
    private final ArrayDeque<Exchange> pending = new ArrayDeque<>();
    /** The concurrency cap, enforced here so a finished request starts the next one without a thread hand-off. */
    private final int maxInFlight;
    private int inFlight;
    private volatile boolean running = true;
    private final ByteBuffer readBuf = ByteBuffer.allocateDirect(64 * 1024);
    private final ChunkParser parser = new ChunkParser();
    /** Told (without allocating) when the loop thread dies of anything, an OutOfMemoryError included. */
    private final Consumer<Throwable> onDeath;

    /** An error body (non-200) is kept up to this many bytes for the failure's message; the rest is dropped. */
    private static final int ERROR_BODY_BYTES = 4096;

    /**
     * {@code maxInFlight}: requests on the wire at once (the rest wait, in submission order); {@code onDeath}: told
     * when the loop thread dies, so nobody waits for requests it will never finish.
     */
    EventLoop(RequestExecutor exec, int maxInFlight, Consumer<Throwable> onDeath) {
        this.exec = exec;
        this.maxInFlight = maxInFlight;
        this.onDeath = onDeath;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a selector: " + e.getMessage(), e);
        }
        this.thread = Thread.ofPlatform().daemon().name("loadgen-io").start(this::loop);
    }

    /** One request and where its result goes (called on the loop thread). */
    static final class Exchange {
        final int index;
        final RequestExecutor.Prepared req;
        final long t0;
        final long scheduledNs;
        final Consumer<RequestResult> done;
        long send;
        long deadline;
        boolean retried;
        final RequestExecutor.Outcome o;

        /** When true, the request is not sent once {@code startByNs} has passed (a --duration run's end). */
        final boolean bounded;
        final long startByNs;

        Exchange(int index, RequestExecutor.Prepared req, long t0, long scheduledNs, Consumer<RequestResult> done) {
            this(index, req, t0, scheduledNs, false, 0, done);
        }

        /**
         * {@code bounded}: still waiting for a connection slot at {@code startByNs} (System.nanoTime), the request is
         * dropped unsent and {@code done} gets null.
         */
        Exchange(int index, RequestExecutor.Prepared req, long t0, long scheduledNs, boolean bounded, long startByNs,
                 Consumer<RequestResult> done) {
            this.index = index;
            this.req = req;
            this.t0 = t0;
            this.scheduledNs = scheduledNs;
            this.bounded = bounded;
            this.startByNs = startByNs;
            this.done = done;
            this.o = new RequestExecutor.Outcome(req.keepText(), LoadgenConfig.maxChunks(req.prompt().outputLen()));
        }
    }

    void submit(Exchange x) {
        incoming.add(x);
        selector.wakeup();
    }

    // ------------------------------------------------------------------ connection state machine

    private static final int HEAD = 0, CHUNK_SIZE = 1, CHUNK_DATA = 2, CHUNK_CRLF = 3, TRAILERS = 4, LENGTH = 5,
            UNTIL_EOF = 6;

    private final class Conn {
        final SocketChannel ch;
        SelectionKey key;
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

        Conn(SocketChannel ch) {
            this.ch = ch;
        }

        void close() {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing: nothing to recover
            }
            unbusy(this);
            idle.remove(this);
        }
    }

    /** How often request deadlines are checked (and the longest a select waits). */
    private static final long SCAN_NS = 50_000_000L;

    private final java.util.function.Consumer<SelectionKey> onReady = this::ready;
    /**
     * The connections read in this turn: every ready connection is read (and its bytes stamped) first, then they are
     * parsed. Parsing as each is read would delay the reads, and so the stamps, of the connections behind it in a
     * burst (a thousand streams on one ITL grid deliver their chunks within a millisecond or two).
     */
    private final ArrayList<Conn> readNow = new ArrayList<>();
    private long lastScan = System.nanoTime();

    private void loop() {
        try {
            while (running) {
                turn();
            }
        } catch (Throwable t) {
            // an OutOfMemoryError, a bug: wake the waiting dispatcher with it (nothing is allocated on the way)
            onDeath.accept(t);
        } finally {
            try {
                for (SelectionKey k : selector.keys()) {
                    k.channel().close();
                }
                selector.close();
            } catch (IOException | RuntimeException | Error ignored) {
                // closing
            }
            busy.clear();
            idle.clear();
            pending.clear();
            incoming.clear();
            readNow.clear();
        }
    }

    /**
     * One turn of the loop: wait for readiness, handle it, start what is pending, check deadlines. A method of its
     * own so the JIT compiles it after a few hundred turns: a loop body inside the once-called {@link #loop()} would
     * run in the interpreter until an on-stack replacement many thousands of turns later.
     */
    private void turn() {
        try {
            selector.select(onReady, SCAN_NS / 1_000_000L);
        } catch (IOException e) {
            return;
        }
        for (int i = 0; i < readNow.size(); i++) {
            Conn c = readNow.get(i);
            c.queued = false;
            try {
                process(c, c.readAt);
            } catch (IOException | RuntimeException e) {
                ioFailure(c, e);
            }
        }
        readNow.clear();
        Exchange x;
        while ((x = incoming.poll()) != null) {
            pending.add(x);
        }
        while (inFlight < maxInFlight && (x = pending.poll()) != null) {
            if (x.bounded && System.nanoTime() - x.startByNs >= 0) {
                drop(x);
            } else {
                start(x);
            }
        }
        long now = System.nanoTime();
        if (now - lastScan > SCAN_NS) {
            lastScan = now;
            expire(now);
        }
    }

    private void expire(long now) {
        // downwards: closing a connection moves the last busy one into its slot, which was already checked
        for (int i = busy.size() - 1; i >= 0; i--) {
            if (i >= busy.size()) {
                continue;
            }
            Conn c = busy.get(i);
            if (c.x != null && now - c.x.deadline > 0) {
                Exchange e = c.x;
                e.o.fail("timeout", "request timed out after " + exec.timeoutNs() / 1_000_000 + " ms"
                        + (e.o.chunks > 0 ? " (stalled after " + e.o.chunks + " chunks)" : ""));
                c.close();
                finish(e, now);
            }
        }
    }

    /** One ready key (called by the selector, on the loop thread). */
    private void ready(SelectionKey k) {
        Conn c = (Conn) k.attachment();
        if (!k.isValid()) {
            return;
        }
        try {
            if (k.isConnectable()) {
                connected(c);
            } else {
                if (k.isWritable()) {
                    write(c);
                }
                if (k.isValid() && k.isReadable()) {
                    read(c);
                }
            }
        } catch (IOException | RuntimeException e) {
            ioFailure(c, e);
        }
    }

    /** CPU time the I/O thread has used so far, in ns (-1 when the JVM cannot tell). */
    long threadCpuNs() {
        try {
            return java.lang.management.ManagementFactory.getThreadMXBean().getThreadCpuTime(thread.threadId());
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    /** User-mode CPU time the I/O thread has used so far, in ns (-1 when the JVM cannot tell). */
    long threadUserNs() {
        try {
            return java.lang.management.ManagementFactory.getThreadMXBean().getThreadUserTime(thread.threadId());
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    private void start(Exchange x) {
        inFlight++;
        x.send = System.nanoTime();
        x.deadline = x.send + exec.timeoutNs();
        Conn c = idle.pollFirst();
        if (c != null && c.ch.isOpen()) {
            c.reused = true;
            assign(c, x);
            return;
        }
        open(x);
    }

    private void open(Exchange x) {
        try {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Conn c = new Conn(ch);
            c.x = x;
            busy(c);
            if (ch.connect(exec.address())) {
                c.key = ch.register(selector, 0, c);
                assign(c, x);
            } else {
                c.key = ch.register(selector, SelectionKey.OP_CONNECT, c);
            }
        } catch (IOException e) {
            x.o.fail("connect", "server not reachable at " + exec.hostHeader() + ": " + e.getMessage());
            finish(x, System.nanoTime());
        }
    }

    private void connected(Conn c) throws IOException {
        try {
            c.ch.finishConnect();
        } catch (IOException e) {
            Exchange x = c.x;
            c.close();
            x.o.fail("connect", "server not reachable at " + exec.hostHeader() + ": "
                    + (e instanceof ConnectException ? "Connection refused" : e.getMessage()));
            finish(x, System.nanoTime());
            return;
        }
        assign(c, c.x);
    }

    private void assign(Conn c, Exchange x) {
        c.x = x;
        c.state = HEAD;
        c.gotBytes = false;
        c.body = null;
        c.ll = 0;
        busy(c);
        c.out = ByteBuffer.wrap(x.req.wire());
        try {
            write(c);
        } catch (IOException e) {
            ioFailure(c, e);
        }
    }

    private void write(Conn c) throws IOException {
        c.ch.write(c.out);
        c.key.interestOps(c.out.hasRemaining() ? SelectionKey.OP_WRITE | SelectionKey.OP_READ : SelectionKey.OP_READ);
    }

    private void busy(Conn c) {
        if (c.busyIdx < 0) {
            c.busyIdx = busy.size();
            busy.add(c);
        }
    }

    private void unbusy(Conn c) {
        int i = c.busyIdx;
        if (i < 0) {
            return;
        }
        Conn last = busy.remove(busy.size() - 1);
        if (last != c) {
            busy.set(i, last);
            last.busyIdx = i;
        }
        c.busyIdx = -1;
    }

    private void ioFailure(Conn c, Exception e) {
        Exchange x = c.x;
        boolean stale = c.reused && !c.gotBytes && x != null && !x.retried;
        c.close();
        if (x == null) {
            return;
        }
        if (stale) {
            // a kept-alive connection the server had closed: retry once on a fresh one
            x.retried = true;
            open(x);
            return;
        }
        x.o.fail("io", e instanceof ClosedChannelException ? "connection closed" : e.getClass().getSimpleName() + ": " + e.getMessage());
        finish(x, System.nanoTime());
    }

    private void read(Conn c) throws IOException {
        readBuf.clear();
        int n = c.ch.read(readBuf);
        long now = System.nanoTime();
        if (n < 0) {
            eof(c, now);
            return;
        }
        if (c.x == null) {
            c.close(); // unsolicited bytes on an idle connection
            return;
        }
        c.gotBytes = true;
        readBuf.flip();
        if (c.lim + n > c.buf.length) {
            if (c.pos > 0) {
                System.arraycopy(c.buf, c.pos, c.buf, 0, c.lim - c.pos);
                c.lim -= c.pos;
                c.pos = 0;
            }
            if (c.lim + n > c.buf.length) {
                c.buf = java.util.Arrays.copyOf(c.buf, Math.max(c.buf.length * 2, c.lim + n));
            }
        }
        readBuf.get(c.buf, c.lim, n);
        c.lim += n;
        c.readAt = now; // processed after this turn's reads (readNow)
        if (!c.queued) {
            c.queued = true;
            readNow.add(c);
        }
    }

    private void eof(Conn c, long now) {
        Exchange x = c.x;
        if (x == null) {
            c.close();
            return;
        }
        if (c.state == UNTIL_EOF || (c.sse && x.o.done)) {
            // end of a close-delimited body, or a server that hung up right after [DONE]: the stream is complete
            flushLine(c, now);
            c.close();
            endOfBody(c, x, now, false);
            return;
        }
        ioFailure(c, new IOException(c.gotBytes ? "connection closed by the server mid-response"
                : "connection closed by the server before a response"));
    }

    /** Consumes what the buffer holds; returns when it needs more bytes or the exchange ended. */
    private void process(Conn c, long now) throws IOException {
        Exchange x = c.x;
        while (c.x == x && x != null) {
            switch (c.state) {
                case HEAD -> {
                    int end = headEnd(c.buf, c.pos, c.lim);
                    if (end < 0) {
                        if (c.lim - c.pos > 64 * 1024) {
                            throw new IOException("response head longer than 64 KiB");
                        }
                        return;
                    }
                    parseHead(c, new String(c.buf, c.pos, end - c.pos, StandardCharsets.ISO_8859_1));
                    c.pos = end;
                }
                case CHUNK_SIZE -> {
                    int nl = indexOf(c.buf, c.pos, c.lim, (byte) '\n');
                    if (nl < 0) {
                        if (c.lim - c.pos > 4096) {
                            throw new IOException("chunk-size line longer than 4 KiB");
                        }
                        return;
                    }
                    long size = chunkSize(c.buf, c.pos, nl);
                    c.pos = nl + 1;
                    c.remaining = size;
                    c.state = size == 0 ? TRAILERS : CHUNK_DATA;
                }
                case CHUNK_DATA, LENGTH, UNTIL_EOF -> {
                    if (c.state == LENGTH && c.remaining == 0) {
                        flushLine(c, now);
                        endOfBody(c, x, now, c.keepAlive && c.pos == c.lim);
                        return;
                    }
                    int avail = c.lim - c.pos;
                    if (avail == 0) {
                        return;
                    }
                    int n = c.state == UNTIL_EOF ? avail : (int) Math.min(avail, c.remaining);
                    body(c, c.pos, n, now);
                    c.pos += n;
                    if (c.state != UNTIL_EOF) {
                        c.remaining -= n;
                    }
                    if (x.o.errorKind != null) {
                        c.close();
                        finish(x, now);
                        return;
                    }
                    if (c.state == CHUNK_DATA && c.remaining == 0) {
                        c.state = CHUNK_CRLF;
                    }
                }
                case CHUNK_CRLF -> {
                    int nl = indexOf(c.buf, c.pos, c.lim, (byte) '\n');
                    if (nl < 0) {
                        if (c.lim - c.pos > 2) {
                            throw new IOException("bad chunked encoding (no CRLF after chunk)");
                        }
                        return;
                    }
                    if (nl - c.pos > 1 || (nl - c.pos == 1 && c.buf[c.pos] != '\r')) {
                        throw new IOException("bad chunked encoding (no CRLF after chunk)");
                    }
                    c.pos = nl + 1;
                    c.state = CHUNK_SIZE;
                }
                case TRAILERS -> {
                    int nl = indexOf(c.buf, c.pos, c.lim, (byte) '\n');
                    if (nl < 0) {
                        if (c.lim - c.pos > 4096) {
                            throw new IOException("trailer line longer than 4 KiB");
                        }
                        return;
                    }
                    boolean empty = nl == c.pos || (nl - c.pos == 1 && c.buf[c.pos] == '\r');
                    c.pos = nl + 1;
                    if (empty) {
                        flushLine(c, now);
                        endOfBody(c, x, now, c.keepAlive && c.pos == c.lim);
                        return;
                    }
                }
                default -> throw new IllegalStateException("state " + c.state);
            }
        }
    }

    private void parseHead(Conn c, String head) throws IOException {
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
        boolean streamReq = exec.config().stream();
        c.sse = c.status == 200 && streamReq
                && (c.contentType == null || c.contentType.toLowerCase(Locale.ROOT).contains("event-stream"));
        if (!c.sse) {
            c.body = new ByteArrayOutputStream();
        }
    }

    /**
     * Body bytes: SSE lines go to the chunk handler (a line longer than {@link LoadgenConfig#MAX_SSE_LINE_BYTES} fails
     * the request); an unstreamed 200 body is collected up to {@link LoadgenConfig#MAX_TEXT_BYTES} (beyond:
     * {@code response_too_large}), an error body up to {@value #ERROR_BODY_BYTES} bytes (the rest is dropped).
     */
    private void body(Conn c, int off, int n, long now) {
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

    private static boolean lineTooLong(Conn c, Exchange x, int more) {
        if ((long) c.ll + more <= LoadgenConfig.MAX_SSE_LINE_BYTES) {
            return false;
        }
        x.o.fail("response_too_large", "an SSE line passed " + (LoadgenConfig.MAX_SSE_LINE_BYTES >> 20)
                + " MiB, the longest read");
        c.ll = 0;
        c.line = new byte[1024];
        return true;
    }

    private void flushLine(Conn c, long now) {
        if (c.sse && c.ll > 0 && c.x != null && !c.x.o.done && c.x.o.errorKind == null) {
            RequestExecutor.handleLine(c.line, 0, c.ll, now - c.x.send, parser, c.x.o);
            c.ll = 0;
        }
    }

    private void endOfBody(Conn c, Exchange x, long now, boolean reusable) {
        if (!c.sse) {
            String text = c.body.toString(StandardCharsets.UTF_8);
            if (c.status != 200) {
                x.o.fail("http_" + c.status, "HTTP " + c.status + ": " + HttpConn.abbreviate(text));
            } else if (exec.config().stream()) {
                x.o.fail("non_sse", "non-SSE response (Content-Type: " + c.contentType + ") to a streaming request: "
                        + HttpConn.abbreviate(text));
            } else {
                byte[] bytes = c.body.toByteArray();
                try {
                    parser.parse(bytes, 0, bytes.length);
                    if (parser.error != null) {
                        x.o.fail("server_error", "server error: " + HttpConn.abbreviate(parser.error));
                    } else if (!parser.hasChoices) {
                        x.o.fail("no_choices", "response has no choices: " + HttpConn.abbreviate(text));
                    } else {
                        x.o.appendText(parser.textBuf, 0, parser.hasText ? parser.textLen : 0);
                        x.o.addChunk(now - x.send);
                        x.o.promptTokens = parser.promptTokens;
                        x.o.completionTokens = parser.completionTokens;
                    }
                } catch (IOException e) {
                    x.o.fail("malformed_json", "malformed JSON response: " + e.getMessage());
                }
            }
        }
        c.x = null;
        unbusy(c);
        if (reusable && c.ch.isOpen()) {
            c.reused = true;
            c.pos = 0;
            c.lim = 0;
            idle.addFirst(c);
        } else {
            c.close();
        }
        finish(x, now);
    }

    /** A request whose run ended while it waited for a slot: never sent, reported as null. */
    private static void drop(Exchange x) {
        try {
            x.done.accept(null);
        } catch (RuntimeException e) {
            e.printStackTrace();
        }
    }

    private void finish(Exchange x, long now) {
        inFlight--;
        try {
            x.done.accept(x.o.toResult(x.index, x.req, x.t0, x.scheduledNs, x.send, now));
        } catch (RuntimeException e) {
            // the consumer must never take the loop down
            e.printStackTrace();
        }
    }

    /** End of the line that starts at {@code from} and ends at LF {@code nl} (-1: the end), a CR before it excluded. */
    private static int lineEnd(String s, int from, int nl) {
        int end = nl < 0 ? s.length() : nl;
        return end > from && s.charAt(end - 1) == '\r' ? end - 1 : end;
    }

    /** {@code s[from, to)} is the header name {@code name} (ASCII, case-insensitive). */
    private static boolean named(String s, int from, int to, String name) {
        return to - from == name.length() && s.regionMatches(true, from, name, 0, name.length());
    }

    /** The hex size of a chunk-size line {@code b[from, nl)} (extensions after ';' ignored), without a String. */
    private static long chunkSize(byte[] b, int from, int nl) throws IOException {
        int i = from;
        int end = nl;
        while (i < end && (b[i] == ' ' || b[i] == '\t')) {
            i++;
        }
        long size = 0;
        int digits = 0;
        for (; i < end; i++) {
            int d = Character.digit(b[i], 16);
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

    private static int headEnd(byte[] b, int from, int to) {
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

    private static int indexOf(byte[] b, int from, int to, byte v) {
        for (int i = from; i < to; i++) {
            if (b[i] == v) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        running = false;
        selector.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
