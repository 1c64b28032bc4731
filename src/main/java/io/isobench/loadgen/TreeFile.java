package io.isobench.loadgen;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;

/**
 * A workload file that a task names by a path relative to the arm's worktree (a trace, a sonnet or ShareGPT file),
 * copied into a private folder before the client reads it. The worktree is the arm's: its build and its server (an
 * agent's code, in the agent arm) ran or still run there, and could have put a symbolic link in its place, to any
 * file isobench may read, whose text the client would then send as prompts to that same server. So the path is
 * walked from the worktree one name at a time without following a link ({@link SecureDirectoryStream}, openat with
 * O_NOFOLLOW: no check-then-open race), it must end at a regular file of at most {@link #MAX_BYTES}, and the client
 * reads the copy. A link anywhere on the way, a folder, a device or a larger file is a one-line error; an absent file
 * is {@code null} (the caller's warning and fall-back). docs/security.md, "Files".
 */
final class TreeFile {

    /** Larger than any dataset file read whole (ShareGPT's ~0.7 GB). */
    static final long MAX_BYTES = 2L << 30;

    private TreeFile() {
    }

    /**
     * The private copy (named as the original, in {@code scratch}) of {@code relative} under {@code root}, or null
     * when there is no such file; a path that leaves the tree by {@code ..} or is absolute is not the tree's and is
     * returned resolved, unread.
     */
    static Path copyIn(String flag, Path root, String relative, Path scratch) {
        Path rel = Path.of(relative).normalize();
        if (rel.isAbsolute() || rel.startsWith("..") || rel.toString().isEmpty()) {
            return root.resolve(rel).normalize();
        }
        try (DirectoryStream<Path> top = Files.newDirectoryStream(root)) {
            if (!(top instanceof SecureDirectoryStream<Path> dir)) {
                throw new IllegalStateException("this platform cannot open " + relative + " under " + root
                        + " without following links (no SecureDirectoryStream)");
            }
            return copy(dir, rel, 0, new Where(flag, relative, root), Files.createDirectories(scratch));
        } catch (NoSuchFileException e) {
            return null;
        } catch (FileSystemException e) {
            throw new Where(flag, relative, root).refused("a symbolic link or not a folder on the way ("
                    + (e.getReason() == null ? e.getClass().getSimpleName() : e.getReason()) + ")");
        } catch (IOException e) {
            throw new Where(flag, relative, root).refused("unreadable (" + e.getMessage() + ")");
        }
    }

    private static Path copy(SecureDirectoryStream<Path> dir, Path rel, int i, Where at, Path scratch)
            throws IOException {
        Path name = rel.getName(i);
        if (i < rel.getNameCount() - 1) {
            try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                return copy(sub, rel, i + 1, at, scratch);
            }
        }
        BasicFileAttributes a = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .readAttributes();
        if (a.isSymbolicLink()) {
            throw at.refused("a symbolic link");
        }
        if (!a.isRegularFile()) {
            throw at.refused("not a regular file");
        }
        Path out = scratch.resolve(name.toString());
        try (SeekableByteChannel in = dir.newByteChannel(name, Set.of(StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS)); OutputStream os = Files.newOutputStream(out)) {
            ByteBuffer buf = ByteBuffer.allocate(1 << 16);
            long total = 0;
            for (int n; (n = in.read(buf.clear())) > 0; ) {
                total += n;
                if (total > MAX_BYTES) {
                    throw at.refused("larger than " + (MAX_BYTES >> 30) + " GiB");
                }
                os.write(buf.array(), 0, n);
            }
        }
        return out;
    }

    /** The file asked for, for the one-line error. */
    private record Where(String flag, String relative, Path root) {
        IllegalArgumentException refused(String what) {
            return new IllegalArgumentException(flag + " " + relative + " in the arm's worktree " + root + " is " + what
                    + ": not read (fix: the workload file must be the tree's own regular file; a link could point the"
                    + " client at any file of this machine)");
        }
    }
}
