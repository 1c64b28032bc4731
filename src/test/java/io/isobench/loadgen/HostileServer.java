package io.isobench.loadgen;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An OpenAI-style server that answers every completion as a hostile (or broken) server would, for the issue-15 tests:
 * huge streamed responses, one endless SSE line, a huge unstreamed body, an error body full of terminal escapes.
 * Every response ends with the connection closed (no keep-alive).
 */
public final class HostileServer implements AutoCloseable {

    public enum Mode {
        /** {@code bytes} of streamed text in 256 KiB chunks (a few hundred chunks), then usage and [DONE]. */
        HUGE_STREAM,
        /** One SSE line of {@code bytes} without a newline. */
        ENDLESS_LINE,
        /** An unstreamed 200 JSON body carrying {@code bytes} of text. */
        HUGE_BODY,
        /** HTTP 500 whose body clears the screen, sets the window title and rings the bell. */
        ESCAPE_ERROR,
        /** {@code 100 Continue} and {@code 103 Early Hints} first, then what {@link #HUGE_STREAM} sends. */
        INTERIM
    }

    /** Two interim responses (RFC 9110 §15.2) before the real one. */
    public static final String INTERIM_HEADS = "HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n";

    public static final String ESCAPES = "\u001b[2J\u001b]0;pwned\u0007\u001b[31mred\u009b0m";

    private final ServerSocket server;
    private final Mode mode;
    private final long bytes;
    private volatile boolean running = true;

    public HostileServer(Mode mode, long bytes) throws IOException {
        this.mode = mode;
        this.bytes = bytes;
        server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("hostile-accept").start(this::accept);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (running) {
            try {
                Socket s = server.accept();
                Thread.ofPlatform().daemon().name("hostile-conn").start(() -> serve(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = new BufferedInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
            String head = readHead(in);
            int cl = 0;
            for (String line : head.split("\r\n")) {
                if (line.toLowerCase().startsWith("content-length:")) {
                    cl = Integer.parseInt(line.substring(15).strip());
                }
            }
            in.readNBytes(cl);
            if (mode == Mode.INTERIM) {
                out.write(INTERIM_HEADS.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            if (!head.startsWith("POST /v1/completions")) {
                out.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes());
                return;
            }
            switch (mode) {
                case HUGE_STREAM, INTERIM -> {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n").getBytes());
                    char[] text = new char[256 * 1024];
                    Arrays.fill(text, 'x');
                    byte[] event = ("data: {\"choices\":[{\"index\":0,\"text\":\"" + new String(text) + "\"}]}\n\n")
                            .getBytes(StandardCharsets.US_ASCII);
                    for (long sent = 0; sent < bytes; sent += text.length) {
                        out.write(event);
                    }
                    out.write(("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":128}}\n\n"
                            + "data: [DONE]\n\n").getBytes());
                }
                case ENDLESS_LINE -> {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                            + "data: {\"choices\":[{\"text\":\"").getBytes());
                    byte[] block = new byte[1 << 20];
                    Arrays.fill(block, (byte) 'y');
                    for (long sent = 0; sent < bytes; sent += block.length) {
                        out.write(block);
                    }
                    out.write("\"}]}\n\ndata: [DONE]\n\n".getBytes());
                }
                case HUGE_BODY -> {
                    byte[] pre = "{\"choices\":[{\"text\":\"".getBytes();
                    byte[] post = "\"}],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":128}}".getBytes();
                    byte[] block = new byte[1 << 20];
                    Arrays.fill(block, (byte) 'z');
                    long n = (bytes + block.length - 1) / block.length * block.length;
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                            + "Content-Length: " + (pre.length + n + post.length) + "\r\n\r\n").getBytes());
                    out.write(pre);
                    for (long sent = 0; sent < n; sent += block.length) {
                        out.write(block);
                    }
                    out.write(post);
                }
                case ESCAPE_ERROR -> {
                    byte[] body = ("{\"error\": \"" + ESCAPES + " boom\"}").getBytes(StandardCharsets.UTF_8);
                    out.write(("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                            + "Connection: close\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes());
                    out.write(body);
                }
                default -> throw new IllegalStateException();
            }
            out.flush();
        } catch (IOException e) {
            // the client hung up: what a client that refuses a huge response does
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            sb.append((char) c);
            if (sb.length() >= 4 && sb.substring(sb.length() - 4).equals("\r\n\r\n")) {
                break;
            }
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        running = false;
        server.close();
    }
}
