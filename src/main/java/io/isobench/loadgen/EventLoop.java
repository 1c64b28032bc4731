package io.isobench.loadgen;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

import static io.isobench.loadgen.Conn.CHUNK_CRLF;
import static io.isobench.loadgen.Conn.CHUNK_DATA;
import static io.isobench.loadgen.Conn.CHUNK_SIZE;
import static io.isobench.loadgen.Conn.HEAD;
import static io.isobench.loadgen.Conn.LENGTH;
import static io.isobench.loadgen.Conn.TRAILERS;
import static io.isobench.loadgen.Conn.UNTIL_EOF;

/**
 * The measuring transport: one thread, one {@link Poller} (libc's epoll through java.lang.foreign where the JDK has
 * it, else NIO's selector), non-blocking HTTP/1.1 connections (kept alive and reused), and a resumable parser for the
 * response head, chunked/length/close framing and SSE lines. A readiness event costs one read; bytes are stamped
 * with the time that read returned, and every ready connection is read before any is parsed. Request-level problems
 * end as recorded errors.
 */
final class EventLoop implements AutoCloseable {

    private final RequestExecutor exec;
    private final Poller poller;
    /** The poller wakes the loop every {@link #SCAN_NS} by itself ({@link Poller#periodic}). */
    private final boolean periodic;
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
    private final byte[] readArr;
    private final ChunkParser parser = new ChunkParser();
    /** Told (without allocating) when the loop thread dies of anything, an OutOfMemoryError included. */
    private final Consumer<Throwable> onDeath;
    /** The loop's own lateness, one sample per {@link LoopLag#TICK_NS} tick (docs/loadgen.md, "Client self-check"). */
    final LoopLag loopLag = new LoopLag();
    /** Fault injection: each turn busy-spins this long ({@link LoopLag#STALL_ENV}); 0 in real runs. */
    private final long stallNs = LoopLag.stallNs();

    /**
     * {@code maxInFlight}: requests on the wire at once (the rest wait, in submission order); {@code onDeath}: told
     * when the loop thread dies, so nobody waits for requests it will never finish.
     */
    EventLoop(RequestExecutor exec, int maxInFlight, Consumer<Throwable> onDeath) {
        this.exec = exec;
        this.maxInFlight = maxInFlight;
        this.onDeath = onDeath;
        this.poller = Poller.open();
        this.periodic = poller.periodic(SCAN_NS);
        this.readArr = poller.readArray();
        this.thread = Thread.ofPlatform().daemon().name("loadgen-io").start(this::loop);
    }

    void submit(Exchange x) {
        incoming.add(x);
        poller.wakeup();
    }

    /** The transport under this loop, as recorded with the run: {@code ffm} or {@code nio}. */
    String transport() {
        return poller.name();
    }

    // ------------------------------------------------------------------ connection state machine

    /** How often request deadlines are checked (and the longest a select waits). */
    private static final long SCAN_NS = 50_000_000L;
    private final Poller.Ready onReady = this::ready;
    /**
     * The connections read in this turn: every ready connection is read (and its bytes stamped) before any is parsed,
     * so parsing one does not delay the stamps of the others in a burst (a thousand streams on one ITL grid).
     */
    private final ArrayList<Conn> readNow = new ArrayList<>();
    private long lastScan = System.nanoTime();
    /** When the last turn ended (about when the next select began). */
    private long turnEnd = lastScan;
    /**
     * Schedule-lag bookkeeping (loop thread only): when each slot that freed since the last start pass was freed, in
     * order, and how many slots were free with nobody waiting at the end of that pass ({@link #startPending}).
     */
    private long[] freedAt = new long[16];
    private int freedN;
    private long freeBefore = Long.MAX_VALUE;
    /** No request in flight has an earlier deadline (when known): {@link #expire} walks the busy set only after it. */
    private long earliestDeadline;
    private boolean deadlineKnown;

    private void loop() {
        loopLag.start(System.nanoTime());
        try {
            while (running) {
                turn();
            }
        } catch (Throwable t) {
            // an OutOfMemoryError, a bug: wake the waiting dispatcher with it (nothing is allocated on the way)
            onDeath.accept(t);
        } finally {
            loopLag.stop();
            try {
                poller.close();
            } catch (RuntimeException | Error ignored) { // closing
            }
            busy.clear();
            idle.clear();
            pending.clear();
            incoming.clear();
            readNow.clear();
        }
    }

