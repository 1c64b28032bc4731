package io.isobench.plan;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The host-wide GPU lease (docs/gpu-scheduling.md, "The host-wide lease"): one lock file per GPU index
 * ({@code gpu-N.lock}) in a state folder shared by every isobench process of this host, held with
 * {@link FileChannel#tryLock()} (an exclusive POSIX record lock) for as long as the GPU is used. It guarantees that
 * no two isobench processes on this host — an {@code isobench run} and an {@code isobench agents run}, or two of
 * either — hold the same GPU at once: a lock is released by {@link Held#close()} and by the operating system when
 * the process dies however it dies (no stale lock to clean up). The holder writes one line into the file
 * ({@code pid=… since=… by=…}) so a waiting process can name who holds it. Within one JVM a second claim of a GPU
 * this JVM already holds is refused the same way (the JVM cannot lock a file twice: that would throw
 * {@link OverlappingFileLockException}). Waiting is bounded: {@link #acquire} polls every {@value #POLL_MS} ms until
 * its deadline, then throws {@link Busy} with one line naming each GPU still held and by which pid.
 *
 * <p>The folder: {@code $ISOBENCH_STATE_DIR/gpu-locks}, else {@code ~/.isobench/gpu-locks}. Processes that must not
 * share GPUs must see the same folder (same user, or a shared {@code ISOBENCH_STATE_DIR}).
 */
public final class HostGpuLocks {

    /** The environment variable naming isobench's state folder on this host. */
    public static final String STATE_ENV = "ISOBENCH_STATE_DIR";
    /** How long a claim waits for a GPU another process holds, seconds (default {@value #DEFAULT_WAIT_S}). */
    public static final String WAIT_ENV = "ISOBENCH_GPU_LOCK_WAIT_S";
    public static final long DEFAULT_WAIT_S = 600;
    static final long POLL_MS = 200;

    /** GPUs held by this JVM, per lock folder: {@code folder/gpu-N.lock} paths. */
    private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final Duration maxWait;

    /** Locks in {@code dir} (created on first use), waiting {@value #DEFAULT_WAIT_S} s by default. */
    public HostGpuLocks(Path dir) {
        this(dir, Duration.ofSeconds(DEFAULT_WAIT_S));
    }

    /** Locks in {@code dir}; {@code maxWait}: how long a job's claim waits ({@link #maxWait()}). */
    public HostGpuLocks(Path dir, Duration maxWait) {
        this.dir = dir.toAbsolutePath().normalize();
        this.maxWait = maxWait;
    }

    /**
     * The host's locks: {@code $ISOBENCH_STATE_DIR/gpu-locks}, else {@code ~/.isobench/gpu-locks}; the wait from
     * {@value #WAIT_ENV}.
     */
    public static HostGpuLocks forHost(Map<String, String> env) {
        String state = env.get(STATE_ENV);
        Path base = state != null && !state.isBlank() ? Path.of(state)
                : Path.of(System.getProperty("user.home"), ".isobench");
        return new HostGpuLocks(base.resolve("gpu-locks"), waitFrom(env));
    }

    /** How long a claim of a measured job waits for GPUs held elsewhere before it fails. */
    public Duration maxWait() {
        return maxWait;
    }

    /** The bounded wait from {@value #WAIT_ENV} (blank: {@value #DEFAULT_WAIT_S} s). */
    public static Duration waitFrom(Map<String, String> env) {
        String v = env.get(WAIT_ENV);
        if (v == null || v.isBlank()) {
            return Duration.ofSeconds(DEFAULT_WAIT_S);
        }
        try {
            long s = Long.parseLong(v.strip());
            if (s < 0) {
                throw new NumberFormatException();
            }
            return Duration.ofSeconds(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(WAIT_ENV + " '" + v + "': not a whole number of seconds >= 0");
        }
    }

    public Path dir() {
        return dir;
    }

    /** GPUs still held by others when the wait ran out: one line naming each GPU and its holder. */
    public static final class Busy extends RuntimeException {
        private final List<Integer> held;

        Busy(String message, List<Integer> held) {
            super(message);
            this.held = List.copyOf(held);
        }

        /** The GPUs another holder still held. */
        public List<Integer> held() {
            return held;
        }
    }

    /** Locks held by this process on some GPUs; {@link #close()} gives them back (idempotent). */
    public final class Held implements AutoCloseable {
        private final List<Integer> ids;
        private final List<FileLock> locks;
        private final List<Path> files;
        private boolean closed;

        private Held(List<Integer> ids, List<FileLock> locks, List<Path> files) {
            this.ids = List.copyOf(ids);
            this.locks = locks;
            this.files = files;
        }

        public List<Integer> ids() {
            return ids;
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            for (int i = 0; i < locks.size(); i++) {
                unlock(locks.get(i), files.get(i));
            }
        }
    }

    /** All of {@code ids} now, or empty (nothing held) when any of them is held elsewhere. */
    public Optional<Held> tryLock(List<Integer> ids, String by) {
        List<FileLock> locks = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (int id : ids) {
            Path f = file(id);
            FileLock l = lockOne(f, by);
            if (l == null) {
                for (int i = 0; i < locks.size(); i++) {
                    unlock(locks.get(i), files.get(i));
                }
                return Optional.empty();
            }
            locks.add(l);
            files.add(f);
        }
        return Optional.of(new Held(ids, locks, files));
    }

    /**
     * All of {@code ids}, waiting at most {@code wait} while any is held elsewhere.
     *
     * @throws Busy when the wait runs out: one line naming the GPUs still held and by which pid
     */
    public Held acquire(List<Integer> ids, Duration wait, String by) throws InterruptedException {
        long end = System.nanoTime() + wait.toNanos();
        while (true) {
            Optional<Held> h = tryLock(ids, by);
            if (h.isPresent()) {
                return h.get();
            }
            if (System.nanoTime() - end >= 0) {
                List<Integer> busy = ids.stream().filter(this::heldElsewhere).toList();
                throw new Busy(String.format(Locale.ROOT, "GPU(s) %s held by another isobench process for more than"
                        + " %d s: %s (fix: wait for it to end, raise %s, or give this run other GPUs)",
                        join(ids), wait.toSeconds(), holders(busy), WAIT_ENV), busy);
            }
            Thread.sleep(POLL_MS);
        }
    }

    /**
     * {@code n} of {@code candidates} that no other holder holds now, picked as {@link GpuSlots} picks (an aligned
     * block, else the lowest contiguous run, else the lowest ids) among the free ones; waits at most {@code wait}.
     *
     * @throws Busy when fewer than {@code n} became free in time
     */
    public Held acquireAny(List<Integer> candidates, int n, Duration wait, String by) throws InterruptedException {
        if (n > candidates.size()) {
            throw new GpuSlots.Insufficient(n, candidates.size());
        }
        long end = System.nanoTime() + wait.toNanos();
        while (true) {
            List<Integer> free = candidates.stream().filter(id -> !heldElsewhere(id)).sorted().toList();
            if (free.size() >= n) {
                GpuLease pick = new GpuSlots(free).tryAcquire(n).orElseThrow();
                Optional<Held> h = tryLock(pick.ids(), by);
                if (h.isPresent()) {
                    return h.get();
                }
            }
            if (System.nanoTime() - end >= 0) {
                List<Integer> busy = candidates.stream().filter(this::heldElsewhere).toList();
                throw new Busy(String.format(Locale.ROOT, "%d GPU(s) wanted of %s, but for more than %d s %s"
                        + " (fix: wait for it to end, raise %s, or ask for fewer GPUs)", n, join(candidates),
                        wait.toSeconds(), busy.isEmpty() ? "they were not free" : "held by another isobench"
                        + " process: " + holders(busy), WAIT_ENV), busy);
            }
            Thread.sleep(POLL_MS);
        }
    }

    /** Whether another holder (another process, or another claim in this JVM) holds GPU {@code id} now. */
    public boolean heldElsewhere(int id) {
        Path f = file(id);
        // claimed while probing: closing a channel drops every lock this JVM holds on the file, so no claim of this
        // JVM may hold it meanwhile
        if (!HELD_HERE.add(f)) {
            return true;
        }
        try {
            return probe(f);
        } finally {
            HELD_HERE.remove(f);
        }
    }

    private static boolean probe(Path f) {
        if (!Files.exists(f)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            FileLock l = ch.tryLock();
            if (l == null) {
                return true;
            }
            l.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (IOException e) {
            return true; // unreadable: treat as held, the message says so
        }
    }

    /** Who holds each of {@code ids}: {@code GPU 0 by pid 1234 (agents run …, since …)}. */
    public String holders(List<Integer> ids) {
        List<String> out = new ArrayList<>();
        for (int id : ids) {
            String line;
            try {
                line = Files.readString(file(id), StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                line = "";
            }
            out.add("GPU " + id + (line.isEmpty() ? " (holder unknown)" : " by " + describe(line)));
        }
        return String.join("; ", out);
    }

    private static String describe(String line) {
        String pid = field(line, "pid");
        String by = field(line, "by");
        String since = field(line, "since");
        return "pid " + (pid == null ? "?" : pid) + " (" + (by == null ? "isobench" : by)
                + (since == null ? "" : ", since " + since) + ")";
    }

    private static String field(String line, String key) {
        for (String part : line.split("\t")) {
            if (part.startsWith(key + "=")) {
                return part.substring(key.length() + 1);
            }
        }
        return null;
    }

    Path file(int id) {
        if (id < 0) {
            throw new IllegalArgumentException("GPU id must be >= 0: " + id);
        }
        return dir.resolve("gpu-" + id + ".lock");
    }

    /** Locks {@code f} and writes the holder line; null when held elsewhere. */
    private static FileLock lockOne(Path f, String by) {
        if (!HELD_HERE.add(f)) {
            return null;
        }
        FileChannel ch = null;
        try {
            Files.createDirectories(f.getParent());
            ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null;
            }
            if (l == null) {
                ch.close();
                HELD_HERE.remove(f);
                return null;
            }
            String line = "pid=" + ProcessHandle.current().pid() + "\tsince=" + Instant.now() + "\tby="
                    + by.replace('\t', ' ').replace('\n', ' ') + "\n";
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)), 0);
            ch.force(false);
            return l;
        } catch (IOException e) {
            HELD_HERE.remove(f);
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing releases the lock
                }
            }
            throw new IllegalStateException("GPU lock " + f + ": " + e.getMessage() + " (fix: a writable "
                    + STATE_ENV + " folder)", e);
        }
    }

    private static void unlock(FileLock l, Path f) {
        try {
            FileChannel ch = l.channel();
            ch.truncate(0); // the holder line goes with the lock
            ch.close(); // releases the lock
        } catch (IOException e) {
            // closing releases it; the OS does at exit anyway
        } finally {
            HELD_HERE.remove(f);
        }
    }

    private static String join(List<Integer> ids) {
        return String.join(",", ids.stream().map(String::valueOf).toList());
    }
}
