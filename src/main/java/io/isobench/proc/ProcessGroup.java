package io.isobench.proc;

import io.isobench.Fields;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A command started in its own process group: the one launcher of every child isobench runs (servers, benchmarks,
 * probes, accuracy commands, builds, pip). Java cannot call setsid(2), so the argv is prefixed with {@code setsid}:
 * started from a process that is not a group leader, setsid(1) calls setsid() and execs in place, so the pid is the
 * group id (PGID). Teardown signals the whole group ({@code kill -TERM -- -PGID}, a grace period, then
 * {@code kill -KILL -- -PGID}) and waits until no member is left, grandchildren included.
 *
 * <p>Each group carries an {@link Identity} (recorded with the run's placeholder): the leader's start time
 * ({@code /proc/PID/stat} field 22), its argv and a random marker in the environment of every member
 * ({@value #MARKER_ENV}). A group found again later (a resumed session) is signalled only when it is provably the
 * one isobench started ({@link #reap}); a PGID that now names someone else's group is left alone.
 */
public final class ProcessGroup implements AutoCloseable {

    /** The environment variable that marks every process of a group isobench started (a random value per group). */
    public static final String MARKER_ENV = "ISOBENCH_GROUP";

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Groups this process started and has not torn down yet (what a shutdown hook tears down). */
    private static final Map<Long, Identity> LAUNCHED = new ConcurrentHashMap<>();

    private final Process process;
    private final long pgid;
    private final Path log;
    private final Identity identity;

    private ProcessGroup(Process process, Path log, Identity identity) {
        this.process = process;
        this.pgid = process.pid();
        this.log = log;
        this.identity = identity;
    }

    /**
     * What identifies a group isobench started, so that a later process can tell it from a stranger's group that got
     * the same PGID after ours ended.
     *
     * @param pgid       the group id (= the leader's pid)
     * @param startTicks the leader's start time, clock ticks after boot ({@code /proc/PID/stat} field 22); -1 unknown
     * @param argv       the leader's command line as launched ({@code setsid} first)
     * @param marker     the value of {@value #MARKER_ENV} in the environment of every member
     */
    public record Identity(long pgid, long startTicks, List<String> argv, String marker) {

        public Identity {
            argv = argv == null ? List.of() : List.copyOf(argv);
        }

        /** As recorded in a placeholder's extra_json ({@code group}). */
        public Map<String, Object> toMap() {
            return Fields.inOrder("pgid", pgid, "start_ticks", startTicks, "argv", argv, "marker", marker);
        }

        /** The identity {@link #toMap} recorded; empty when the map lacks pgid, start time or marker. */
        public static Optional<Identity> fromMap(Map<?, ?> m) {
            if (m == null || !(m.get("pgid") instanceof Number p) || !(m.get("start_ticks") instanceof Number t)
                    || !(m.get("marker") instanceof String marker) || marker.isBlank()) {
                return Optional.empty();
            }
            List<String> argv = new ArrayList<>();
            if (m.get("argv") instanceof List<?> l) {
                l.forEach(a -> argv.add(String.valueOf(a)));
            }
            return Optional.of(new Identity(p.longValue(), t.longValue(), argv, marker));
        }
    }

    /** Whose group a recorded PGID names now. */
    public enum Owner {
        /** The group isobench started: its leader (start time and marker or argv) or a member (marker) matches. */
        OURS,
        /** No live process is in the group. */
        GONE,
        /** Live processes that are not provably ours: never signalled. */
        FOREIGN
    }

    /**
     * Starts {@code argv} (no shell) in {@code cwd}, stdout and stderr both appended to {@code log}, with isobench's
     * environment plus {@code env}: for isobench's own tools (the docker client, setup steps). A measured process
     * starts through {@link #startMeasured} instead.
     */
    public static ProcessGroup start(List<String> argv, Path cwd, Map<String, String> env, Path log)
            throws IOException {
        return start(argv, cwd, env, log, true);
    }

    /**
     * Starts a measured process: as {@link #start}, but its environment is {@code wholeEnv} alone (made by
     * {@link MeasuredEnv}), nothing of isobench's own.
     */
    public static ProcessGroup startMeasured(List<String> argv, Path cwd, Map<String, String> wholeEnv, Path log)
            throws IOException {
        return start(argv, cwd, wholeEnv, log, false);
    }

    private static ProcessGroup start(List<String> argv, Path cwd, Map<String, String> env, Path log,
                                      boolean inherit) throws IOException {
        List<String> full = new ArrayList<>(argv.size() + 1);
        full.add("setsid");
        full.addAll(argv);
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        String marker = HexFormat.of().formatHex(token);
        ProcessBuilder pb = new ProcessBuilder(full).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (!inherit) {
            pb.environment().clear();
        }
        pb.environment().putAll(env);
        pb.environment().put("PYTHONUNBUFFERED", "1");
        pb.environment().put(MARKER_ENV, marker);
        Process p = pb.start();
        long ticks = startTicks(p.pid()); // at once: set at fork, unreadable once the leader is gone
        awaitOwnGroup(p);
        Identity id = new Identity(p.pid(), ticks, full, marker);
        LAUNCHED.put(id.pgid(), id);
        return new ProcessGroup(p, log, id);
    }

    /**
     * Whether a command's output says its program could not be executed (not found, not executable): the line
     * {@code setsid}, {@code bwrap} or the sandbox's server door prints before anything of the command ran.
     */
    public static boolean couldNotExecute(String log) {
        return log.startsWith("setsid: failed to execute") || log.startsWith("bwrap: execvp ")
                || log.startsWith(NetBridge.CANNOT_EXECUTE_LINE) || log.contains("\nsetsid: failed to execute")
                || log.contains("\nbwrap: execvp ") || log.contains("\n" + NetBridge.CANNOT_EXECUTE_LINE);
    }

    /** The identity of this group, recorded with its placeholder. */
    public Identity identity() {
        return identity;
    }

    /** The identity of a group this process started and has not torn down, by its PGID. */
    public static Optional<Identity> launched(long pgid) {
        return Optional.ofNullable(LAUNCHED.get(pgid));
    }

    /** Tears down every group this process started and has not torn down yet (a shutdown hook's job). */
    public static void reapLaunched(Duration grace) {
        for (Identity id : List.copyOf(LAUNCHED.values())) {
            reap(id, grace);
        }
    }

    public long pgid() {
        return pgid;
    }

    public Path log() {
        return log;
    }

    /** True while the group leader runs. */
    public boolean leaderAlive() {
        return process.isAlive();
    }

    /** Exit code of the leader, or null while it runs. */
    public Integer exitCode() {
        return process.isAlive() ? null : process.exitValue();
    }

    /** Waits up to {@code timeout} for the leader to exit; returns its exit code, or null on timeout. */
    public Integer waitFor(Duration timeout) throws InterruptedException {
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return process.exitValue();
        }
        return null;
    }

    /** Tears the whole group down: TERM, up to {@code grace}, then KILL; returns true when nothing is left. */
    public boolean terminate(Duration grace) {
        // while the leader runs (or is an unreaped zombie of ours) its pid, so the PGID, cannot be reused
        boolean gone = process.isAlive() || owner(identity) == Owner.OURS ? kill(pgid, grace) : members(pgid).isEmpty();
        if (gone) {
            LAUNCHED.remove(pgid, identity);
        }
        try {
            process.waitFor(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return gone;
    }

    @Override
    public void close() {
        terminate(Duration.ofSeconds(5));
    }

    /**
     * Tears down a group found again later (left by an earlier, killed orchestrator) when it is provably the one
     * {@code id} describes: TERM, wait up to {@code grace} for every member to exit, KILL, wait again. A group that is
     * gone or {@link Owner#FOREIGN} is not signalled. Returns whose group the PGID named.
     */
    public static Owner reap(Identity id, Duration grace) {
        Owner owner = owner(id);
        if (owner == Owner.OURS) {
            kill(id.pgid(), grace);
        }
        if (owner != Owner.FOREIGN) {
            LAUNCHED.remove(id.pgid(), id);
        }
        return owner;
    }

    /**
     * Whose group {@code id.pgid()} is now: {@link Owner#OURS} when its leader has the recorded start time and
     * carries the marker in its environment (or, should it have rewritten that, still runs the recorded argv), or,
     * the leader gone, when a member carries the marker; {@link Owner#GONE} when no live process is in it; else
     * {@link Owner#FOREIGN}. A process whose environment cannot be read (another user's) is never ours.
     */
    public static Owner owner(Identity id) {
        List<Long> members = members(id.pgid());
        if (members.isEmpty()) {
            return Owner.GONE;
        }
        if (members.contains(id.pgid())) {
            // a leader in the middle of an exec (setsid(1) replacing itself with the command, just after start) shows
            // an empty command line and environment for a moment: asked again, up to ~100 ms, before it is a stranger
            for (int i = 0; ; i++) {
                boolean ours = leaderMatches(id);
                if (ours || i >= 100 || !cmdline(id.pgid()).isEmpty()) {
                    return ours ? Owner.OURS : Owner.FOREIGN;
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Owner.FOREIGN;
                }
            }
        }
        for (long pid : members) {
            if (hasMarker(pid, id.marker())) {
                return Owner.OURS;
            }
        }
        return Owner.FOREIGN;
    }

    /** The group's leader is the one {@code id} recorded: its start time, and its marker or its command line. */
    private static boolean leaderMatches(Identity id) {
        boolean sameStart = id.startTicks() >= 0 && startTicks(id.pgid()) == id.startTicks();
        return sameStart && (hasMarker(id.pgid(), id.marker()) || cmdline(id.pgid()).equals(id.argv())
                || cmdline(id.pgid()).equals(id.argv().subList(Math.min(1, id.argv().size()), id.argv().size())));
    }

    /**
     * Waits (at most 2 s, a few milliseconds as a rule) until setsid(1) has made the child the leader of its own
     * group: before that the child is in isobench's group, and a teardown would find no member to signal and leave
     * it to start its group unseen.
     */
    private static void awaitOwnGroup(Process p) {
        long end = System.nanoTime() + 2_000_000_000L;
        while (p.isAlive() && System.nanoTime() < end) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                if (Long.parseLong(f[2]) == p.pid()) { // f[2]: pgrp
                    return;
                }
                Thread.sleep(1);
            } catch (IOException | RuntimeException e) {
                return; // exited meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The most of a log (or a command's output file) read as text: its first MiB and its last 15 MiB. */
    public static final int LOG_HEAD_BYTES = 1 << 20;
    public static final int LOG_TAIL_BYTES = 15 << 20;

    /**
     * A log file as text (UTF-8, else byte for byte as ISO-8859-1; empty when unreadable). A command or server may
     * print without end: beyond {@link #LOG_HEAD_BYTES} + {@link #LOG_TAIL_BYTES} only the head and the tail are read
     * (metrics and errors are at the end), with a line saying how much was left out, so memory stays bounded.
     */
    public static String readLog(Path log) {
        byte[] bytes;
        try (FileChannel ch = FileChannel.open(log)) {
            long size = ch.size(); // a running command's log grows: what is read is bounded by this size
            if (size <= LOG_HEAD_BYTES + LOG_TAIL_BYTES) {
                bytes = fill(ch, 0, (int) size);
            } else {
                // cut anywhere, maybe inside a character: each part decoded leniently
                Path whole = keepWhole(log);
                return new String(fill(ch, 0, LOG_HEAD_BYTES), StandardCharsets.UTF_8) + String.format(
                        Locale.ROOT, "%n[isobench: %d bytes of this log left out here, its first %d and last"
                                + " %d bytes read; %s]%n", size - LOG_HEAD_BYTES - LOG_TAIL_BYTES, LOG_HEAD_BYTES,
                        LOG_TAIL_BYTES, whole == null ? "the whole log could not be kept"
                                : "the whole log is kept in " + whole)
                        + new String(fill(ch, size - LOG_TAIL_BYTES, LOG_TAIL_BYTES), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            return "";
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * Keeps the whole of a log too large to read: a hard link (no copy; it sees every later write of the command)
     * named {@code NAME.whole.log}, in {@code ARM.logs/} beside an arm's scratch folder {@code ARM.tmp/} (which is
     * cleared when the arm is prepared again), else beside the log. The link outlives the caller's deletion of the
     * log. It holds the command's output as written (not redacted): it stays in the work folder, never enters the
     * store, a report or an export. Null when the file system cannot link.
     */
    static Path keepWhole(Path log) {
        Path dir = log.toAbsolutePath().getParent();
        String d = dir.getFileName().toString();
        Path keep = d.endsWith(".tmp") ? dir.resolveSibling(d.substring(0, d.length() - 4) + ".logs") : dir;
        Path target = keep.resolve(log.getFileName().toString().replaceFirst("\\.log$", "") + ".whole.log");
        try {
            Files.createDirectories(keep);
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                Files.createLink(target, log);
            }
            return target;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** Up to {@code length} bytes of {@code ch} from {@code at} on (fewer at its end). */
    private static byte[] fill(FileChannel ch, long at, int length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        while (buf.hasRemaining() && ch.read(buf, at + buf.position()) > 0) {
            // a read may return fewer bytes than asked
        }
        return buf.position() == length ? buf.array() : Arrays.copyOf(buf.array(), buf.position());
    }

    /** The start time of a process in clock ticks after boot ({@code /proc/PID/stat} field 22), or -1. */
    static long startTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[19]); // fields after "(comm)" start at field 3
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static boolean hasMarker(long pid, String marker) {
        try {
            byte[] env = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
            byte[] want = (MARKER_ENV + "=" + marker).getBytes(StandardCharsets.US_ASCII);
            int start = 0;
            for (int i = 0; i <= env.length; i++) {
                if (i == env.length || env[i] == 0) {
                    if (i - start == want.length && Arrays.equals(env, start, i, want, 0, want.length)) {
                        return true;
                    }
                    start = i + 1;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static List<String> cmdline(long pid) {
        try {
            byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            List<String> out = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < b.length; i++) {
                if (b[i] == 0) {
                    out.add(new String(b, start, i - start, StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            return out;
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** TERM, wait up to {@code grace} for every member to exit, KILL, wait again; true when no member is left. */
    private static boolean kill(long pgid, Duration grace) {
        if (pgid <= 1) {
            throw new IllegalArgumentException("pgid (" + pgid + ") must be > 1");
        }
        if (members(pgid).isEmpty()) {
            return true;
        }
        signal(pgid, "TERM");
        if (awaitEmpty(pgid, grace)) {
            return true;
        }
        signal(pgid, "KILL");
        return awaitEmpty(pgid, Duration.ofSeconds(5));
    }

    private static boolean awaitEmpty(long pgid, Duration limit) {
        long end = System.nanoTime() + limit.toNanos();
        long sleepMs = 2;
        while (true) {
            if (members(pgid).isEmpty()) {
                return true;
            }
            if (System.nanoTime() > end) {
                return false;
            }
            try {
                Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return members(pgid).isEmpty();
            }
            sleepMs = Math.min(20, sleepMs * 2);
        }
    }

    private static void signal(long pgid, String sig) {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, "--", "-" + pgid).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // fall back to the members we can see
            for (long pid : members(pgid)) {
                ProcessHandle.of(pid).ifPresent(h -> {
                    if ("KILL".equals(sig)) {
                        h.destroyForcibly();
                    } else {
                        h.destroy();
                    }
                });
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True when the process exists and is not a zombie (/proc), so zombies left for init do not count. */
    public static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String state = stat.substring(stat.lastIndexOf(')') + 2).split(" ")[0];
            return !"Z".equals(state) && !"X".equals(state);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Live (non-zombie) processes whose process group is {@code pgid}, from /proc. */
    public static List<Long> members(long pgid) {
        List<Long> out = new ArrayList<>();
        Path proc = Path.of("/proc");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(proc, p -> {
            String n = p.getFileName().toString();
            return !n.isEmpty() && Character.isDigit(n.charAt(0));
        })) {
            for (Path p : ds) {
                String stat;
                try {
                    stat = Files.readString(p.resolve("stat"));
                } catch (IOException e) {
                    continue; // exited meanwhile
                }
                int close = stat.lastIndexOf(')');
                if (close < 0) {
                    continue;
                }
                String[] f = stat.substring(close + 2).split(" ");
                // f[0] state, f[1] ppid, f[2] pgrp
                if (f.length > 2 && !"Z".equals(f[0]) && !"X".equals(f[0]) && Long.parseLong(f[2]) == pgid) {
                    out.add(Long.parseLong(p.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            ProcessHandle.of(pgid).filter(ProcessHandle::isAlive).ifPresent(h -> out.add(h.pid()));
        }
        return out;
    }
}
