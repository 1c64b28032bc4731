package io.isobench.agent;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;

/**
 * The host side of a docker sandbox's only way out (docs/agents.md, "Sandbox"): an HTTP/1.1 reverse proxy listening
 * on a UNIX socket, forwarding every request to exactly one upstream base URL ({@code http} or {@code https}; TLS with
 * the JDK's normal certificate and host name checks). The request's {@code Host} is always the upstream's, whatever
 * the agent wrote; responses stream back as they come (server-sent events flow chunk by chunk, no body is held
 * whole); keep-alive, chunked and {@code Content-Length} bodies in both directions. Refused, with a one-line reason
 * and the connection closed: {@code CONNECT} (405), a request target that is not a path (absolute-form
 * {@code http://other/…}, authority-form, {@code *}), a path outside the upstream's path prefix or holding
 * {@code .}/{@code ..} segments or {@code ;} path parameters at any depth of percent-decoding (decoded until stable),
 * methods other than {@code GET} and {@code POST} (405), and protocol upgrades (403). Forwarding headers
 * ({@code Forwarded}, {@code X-Forwarded-*}, {@code Via}, {@code X-Real-IP}, method overrides), hop-by-hop headers
 * (and those the request's {@code Connection} names) and {@code Accept-Encoding} (so responses come uncompressed and
 * the {@link EgressMeter} can read their usage) are dropped. The control path cannot be starved by the agent: at most
 * {@value #MAX_CONNECTIONS} connections at once (more are answered 503 and closed), a request line of at most
 * {@value HttpHead#MAX_REQUEST_LINE} bytes (414) and a head of at most {@value HttpHead#MAX_HEAD_BYTES} bytes in
 * {@value HttpHead#MAX_HEADERS} lines (431), and a log in bounded memory ({@link EgressLog}: streamed to a file, counted).
 * Every request is logged (method, path without the query, status, response body bytes, milliseconds) — never
 * bodies, queries or headers, which may hold keys. Model requests are metered ({@link #meter()}). What is refused
 * and which headers go on is {@link EgressPolicy}'s decision, the head is read by {@link HttpHead}; this class
 * listens, forwards and relays.
 */
public final class EgressProxy implements AutoCloseable {

    /**
     * One request through the proxy.
     *
     * @param method   the request method
     * @param path     the request path, without its query
     * @param status   the status sent to the agent (403/405 refused, 502 upstream unreachable)
     * @param bytes    response body bytes sent to the agent
     * @param millis   milliseconds from the request line to the end of the response
     */
    public record Request(String method, String path, int status, long bytes, long millis) {
    }

    /** Connections one proxy (one attempt) serves at once. */
    static final int MAX_CONNECTIONS = 64;


