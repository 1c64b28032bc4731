package io.isobench.report;

import io.isobench.report.Rows.Cell;
import io.isobench.report.Rows.Row;
import io.isobench.report.Rows.Span;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed table rows ({@link Rows.Row}) written to a temporary file and read back in order when a report renders them;
 * keeps memory bounded on stores with millions of runs. The file is private to this object (binary: per row its
 * cells, per cell its spans with their kind and text).
 */
final class Spool implements AutoCloseable {

    /** Receives the spooled rows in order. */
    interface RowSink {
        void accept(Row row) throws IOException;
    }

    private Path file;
    private DataOutputStream out;
    private int rows;

    void add(Row row) {
        try {
            if (out == null) {
                file = Files.createTempFile("isobench-report-", ".rows");
                out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
            }
            out.writeInt(row.cells().size());
            for (Cell c : row.cells()) {
                out.writeBoolean(c.numeric());
                out.writeInt(c.spans().size());
                for (Span s : c.spans()) {
                    switch (s) {
                        case Rows.Text t -> out.writeByte('t');
                        case Rows.Code k -> out.writeByte('c');
                        case Rows.Strong g -> out.writeByte('s');
                        case Rows.Link l -> {
                            out.writeByte('l');
                            string(l.href());
                        }
                        case Rows.ArmLabel a -> {
                            out.writeByte('a');
                            string(a.href() == null ? "" : a.href());
                        }
                    }
                    string(s.text());
                }
            }
            rows++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spool report rows to a temporary file: " + e.getMessage(), e);
        }
    }

    private void string(String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String string(DataInputStream in) throws IOException {
        return new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8);
    }

    int lines() {
        return rows;
    }

    /** Every row spooled so far, in order. */
    void forEach(RowSink sink) throws IOException {
        if (out == null) {
            return;
        }
        out.flush();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            for (int r = 0; r < rows; r++) {
                int n = in.readInt();
                List<Cell> cells = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    boolean numeric = in.readBoolean();
                    int spans = in.readInt();
                    List<Span> s = new ArrayList<>(spans);
                    for (int j = 0; j < spans; j++) {
                        byte kind = in.readByte();
                        s.add(switch (kind) {
                            case 't' -> new Rows.Text(string(in));
                            case 'c' -> new Rows.Code(string(in));
                            case 's' -> new Rows.Strong(string(in));
                            case 'l' -> {
                                String href = string(in);
                                yield new Rows.Link(string(in), href);
                            }
                            case 'a' -> {
                                String href = string(in);
                                yield new Rows.ArmLabel(string(in), href.isEmpty() ? null : href);
                            }
                            default -> throw new EOFException("corrupt report spool: span kind " + kind);
                        });
                    }
                    cells.add(new Cell(s, numeric));
                }
                sink.accept(new Row(cells));
            }
        }
    }

    @Override
    public void close() {
        try {
            if (out != null) {
                out.close();
            }
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException ignored) {
            // best effort: a leftover temp file is harmless
        }
    }
}
