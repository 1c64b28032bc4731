package io.isobench.exec;

import io.isobench.exec.ExecutorKind.Capability;
import io.isobench.IsobenchException;
import io.isobench.plan.GpuDiscovery;
import io.isobench.plan.GpuLease;
import io.isobench.plan.JobSpec;
import io.isobench.probe.Clients;
import io.isobench.probe.ServingClient;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.GpuSlots;
import io.isobench.plan.Job;
import io.isobench.proc.Door;
import io.isobench.proc.ProcessGroup;
import io.isobench.proc.Sandbox;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs each job in its own container ({@code docker run}, attached, in a process group of its own) with the
 * semantics of the local executor: offline jobs run the benchmark and parse its output; serving jobs start the
 * server in the container, probe readiness from the host (host network), run isobench's load generator from the
 * host, and tear the container down. Before anything starts: the arm's image must be present locally
 * ({@code ENV_MISSING}) and docker's root dir and the job's directory must have free space ({@code DISK_FULL}).
 * Containers are named from the job (so a resumed session removes what a killed one left) and removed
 * ({@code docker rm -f}) on every exit path. Environment variables, secrets included, go through a mode-600 env file
 * deleted as soon as the container exists; never through the command line. A job's scratch folder (env file, agent
 * patch) is named from the job too, so a resumed session also removes the env file a SIGKILL left ({@link #reap}).
 */
final class DockerExecutor implements Executor {

    /** Docker: each job in a container on this machine; settings from {@code ISOBENCH_DOCKER_CONFIG}. */
    static final ExecutorKind KIND = new ExecutorKind("docker", EnumSet.of(Capability.RUNS_ON_THIS_HOST,
            Capability.RUNS_GENERIC_OFFLINE, Capability.INSTALLS_ARTIFACTS, Capability.RUNS_ACCURACY),
            suite -> create(DockerConfig.fromEnvironment()));

    /** The marker the in-container patch step prints when the agent patch does not apply. */
    static final String PATCH_MARKER = "isobench: the agent patch does not apply in the image";
    static final String PATCH_IN_CONTAINER = "/isobench/agent.patch";
    /** A scratch folder's name: {@code scratchPrefix(job) + "p" + creator's PID + "-" + random}. */
    private static final String OWNER_MARK = "p";
    private static final Pattern OWNER = Pattern.compile("^isobench-docker-[0-9a-f]+-" + OWNER_MARK + "(\\d{1,18})-");

    private final DockerConfig config;
    /** The one serve-and-measure path, shared by every job's container. */
    private final ServePipeline pipeline;
    private final Duration grace;
    private final GpuSlots gpus;
    /** The GPU mode {@code auto} resolved against the inventory. */
    private final String gpuMode;
    private final Path dockerRoot;
    private final Set<String> imagesPresent = ConcurrentHashMap.newKeySet();

    DockerExecutor(DockerConfig config, Readiness.HttpProbe readiness, ServingClient client, Duration grace,
                   GpuSlots gpus, String gpuMode, Path dockerRoot) {
        this.config = config;
        this.pipeline = new ServePipeline(readiness, client);
        this.grace = grace;
        this.gpus = gpus;
        this.gpuMode = gpuMode;
        this.dockerRoot = dockerRoot;
    }

    /**
     * The executor for this machine: docker must be installed and its daemon answering (else one line naming what
     * is missing and how to get it). GPUs as for the local executor (nvidia-smi, or {@code ISOBENCH_GPUS}).
     */
    static DockerExecutor create(DockerConfig config) {
        Cmd v;
        try {
            v = Cmd.run(List.of(config.docker(), "info", "--format", "{{.DockerRootDir}}"), Duration.ofSeconds(20));
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing("executor docker: the docker CLI (" + config.docker()
                    + ") is not installed; install Docker (Debian: apt-get install docker.io) or run "
                    + "scripts/provision-docker");
        }
        if (v.code() != 0 || v.out().isBlank()) {
            throw new IsobenchException.EnvironmentMissing("executor docker: the docker daemon is not running ("
                    + v.out().lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("no answer").strip()
                    + "); start it (dockerd --bridge=none --iptables=false, or scripts/provision-docker)");
        }
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null);
        String mode = config.gpuMode();
        if ("auto".equals(mode)) {
            mode = inv.count() == 0 ? "none" : inv.source().contains("nvidia-smi") ? "nvidia" : "devices";
        }
        String root = v.out().strip().lines().reduce((a, b) -> b).orElse("/var/lib/docker");
        return new DockerExecutor(config, Readiness.http(Duration.ofMillis(10)), Clients.serving(),
                Duration.ofSeconds(5), inv.count() == 0 ? null : inv.hostSlots(System.getenv()), mode, Path.of(root));
    }

    @Override
    public ExecutorKind kind() {
        return KIND;
    }

    @Override
    public int gpuCapacity() {
        return LocalExecutor.capacity(gpus);
    }

    @Override
    public JobResult execute(Job job, Hooks hooks) {
        long t0 = System.nanoTime();
        if (job.cwd() == null || !Files.isDirectory(job.cwd())) {
            return failed(t0, job, FailureCategory.ENV_MISSING, "environment " + job.cwd() + " does not exist", "");
        }
        String commit = config.imageTemplate(job.arm().label()).contains("{commit") ? headOf(job.cwd()) : null;
        String image = config.image(job.taskId(), job.arm().label(), commit);
        // preflight: nothing starts (no GPU time spent) when the image or the disk space is missing
        if (!imagesPresent.contains(image)) {
            Cmd c = docker(List.of("image", "inspect", "--format", "{{.Id}}", image), Duration.ofSeconds(30));
            if (c.code() != 0) {
                return failed(t0, job, FailureCategory.ENV_MISSING, "image " + image + " is not present in the local"
                        + " docker (docker pull " + image + ", build it, or for " + DockerConfig.DEFAULT_IMAGE
                        + " run scripts/provision-docker)", c.out());
            }
            imagesPresent.add(image);
        }
        for (Path p : List.of(dockerRoot, job.cwd())) {
            long freeMb = freeMb(p);
            if (freeMb >= 0 && freeMb < config.minFreeDiskMb()) {
                return failed(t0, job, FailureCategory.DISK_FULL, String.format(Locale.ROOT,
                        "%d MB free on %s, %d MB needed (docker system prune, or lower min_free_disk_mb)", freeMb, p,
                        config.minFreeDiskMb()), "");
            }
        }
        Path scratch = null;
        try {
            scratch = Files.createTempDirectory(scratchPrefix(job) + OWNER_MARK + ProcessHandle.current().pid() + "-");
            Path patch = null;
            if (!config.mountWorktree() && job.arm().kind() == io.isobench.Arm.Kind.AGENT) {
                patch = scratch.resolve("agent.patch");
                String diff = agentDiff(job.cwd());
                if (diff == null) {
                    return failed(t0, job, FailureCategory.GIT_ERROR, "cannot read the agent patch from "
                            + job.cwd() + " (git diff HEAD)", "");
                }
                Files.writeString(patch, diff, StandardCharsets.UTF_8);
            }
            Launch launch = new Launch(image, scratch, patch);
            LocalExecutor inner = new LocalExecutor(KIND, pipeline, grace, gpus, launch);
            JobResult r;
            try {
                r = inner.execute(job, hooks);
            } finally {
                removeContainer(containerName(job));
            }
            String log = launch.dockerLine + r.log();
            Failure f = r.failure();
            if (f != null && log.contains(PATCH_MARKER)) {
                f = new Failure(FailureCategory.PATCH_FAILED, "the agent patch does not apply to " + image + " at "
                        + config.patchDir(), List.of(PATCH_MARKER));
            } else if (f != null && log.contains("Unable to find image")) {
                f = new Failure(FailureCategory.ENV_MISSING, "image " + image + " is not present", List.of());
            }
            return r.withOutcome(f, log, (System.nanoTime() - t0) / 1e6);
        } catch (IOException e) {
            return failed(t0, job, FailureCategory.DISK_FULL, "cannot write the run's env file: " + e.getMessage(), "");
        } finally {
            deleteTree(scratch);
        }
    }

    /**
     * Removes what a killed orchestrator left for this job: its container (by its name) and its scratch folder (by
     * its name's prefix), with the env file a SIGKILL between writing it and the container's start left on disk.
     */
    @Override
    public void reap(Job job) {
        removeContainer(containerName(job));
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (var dirs = Files.newDirectoryStream(tmp, scratchPrefix(job) + "*")) {
            for (Path d : dirs) {
                deleteTree(d);
            }
        } catch (IOException e) {
            // nothing to list: nothing left
        }
    }

    /**
     * A resumed session first removes the scratch folders (env files included) of every orchestrator that is gone: a
     * SIGKILL between writing a job's env file and recording the job's placeholder leaves a folder that {@link #reap}
     * cannot find by any stored run. A folder names its creator's PID ({@code …-p<pid>-…}); a folder whose creator
     * still runs is left alone, and so is one in the older form without a PID.
     */
    @Override
    public void beginSession(String sessionId) {
        sweepOrphans(Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** Deletes the docker scratch folders under {@code tmp} whose creating process no longer exists. */
    static void sweepOrphans(Path tmp) {
        try (var dirs = Files.newDirectoryStream(tmp, "isobench-docker-*")) {
            for (Path d : dirs) {
                Matcher m = OWNER.matcher(d.getFileName().toString());
                if (m.find() && ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
                    deleteTree(d);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // nothing to list, or a name not ours: nothing to sweep
        }
    }

    /** A job's scratch folder name prefix in java.io.tmpdir: the hash of its container name (one job, one prefix). */
    static String scratchPrefix(Job job) {
        String name = containerName(job);
        return "isobench-docker-" + name.substring(name.lastIndexOf('-') + 1) + "-";
    }

    /** One job's container: the placement the local executor's logic drives. */
    private final class Launch implements Placement {
        private final String image;
        private final Path scratch;
        private final Path patch;
        String dockerLine = "";

        Launch(String image, Path scratch, Path patch) {
            this.image = image;
            this.scratch = scratch;
            this.patch = patch;
        }

        /** Open doors by the PGID of the {@code docker run} client of the server behind them. */
        private final Map<Long, Door> doors = new ConcurrentHashMap<>();

        @Override
        public ProcessGroup start(Job job, List<String> argv, Path log) throws IOException {
            return start(job, argv, log, null);
        }

        /**
         * A server in a container without a network ({@code network: none}, the default) gets a door: isobench's
         * clients connect to 127.0.0.1:{@code port}, relayed to the bridge in the container.
         */
        @Override
        public ProcessGroup startServer(Job job, List<String> argv, Path log, int port) throws IOException {
            if (!DockerConfig.NETWORK_NONE.equals(config.network())) {
                return start(job, argv, log, null);
            }
            // the container's user (the worktree's owner, or the image's) creates the socket there
            Door opened = Door.open(port, null, true);
            try {
                ProcessGroup pg = start(job, argv, log, new DoorMount(opened.dir(), port,
                        Path.of(System.getProperty("java.home"))));
                doors.put(pg.pgid(), opened);
                return pg;
            } catch (IOException | RuntimeException e) {
                opened.close();
                throw e;
            }
        }

        private ProcessGroup start(Job job, List<String> argv, Path log, DoorMount door) throws IOException {
            String name = containerName(job);
            removeContainer(name); // a leftover of an interrupted session
            Map<String, String> env = containerEnv(job);
            Path envFile = scratch.resolve("env");
            Files.deleteIfExists(envFile);
            Files.createFile(envFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            StringBuilder sb = new StringBuilder();
            env.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
            Files.writeString(envFile, sb.toString(), StandardCharsets.UTF_8);
            List<String> run = runArgv(config, gpuMode, job, argv, new Container(image, name, envFile,
                    ownerOf(job.cwd()), leased(job), patch, door), System.getProperty("user.home"));
            dockerLine = "isobench: " + String.join(" ", run) + "\n";
            ProcessGroup pg = ProcessGroup.start(run, job.cwd(), Map.of(), log);
            // the client reads the env file before it creates the container: delete it as soon as the container
            // exists (or the client is gone), so not even a SIGKILLed orchestrator leaves the secrets on disk
            long end = System.nanoTime() + 60_000_000_000L;
            while (pg.leaderAlive() && !containerExists(name) && System.nanoTime() < end) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            Files.deleteIfExists(envFile);
            return pg;
        }

        @Override
        public boolean stop(Job job, ProcessGroup group, Duration grace) {
            String name = containerName(job);
            if (group.leaderAlive()) {
                long s = Math.max(1, (grace.toMillis() + 999) / 1000);
                docker(List.of("stop", "--time", Long.toString(s), name), grace.plusSeconds(30));
            }
            removeContainer(name);
            boolean gone = group.terminate(grace) && !containerExists(name);
            Door d = doors.remove(group.pgid());
            if (d != null) {
                d.close();
            }
            return gone;
        }
    }

    /** The container's environment: the job's variables, secrets from the host, unbuffered Python output. */
    private Map<String, String> containerEnv(Job job) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PYTHONUNBUFFERED", "1");
        if (config.mountWorktree() && config.runAsOwner()) {
            env.put("HOME", "/tmp");
        }
        for (String s : config.secretEnv()) {
            String v = System.getenv(s);
            if (v != null && !v.contains("\n")) {
                env.put(s, v);
            }
        }
        job.env().forEach((k, v) -> {
            if (!v.contains("\n")) {
                env.put(k, v);
            }
        });
        if ("nvidia".equals(gpuMode)) {
            env.remove("CUDA_VISIBLE_DEVICES"); // --gpus renumbers the container's devices from 0
        }
        return env;
    }

    private static List<Integer> leased(Job job) {
        String v = job.env().get("CUDA_VISIBLE_DEVICES");
        List<Integer> out = new ArrayList<>();
        if (v != null) {
            for (String s : v.split(",")) {
                if (s.strip().matches("\\d+")) {
                    out.add(Integer.parseInt(s.strip()));
                }
            }
        }
        return out;
    }

    /**
     * The {@code docker run} argv of one job (a pure function: golden-tested). {@code argv} is the job's command
     * with its port resolved; {@code gpuIds} the GPUs leased to it; {@code patch} the agent patch on the host (or
     * null) when the image holds the source; {@code home} what {@code {home}} in volume specs expands to.
     */
    /**
     * The container one job runs in.
     *
     * @param envFile the file holding the job's environment (read by the client, deleted once the container exists)
     * @param user    {@code uid:gid} of the worktree's owner; null when unknown
     * @param gpuIds  the GPUs leased to the job; empty: none
     * @param patch   an agent's patch, applied inside the container before the command; null for other arms
     */
    record Container(String image, String name, Path envFile, String user, List<Integer> gpuIds, Path patch,
                     DoorMount door) {
        Container(String image, String name, Path envFile, String user, List<Integer> gpuIds, Path patch) {
            this(image, name, envFile, user, gpuIds, patch, null);
        }
    }

    /**
     * A server's door in a container without a network: the host folder bound at {@code Sandbox.NET_DIR} (its
     * socket and {@code NetBridge}'s class file), the server's port inside, and the host's JDK mounted read-only at
     * {@link #JDK_IN_CONTAINER} to run the bridge.
     */
    record DoorMount(Path hostDir, int port, Path javaHome) {
    }

    /** Where the host's JDK is mounted (read-only) in a container that runs a server's door. */
    static final String JDK_IN_CONTAINER = "/opt/isobench-jdk";

    static List<String> runArgv(DockerConfig c, String gpuMode, Job job, List<String> argv, Container container,
                                String home) {
        String image = container.image();
        String name = container.name();
        Path envFile = container.envFile();
        String user = container.user();
        List<Integer> gpuIds = container.gpuIds();
        Path patch = container.patch();
        List<String> a = new ArrayList<>(List.of(c.docker(), "run", "--rm", "--name", name,
                "--label", "io.isobench.job=" + job.jobId(), "--label", "io.isobench.cwd=" + job.cwd(),
                "--network", c.network()));
        if (c.init()) {
            a.add("--init");
        }
        if (c.shmSize() != null) {
            a.addAll(List.of("--shm-size", c.shmSize()));
        }
        if (c.mountWorktree() && c.runAsOwner() && user != null) {
            a.addAll(List.of("--user", user));
        }
        a.addAll(List.of("--env-file", envFile.toString()));
        if (c.mountWorktree()) {
            a.addAll(List.of("-v", job.cwd() + ":" + job.cwd(), "-w", job.cwd().toString()));
        } else {
            a.addAll(List.of("-w", c.sourceDir()));
        }
        if (patch != null) {
            a.addAll(List.of("-v", patch + ":" + PATCH_IN_CONTAINER + ":ro"));
        }
        DoorMount door = container.door();
        if (door != null) {
            a.addAll(List.of("-v", door.hostDir() + ":" + Sandbox.NET_DIR, "-v", door.javaHome() + ":"
                    + JDK_IN_CONTAINER + ":ro"));
        }
        if (job.spec() instanceof JobSpec.Accuracy acc && !".".equals(acc.suiteDir())) {
            // the accuracy command's own files ({suite_dir}), as on the host
            a.addAll(List.of("-v", acc.suiteDir() + ":" + acc.suiteDir() + ":ro"));
        }
        for (String v : c.volumes()) {
            a.addAll(List.of("-v", v.replace("{home}", home)));
        }
        if (!gpuIds.isEmpty()) {
            switch (gpuMode) {
                case "nvidia" -> a.addAll(new GpuLease(gpuIds).dockerArgs());
                case "devices" -> gpuIds.forEach(i -> a.addAll(List.of("--device", c.gpuDevice().replace("{i}",
                        Integer.toString(i)))));
                default -> { }
            }
        }
        a.addAll(c.extraArgs());
        a.add(image);
        StringBuilder script = new StringBuilder();
        if (c.mergeOutput()) {
            // one stream, as on the host: docker relays stdout and stderr separately and reorders them mid-line
            script.append("exec 2>&1; ");
        }
        if (patch != null) {
            // applied and verified inside the container (reverse --check proves it is in place), then the command
            String dir = c.patchDir() == null ? "." : c.patchDir();
            script.append("(cd '" + dir + "' && git apply --whitespace=nowarn " + PATCH_IN_CONTAINER
                    + " && git apply --reverse --check " + PATCH_IN_CONTAINER + ") || { echo \"" + PATCH_MARKER
                    + " (" + dir + ")\"; exit 97; }; echo \"isobench: agent patch applied and verified in " + dir
                    + "\"; ");
        }
        if (!script.isEmpty()) {
            a.addAll(List.of("sh", "-c", script + "exec \"$@\"", "isobench"));
        }
        if (door != null) {
            a.addAll(Sandbox.bridgeCommand(Path.of(JDK_IN_CONTAINER, "bin", "java"), door.port()));
        }
        a.addAll(argv);
        return a;
    }

    /** {@code isobench-<job id, sanitized>-<hash of job id and cwd>}: stable across an orchestrator restart. */
    static String containerName(Job job) {
        String base = job.jobId().replaceAll("[^A-Za-z0-9_.-]", "_");
        if (base.length() > 80) {
            base = base.substring(0, 80);
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest((job.jobId() + "\n" + job.cwd())
                    .getBytes(StandardCharsets.UTF_8));
            return "isobench-" + base + "-" + HexFormat.of().formatHex(h, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void removeContainer(String name) {
        docker(List.of("rm", "-f", name), Duration.ofSeconds(60));
    }

    private boolean containerExists(String name) {
        return docker(List.of("container", "inspect", "--format", "{{.Id}}", name), Duration.ofSeconds(30)).code() == 0;
    }

    private Cmd docker(List<String> args, Duration limit) {
        List<String> argv = new ArrayList<>();
        argv.add(config.docker());
        argv.addAll(args);
        try {
            return Cmd.run(argv, limit);
        } catch (IOException e) {
            return new Cmd(127, String.valueOf(e.getMessage()));
        }
    }

    private static String ownerOf(Path dir) {
        try {
            return Files.getAttribute(dir, "unix:uid") + ":" + Files.getAttribute(dir, "unix:gid");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long freeMb(Path p) {
        try {
            return Files.getFileStore(p).getUsableSpace() / (1024 * 1024);
        } catch (IOException e) {
            return -1;
        }
    }

    private static String headOf(Path cwd) {
        try {
            Cmd c = Cmd.run(List.of("git", "-C", cwd.toString(), "rev-parse", "HEAD"), Duration.ofSeconds(30));
            return c.code() == 0 ? c.out().strip() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The agent arm's change against its commit, new files included (the worktree holds the applied patch). */
    private static String agentDiff(Path cwd) {
        try {
            Cmd add = Cmd.run(List.of("git", "-C", cwd.toString(), "add", "-A", "-N"), Duration.ofSeconds(60));
            Cmd diff = Cmd.run(List.of("git", "-C", cwd.toString(), "diff", "HEAD", "--binary"), Duration.ofSeconds(60));
            return add.code() == 0 && diff.code() == 0 ? diff.out() : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static JobResult failed(long t0, Job job, FailureCategory cat, String detail, String log) {
        return JobResult.failed(t0, new Failure(cat, detail, log.isBlank() ? List.of() : List.of(log.strip().lines()
                .reduce((a, b) -> b).orElse(""))), log, Map.of(), job.argv());
    }

    private static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // temp dir
        }
    }

    /** A short command's exit code and output (stdout and stderr together). */
    record Cmd(int code, String out) {
        static Cmd run(List<String> argv, Duration limit) throws IOException {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            byte[] out;
            try {
                out = p.getInputStream().readAllBytes();
                if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    return new Cmd(124, new String(out, StandardCharsets.UTF_8));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
                return new Cmd(130, "interrupted");
            }
            return new Cmd(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        }
    }
}
