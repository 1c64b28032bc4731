package io.isobench.guard;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * The wall around every write isobench does inside an arm's worktree (fix recipes, probe files): a path is resolved
 * to its real path, links followed, and refused when that leaves the worktree, whether by {@code ..} or through a
 * symbolic link a patch planted. Writes go to a temporary file in the target's real folder, renamed over the target:
 * a link put in place meanwhile is replaced, never followed (docs/security.md).
 */
public final class InsideTree {

    /** A path that leaves the tree; the message names the path and where it leads. */
    public static final class Outside extends AccessDeniedException {
        Outside(String rel, String why) {
            super(rel, null, why);
        }

        @Override
        public String getMessage() {
            return getFile() + " " + getReason();
        }
    }

    private InsideTree() {
    }

    /**
     * The real path {@code rel} names inside {@code root} (existing: every link followed; new: its folder's real path
     * and its name).
     *
     * @throws Outside when it leaves {@code root}
     */
    public static Path resolve(Path root, String rel) throws IOException {
        Path realRoot = root.toRealPath();
        Path p;
        try {
            p = realRoot.resolve(rel).normalize();
        } catch (InvalidPathException e) {
            throw new Outside(rel, "is not a valid path (" + e.getReason() + ")");
        }
        if (Path.of(rel).isAbsolute() || !p.startsWith(realRoot) || p.equals(realRoot)) {
            throw new Outside(rel, "is not a path inside the worktree");
        }
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            if (Files.isSymbolicLink(p) && !Files.exists(p)) {
                throw new Outside(rel, "is a dangling link to " + Files.readSymbolicLink(p));
            }
            Path real = p.toRealPath();
            if (!real.startsWith(realRoot)) {
                throw new Outside(rel, "leads to " + real + ", outside the worktree (through a symbolic link)");
            }
            return real;
        }
        Path parent = p.getParent();
        while (parent != null && !Files.exists(parent, LinkOption.NOFOLLOW_LINKS)) {
            parent = parent.getParent();
        }
        Path realParent = parent == null ? realRoot : parent.toRealPath();
        if (!realParent.startsWith(realRoot)) {
            throw new Outside(rel, "is under " + realParent + ", outside the worktree (through a symbolic link)");
        }
        return realParent.resolve(parent == null ? p : parent.relativize(p)).normalize();
    }

    /**
     * Writes {@code bytes} to {@code rel} inside {@code root} (created or replaced, permissions kept): to a temporary
     * file beside the real target, then renamed over it.
     *
     * @throws Outside when {@code rel} leaves {@code root}
     */
    public static void write(Path root, String rel, byte[] bytes) throws IOException {
        Path target = resolve(root, rel);
        Files.createDirectories(target.getParent());
        Path tmp = Files.createTempFile(target.getParent(), ".isobench-", ".tmp");
        try {
            Files.write(tmp, bytes);
            if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS);
                    Files.setPosixFilePermissions(tmp, perms);
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: the default permissions
                }
            }
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        if (!target.getParent().toRealPath().startsWith(root.toRealPath())) {
            throw new Outside(rel, "was moved outside the worktree while it was written");
        }
    }
}
