package io.isobench.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/** The {@link Poller} on the JDK's NIO: one {@link Selector}, {@link SocketChannel}s. Any JDK, any platform. */
final class NioPoller extends Poller {

    private final Selector selector;
    private final byte[] readArr = new byte[64 * 1024];
    /** readArr as the channels take it (they read into a direct buffer of their own and copy). */
    private final ByteBuffer readBuf = ByteBuffer.wrap(readArr);
    private Ready target;
    private final Consumer<SelectionKey> onKey = this::key;

    NioPoller() {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a selector: " + e.getMessage(), e);
        }
    }

    @Override
    String name() {
        return "nio";
    }

    @Override
    Sock open(Conn c, InetSocketAddress to) throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            boolean now = ch.connect(to);
            SelectionKey key = ch.register(selector, now ? 0 : SelectionKey.OP_CONNECT, c);
            return new NioSock(ch, key, now);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    int select(Ready r, long timeoutMs) throws IOException {
        target = r;
        return timeoutMs == 0 ? selector.selectNow(onKey) : selector.select(onKey, timeoutMs);
    }

    private void key(SelectionKey k) {
        if (!k.isValid()) {
            return;
        }
        int ops = k.readyOps(); // once: each isXxx() call re-reads it
        int mine = ((ops & SelectionKey.OP_CONNECT) != 0 ? OP_CONNECT : 0)
                | ((ops & SelectionKey.OP_READ) != 0 ? OP_READ : 0)
                | ((ops & SelectionKey.OP_WRITE) != 0 ? OP_WRITE : 0);
        target.ready((Conn) k.attachment(), mine);
    }

    @Override
    void wakeup() {
        selector.wakeup();
    }

    @Override
    byte[] readArray() {
        return readArr;
    }

    @Override
    public void close() {
        try {
            for (SelectionKey k : selector.keys()) {
                k.channel().close();
            }
            selector.close();
        } catch (IOException | RuntimeException ignored) { // closing
        }
    }

    private final class NioSock extends Sock {
        private final SocketChannel ch;
        private final SelectionKey key;
        private final boolean connected;

        NioSock(SocketChannel ch, SelectionKey key, boolean connected) {
            this.ch = ch;
            this.key = key;
            this.connected = connected;
        }

        @Override
        boolean connected() {
            return connected;
        }

        @Override
        void finishConnect() throws IOException {
            ch.finishConnect();
        }

        @Override
        void interest(int ops) {
            key.interestOps(((ops & OP_CONNECT) != 0 ? SelectionKey.OP_CONNECT : 0)
                    | ((ops & OP_READ) != 0 ? SelectionKey.OP_READ : 0)
                    | ((ops & OP_WRITE) != 0 ? SelectionKey.OP_WRITE : 0));
        }

        @Override
        int read() throws IOException {
            readBuf.clear();
            return ch.read(readBuf);
        }

        @Override
        int write(ByteBuffer src) throws IOException {
            return ch.write(src);
        }

        @Override
        boolean isOpen() {
            return ch.isOpen() && key.isValid();
        }

        @Override
        void close() {
            try {
                ch.close();
            } catch (IOException ignored) { // closing: nothing to recover
            }
        }
    }
}
