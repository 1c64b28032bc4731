package io.isobench.proc;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The host's side of a confined server's door: listens on {@code 127.0.0.1:PORT} (where isobench's readiness probe,
 * load generator, correctness probes and {@code /metrics} scraper connect, as to any local server) and relays each
 * connection to the Unix socket that {@link NetBridge} serves inside the sandbox. A connection made before the socket
 * exists is closed at once (the server is not up yet). Closing it closes the listener; open relays end with the
 * sandbox.
 */
public final class HostBridge implements AutoCloseable {

    private final ServerSocketChannel listener;
    private final Path socket;

    private HostBridge(ServerSocketChannel listener, Path socket) {
        this.listener = listener;
        this.socket = socket;
    }

    /** Listens on {@code 127.0.0.1:port} and relays to {@code socket}. */
    public static HostBridge open(int port, Path socket) throws IOException {
        ServerSocketChannel l = ServerSocketChannel.open();
        try {
            l.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            l.close();
            throw e;
        }
        HostBridge b = new HostBridge(l, socket);
        Thread.ofPlatform().daemon().name("isobench-host-bridge-" + port).start(b::accept);
        return b;
    }

    private void accept() {
        while (true) {
            SocketChannel client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            SocketChannel inside;
            try {
                inside = SocketChannel.open(StandardProtocolFamily.UNIX);
            } catch (IOException e) {
                NetBridge.close(client);
                continue;
            }
            try {
                inside.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                NetBridge.close(inside);
                NetBridge.close(client); // the server is not up yet: the readiness probe tries again
                continue;
            }
            AtomicInteger ended = new AtomicInteger();
            NetBridge.pump(client, inside, ended);
            NetBridge.pump(inside, client, ended);
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            // closing
        }
    }
}
