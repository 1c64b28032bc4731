package io.isobench.agent;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Follows the {@code *.jsonl} files an agent CLI appends under one folder while it runs ({@link
 * AgentAdapter#usageLogDir()}), handing every complete new line to a consumer: polled every
 * {@value #POLL_MS} ms, and once more when stopped. Files are only read, never changed. The agent writes that folder,
 * so what it costs isobench is bounded: at most {@value #MAX_FILES} files (the first by name) at most
 * {@value #MAX_DEPTH} folders deep, at most {@value #MAX_LINE} bytes read per file and poll, and a line longer than
 * that is skipped whole (up to its newline) instead of being read again and again.
 */
final class UsageLogTail {

    static final long POLL_MS = 100;
    /** Files followed. */
    static final int MAX_FILES = 64;
    /** Folder depth searched. */
    static final int MAX_DEPTH = 6;
    /** Bytes read from one file per poll; a line longer than this is skipped. */
    static final int MAX_LINE = 16 << 20;

    private final Path dir;
    private final Consumer<String> sink;
    private final Map<Path, Long> offsets = new HashMap<>();
    /** Files inside a line too long to read: skipped up to its newline. */
    private final Set<Path> skipping = new HashSet<>();
    private volatile boolean running = true;
    private Thread thread;

    private UsageLogTail(Path dir, Consumer<String> sink) {
        this.dir = dir;
        this.sink = sink;
    }

    /** Starts following {@code dir} (it may not exist yet). */
    static UsageLogTail start(Path dir, Consumer<String> sink) {
        UsageLogTail t = new UsageLogTail(dir, sink);
        t.thread = Thread.ofPlatform().daemon().name("usage-log-tail").start(t::loop);
        return t;
    }

    /** Stops following after one last read. */
    void stop() {
        running = false;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        while (running) {
            poll();
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
        poll();
    }

    private synchronized void poll() {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir, MAX_DEPTH)) {
            files = s.filter(f -> f.getFileName().toString().endsWith(".jsonl") && Files.isRegularFile(f)).sorted()
                    .limit(MAX_FILES).toList();
        } catch (IOException | UncheckedIOException e) {
            return;
        }
        for (Path f : files) {
            long from = offsets.getOrDefault(f, 0L);
            try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "r")) {
                long len = r.length();
                if (len <= from) {
                    continue;
                }
                byte[] b = new byte[(int) Math.min(len - from, MAX_LINE)];
                r.seek(from);
                r.readFully(b);
                int first = 0;
                if (skipping.contains(f)) { // the rest of a line too long to read
                    while (first < b.length && b[first] != '\n') {
                        first++;
                    }
                    if (first == b.length) {
                        offsets.put(f, from + b.length);
                        continue;
                    }
                    skipping.remove(f);
                    first++;
                }
                int last = b.length - 1;
                while (last >= first && b[last] != '\n') {
                    last--;
                }
                if (last < first) {
                    if (b.length == MAX_LINE) { // a line longer than MAX_LINE: skipped, never read again
                        skipping.add(f);
                        offsets.put(f, from + b.length);
                    } else {
                        offsets.put(f, from + first); // no complete line yet: read again next time
                    }
                    continue;
                }
                offsets.put(f, from + last + 1);
                new String(b, first, last - first, StandardCharsets.UTF_8).lines().forEach(sink);
            } catch (IOException e) {
                // the file went away or is unreadable: skipped
            }
        }
    }
}
