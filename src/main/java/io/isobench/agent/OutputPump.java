package io.isobench.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Copies one output stream of an attempt (stdout or stderr) to its file as it comes, line by line and redacted, in
 * bounded memory (docs/agents.md, "Limits"): a line longer than {@link #LINE_BYTES} is cut into pieces (at its last
 * blank before the cut where there is one, so a token stays whole), and once more than the limit has come the
 * stream is no longer written nor observed, {@code onLimit} runs once (the runner kills the attempt) and the rest is
 * read and dropped. Nothing here holds more than one line.
 */
final class OutputPump {

    /** Longest line handed on whole; a longer one is cut into pieces of at most this many bytes. */
    static final int LINE_BYTES = 4 << 20;

    private final UnaryOperator<String> redact;
    private final Consumer<String> onLine;
    private final Runnable onLimit;
    private final long maxBytes;

    /**
     * @param redact   what a line becomes on disk
     * @param onLine   each line (or piece) as read, before redaction
     * @param onLimit  runs once when more than {@code maxBytes} came
     * @param maxBytes the stream's limit
     */
    OutputPump(UnaryOperator<String> redact, Consumer<String> onLine, Runnable onLimit, long maxBytes) {
        this.redact = redact;
        this.onLine = onLine;
        this.onLimit = onLimit;
        this.maxBytes = maxBytes;
    }

    /** Copies {@code in} to {@code file} until its end; returns the bytes that came (all of them, dropped too). */
    long copy(InputStream in, Path file) {
        long total = 0;
        byte[] line = new byte[8192];
        int len = 0;
        boolean over = false;
        try (in; OutputStream o = Files.newOutputStream(file)) {
            byte[] buf = new byte[1 << 16];
            int r;
            while ((r = in.read(buf)) >= 0) {
                total += r;
                if (over) {
                    continue;
                }
                int keep = r;
                if (total > maxBytes) {
                    keep = (int) Math.max(0, r - (total - maxBytes));
                }
                for (int i = 0; i < keep; i++) {
                    byte b = buf[i];
                    if (b == '\n') {
                        emit(o, line, len);
                        len = 0;
                        continue;
                    }
                    if (len == line.length) {
                        if (len >= LINE_BYTES) {
                            int cut = cut(line, len);
                            emit(o, line, cut);
                            System.arraycopy(line, cut, line, 0, len - cut);
                            len -= cut;
                        } else {
                            line = Arrays.copyOf(line, Math.min(LINE_BYTES, line.length * 2));
                        }
                    }
                    line[len++] = b;
                }
                if (total > maxBytes) {
                    over = true;
                    if (len > 0) {
                        emit(o, line, len);
                        len = 0;
                    }
                    o.write(("[isobench: this stream passed its limit of " + maxBytes + " bytes (runner.limits"
                            + ".output_mb); the rest was not kept and the attempt was stopped]\n")
                            .getBytes(StandardCharsets.UTF_8));
                    o.flush();
                    onLimit.run();
                }
            }
            if (!over && len > 0) {
                emit(o, line, len);
            }
        } catch (IOException e) {
            // the process went away: what was read is kept
        }
        return total;
    }

    private void emit(OutputStream o, byte[] line, int len) throws IOException {
        int end = len > 0 && line[len - 1] == '\r' ? len - 1 : len;
        String text = new String(line, 0, end, StandardCharsets.UTF_8);
        o.write((redact.apply(text) + "\n").getBytes(StandardCharsets.UTF_8)); // stored: no secret on disk
        o.flush();
        try {
            onLine.accept(text);
        } catch (RuntimeException e) {
            // an observer must not stop the copy
        }
    }

    /** Where a full line is cut: after its last blank in the second half, else at a UTF-8 character boundary. */
    static int cut(byte[] line, int len) {
        for (int i = len - 1; i >= len / 2; i--) {
            if (line[i] == ' ' || line[i] == '\t') {
                return i + 1;
            }
        }
        int j = len - 1;
        while (j > 0 && len - j < 4 && (line[j] & 0xC0) == 0x80) {
            j--;
        }
        int lead = line[j] & 0xFF;
        int need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        return j > 0 && need > len - j ? j : len; // a character cut off starts the next piece
    }
}
