package io.isobench.agent;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The egress proxy against a real HTTP server on loopback (the JDK's), spoken to through its real UNIX socket with
 * hand-written requests: the Host is rewritten, bodies (chunked and fixed) and keep-alive pass, server-sent events
 * arrive one by one while the upstream is still writing, and every way to name another host or path is refused
 * without the upstream seeing it.
 */
class EgressProxyTest {

    @TempDir
    Path dir;

    private HttpServer upstream;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch releaseSecondEvent = new CountDownLatch(1);
    private EgressProxy proxy;

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI() + " host=" + ex.getRequestHeaders().getFirst("Host")
                    + " auth=" + ex.getRequestHeaders().getFirst("Authorization") + " body=" + new String(body, StandardCharsets.UTF_8));
            if (ex.getRequestURI().getPath().endsWith("/stream")) {
                ex.getResponseHeaders().add("Content-Type", "text/event-stream");
                ex.sendResponseHeaders(200, 0);
                OutputStream o = ex.getResponseBody();
                o.write("data: one\n\n".getBytes(StandardCharsets.UTF_8));
                o.flush();
                try {
                    releaseSecondEvent.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                o.write("data: two\n\n".getBytes(StandardCharsets.UTF_8));
                o.close();
                return;
            }
            byte[] out = ("echo " + new String(body, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        upstream.start();
        proxy = EgressProxy.start(dir.resolve("egress.sock"),
                "http://127.0.0.1:" + upstream.getAddress().getPort() + "/v1");
    }

    @AfterEach
    void stop() {
        proxy.close();
        upstream.stop(0);
    }

    private SocketChannel connect() throws IOException {
        return SocketChannel.open(UnixDomainSocketAddress.of(proxy.socket()));
    }

    private static void send(SocketChannel c, String text) throws IOException {
        OutputStream o = Channels.newOutputStream(c);
        o.write(text.getBytes(StandardCharsets.ISO_8859_1));
        o.flush();
    }

    /** One response: status line, headers, then the body as framed (raw). */
    private static String response(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        String line;
        long length = -1;
        boolean chunked = false;
        while ((line = HttpHead.readLine(in)) != null && !line.isEmpty()) {
            sb.append(line).append('\n');
            String l = line.toLowerCase();
            if (l.startsWith("content-length:")) {
                length = Long.parseLong(l.substring(15).strip());
            }
            if (l.startsWith("transfer-encoding: chunked")) {
                chunked = true;
            }
        }
        sb.append('\n');
        if (chunked) {
            while (true) {
                long n = Long.parseLong(HttpHead.readLine(in).strip(), 16);
                if (n == 0) {
                    HttpHead.readLine(in);
                    break;
                }
                sb.append(new String(in.readNBytes((int) n), StandardCharsets.UTF_8));
                HttpHead.readLine(in);
            }
        } else if (length >= 0) {
            sb.append(new String(in.readNBytes((int) length), StandardCharsets.UTF_8));
        } else {
            sb.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        return sb.toString();
    }

    @Test
    @Timeout(30)
    void forwardsToTheOneUpstreamWithItsHostAndKeepsTheConnection() throws IOException {
        int port = upstream.getAddress().getPort();
        try (SocketChannel c = connect()) {
            InputStream in = new BufferedInputStream(Channels.newInputStream(c));
            send(c, "POST /v1/messages?key=QUERYSECRET HTTP/1.1\r\nHost: evil.example:443\r\nAuthorization: Bearer sk-test-123\r\n"
                    + "Content-Length: 5\r\n\r\nhello");
            String first = response(in);
            send(c, "POST /v1/chat HTTP/1.1\r\nHost: other-host.invalid\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n");
            String second = response(in);
            assertThat(first).startsWith("HTTP/1.1 200 ").endsWith("echo hello");
            assertThat(second).startsWith("HTTP/1.1 200 ").endsWith("echo abcdefg");
        }
        assertThat(seen).containsExactly(
                "POST /v1/messages?key=QUERYSECRET host=127.0.0.1:" + port + " auth=Bearer sk-test-123 body=hello",
                "POST /v1/chat host=127.0.0.1:" + port + " auth=null body=abcdefg");
        settled(proxy, 2);
        assertThat(proxy.log()).extracting(EgressProxy.Request::path).containsExactly("/v1/messages", "/v1/chat");
        assertThat(proxy.log().toString()).doesNotContain("QUERYSECRET").doesNotContain("sk-test");
        assertThat(proxy.log().get(0).status()).isEqualTo(200);
        assertThat(proxy.log().get(0).bytes()).isEqualTo("echo hello".length());
    }

    @Test
    @Timeout(30)
    void serverSentEventsFlowOneByOne() throws IOException {
        try (SocketChannel c = connect()) {
            InputStream in = new BufferedInputStream(Channels.newInputStream(c));
            send(c, "GET /v1/stream HTTP/1.1\r\nHost: x\r\n\r\n");
            StringBuilder head = new StringBuilder();
            String line;
            while (!(line = HttpHead.readLine(in)).isEmpty()) {
                head.append(line).append('\n');
            }
            assertThat(head.toString()).containsIgnoringCase("text/event-stream");
            // the first event arrives while the upstream still holds the second back
            String size = HttpHead.readLine(in);
            String event = new String(in.readNBytes(Integer.parseInt(size, 16)), StandardCharsets.UTF_8);
            assertThat(event).isEqualTo("data: one\n\n");
            assertThat(releaseSecondEvent.getCount()).isEqualTo(1);
            releaseSecondEvent.countDown();
            HttpHead.readLine(in);
            String rest = new String(in.readNBytes(Integer.parseInt(HttpHead.readLine(in), 16)), StandardCharsets.UTF_8);
            assertThat(rest).isEqualTo("data: two\n\n");
        }
    }

    @Test
    @Timeout(30)
    void refusesEveryOtherHostPathAndProtocol() throws IOException {
        List<String> attempts = List.of(
                "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n",
                "GET http://evil.example/v1/messages HTTP/1.1\r\nHost: evil.example\r\n\r\n",
                "GET http://127.0.0.1:1/v1/x HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /admin HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/../admin HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/%2e%2e/admin HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1x HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET * HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v1/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
        for (String a : attempts) {
            try (SocketChannel c = connect()) {
                send(c, a);
                String r = response(new BufferedInputStream(Channels.newInputStream(c)));
                assertThat(r).as(a).matches("(?s)HTTP/1.1 40[35] .*isobench egress proxy: .*\n");
            }
        }
        assertThat(seen).as("nothing reached the upstream").isEmpty();
        settled(proxy, attempts.size());
        assertThat(proxy.log()).hasSize(attempts.size()).allMatch(r -> r.status() == 403 || r.status() == 405);
        assertThat(proxy.log().get(0).status()).isEqualTo(405);
    }

    @Test
    void refusesABaseUrlThatIsNotHttp() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EgressProxy.start(dir.resolve("x.sock"), "ftp://h/"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fix:");
    }

    @Test
    @Timeout(30)
    void anUnreachableUpstreamIsA502() throws IOException {
        try (EgressProxy dead = EgressProxy.start(dir.resolve("dead.sock"), "http://127.0.0.1:1");
             SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(dead.socket()));
            send(c, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(response(new BufferedInputStream(Channels.newInputStream(c)))).startsWith("HTTP/1.1 502 ");
        }
    }

    /** A PKCS12 key store with a self-signed certificate for {@code san} (made by the JDK's keytool). */
    private KeyStore selfSigned(String name, String san) throws Exception {
        Path ks = dir.resolve(name + ".p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-keyalg", "EC", "-alias", "up", "-keystore", ks.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit", "-dname", "CN=" + name, "-ext", "SAN=" + san, "-validity", "2")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        KeyStore k = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            k.load(in, "changeit".toCharArray());
        }
        return k;
    }

    private static SSLContext context(KeyStore keys, KeyStore trust)
            throws Exception {
        SSLContext c = SSLContext.getInstance("TLS");
        KeyManager[] km = null;
        if (keys != null) {
            var kmf = KeyManagerFactory.getInstance("PKIX");
            kmf.init(keys, "changeit".toCharArray());
            km = kmf.getKeyManagers();
        }
        TrustManager[] tm = null;
        if (trust != null) {
            var tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(trust);
            tm = tmf.getTrustManagers();
        }
        c.init(km, tm, null);
        return c;
    }

    private String viaTls(KeyStore serverKeys, SSLContext proxyTrust, String name)
            throws Exception {
        com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(
                new InetSocketAddress("127.0.0.1", 0), 0);
        https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(context(serverKeys, null)));
        https.createContext("/", ex -> {
            byte[] out = ("tls host=" + ex.getRequestHeaders().getFirst("Host")).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        https.start();
        try (EgressProxy tls = EgressProxy.start(dir.resolve(name + ".sock"),
                "https://127.0.0.1:" + https.getAddress().getPort() + "/v1", proxyTrust);
             SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(tls.socket()))) {
            send(c, "GET /v1/x HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
            return response(new BufferedInputStream(Channels.newInputStream(c)));
        } finally {
            https.stop(0);
        }
    }

    @Test
    @Timeout(60)
    void httpsUpstreamsAreCheckedLikeAnyTlsClient() throws Exception {
        KeyStore good = selfSigned("good", "ip:127.0.0.1");
        KeyStore wrongName = selfSigned("wrong", "dns:other.example");
        // trusted and naming 127.0.0.1: forwarded over TLS
        assertThat(viaTls(good, context(null, good), "trusted")).startsWith("HTTP/1.1 200 ").contains("tls host=127.0.0.1:");
        // the JDK's default trust store does not know a self-signed certificate: refused
        assertThat(viaTls(good, null, "untrusted")).startsWith("HTTP/1.1 502 ");
        // trusted, but issued for another name: the host-name check refuses it
        assertThat(viaTls(wrongName, context(null, wrongName), "misnamed")).startsWith("HTTP/1.1 502 ");
    }

    /**
     * Waits until the proxy has logged {@code n} requests: a request is logged when its handler finishes, which may be
     * a moment after the client has read the whole response (at most 5 s).
     */
    private static void settled(EgressProxy proxy, int n) {
        for (int i = 0; i < 500 && proxy.log().size() < n; i++) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
