package io.isobench.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The egress proxy's request log in bounded memory (docs/agents.md, "Sandbox"): every request is counted; the first
 * {@value #KEPT} stay in memory for the attempt's record; each is streamed as one line to a file (when given) until
 * the file holds {@value #MAX_FILE_BYTES} bytes. Nothing is dropped silently: {@link #summary} and the file's last
 * line say how many requests were not kept or not written, and a path longer than {@value #MAX_PATH_CHARS}
 * characters is shortened with the number of characters cut.
 */
final class EgressLog {

    /** Requests kept in memory. */
    static final int KEPT = 200;
    /** Bytes of the log file. */
    static final long MAX_FILE_BYTES = 4L << 20;
    /** Characters of a path in the log. */
    static final int MAX_PATH_CHARS = 256;

    private final Path file;
    private final List<EgressProxy.Request> kept = new ArrayList<>();
    private OutputStream out;
    private long fileBytes;
    private long total;
    private long refused;
    private long notWritten;
    private long refusedConnections;
    private boolean closed;

    /** A log streamed to {@code file} (created or replaced; null: memory only). */
    EgressLog(Path file) {
        this.file = file;
    }

    /** A path as logged: at most {@value #MAX_PATH_CHARS} characters, saying how many were cut. */
    static String shortPath(String path) {
        return path.length() <= MAX_PATH_CHARS ? path
                : path.substring(0, MAX_PATH_CHARS) + "…(+" + (path.length() - MAX_PATH_CHARS) + " chars)";
    }

    synchronized void add(EgressProxy.Request r) {
        total++;
        if (r.status() >= 400) {
            refused++;
        }
        if (kept.size() < KEPT) {
            kept.add(r);
        }
        write(line(r));
    }

    /** A connection refused because the attempt holds too many already (counted; not a request line each). */
    synchronized void refusedConnection() {
        refusedConnections++;
    }

    synchronized List<EgressProxy.Request> kept() {
        return List.copyOf(kept);
    }

    synchronized long total() {
        return total;
    }

    synchronized long refusedConnections() {
        return refusedConnections;
    }

    /** One line each for the kept requests, then (when any were not kept or refused at connect) a count line. */
    synchronized List<String> summary() {
        List<String> lines = new ArrayList<>();
        for (EgressProxy.Request r : kept) {
            lines.add(line(r));
        }
        if (total > kept.size() || refusedConnections > 0) {
            lines.add(String.format(Locale.ROOT, "… %d requests in all (%d with status >= 400), %d shown%s%s", total, refused,
                    kept.size(), refusedConnections == 0 ? "" : "; " + refusedConnections
                            + " connections refused over the cap of " + EgressProxy.MAX_CONNECTIONS + " at once",
                    file == null || total == 0 ? "" : "; every request in " + file.getFileName()
                            + (notWritten == 0 ? "" : " but the last " + notWritten + " (the file's cap)")));
        }
        return lines;
    }

    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (out == null) {
            return;
        }
        try (OutputStream o = out) {
            if (notWritten > 0 || refusedConnections > 0) {
                o.write(("# " + notWritten + " more requests not written (cap " + MAX_FILE_BYTES + " bytes); "
                        + refusedConnections + " connections refused over the cap of " + EgressProxy.MAX_CONNECTIONS
                        + "\n").getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // the file is what it is
        }
    }

    private static String line(EgressProxy.Request r) {
        return r.method() + " " + r.path() + " " + r.status() + " " + r.bytes() + " B " + r.millis() + " ms";
    }

    private void write(String line) {
        if (file == null || closed) {
            return;
        }
        byte[] b = (line + "\n").getBytes(StandardCharsets.UTF_8);
        if (fileBytes + b.length > MAX_FILE_BYTES) {
            notWritten++;
            return;
        }
        try {
            if (out == null) {
                out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE);
            }
            out.write(b);
            out.flush();
            fileBytes += b.length;
        } catch (IOException e) {
            notWritten++;
        }
    }
}
