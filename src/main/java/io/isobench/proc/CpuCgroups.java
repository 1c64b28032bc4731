package io.isobench.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-run cgroups v2 that measure a command's CPU time in microseconds: {@code usage_usec} of the cgroup's
 * {@code cpu.stat} (kept by the kernel for every cgroup v2, with or without the cpu controller), the user + system
 * time of every process that ever ran in it. Each run gets a child of this JVM's own cgroup, {@code isobench-PID-N};
 * the command's wrapper shell moves itself in before it starts the command, so every descendant is born inside (a
 * race-free start: nothing runs between the move and the command). isobench reads the usage after the wrapper has
 * exited and removes the cgroup on every path.
 *
 * <p>The hierarchy is found from {@code /proc/self/mountinfo} (the {@code cgroup2} mount: {@code /sys/fs/cgroup}, or
 * {@code /sys/fs/cgroup/unified} on a hybrid layout) and this process's cgroup from {@code /proc/self/cgroup}
 * ({@code 0::/…}). Where none is writable (a read-only cgroupfs in a container, a user without delegation, cgroup v1
 * only) {@link #host()} says why, and callers fall back to coarser clocks.
 */
public final class CpuCgroups {

    /** The names of the cgroups isobench makes; the pid is the JVM's that made it. */
    private static final Pattern OURS = Pattern.compile("isobench-(\\d+)-\\d+");
    private static final Pattern USAGE = Pattern.compile("(?m)^usage_usec (\\d+)$");
    private static final AtomicLong NEXT = new AtomicLong();
    private static volatile CpuCgroups host;

    private final Path parent;
    private final long pid;
    private final String unavailable;

    private CpuCgroups(Path parent, long pid, String unavailable) {
        this.parent = parent;
        this.pid = pid;
        this.unavailable = unavailable;
    }

    /**
     * This JVM's cgroup v2, found and tried once (a child made, read and removed; the empty leftovers of JVMs that
     * are gone removed first): {@link #available()} or not, with the reason.
     */
    public static CpuCgroups host() {
        CpuCgroups h = host;
        if (h == null) {
            synchronized (CpuCgroups.class) {
                h = host;
                if (h == null) {
                    h = discover(Path.of("/proc/self/mountinfo"), Path.of("/proc/self/cgroup"),
                            ProcessHandle.current().pid());
                    host = h;
                }
            }
        }
        return h;
    }

    /** The cgroups of the hierarchy the two {@code /proc/self} files name, tried once; never throws. */
    static CpuCgroups discover(Path mountinfo, Path selfCgroup, long pid) {
        Optional<Path> dir;
        try {
            dir = locate(Files.readString(mountinfo, StandardCharsets.UTF_8),
                    Files.readString(selfCgroup, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return new CpuCgroups(null, pid, "cannot read " + mountinfo + " or " + selfCgroup + ": " + e.getMessage());
        }
        if (dir.isEmpty()) {
            return new CpuCgroups(null, pid, "no writable cgroup v2 holds this process (" + selfCgroup + ")");
        }
        return tried(dir.get(), pid, alive -> ProcessHandle.of(alive).isPresent());
    }

    /** The cgroups under {@code parent} once a child could be made, read and removed there; leftovers cleared. */
    static CpuCgroups tried(Path parent, long pid, LongPredicate alive) {
        removeLeftovers(parent, pid, alive);
        CpuCgroups c = new CpuCgroups(parent, pid, null);
        try (Run probe = c.open()) {
            if (probe.usageUsec().isEmpty()) {
                return new CpuCgroups(null, pid, probe.dir().resolve("cpu.stat") + " has no usage_usec");
            }
        } catch (IOException e) {
            return new CpuCgroups(null, pid, "cannot make a cgroup in " + parent + ": " + e);
        }
        return c;
    }

    /** True when per-run cgroups can be made here. */
    public boolean available() {
        return parent != null;
    }

    /** Why per-run cgroups cannot be made here; null when they can. */
    public String unavailableReason() {
        return unavailable;
    }

    /** A new, empty cgroup for one run. */
    public Run open() throws IOException {
        if (parent == null) {
            throw new IOException("no cgroup v2: " + unavailable);
        }
        return new Run(Files.createDirectory(parent.resolve("isobench-" + pid + "-" + NEXT.incrementAndGet())));
    }

    /**
     * The folder of this process's cgroup v2, read from {@code /proc/self/mountinfo} and {@code /proc/self/cgroup}
     * text: the {@code cgroup2} mount, writable, whose root holds the {@code 0::PATH} line's path; empty when there is
     * none (no {@code 0::} line, a path outside the namespace's root, only cgroup v1, read-only).
     */
    static Optional<Path> locate(String mountinfo, String selfCgroup) {
        String own = selfCgroup.lines().filter(l -> l.startsWith("0::")).map(l -> l.substring(3)).findFirst()
                .orElse(null);
        if (own == null || !own.startsWith("/") || List.of(own.split("/")).contains("..")) {
            return Optional.empty();
        }
        for (String line : mountinfo.lines().toList()) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] before = line.substring(0, dash).split(" ");
            String[] after = line.substring(dash + 3).split(" ");
            if (before.length < 6 || after.length < 1 || !after[0].equals("cgroup2")
                    || List.of(before[5].split(",")).contains("ro")) {
                continue;
            }
            String root = unescape(before[3]);
            String mount = unescape(before[4]);
            if (root.equals("/")) {
                return Optional.of(Path.of(mount + own).normalize());
            }
            if (own.equals(root) || own.startsWith(root + "/")) {
                return Optional.of(Path.of(mount + own.substring(root.length())).normalize());
            }
        }
        return Optional.empty();
    }

    /** mountinfo escapes space, tab, newline and backslash as three octal digits. */
    private static String unescape(String field) {
        Matcher m = Pattern.compile("\\\\([0-7]{3})").matcher(field);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 8))));
        }
        return m.appendTail(out).toString();
    }

    /** {@code usage_usec} of a {@code cpu.stat} text; empty when it has none. */
    static OptionalLong usageUsec(String cpuStat) {
        Matcher m = USAGE.matcher(cpuStat);
        return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /**
     * Removes the {@code isobench-PID-N} cgroups under {@code parent} of JVMs that are gone (SIGKILLed before they
     * could): only empty ones (rmdir refuses the others), never a live JVM's, never a process signalled.
     */
    static void removeLeftovers(Path parent, long pid, LongPredicate alive) {
        try (DirectoryStream<Path> children = Files.newDirectoryStream(parent)) {
            for (Path child : children) {
                Matcher m = OURS.matcher(child.getFileName().toString());
                if (!m.matches() || !Files.isDirectory(child)) {
                    continue;
                }
                long owner = Long.parseLong(m.group(1));
                if (owner != pid && !alive.test(owner)) {
                    try {
                        Files.delete(child);
                    } catch (IOException e) {
                        // still holds a process (the resume reaps its group) or a child cgroup: the next start tries
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            // nothing to clear
        }
    }

    /** One run's cgroup: made empty, read after the run, removed on close (every path). */
    public static final class Run implements AutoCloseable {
        private final Path dir;

        Run(Path dir) {
            this.dir = dir;
        }

        /** The cgroup's folder: its {@code cgroup.procs} is where the run's first process writes its pid. */
        public Path dir() {
            return dir;
        }

        /** CPU time used in the cgroup so far, microseconds; empty when {@code cpu.stat} cannot be read. */
        public OptionalLong usageUsec() {
            try {
                return CpuCgroups.usageUsec(Files.readString(dir.resolve("cpu.stat"), StandardCharsets.UTF_8));
            } catch (IOException e) {
                return OptionalLong.empty();
            }
        }

        /**
         * Removes the cgroup. A process still in it escaped the run's process group (its own {@code setsid}) but is
         * the run's descendant all the same: it is killed through {@code cgroup.kill} (Linux 5.14+) first. A cgroup
         * that cannot be removed is left for the next start ({@link #removeLeftovers}); never throws.
         */
        @Override
        public void close() {
            if (remove()) {
                return;
            }
            try {
                Files.writeString(dir.resolve("cgroup.kill"), "1", StandardOpenOption.WRITE);
            } catch (IOException e) {
                return; // no cgroup.kill (an older kernel), or gone already
            }
            for (int i = 0; i < 100 && !remove(); i++) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        private boolean remove() {
            try {
                Files.deleteIfExists(dir);
                return true;
            } catch (IOException e) {
                return false;
            }
        }
    }
}