    /**
     * One turn: wait for readiness, handle it, start what is pending, check deadlines. A method of its own so the JIT
     * compiles it after a few hundred turns (a body inside the once-called {@link #loop()} would stay interpreted).
     */
    private void turn() {
        // the select's timeout is the lag tick's (LoopLag#waitMs): none where the poller wakes the loop every SCAN_NS
        boolean working = inFlight > 0 || !pending.isEmpty();
        long waitMs = loopLag.waitMs(working, periodic, turnEnd, SCAN_NS);
        int ready;
        try {
            ready = poller.select(onReady, waitMs);
        } catch (IOException e) {
            return;
        }
        long woke = System.nanoTime();
        if (stallNs > 0) {
            LoopLag.spin(stallNs);
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
        startPending();
        long now = System.nanoTime();
        loopLag.turnEnded(working, ready > 0, waitMs, turnEnd, woke, now);
        if (now - lastScan > SCAN_NS) {
            lastScan = now;
            expire(now);
        }
        turnEnd = now;
    }

    /**
     * Starts what waits, while slots are free. Each request started learns when its slot was free: the slots free
     * with nobody waiting at the end of the last pass come first (free before it arrived), then the slots freed since,
     * in the order they were freed (a FIFO, as the waiting requests are).
     */
    private void startPending() {
        Exchange x;
        long used = 0;
        while (inFlight < maxInFlight && (x = pending.poll()) != null) {
            if (x.bounded && System.nanoTime() - x.startByNs >= 0) {
                drop(x);
            } else {
                long k = used++ - freeBefore;
                if (k >= 0 && k < freedN) {
                    x.slotFree = freedAt[(int) k];
                }
                start(x);
            }
        }
        freedN = 0;
        freeBefore = pending.isEmpty() ? (long) maxInFlight - inFlight : 0;
    }

    private void expire(long now) {
        if (!deadlineKnown || now - earliestDeadline <= 0) {
            return; // no deadline has passed: nothing to walk
        }
        deadlineKnown = false;
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
            } else if (c.x != null) {
                deadline(c.x.deadline);
            }
        }
    }

    private void deadline(long d) { // folds an in-flight request's deadline into earliestDeadline
        earliestDeadline = !deadlineKnown || d - earliestDeadline < 0 ? d : earliestDeadline;
        deadlineKnown = true;
    }

    /** One ready connection (called by the poller, on the loop thread). */
    private void ready(Conn c, int ops) {
        if (!c.sock.isOpen()) {
            return;
        }
        try {
            if ((ops & Poller.OP_CONNECT) != 0) {
                connected(c);
            } else {
                if ((ops & Poller.OP_WRITE) != 0) {
                    write(c);
                }
                if ((ops & Poller.OP_READ) != 0 && c.sock.isOpen()) {
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
            return ManagementFactory.getThreadMXBean().getThreadCpuTime(thread.threadId());
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    /** User-mode CPU time the I/O thread has used so far, in ns (-1 when the JVM cannot tell). */
    long threadUserNs() {
        try {
            return ManagementFactory.getThreadMXBean().getThreadUserTime(thread.threadId());
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    private void start(Exchange x) {
        inFlight++;
        x.send = System.nanoTime();
        x.deadline = x.send + exec.timeoutNs();
        deadline(x.deadline);
        Conn c = idle.pollFirst();
        if (c != null && c.sock.isOpen()) {
            c.reused = true;
            assign(c, x);
            return;
        }
        open(x);
    }

    private void open(Exchange x) {
        try {
            Conn c = new Conn(this);
            c.sock = poller.open(c, exec.address());
            c.x = x;
            busy(c);
            if (c.sock.connected()) {
                assign(c, x);
            }
        } catch (IOException e) {
            x.o.fail("connect", "server not reachable at " + exec.hostHeader() + ": " + e.getMessage());
            finish(x, System.nanoTime());
        }
    }

    private void connected(Conn c) throws IOException {
        try {
            c.sock.finishConnect();
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
        c.sock.write(c.out);
        c.sock.interest(c.out.hasRemaining() ? Poller.OP_WRITE | Poller.OP_READ : Poller.OP_READ);
    }

    private void busy(Conn c) {
        if (c.busyIdx < 0) {
            c.busyIdx = busy.size();
            busy.add(c);
        }
    }

    /** A closed connection leaves the busy and idle sets. */
    void forget(Conn c) {
        unbusy(c);
        idle.remove(c);
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
        int n = c.sock.read();
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
        if (c.lim + n > c.buf.length) {
            if (c.pos > 0) {
                System.arraycopy(c.buf, c.pos, c.buf, 0, c.lim - c.pos);
                c.lim -= c.pos;
                c.pos = 0;
            }
            if (c.lim + n > c.buf.length) {
                c.buf = Arrays.copyOf(c.buf, Math.max(c.buf.length * 2, c.lim + n));
            }
        }
        System.arraycopy(readArr, 0, c.buf, c.lim, n);
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
            ResponseParser.flushLine(c, now, parser);
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
                    int end = ResponseParser.headEnd(c.buf, c.pos, c.lim);
                    if (end < 0) {
                        if (c.lim - c.pos > 64 * 1024) {
                            throw new IOException("response head longer than 64 KiB");
                        }
                        return;
                    }
                    // an interim response (100 Continue, 103 Early Hints) is skipped: the next head is the answer
                    ResponseParser.parseHead(c, new String(c.buf, c.pos, end - c.pos, StandardCharsets.ISO_8859_1),
                            exec.config().stream());
                    c.pos = end;
                }
                case CHUNK_SIZE -> {
                    int nl = ResponseParser.indexOf(c.buf, c.pos, c.lim, (byte) '\n');
                    if (nl < 0) {
                        if (c.lim - c.pos > 4096) {
                            throw new IOException("chunk-size line longer than 4 KiB");
                        }
                        return;
                    }
                    long size = ResponseParser.chunkSize(c.buf, c.pos, nl);
                    c.pos = nl + 1;
                    c.remaining = size;
                    c.state = size == 0 ? TRAILERS : CHUNK_DATA;
                }
                case CHUNK_DATA, LENGTH, UNTIL_EOF -> {
                    if (c.state == LENGTH && c.remaining == 0) {
                        ResponseParser.flushLine(c, now, parser);
                        endOfBody(c, x, now, c.keepAlive && c.pos == c.lim);
                        return;
                    }
                    int avail = c.lim - c.pos;
                    if (avail == 0) {
                        return;
                    }
                    int n = c.state == UNTIL_EOF ? avail : (int) Math.min(avail, c.remaining);
                    ResponseParser.body(c, c.pos, n, now, parser);
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
                    int nl = ResponseParser.indexOf(c.buf, c.pos, c.lim, (byte) '\n');
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
                    int nl = ResponseParser.indexOf(c.buf, c.pos, c.lim, (byte) '\n');
                    if (nl < 0) {
                        if (c.lim - c.pos > 4096) {
                            throw new IOException("trailer line longer than 4 KiB");
                        }
                        return;
                    }
                    boolean empty = nl == c.pos || (nl - c.pos == 1 && c.buf[c.pos] == '\r');
                    c.pos = nl + 1;
                    if (empty) {
                        ResponseParser.flushLine(c, now, parser);
                        endOfBody(c, x, now, c.keepAlive && c.pos == c.lim);
                        return;
                    }
                }
                default -> throw new IllegalStateException("state " + c.state);
            }
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
        if (reusable && c.sock.isOpen()) {
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
        if (maxInFlight != Integer.MAX_VALUE) {
            if (freedN == freedAt.length) {
                freedAt = Arrays.copyOf(freedAt, freedN * 2);
            }
            freedAt[freedN++] = now;
        }
        try {
            x.done.accept(x.o.toResult(x.index, x.req, x.t0, x.scheduledNs, x.slotFree, x.send, now));
        } catch (RuntimeException e) {
            // the consumer must never take the loop down
            e.printStackTrace();
        }
    }

    @Override
    public void close() {
        running = false;
        poller.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
