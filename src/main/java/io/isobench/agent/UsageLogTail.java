package io.isobench.agent;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Follows the {@code *.jsonl} files an agent CLI appends under one folder while it runs ({@link
 * AgentAdapter#usageLogDir()}), handing every complete new line to a consumer: polled every
 * {@value #POLL_MS} ms, and once more when stopped. Files are only read, never changed.
 */
final class UsageLogTail {

    static final long POLL_MS = 100;

    private final Path dir;
    private final Consumer<String> sink;
    private final Map<Path, Long> offsets = new HashMap<>();
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
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(f -> f.getFileName().toString().endsWith(".jsonl") && Files.isRegularFile(f)).sorted()
                    .toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return;
        }
        for (Path f : files) {
            long from = offsets.getOrDefault(f, 0L);
            try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "r")) {
                long len = r.length();
                if (len <= from) {
                    continue;
                }
                byte[] b = new byte[(int) Math.min(len - from, 16 << 20)];
                r.seek(from);
                r.readFully(b);
                int last = b.length - 1;
                while (last >= 0 && b[last] != '\n') {
                    last--;
                }
                if (last < 0) {
                    continue; // no complete line yet (a partial line is read again next time)
                }
                offsets.put(f, from + last + 1);
                new String(b, 0, last, StandardCharsets.UTF_8).lines().forEach(sink);
            } catch (IOException e) {
                // the file went away or is unreadable: skipped
            }
        }
    }
}
