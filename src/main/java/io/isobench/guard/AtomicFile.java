package io.isobench.guard;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Reports and result files as isobench writes them: into a temporary file beside the target, then renamed over it, so
 * a kill or a failure mid-way leaves the previous file whole (never a truncated one), and through {@link SafeWriter},
 * so what leaves isobench is redacted and carries no terminal control characters.
 */
public final class AtomicFile {

    /** Writes the content of a file. */
    @FunctionalInterface
    public interface Content {
        void write(Writer out) throws IOException;
    }

    private AtomicFile() {
    }

    /** Writes {@code target} (UTF-8 text) atomically; its folder must exist. */
    public static void write(Path target, Content content) throws IOException {
        Path abs = target.toAbsolutePath();
        Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
                 Writer w = new SafeWriter(new BufferedWriter(new OutputStreamWriter(Channels.newOutputStream(ch),
                         StandardCharsets.UTF_8), 1 << 16))) {
                content.write(w);
                w.flush();
                ch.force(true);
            }
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Writes {@code bytes} to {@code target} atomically, exactly as given: not redacted, nothing escaped. Only for
     * source code and diffs (an agent's patch), which redaction would rewrite; the caller has masked the secret
     * values it knows (docs/agents.md, "The patch").
     */
    public static void writeBytes(Path target, byte[] bytes) throws IOException {
        Path abs = target.toAbsolutePath();
        Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Writes UTF-8 text given as bytes (a rendered page) atomically, redacted like every text. */
    public static void write(Path target, byte[] utf8) throws IOException {
        write(target, w -> w.write(new String(utf8, StandardCharsets.UTF_8)));
    }
}
