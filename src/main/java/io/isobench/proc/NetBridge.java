package io.isobench.proc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one door of a confined server (docs/security.md, "Measured arms"): runs inside the sandbox's network namespace,
 * whose only interface is its own loopback. It starts the server command as its child (same process group, output
 * inherited), listens on a Unix socket in the arm's scratch folder (bound in from the host) and relays each
 * connection to {@code 127.0.0.1:PORT} inside the namespace. isobench's load generator reaches that socket through
 * {@link HostBridge}; nothing else crosses. Exits with the server's exit code ({@value #CANNOT_EXECUTE} when it cannot
 * start).
 *
 * <p>Deliberately one class without nested classes: isobench copies this class file alone into the sandbox
 * ({@link Sandbox#bridgeDir}) and runs it with the host's JDK.
 *
 * <p>Usage: {@code NetBridge SOCKET PORT -- COMMAND...}
 */
public final class NetBridge {

    /** Exit code (and the line printed) when the server command cannot be started. */
    static final int CANNOT_EXECUTE = 127;
    static final String CANNOT_EXECUTE_LINE = "isobench-sandbox: cannot execute ";
    private static final int BUFFER_BYTES = 64 * 1024;

    private NetBridge() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || !"--".equals(args[2])) {
            System.err.println("usage: NetBridge SOCKET PORT -- COMMAND...");
            System.exit(2);
        }
        Path socket = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        List<String> command = Arrays.asList(args).subList(3, args.length);
        Process server;
        try {
            server = new ProcessBuilder(command).inheritIO().start();
        } catch (IOException e) {
            System.err.println(CANNOT_EXECUTE_LINE + command.get(0) + ": " + e.getMessage());
            System.exit(CANNOT_EXECUTE);
            return;
        }
        // the group's SIGTERM reaches the server too: give it its grace before this JVM (the namespace's last
        // process) ends and takes the namespace with it
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        Files.deleteIfExists(socket);
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        listener.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        Thread.ofPlatform().daemon().name("isobench-bridge-accept").start(() -> accept(listener, port));
        int code = server.waitFor();
        listener.close();
        Files.deleteIfExists(socket);
        System.exit(code);
    }

    /** Accepts connections until the listener is closed. */
    static void accept(ServerSocketChannel listener, int port) {
        while (true) {
            SocketChannel outside;
            try {
                outside = listener.accept();
            } catch (IOException e) {
                return;
            }
            relay(outside, port);
        }
    }

    /** Relays one connection to the server's port inside the namespace; closes it when the server does not answer. */
    static void relay(SocketChannel outside, int port) {
        SocketChannel inside;
        try {
            inside = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        } catch (IOException e) {
            close(outside); // not listening yet: the readiness probe tries again
            return;
        }
        AtomicInteger ended = new AtomicInteger();
        pump(outside, inside, ended);
        pump(inside, outside, ended);
    }

    /**
     * Copies {@code from} to {@code to} on a virtual thread of its own. At {@code from}'s end the other side's output
     * is shut down (a half-close passes through); both are closed once both directions ended, or at once on an error.
     */
    static void pump(SocketChannel from, SocketChannel to, AtomicInteger ended) {
        Thread.ofVirtual().name("isobench-bridge-pump").start(() -> {
            ByteBuffer buf = ByteBuffer.allocate(BUFFER_BYTES);
            try {
                while (from.read(buf) >= 0) {
                    buf.flip();
                    while (buf.hasRemaining()) {
                        to.write(buf);
                    }
                    buf.clear();
                }
                to.shutdownOutput();
                if (ended.incrementAndGet() < 2) {
                    return;
                }
            } catch (IOException e) {
                // either side gone
            }
            close(from);
            close(to);
        });
    }

    static void close(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing
        }
    }
}
