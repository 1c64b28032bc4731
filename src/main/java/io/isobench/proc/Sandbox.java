package io.isobench.proc;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The wall around a measured process (docs/security.md, "Measured arms"): bubblewrap ({@code bwrap}, the sandbox
 * Flatpak is built on; no daemon, no setuid, user namespaces only). A confined command:
 * <ul>
 *   <li>sees the host read-only ({@code --ro-bind / /}), with a private {@code /tmp}, {@code /dev/shm}, {@code /proc},
 *   an empty {@code /run} (no host Unix socket) and a minimal {@code /dev}; it may write only its arm's folders (worktree, scratch, {@code .site}) and what the
 *   suite declares writable;</li>
 *   <li>has no network but its own loopback ({@code --unshare-net}); a server is reached through {@link NetBridge}
 *   (a Unix socket in the scratch folder) and {@link HostBridge}, nothing else crosses;</li>
 *   <li>is not root: when isobench runs as root the command runs as an unprivileged uid ({@code setpriv}, default
 *   {@code 65534:65534}, the arm's folders handed to it first), with no capabilities, in PID, IPC and UTS namespaces
 *   of its own, and dies with isobench ({@code --die-with-parent});</li>
 *   <li>gets the host's GPU device nodes ({@code /dev/nvidia*}, {@code /dev/dri}, {@code /dev/kfd}) bound in;
 *   which GPUs it uses is still its lease ({@code CUDA_VISIBLE_DEVICES}).</li>
 * </ul>
 * The argv is built without a shell: the command's words stay words.
 */
public final class Sandbox {

    /** The sandboxing tool: {@code bwrap} on the PATH, or the program the system property {@code isobench.bwrap} names. */
    public static final String BWRAP = System.getProperty("isobench.bwrap", "bwrap");
    /** The unprivileged uid and gid a confined command gets when isobench runs as root. */
    public static final Ids NOBODY = new Ids(65534, 65534);
    private static final Pattern GPU_DEVICE = Pattern.compile("nvidia.*|dri|kfd");
    private static volatile Optional<String> problem;

    /** A numeric uid and gid. */
    public record Ids(int uid, int gid) {
        @Override
        public String toString() {
            return uid + ":" + gid;
        }
    }

    /**
     * A server's door: a short-named host folder (the Unix socket {@link NetBridge} listens on, and its class file),
     * bound into the sandbox at {@link #NET_DIR}.
     *
     * @param hostDir the folder on the host ({@link #bridgeDir})
     * @param port    the server's port inside the sandbox's namespace (the same number {@link HostBridge} uses)
     * @param java    the {@code java} launcher that runs the bridge (the host's JDK, visible read-only)
     */
    public record Bridge(Path hostDir, int port, Path java) {
        /** The socket's path on the host, where {@link HostBridge} connects. */
        public Path hostSocket() {
            return hostDir.resolve(SOCKET);
        }
    }

    /** Where a server's door folder appears inside the sandbox (in its private {@code /tmp}). */
    public static final Path NET_DIR = Path.of("/tmp/isobench-net");
    static final String SOCKET = "s";
    private static final String CLASSES = "classes";

    /**
     * What one confined command may touch.
     *
     * @param cwd      where it starts
     * @param writable folders it may write (all else is read-only)
     * @param network  true: the host's network (builds that download, when the suite says so); false: loopback only
     * @param bridge   a server's door; null for commands that are not servers
     * @param devices  device nodes bound in (GPUs)
     * @param runAs    the uid and gid to run as when isobench is root; null: isobench's own user
     * @param readable folders bound read-only again after the private {@code /tmp} is mounted (the work folder, the
     *                 repository's git folder, the suite's folder: they may lie under the host's {@code /tmp})
     */
    public record Spec(Path cwd, List<Path> writable, boolean network, Bridge bridge, List<Path> devices,
                       Ids runAs, List<Path> readable) {
        public Spec {
            writable = List.copyOf(writable);
            devices = List.copyOf(devices);
            readable = List.copyOf(readable);
        }

        /** Nothing bound read-only beyond the host's own view. */
        public Spec(Path cwd, List<Path> writable, boolean network, Bridge bridge, List<Path> devices, Ids runAs) {
            this(cwd, writable, network, bridge, devices, runAs, List.of());
        }
    }

    private Sandbox() {
    }

    /** The argv that runs {@code command} confined by {@code spec} (a pure function: golden-tested). */
    public static List<String> argv(Spec spec, List<String> command) {
        List<String> a = new ArrayList<>();
        if (spec.runAs() != null) {
            a.addAll(List.of("setpriv", "--reuid=" + spec.runAs().uid(), "--regid=" + spec.runAs().gid(),
                    "--clear-groups", "--"));
        }
        a.addAll(List.of(BWRAP, "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc",
                "--unshare-uts", "--unshare-cgroup-try"));
        if (!spec.network()) {
            a.add("--unshare-net");
        }
        // /run hidden: the host's Unix sockets (docker's, PostgreSQL's, D-Bus) stay out of reach whatever groups
        // the user has (connecting to a socket needs no write access to its file system)
        a.addAll(List.of("--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/tmp", "--tmpfs", "/dev/shm", "--tmpfs", "/run"));
        if (!Files.isSymbolicLink(Path.of("/var/run")) && Files.isDirectory(Path.of("/var/run"))) {
            a.addAll(List.of("--tmpfs", "/var/run"));
        }
        for (Path r : spec.readable()) {
            a.addAll(List.of("--ro-bind-try", r.toString(), r.toString()));
        }
        for (Path d : spec.devices()) {
            a.addAll(List.of("--dev-bind-try", d.toString(), d.toString()));
        }
        for (Path w : spec.writable()) {
            a.addAll(List.of("--bind", w.toString(), w.toString()));
        }
        Bridge b = spec.bridge();
        if (b != null) {
            a.addAll(List.of("--bind", b.hostDir().toString(), NET_DIR.toString()));
        }
        a.addAll(List.of("--chdir", spec.cwd().toString(), "--"));
        if (b != null) {
            a.addAll(bridgeCommand(b.java(), b.port()));
        }
        a.addAll(command);
        return a;
    }

    /**
     * The words that start {@link NetBridge} in front of a server's command, its folder at {@link #NET_DIR}: with the
     * sandbox's JVM {@code java} (small heap, serial GC, C1 only: it relays bytes and must not compete with the
     * server).
     */
    public static List<String> bridgeCommand(Path java, int port) {
        return List.of(java.toString(), "-Xmx32m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData", "-cp", NET_DIR.resolve(CLASSES).toString(), NetBridge.class.getName(),
                NET_DIR.resolve(SOCKET).toString(), Integer.toString(port), "--");
    }

    /** The GPU device nodes of this machine ({@code /dev/nvidia*}, {@code /dev/dri}, {@code /dev/kfd}). */
    public static List<Path> gpuDevices() {
        try (Stream<Path> s = Files.list(Path.of("/dev"))) {
            return s.filter(p -> GPU_DEVICE.matcher(p.getFileName().toString()).matches()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The uid and gid a confined command runs as: {@link #NOBODY} when isobench is root, else null (its own). */
    public static Ids runAs() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid")) ? NOBODY : null;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /**
     * The first folder above {@code path} that {@code ids} may not enter (no execute permission for others: the
     * sandbox's uid is neither owner nor group of a folder isobench did not hand over); empty when every one is open
     * or {@code ids} is null (the command runs as isobench's own user).
     */
    public static Optional<Path> closedAncestor(Ids ids, Path path) {
        if (ids == null) {
            return Optional.empty();
        }
        for (Path p = path.toAbsolutePath().normalize().getParent(); p != null; p = p.getParent()) {
            try {
                if (!Files.getPosixFilePermissions(p).contains(PosixFilePermission
                        .OTHERS_EXECUTE)) {
                    return Optional.of(p);
                }
            } catch (IOException | UnsupportedOperationException e) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Hands {@code dirs} (created when missing) to {@code ids} ({@code chown -R}, links themselves, never followed),
     * so a command confined as that uid can write there. Nothing when {@code ids} is null.
     */
    public static void handOver(Ids ids, List<Path> dirs) throws IOException {
        if (ids == null) {
            return;
        }
        List<String> argv = new ArrayList<>(List.of("chown", "-R", "-P", ids.toString()));
        for (Path d : dirs) {
            Files.createDirectories(d);
            argv.add(d.toString());
        }
        Run r = run(argv);
        if (r.exit() != 0) {
            throw new IOException("cannot hand " + dirs + " to uid " + ids + ": " + r.out().strip());
        }
    }

    /**
     * Makes a server's door folder: a fresh, short-named folder under the system's temporary folder (a Unix socket's
     * path must stay under 108 bytes), holding {@link NetBridge}'s class file, handed to {@code ids} (null: ours).
     * The caller deletes it when the server is gone ({@link #deleteBridgeDir}).
     */
    public static Path bridgeDir(Ids ids) throws IOException {
        removeStaleBridgeDirs();
        Path dir = Files.createTempDirectory(BRIDGE_PREFIX + ProcessHandle.current().pid() + "-");
        Path file = dir.resolve(CLASSES).resolve(NetBridge.class.getName().replace('.', '/') + ".class");
        Files.createDirectories(file.getParent());
        try (InputStream in = NetBridge.class.getResourceAsStream(NetBridge.class.getSimpleName() + ".class")) {
            if (in == null) {
                throw new IOException("NetBridge.class is not on isobench's class path");
            }
            Files.write(file, in.readAllBytes());
        }
        handOver(ids, List.of(dir));
        return dir;
    }

    private static final String BRIDGE_PREFIX = "isobench-net-";
    private static final Pattern BRIDGE_NAME = Pattern.compile(
            "isobench-net-(\\d+)-\\d+");

    /**
     * Deletes the door folders that isobench processes no longer alive left in the temporary folder (one killed with
     * SIGKILL cannot delete its own): a folder is named after its process's pid, and only one of this user's whose pid
     * names no live process is cleared.
     */
    static void removeStaleBridgeDirs() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> s = Files.list(tmp)) {
            for (Path p : s.toList()) {
                Matcher m = BRIDGE_NAME.matcher(p.getFileName().toString());
                if (m.matches() && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                        && Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName()
                        .equals(System.getProperty("user.name"))
                        && ProcessHandle.of(Long.parseLong(m.group(1))).map(h -> !h.isAlive()).orElse(true)) {
                    deleteBridgeDir(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            // a temporary folder: what cannot be listed now is cleared next time
        }
    }

    /** Deletes a server's door folder (its socket, class file and folders). */
    public static void deleteBridgeDir(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary folder; the next boot clears it
        }
    }

    /** The {@code java} launcher of the running JDK. */
    public static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /**
     * Why no command can be confined on this machine (bwrap missing, or user namespaces refused), with the fix; empty
     * when it works. Tried once per process: {@code bwrap} runs {@code true} in the walls {@link #argv} builds.
     */
    public static Optional<String> problem() {
        Optional<String> p = problem;
        if (p == null) {
            p = probe();
            problem = p;
        }
        return p;
    }

    private static Optional<String> probe() {
        Path cwd = Path.of("/");
        Run r = run(argv(new Spec(cwd, List.of(), false, null, List.of(), runAs()), List.of("true")));
        if (r.exit() == 0) {
            return Optional.empty();
        }
        String why = r.exit() == 127 ? "bwrap (bubblewrap) is not installed" : "bwrap cannot make a sandbox here: "
                + r.out().strip();
        return Optional.of(why + " (fix: apt-get install bubblewrap and allow unprivileged user namespaces, or set "
                + "run.confine.arms: off in the suite to measure unconfined)");
    }

    private record Run(int exit, String out) {
    }

    private static Run run(List<String> argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            byte[] out = p.getInputStream().readNBytes(64 * 1024);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Run(124, "timed out");
            }
            return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Run(127, String.valueOf(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Run(130, "interrupted");
        }
    }
}
