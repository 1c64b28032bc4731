package io.isobench.exec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A command started in its own process group. Java cannot call setsid(2), so the argv is prefixed with
 * {@code setsid}: started from a process that is not a group leader, setsid(1) calls setsid() and execs in place,
 * so the pid is the group id (PGID). Teardown signals the whole group ({@code kill -TERM -- -PGID}, a grace period,
 * then {@code kill -KILL -- -PGID}) and waits until no member is left, grandchildren included.
 */
public final class ProcessGroup implements AutoCloseable {

    private final Process process;
    private final long pgid;
    private final Path log;

    private ProcessGroup(Process process, Path log) {
        this.process = process;
        this.pgid = process.pid();
        this.log = log;
    }

    /** Starts {@code argv} (no shell) in {@code cwd}, stdout and stderr both appended to {@code log}. */
    public static ProcessGroup start(List<String> argv, Path cwd, Map<String, String> env, Path log)
            throws IOException {
        List<String> full = new ArrayList<>(argv.size() + 1);
        full.add("setsid");
        full.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(full).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(env);
        pb.environment().put("PYTHONUNBUFFERED", "1");
        return new ProcessGroup(pb.start(), log);
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
        boolean gone = kill(pgid, grace);
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
     * Tears down any group by id (also groups left by an earlier, killed orchestrator): TERM, wait up to
     * {@code grace} for every member to exit, KILL, wait again. Returns true when no member is left.
     */
    public static boolean kill(long pgid, Duration grace) {
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
