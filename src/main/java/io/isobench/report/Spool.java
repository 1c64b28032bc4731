package io.isobench.report;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Lines written to a temporary file, copied into the report later; keeps memory bounded. */
final class Spool implements AutoCloseable {
    private Path file;
    private Writer writer;
    private int lines;

    void add(String line) {
        try {
            if (writer == null) {
                file = Files.createTempFile("isobench-report-", ".md");
                writer = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16);
            }
            writer.write(line);
            writer.write('\n');
            lines++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spool report rows to a temporary file: " + e.getMessage(), e);
        }
    }

    int lines() {
        return lines;
    }

    void copyTo(Writer out) throws IOException {
        if (writer == null) {
            return;
        }
        writer.flush();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            r.transferTo(out);
        }
    }

    @Override
    public void close() {
        try {
            if (writer != null) {
                writer.close();
            }
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException ignored) {
            // best effort: a leftover temp file is harmless
        }
    }
}