    private final URI upstream;
    private final EgressPolicy policy;
    private final Path socket;
    private final ServerSocketChannel server;
    private final HttpClient client;
    private final EgressLog log;
    private final EgressMeter meter = new EgressMeter();
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private EgressProxy(URI upstream, Path socket, ServerSocketChannel server, SSLContext tls,
                        Path logFile) {
        this.upstream = upstream;
        this.log = new EgressLog(logFile);
        this.policy = new EgressPolicy(upstream);
        this.socket = socket;
        this.server = server;
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(30));
        this.client = (tls == null ? b : b.sslContext(tls)).build();
    }

    /**
     * Listens on {@code socket} (a new file; readable and writable by everyone, so the container's non-root user can
     * connect: guard it by its folder) and forwards to {@code upstreamBase}.
     */
    public static EgressProxy start(Path socket, String upstreamBase) throws IOException {
        return start(socket, upstreamBase, null, null);
    }

    /** {@link #start(Path, String)} streaming its log to {@code logFile} (null: memory only, bounded). */
    public static EgressProxy start(Path socket, String upstreamBase, Path logFile) throws IOException {
        return start(socket, upstreamBase, null, logFile);
    }

    /** {@link #start(Path, String)} trusting {@code tls}'s certificates instead of the JDK's (tests); null: the JDK's. */
    static EgressProxy start(Path socket, String upstreamBase, SSLContext tls) throws IOException {
        return start(socket, upstreamBase, tls, null);
    }

    private static EgressProxy start(Path socket, String upstreamBase, SSLContext tls, Path logFile)
            throws IOException {
        URI up = URI.create(upstreamBase);
        if (!"http".equals(up.getScheme()) && !"https".equals(up.getScheme()) || up.getHost() == null
                || up.getRawQuery() != null || up.getRawFragment() != null) {
            throw new IllegalArgumentException("egress upstream '" + upstreamBase
                    + "': not an http(s) base URL (fix: e.g. https://api.anthropic.com or http://127.0.0.1:8080/v1)");
        }
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ch.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        EgressProxy proxy = new EgressProxy(up, socket, ch, tls, logFile);
        Thread.ofPlatform().daemon().name("isobench-egress-" + socket.getFileName()).start(proxy::acceptLoop);
        return proxy;
    }

    /** The UNIX socket it listens on. */
    public Path socket() {
        return socket;
    }

    /** The upstream base URL. */
    public String upstream() {
        return upstream.toString();
    }

    /** The first {@value EgressLog#KEPT} requests, in the order they finished (all are counted: {@link #summary}). */
    public List<Request> log() {
        return log.kept();
    }

    /** The kept requests one line each, then a line counting the rest (docs/agents.md, "Sandbox"). */
    public List<String> summary() {
        return log.summary();
    }

    /** The attempt's model usage as this proxy saw it. */
    public EgressMeter meter() {
        return meter;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (SocketChannel c : open) {
            closeQuietly(c);
        }
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // a stale socket file is harmless
        }
        client.shutdownNow();
        log.close();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                SocketChannel c = server.accept();
                if (open.size() >= MAX_CONNECTIONS) {
                    tooMany(c);
                    continue;
                }
                open.add(c);
                Thread.ofVirtual().start(() -> {
                    try {
                        serve(c);
                    } finally {
                        open.remove(c);
                        closeQuietly(c);
                    }
                });
            } catch (IOException e) {
                if (!closed) {
                    EgressBodies.sleepQuietly(50); // e.g. no file descriptor free now
                }
            }
        }
    }

    /** Answers a connection over {@link #MAX_CONNECTIONS} 503 and closes it (its few bytes fit the socket's buffer). */
    private void tooMany(SocketChannel c) {
        log.refusedConnection();
        try (c) {
            c.write(ByteBuffer.wrap(("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)));
        } catch (IOException e) {
            // gone already
        }
    }

    /** Serves requests on one agent connection until either side closes. */
    private void serve(SocketChannel c) {
        try (InputStream in = new BufferedInputStream(Channels.newInputStream(c));
             OutputStream out = Channels.newOutputStream(c)) {
            while (!closed) {
                long t0 = System.nanoTime();
                String requestLine;
                List<String[]> headers;
                try {
                    requestLine = HttpHead.readLine(in, HttpHead.MAX_REQUEST_LINE);
                    while (requestLine != null && requestLine.isEmpty()) {
                        requestLine = HttpHead.readLine(in, HttpHead.MAX_REQUEST_LINE);
                    }
                    if (requestLine == null) {
                        return;
                    }
                } catch (HttpHead.TooLong e) {
                    refuse(out, "?", "(request line)", 414, "request lines are limited to "
                            + HttpHead.MAX_REQUEST_LINE + " bytes", t0);
                    lingeringClose(c, in);
                    return;
                }
                try {
                    headers = HttpHead.readHeaders(in);
                } catch (HttpHead.TooLong e) {
                    String[] rl = requestLine.split(" ");
                    refuse(out, rl[0], rl.length > 1 ? pathOf(rl[1]) : "?", 431, "request heads are limited to "
                            + HttpHead.MAX_HEAD_BYTES + " bytes in " + HttpHead.MAX_HEADERS + " lines", t0);
                    lingeringClose(c, in);
                    return;
                }
                if (!exchange(requestLine, headers, in, out, t0)) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the agent or the upstream went away: the connection ends
        }
    }

    /**
     * After a refusal with the request still arriving: ends the answer and reads (at most 256 KiB of) what the agent
     * still sends, so the close does not reset the connection before the agent has read why.
     */
    private static void lingeringClose(SocketChannel c, InputStream in) throws IOException {
        c.shutdownOutput();
        byte[] buf = new byte[8192];
        long left = 256 * 1024;
        int n;
        while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) >= 0) {
            left -= n;
        }
    }

    /** Handles one request; false when the connection must close. */
    private boolean exchange(String requestLine, List<String[]> headers, InputStream in, OutputStream out, long t0)
            throws IOException {
        String[] rl = requestLine.split(" ");
        if (rl.length != 3 || !rl[2].startsWith("HTTP/1.")) {
            refuse(out, "?", "?", 400, "not an HTTP/1.x request line", t0);
            return false;
        }
        String method = rl[0];
        String target = rl[1];
        String path = pathOf(target);
        EgressPolicy.Refusal no = policy.refusal(method, target, path, headers);
        if (no != null) {
            refuse(out, no.method(), no.path(), no.status(), no.why(), t0);
            return false;
        }
        boolean keepAlive = !"HTTP/1.0".equals(rl[2])
                && !HttpHead.tokens(HttpHead.header(headers, "connection")).contains("close");
        String te = HttpHead.header(headers, "transfer-encoding");
        String cl = HttpHead.header(headers, "content-length");
        InputStream body;
        long length;
        if (te != null) {
            if (!"chunked".equalsIgnoreCase(te.strip())) {
                refuse(out, method, path, 400, "transfer-encoding other than chunked is refused", t0);
                return false;
            }
            body = new EgressBodies.ChunkedInputStream(in);
            length = -1;
        } else {
            length = cl == null ? 0 : Long.parseLong(cl.strip());
            body = new EgressBodies.BoundedInputStream(in, length);
        }
        if ("100-continue".equalsIgnoreCase(HttpHead.header(headers, "expect"))) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
        EgressMeter.Tap tap = null;
        if (EgressMeter.isModelCall(method, path)) {
            String over = meter.admit();
            if (over != null) {
                refuse(out, method, path, 403, "the attempt's budget is spent (" + over + ")", t0);
                return false;
            }
        }
        HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(upstream.getScheme() + "://"
                + upstream.getRawAuthority() + target));
        List<String> named = HttpHead.tokens(HttpHead.header(headers, "connection"));
        for (String[] h : headers) {
            if (EgressPolicy.forwards(h[0].toLowerCase(Locale.ROOT), named)) {
                try {
                    rb.header(h[0], h[1]);
                } catch (IllegalArgumentException e) {
                    // a header the JDK client sets itself
                }
            }
        }
        InputStream bodyIn = body;
        HttpRequest.BodyPublisher pub = length == 0 ? HttpRequest.BodyPublishers.noBody()
                : length > 0 ? HttpRequest.BodyPublishers.fromPublisher(
                        HttpRequest.BodyPublishers.ofInputStream(() -> bodyIn), length)
                : HttpRequest.BodyPublishers.ofInputStream(() -> bodyIn);
        HttpResponse<InputStream> resp;
        try {
            resp = client.send(rb.method(method, pub).build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            refuse(out, method, path, 502, "upstream " + upstream + " unreachable: " + e.getMessage(), t0);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        body.transferTo(OutputStream.nullOutputStream()); // whatever the client did not read
        if (EgressMeter.isModelCall(method, path) && resp.statusCode() / 100 == 2) { // errors carry no usage
            tap = meter.tap(resp.headers().firstValue("content-type").orElse(null),
                    resp.headers().firstValue("content-encoding").orElse(null));
        }
        long bytes;
        try {
            bytes = relay(method, resp, out, keepAlive, tap);
        } finally {
            if (tap != null) {
                tap.close();
            }
        }
        log.add(new Request(method, EgressLog.shortPath(path), resp.statusCode(), Math.max(bytes, 0),
                (System.nanoTime() - t0) / 1_000_000));
        return keepAlive && bytes >= 0;
    }

    /** Writes {@code resp} to the agent; the body bytes, or -1 when the response ended the connection. */
    private static long relay(String method, HttpResponse<InputStream> resp, OutputStream out, boolean keepAlive,
                              EgressMeter.Tap tap) throws IOException {
        int status = resp.statusCode();
        Map<String, List<String>> hs = resp.headers().map();
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(EgressBodies.reason(status))
                .append("\r\n");
        String cl = null;
        boolean chunked = false;
        for (Map.Entry<String, List<String>> e : hs.entrySet()) {
            String k = e.getKey().toLowerCase(Locale.ROOT);
            if (k.equals("content-length")) {
                cl = e.getValue().get(0);
            } else if (k.equals("transfer-encoding")) {
                chunked = true;
            }
            if (EgressPolicy.hopByHop(k) || k.startsWith(":")) {
                continue;
            }
            for (String v : e.getValue()) {
                head.append(e.getKey()).append(": ").append(v).append("\r\n");
            }
        }
        boolean noBody = "HEAD".equalsIgnoreCase(method) || status == 204 || status == 304 || status < 200;
        try (InputStream body = resp.body()) {
            if (noBody) {
                if (cl != null) {
                    head.append("Content-Length: ").append(cl).append("\r\n");
                }
                writeHead(out, head, keepAlive);
                body.transferTo(OutputStream.nullOutputStream());
                return 0;
            }
            boolean fixed = cl != null && !chunked;
            head.append(fixed ? "Content-Length: " + cl.strip() : "Transfer-Encoding: chunked").append("\r\n");
            writeHead(out, head, keepAlive);
            byte[] buf = new byte[16 * 1024];
            long total = 0;
            int n;
            while ((n = body.read(buf)) >= 0) {
                if (n == 0) {
                    continue;
                }
                if (!fixed) {
                    out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                }
                out.write(buf, 0, n);
                if (tap != null) {
                    tap.write(buf, 0, n);
                }
                if (!fixed) {
                    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                out.flush(); // streamed: every piece reaches the agent as it comes
                total += n;
            }
            if (!fixed) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.flush();
            return total;
        }
    }

    private static void writeHead(OutputStream out, StringBuilder head, boolean keepAlive) throws IOException {
        head.append(keepAlive ? "" : "Connection: close\r\n").append("\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static String pathOf(String target) {
        return target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
    }

    private void refuse(OutputStream out, String method, String path, int status, String why, long t0)
            throws IOException {
        byte[] body = ("isobench egress proxy: " + why + "\n").getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + EgressBodies.reason(status) + "\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
        log.add(new Request(method, EgressLog.shortPath(path), status, body.length,
                (System.nanoTime() - t0) / 1_000_000)); // first: the agent may be gone before it reads this
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // already gone
        }
    }
}
