package io.isobench.agent;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.URLDecoder;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The host side of a docker sandbox's only way out (docs/agents.md, "Sandbox"): an HTTP/1.1 reverse proxy listening
 * on a UNIX socket, forwarding every request to exactly one upstream base URL ({@code http} or {@code https}; TLS with
 * the JDK's normal certificate and host name checks). The request's {@code Host} is always the upstream's, whatever
 * the agent wrote; responses stream back as they come (server-sent events flow chunk by chunk, no body is held
 * whole); keep-alive, chunked and {@code Content-Length} bodies in both directions. Refused, with a one-line reason
 * and the connection closed: {@code CONNECT} (405), a request target that is not a path (absolute-form
 * {@code http://other/…}, authority-form, {@code *}), a path outside the upstream's path prefix or holding
 * {@code .}/{@code ..} segments, and protocol upgrades (403). Every request is logged (method, path without the
 * query, status, response body bytes, milliseconds) — never bodies, queries or headers, which may hold keys.
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

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection",
            "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade", "host",
            "content-length", "expect");
    private static final int MAX_HEAD_BYTES = 64 * 1024;

    private final URI upstream;
    private final String prefix;
    private final Path socket;
    private final ServerSocketChannel server;
    private final HttpClient client;
    private final List<Request> log = new CopyOnWriteArrayList<>();
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private EgressProxy(URI upstream, Path socket, ServerSocketChannel server, javax.net.ssl.SSLContext tls) {
        this.upstream = upstream;
        String p = upstream.getRawPath() == null ? "" : upstream.getRawPath();
        this.prefix = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
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
        return start(socket, upstreamBase, null);
    }

    /** {@link #start(Path, String)} trusting {@code tls}'s certificates instead of the JDK's (tests); null: the JDK's. */
    static EgressProxy start(Path socket, String upstreamBase, javax.net.ssl.SSLContext tls) throws IOException {
        URI up = URI.create(upstreamBase);
        if (!"http".equals(up.getScheme()) && !"https".equals(up.getScheme()) || up.getHost() == null
                || up.getRawQuery() != null || up.getRawFragment() != null) {
            throw new IllegalArgumentException("egress upstream '" + upstreamBase
                    + "': not an http(s) base URL (fix: e.g. https://api.anthropic.com or http://127.0.0.1:8080/v1)");
        }
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ch.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        EgressProxy proxy = new EgressProxy(up, socket, ch, tls);
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

    /** The requests so far, in the order they finished. */
    public List<Request> log() {
        return List.copyOf(log);
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
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                SocketChannel c = server.accept();
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
                    sleepQuietly();
                }
            }
        }
    }

    /** Serves requests on one agent connection until either side closes. */
    private void serve(SocketChannel c) {
        try (InputStream in = new BufferedInputStream(Channels.newInputStream(c));
             OutputStream out = Channels.newOutputStream(c)) {
            while (!closed) {
                String requestLine = readLine(in);
                while (requestLine != null && requestLine.isEmpty()) {
                    requestLine = readLine(in);
                }
                if (requestLine == null) {
                    return;
                }
                long t0 = System.nanoTime();
                List<String[]> headers = readHeaders(in);
                if (!exchange(requestLine, headers, in, out, t0)) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the agent or the upstream went away: the connection ends
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
        String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
        if ("CONNECT".equalsIgnoreCase(method)) {
            refuse(out, method, target, 405, "CONNECT is refused: this proxy reaches only " + upstream, t0);
            return false;
        }
        if (header(headers, "upgrade") != null || tokens(header(headers, "connection")).contains("upgrade")) {
            refuse(out, method, path, 403, "protocol upgrades are refused", t0);
            return false;
        }
        if (!target.startsWith("/")) {
            refuse(out, method, "(not a path)", 403, "request targets must be a path on " + upstream
                    + " (absolute-form, authority-form and * are refused)", t0);
            return false;
        }
        String why = pathProblem(path);
        if (why != null) {
            refuse(out, method, path, 403, why, t0);
            return false;
        }
        boolean keepAlive = !"HTTP/1.0".equals(rl[2]) && !tokens(header(headers, "connection")).contains("close");
        String te = header(headers, "transfer-encoding");
        String cl = header(headers, "content-length");
        InputStream body;
        long length;
        if (te != null) {
            if (!"chunked".equalsIgnoreCase(te.strip())) {
                refuse(out, method, path, 400, "transfer-encoding other than chunked is refused", t0);
                return false;
            }
            body = new ChunkedInputStream(in);
            length = -1;
        } else {
            length = cl == null ? 0 : Long.parseLong(cl.strip());
            body = new BoundedInputStream(in, length);
        }
        if ("100-continue".equalsIgnoreCase(header(headers, "expect"))) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
        HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(upstream.getScheme() + "://"
                + upstream.getRawAuthority() + target));
        for (String[] h : headers) {
            if (!HOP_BY_HOP.contains(h[0].toLowerCase(Locale.ROOT))) {
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
        long bytes = relay(method, resp, out, keepAlive);
        log.add(new Request(method, path, resp.statusCode(), Math.max(bytes, 0), (System.nanoTime() - t0) / 1_000_000));
        return keepAlive && bytes >= 0;
    }

    /** Writes {@code resp} to the agent; the body bytes, or -1 when the response ended the connection. */
    private static long relay(String method, HttpResponse<InputStream> resp, OutputStream out, boolean keepAlive)
            throws IOException {
        int status = resp.statusCode();
        Map<String, List<String>> hs = resp.headers().map();
        StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(' ').append(reason(status))
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
            if (HOP_BY_HOP.contains(k) || k.startsWith(":")) {
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

    /** Why {@code path} may not be forwarded, or null. */
    String pathProblem(String path) {
        String decoded;
        try {
            decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return "the path is not valid percent-encoding";
        }
        for (String seg : decoded.split("/", -1)) {
            if (seg.equals(".") || seg.equals("..")) {
                return "paths with . or .. segments are refused";
            }
        }
        if (decoded.contains("\\") || decoded.indexOf('\0') >= 0) {
            return "the path holds a backslash or NUL";
        }
        if (!prefix.isEmpty() && !path.equals(prefix) && !path.startsWith(prefix + "/")) {
            return "the path is outside " + upstream + " (only " + prefix + "/… is forwarded)";
        }
        return null;
    }

    private void refuse(OutputStream out, String method, String path, int status, String why, long t0)
            throws IOException {
        byte[] body = ("isobench egress proxy: " + why + "\n").getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + reason(status) + "\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
        log.add(new Request(method, path, status, body.length, (System.nanoTime() - t0) / 1_000_000));
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 204 -> "No Content";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }

    private static String header(List<String[]> headers, String name) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                return h[1];
            }
        }
        return null;
    }

    private static List<String> tokens(String value) {
        List<String> out = new ArrayList<>();
        if (value != null) {
            for (String t : value.split(",")) {
                out.add(t.strip().toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    private static List<String[]> readHeaders(InputStream in) throws IOException {
        List<String[]> out = new ArrayList<>();
        int size = 0;
        String line;
        while ((line = readLine(in)) != null && !line.isEmpty()) {
            size += line.length();
            int colon = line.indexOf(':');
            if (size > MAX_HEAD_BYTES || colon <= 0) {
                throw new IOException("bad request head");
            }
            out.add(new String[]{line.substring(0, colon).strip(), line.substring(colon + 1).strip()});
        }
        return out;
    }

    /** One CRLF- (or LF-) terminated line, ISO-8859-1; null at end of stream. */
    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                break;
            }
            if (b.size() > MAX_HEAD_BYTES) {
                throw new IOException("line too long");
            }
            b.write(c);
        }
        if (c < 0 && b.size() == 0) {
            return null;
        }
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // already gone
        }
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Exactly {@code limit} bytes of the underlying stream (never closes it). */
    private static final class BoundedInputStream extends InputStream {
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
    private static final class ChunkedInputStream extends InputStream {
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
                String size = readLine(in);
                if (size == null) {
                    throw new IOException("chunked body ended early");
                }
                int semi = size.indexOf(';');
                left = Long.parseLong((semi >= 0 ? size.substring(0, semi) : size).strip(), 16);
                if (left == 0) {
                    String t;
                    while ((t = readLine(in)) != null && !t.isEmpty()) {
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
                readLine(in); // the chunk's CRLF
            }
            return n;
        }

        @Override
        public void close() {
        }
    }
}
