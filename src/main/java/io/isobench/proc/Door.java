package io.isobench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A confined server's door, both sides (docs/security.md, "Measured arms"): the short-named folder bound into the
 * sandbox or container at {@link Sandbox#NET_DIR} (the socket and {@link NetBridge}'s class file) and the host's
 * {@link HostBridge} on {@code 127.0.0.1:PORT}. Closing it closes the listener and deletes the folder.
 *
 * @param dir    the folder on the host
 * @param bridge the host's side
 * @param port   the server's port (inside, and on the host's loopback)
 */
public record Door(Path dir, HostBridge bridge, int port) implements AutoCloseable {

    /**
     * Opens a door for a server on {@code port}: its folder handed to {@code ids} (null: isobench's own user), or,
     * with {@code anyUser}, open to every uid (a container's user is not known on the host).
     */
    public static Door open(int port, Sandbox.Ids ids, boolean anyUser) throws IOException {
        Path dir = Sandbox.bridgeDir(ids);
        try {
            if (anyUser) {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            }
            return new Door(dir, HostBridge.open(port, dir.resolve(Sandbox.SOCKET)), port);
        } catch (IOException | RuntimeException e) {
            Sandbox.deleteBridgeDir(dir);
            throw e;
        }
    }

    /** What {@link Sandbox#argv} binds and starts for this door, the bridge run by {@code java}. */
    public Sandbox.Bridge sandboxSide(Path java) {
        return new Sandbox.Bridge(dir, port, java);
    }

    @Override
    public void close() {
        bridge.close();
        Sandbox.deleteBridgeDir(dir);
    }
}
