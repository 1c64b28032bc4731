package io.isobench.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The docker sandbox (docs/agents.md, "Sandbox"): each attempt process runs in its own container of the agent image
 * ({@link AgentImage}: the baseline arm's image with the CLI baked in), as uid {@value #AGENT_UID}, with
 * {@code --network none}, CPU, memory and process limits, every capability dropped, no new privileges, a private
 * {@code /tmp}, and exactly three host folders: the attempt's repository ({@code /work/repo}), its home
 * ({@code /home/agent}) and the attempt's egress socket folder ({@code /run/isobench-egress}). The only way out is
 * that socket: {@code enter} starts a forwarder on {@code 127.0.0.1:PORT} inside, piping to an {@link EgressProxy} on
 * the host that reaches exactly the model endpoint. The environment (secrets included) goes through an env file
 * (mode 600, deleted as soon as the container exists), never argv. Containers are stopped by {@link #kill} through a
 * {@link ContainerStopper} (a kill that needs no new file descriptor in this JVM, verified with {@code docker inspect}
 * and retried; a container it cannot prove stopped is reported by {@link #unstoppable}), by {@link #close}, by a JVM
 * shutdown hook, by the stopper's helper when this JVM ends however it ends, and — when all of those failed — by the
 * next sandbox's start-up reap: labels carry the owning JVM's pid and start time, so a container is removed only when
 * that JVM is provably gone (no such pid, or a pid reused by a process started at another time). With
 * {@link #withGpus} an attempt lent GPUs ({@link #lendGpus}) also gets them, and nothing else, as {@link GpuPassthrough}
 * detected: {@code --gpus "device=…"}, or the leased device nodes plus the driver's files read-only; every wall above
 * stays.
 */
public final class DockerSandbox implements AgentSandbox {

    /** The agent's uid and gid inside the container. */
    public static final int AGENT_UID = 10001;
    /** The repository inside the container. */
    public static final String REPO = "/work/repo";
    /** The agent's home inside the container. */
    public static final String HOME = "/home/agent";
    /** The egress socket's folder inside the container. */
    public static final String EGRESS_DIR = "/run/isobench-egress";
    /** Label on every sandbox container: the agent's name. */
    static final String LABEL = "io.isobench.agent";
    /** Label on every sandbox container: the pid of the JVM that started it (for the reap). */
    static final String PID_LABEL = "io.isobench.agent.pid";
    /** Label on every sandbox container: the start time (epoch ms) of the JVM that started it (pid reuse). */
    static final String STARTED_LABEL = "io.isobench.agent.jvm-started";
    /** Tries of a verified stop, each waiting this long for {@code docker inspect} to show it. */
    static final int STOP_TRIES = 3;
    static final Duration STOP_WAIT = Duration.ofSeconds(10);
    /** Containers this JVM could not stop: tried again by every new sandbox. */
    private static final Set<String> UNSTOPPED = ConcurrentHashMap.newKeySet();

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * A container's resources.
     *
     * @param cpus     {@code --cpus}
     * @param memoryMb {@code --memory} (and {@code --memory-swap}: no swap beyond it), MiB
     * @param pids     {@code --pids-limit}
     * @param tmpMb    size of the private {@code /tmp} (tmpfs, counted in the memory limit), MiB
     */
    public record Limits(double cpus, long memoryMb, int pids, long tmpMb) {
        /** The defaults: 2 CPUs, 4 GiB, 1024 processes, 1 GiB of /tmp. */
        public static final Limits DEFAULT = new Limits(2, 4096, 1024, 1024);

        public Limits {
            if (cpus <= 0 || memoryMb < 64 || pids < 16 || tmpMb < 1) {
                throw new IllegalArgumentException("sandbox limits: cpus > 0, memory >= 64 MiB, pids >= 16, tmp >= 1"
                        + " MiB (got " + cpus + ", " + memoryMb + ", " + pids + ", " + tmpMb + ")");
            }
        }
    }

    /**
     * What the sandbox runs.
     *
     * @param agent     the agent's name (the image's repository: {@code isobench-agent/NAME})
     * @param baseImage the baseline arm's image (must hold {@code /bin/sh} and {@code python3})
     * @param cliDir    the CLI's install folder on the host, baked at {@code /opt/isobench-agent/cli/}; null: nothing
     *                  baked (a {@code command} agent already in the image)
     * @param cli       the CLI's executable: relative to {@code cliDir}, or (without one) its path or name in the image
     * @param upstream  the model endpoint's base URL (the one upstream of the egress proxy); null: no network at all
     * @param limits    the container's resources
     * @param port      the forwarder's port on the container's loopback
     */
    public record Options(String agent, String baseImage, Path cliDir, String cli, String upstream, Limits limits,
                          int port) {
        /** The forwarder's default port inside the container. */
        public static final int DEFAULT_PORT = 4010;

        public Options {
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(baseImage, "baseImage");
            Objects.requireNonNull(cli, "cli");
            limits = limits == null ? Limits.DEFAULT : limits;
            port = port == 0 ? DEFAULT_PORT : port;
            if (cliDir != null && (Path.of(cli).isAbsolute() || Path.of(cli).normalize().startsWith(".."))) {
                throw new IllegalArgumentException("sandbox cli '" + cli + "': must be relative to " + cliDir);
            }
        }

        /** Default limits and port. */
        public static Options of(String agent, String baseImage, Path cliDir, String cli, String upstream) {
            return new Options(agent, baseImage, cliDir, cli, upstream, Limits.DEFAULT, DEFAULT_PORT);
        }

        /** The same with other limits. */
        public Options withLimits(Limits l) {
            return new Options(agent, baseImage, cliDir, cli, upstream, l, port);
        }
    }

    private final Options options;
    private final String docker;
    private final Map<Process, String> containers = new ConcurrentHashMap<>();
    private final Map<Path, Egress> egress = new ConcurrentHashMap<>();
    private final Set<Process> unstopped = ConcurrentHashMap.newKeySet();
    private final ContainerStopper stopper;
    private final Thread shutdownHook;
    private volatile String image;
    /** How leased GPUs reach the containers (detected once; null: this sandbox passes no GPU). */
    private volatile GpuPassthrough gpu;
    /** Leased GPUs per attempt folder. */
    private final Map<Path, List<Integer>> gpus = new ConcurrentHashMap<>();

    /** One attempt's proxy and its socket folder. */
    private record Egress(Path dir, EgressProxy proxy) {
    }

    /** A sandbox for {@code options}; removes containers left by earlier JVMs that are gone. */
    public DockerSandbox(Options options) {
        this(options, "docker");
    }

    /** A sandbox driving the docker CLI {@code docker} (a test's fake). */
    DockerSandbox(Options options, String docker) {
        this.options = Objects.requireNonNull(options, "options");
        this.docker = docker;
        if (options.upstream() != null) {
            URI.create(options.upstream()); // fails early on a malformed URL
        }
        reapOrphans(docker);
        this.stopper = ContainerStopper.start(docker);
        for (String name : List.copyOf(UNSTOPPED)) {
            if (stopper.stop(name, 1, STOP_WAIT)) {
                UNSTOPPED.remove(name);
            }
        }
        this.shutdownHook = new Thread(this::killAll, "isobench-docker-sandbox-cleanup");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    @Override
    public String name() {
        return "docker";
    }

    /** The docker CLI this sandbox drives. */
    String docker() {
        return docker;
    }

    /**
     * Lets this sandbox pass GPUs the way {@code passthrough} was detected ({@link GpuPassthrough#detect}, once per
     * sandbox); returns this.
     */
    public DockerSandbox withGpus(GpuPassthrough passthrough) {
        this.gpu = passthrough;
        return this;
    }

    /**
     * The leased GPUs go into the attempt's containers: {@code --gpus "device=…"} or the device nodes and read-only
     * driver files ({@link GpuPassthrough}); {@code CUDA_VISIBLE_DEVICES} {@code 0..N-1} inside.
     */
    @Override
    public String lendGpus(AttemptDirs dirs, List<Integer> ids) {
        Path key = dirs.root().toAbsolutePath();
        if (ids.isEmpty()) {
            gpus.remove(key);
            return "none";
        }
        if (gpu == null) {
            throw new IllegalStateException("this docker sandbox was made without GPU passthrough (withGpus)");
        }
        gpu.dockerArgs(ids); // a missing device node is one line now, before any container starts
        gpus.put(key, List.copyOf(ids));
        return gpu.mode().label();
    }

    /** The agent image's tag (built on first use). */
    public synchronized String image() {
        if (image == null) {
            image = AgentImage.ensure(docker, options.agent(), options.baseImage(), options.cliDir());
        }
        return image;
    }

    @Override
    public SandboxView view(AttemptDirs dirs) {
        String cli = options.cliDir() == null ? options.cli() : AgentImage.CLI_DIR + "/" + options.cli();
        String baseUrl = null;
        if (options.upstream() != null) {
            String path = URI.create(options.upstream()).getRawPath();
            baseUrl = "http://127.0.0.1:" + options.port() + (path == null ? "" : path);
        }
        return new SandboxView(cli, REPO, HOME, HOME + "/" + dirs.home().relativize(dirs.promptFile()), baseUrl);
    }

    /** The attempt's model usage as its egress proxy counts it (null without an upstream). */
    @Override
    public EgressMeter meter(AttemptDirs dirs) {
        if (options.upstream() == null) {
            return null;
        }
        try {
            return egressFor(dirs).proxy().meter();
        } catch (IOException e) {
            throw new UncheckedIOException("egress proxy for " + dirs.root() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean unstoppable(Process process) {
        return unstopped.contains(process);
    }

    /** The requests the attempt in {@code dirs} made through its egress proxy (empty without one). */
    public List<EgressProxy.Request> egressLog(AttemptDirs dirs) {
        Egress e = egress.get(dirs.root().toAbsolutePath());
        return e == null ? List.of() : e.proxy().log();
    }

    /**
     * Ends the attempt in {@code dirs}: stops its egress proxy, removes its socket folder and returns the requests it
     * made (for the attempt's record). Its containers must have ended ({@link #kill}); a later {@link #start} on the
     * same folders opens a new proxy.
     */
    public List<EgressProxy.Request> release(AttemptDirs dirs) {
        Egress e = egress.remove(dirs.root().toAbsolutePath());
        if (e == null) {
            return List.of();
        }
        e.proxy().close();
        AgentImage.deleteTree(e.dir());
        return e.proxy().log();
    }

    @Override
    public List<String> finish(AttemptDirs dirs) {
        Egress e = egress.get(dirs.root().toAbsolutePath());
        if (e == null) {
            return List.of();
        }
        release(dirs);
        return e.proxy().summary();
    }

    @Override
    public Process start(AttemptDirs dirs, Invocation inv, Map<String, String> secrets) throws IOException {
        String img = image();
        giveToAgent(dirs.repo());
        giveToAgent(dirs.home());
        Egress eg = options.upstream() == null ? null : egressFor(dirs);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", HOME);
        env.put("USER", "agent");
        env.put("LANG", "C.UTF-8");
        env.put("TMPDIR", "/tmp");
        if (eg != null) {
            env.put("ISOBENCH_EGRESS_PORT", Integer.toString(options.port()));
        }
        env.putAll(inv.env());
        List<Integer> leased = gpus.getOrDefault(dirs.root().toAbsolutePath(), List.of());
        if (!leased.isEmpty()) {
            env.putAll(gpu.env(leased));
        }
        env.putAll(secrets);
        String name = "isobench-agent-" + HexFormat.of().formatHex(randomBytes());
        Path envDir = Files.createTempDirectory("isobench-agent-env-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path envFile = envDir.resolve("env");
        try {
            writeEnvFile(envFile, env);
            List<String> argv = runArgv(name, img, dirs, eg == null ? null : eg.dir(), envFile, inv.argv());
            stopper.watch(name); // before it exists: removed if this JVM ends from here on
            Process p = new ProcessBuilder(argv).start();
            containers.put(p, name);
            p.onExit().thenRunAsync(() -> { // ended by itself (--rm): the helper need not remember it
                ContainerStopper.State st = stopper.state(name);
                if (st == ContainerStopper.State.GONE || st == ContainerStopper.State.STOPPED) {
                    stopper.forget(name);
                }
            });
            // the client reads the env file before it creates the container: delete it as soon as the container
            // exists (or the client is gone)
            long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (p.isAlive() && !exists(name) && System.nanoTime() < end) {
                sleep(25);
            }
            return p;
        } finally {
            Files.deleteIfExists(envFile);
            Files.deleteIfExists(envDir);
        }
    }

    /** The {@code docker run} argv of one attempt process. */
    List<String> runArgv(String name, String img, AttemptDirs dirs, Path egressDir, Path envFile,
                         List<String> agentArgv) {
        for (Path p : List.of(dirs.repo(), dirs.home())) {
            if (p.toAbsolutePath().toString().contains(":")) {
                throw new IllegalArgumentException("attempt folder " + p + ": docker's -v cannot mount a path holding"
                        + " ':' (fix: an attempt root without ':')");
            }
        }
        Limits l = options.limits();
        List<String> a = new ArrayList<>(List.of(docker, "run", "--rm", "-i", "--name", name,
                "--label", LABEL + "=" + options.agent(), "--label", PID_LABEL + "=" + ProcessHandle.current().pid(),
                "--label", STARTED_LABEL + "=" + jvmStartedMs(ProcessHandle.current()),
                "--pull", "never", "--init", "--network", "none",
                "--user", AGENT_UID + ":" + AGENT_UID,
                "--cpus", String.format(Locale.ROOT, "%.3f", l.cpus()),
                "--memory", l.memoryMb() + "m", "--memory-swap", l.memoryMb() + "m",
                "--pids-limit", Integer.toString(l.pids()),
                "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "--tmpfs", "/tmp:rw,nosuid,nodev,exec,size=" + l.tmpMb() + "m,mode=1777",
                "-v", dirs.repo().toAbsolutePath() + ":" + REPO,
                "-v", dirs.home().toAbsolutePath() + ":" + HOME));
        if (egressDir != null) {
            a.addAll(List.of("-v", egressDir + ":" + EGRESS_DIR));
        }
        List<Integer> leased = gpus.getOrDefault(dirs.root().toAbsolutePath(), List.of());
        if (!leased.isEmpty()) {
            a.addAll(gpu.dockerArgs(leased));
        }
        a.addAll(List.of("-w", REPO, "--env-file", envFile.toString(), img, AgentImage.ROOT + "/enter"));
        a.addAll(agentArgv);
        return a;
    }

    @Override
    public void kill(Process process) {
        String name = containers.get(process);
        if (name != null) {
            if (stopper.stop(name, STOP_TRIES, STOP_WAIT)) {
                // "removal already in progress" (--rm): wait (a little) until the container is gone
                long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (exists(name) && System.nanoTime() < end) {
                    sleep(50);
                }
                containers.remove(process);
                unstopped.remove(process);
            } else {
                unstopped.add(process);
                UNSTOPPED.add(name);
            }
        }
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills every container still running, stops the egress proxies and removes their socket folders. */
    @Override
    public void reap(AttemptDirs dirs) {
    }

    @Override
    public void close() {
        killAll();
        if (unstopped.isEmpty()) {
            stopper.close(); // else the helper keeps trying when this JVM ends
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs anyway
        }
    }

    private void killAll() {
        for (Process p : List.copyOf(containers.keySet())) {
            kill(p);
        }
        for (Egress e : egress.values()) {
            e.proxy().close();
            AgentImage.deleteTree(e.dir());
        }
        egress.clear();
    }

    /** Removes containers labelled by a sandbox whose JVM (on this machine) is gone. */
    static void reapOrphans(String docker) {
        AgentImage.Out ps = AgentImage.exec(List.of(docker, "ps", "-a", "--filter", "label=" + PID_LABEL,
                "--format", "{{.Names}} {{.Label \"" + PID_LABEL + "\"}} {{.Label \"" + STARTED_LABEL + "\"}}"),
                Duration.ofSeconds(30), Map.of());
        if (ps.code() != 0) {
            return;
        }
        for (String line : ps.text().lines().toList()) {
            String[] f = line.strip().split(" ");
            if (f.length >= 2 && ContainerStopper.NAME.matcher(f[0]).matches() && f[1].matches("\\d+")
                    && ownerGone(Long.parseLong(f[1]), f.length == 3 ? f[2] : null)) {
                AgentImage.exec(List.of(docker, "rm", "-f", f[0]), Duration.ofSeconds(30), Map.of());
            }
        }
    }

    /** Whether the JVM that labelled a container ({@code pid}, started at {@code startedMs}) is gone. */
    static boolean ownerGone(long pid, String startedMs) {
        var h = ProcessHandle.of(pid);
        if (h.isEmpty()) {
            return true;
        }
        return startedMs != null && startedMs.matches("\\d+") && jvmStartedMs(h.get()) != Long.parseLong(startedMs);
    }

    /** When {@code h} started, epoch ms (0 when unknown). */
    static long jvmStartedMs(ProcessHandle h) {
        return h.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    private Egress egressFor(AttemptDirs dirs) throws IOException {
        Path key = dirs.root().toAbsolutePath();
        Egress e = egress.get(key);
        if (e != null) {
            return e;
        }
        // a short path (unix socket names are limited to ~107 bytes), readable by the container's user
        Path dir = Files.createTempDirectory("isobench-egress-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Egress made = new Egress(dir, EgressProxy.start(dir.resolve("egress.sock"), options.upstream(),
                dirs.root().resolve("egress.log")));
        egress.put(key, made);
        return made;
    }

    /** Makes {@code dir} the agent's: owned by uid {@value #AGENT_UID} (as root), else writable by everyone. */
    static void giveToAgent(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = s.toList();
        }
        boolean chown = true;
        for (Path p : all) {
            if (chown) {
                try {
                    Files.setAttribute(p, "unix:uid", AGENT_UID, LinkOption.NOFOLLOW_LINKS);
                    Files.setAttribute(p, "unix:gid", AGENT_UID, LinkOption.NOFOLLOW_LINKS);
                    continue;
                } catch (FileSystemException | UnsupportedOperationException e) {
                    chown = false; // not root: fall back to permissions
                }
            }
            if (!Files.isSymbolicLink(p)) {
                Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(p));
                perms.addAll(EnumSet.of(PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE));
                if (Files.isDirectory(p) || perms.contains(PosixFilePermission.OWNER_EXECUTE)) {
                    perms.add(PosixFilePermission.OTHERS_EXECUTE);
                }
                Files.setPosixFilePermissions(p, perms);
            }
        }
    }

    static void writeEnvFile(Path file, Map<String, String> env) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (!ENV_NAME.matcher(e.getKey()).matches() || e.getValue().indexOf('\n') >= 0
                    || e.getValue().indexOf('\r') >= 0 || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("agent environment variable '" + e.getKey()
                        + "': a name must be [A-Za-z_][A-Za-z0-9_]* and a value one line (docker env files)");
            }
            sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
        }
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    private boolean exists(String name) {
        return AgentImage.exec(List.of(docker, "container", "inspect", "--format", "{{.Id}}", name),
                Duration.ofSeconds(30), Map.of()).code() == 0;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[6];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
