package io.isobench.agent;

import io.isobench.AtifStores;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.isobench.SharedData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The docker sandbox against the real docker daemon (scripts/provision-docker) and the image isobench/python:bookworm:
 * {@link AttemptRunner} runs the {@code command} adapter with a stand-in agent (test resource
 * {@code agent/sandbox-probe.py}, a python script placed in the attempt's home) inside {@link DockerSandbox} on a
 * sealed toy-engine repository. The probe tries every wall from inside — host paths, other ports and hosts and DNS,
 * the human commit, root, other hosts through the proxy — and prints one verdict per try; the positive controls (the
 * model endpoint streams through the forwarded port, the edit becomes the patch, limits in {@code docker inspect})
 * and the secret's path (env file only; in no argv; redacted from the stored output) are checked here. Plus: the
 * wall-time kill, {@link DockerSandbox#close()}, the JVM shutdown hook and the reap after a SIGKILLed JVM leave no
 * container.
 */
@ResourceLock(ItLocks.SANDBOX)
class DockerSandboxIT {

    static final String BASE_IMAGE = "isobench/python:bookworm";
    static final String SECRET = "sk-isobench-sandbox-SECRET-7f3a9c21d4";

    @TempDir
    Path tmp;

    private HttpServer upstream;
    private final List<String> upstreamSaw = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicReference<String> inspected = new AtomicReference<>("");
    private final AtomicReference<List<String>> envFilesAtInspect = new AtomicReference<>(List.of());
    private final AtomicReference<List<String>> hostArgvWithSecret = new AtomicReference<>(List.of());
    private ServerSocket hostPort;
    private final AtomicInteger hostPortConnections = new AtomicInteger();

    static void requireDocker() {
        boolean ok = AgentImage.exec(List.of("docker", "image", "inspect", BASE_IMAGE), Duration.ofSeconds(60),
                Map.of()).code() == 0;
        SharedData.requireService(ok, "a running docker daemon with the image " + BASE_IMAGE
                + " (scripts/provision-docker)");
    }

    @BeforeEach
    void startServers() throws IOException {
        requireDocker();
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.setExecutor(Executors.newCachedThreadPool());
        upstream.createContext("/", this::handle);
        upstream.start();
        hostPort = new ServerSocket(0, 50, InetAddress.getByName("0.0.0.0"));
        Thread.ofVirtual().start(() -> {
            while (!hostPort.isClosed()) {
                try (Socket s = hostPort.accept()) {
                    hostPortConnections.incrementAndGet();
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    @AfterEach
    void stopServers() throws IOException {
        if (upstream != null) {
            upstream.stop(0);
        }
        if (hostPort != null) {
            hostPort.close();
        }
    }

    /** The model endpoint stand-in (test code): echo, a held-back event stream, and an inspection of the caller. */
    private void handle(HttpExchange ex) throws IOException {
        ex.getRequestBody().readAllBytes();
        String path = ex.getRequestURI().getPath();
        upstreamSaw.add(ex.getRequestMethod() + " " + path + " host=" + ex.getRequestHeaders().getFirst("Host"));
        switch (path) {
            case "/v1/stream" -> {
                ex.getResponseHeaders().add("Content-Type", "text/event-stream");
                ex.sendResponseHeaders(200, 0);
                OutputStream o = ex.getResponseBody();
                o.write("event: message\ndata: one\n\n".getBytes(StandardCharsets.UTF_8));
                o.flush();
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                o.write("event: message\ndata: two\n\n".getBytes(StandardCharsets.UTF_8));
                o.close();
                return;
            }
            case "/v1/release" -> release.countDown();
            case "/v1/inspect" -> inspectRunningContainer();
            default -> {
            }
        }
        byte[] out = ("host=" + ex.getRequestHeaders().getFirst("Host")).getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, out.length);
        ex.getResponseBody().write(out);
        ex.close();
    }

    private void inspectRunningContainer() {
        AgentImage.Out ps = AgentImage.exec(List.of("docker", "ps", "-q", "--filter",
                "label=" + DockerSandbox.PID_LABEL + "=" + ProcessHandle.current().pid()), Duration.ofSeconds(30), Map.of());
        StringBuilder sb = new StringBuilder();
        for (String id : ps.text().strip().split("\\s+")) {
            sb.append(AgentImage.exec(List.of("docker", "inspect", "--format",
                    "args={{json .Args}} path={{json .Path}} cmd={{json .Config.Cmd}} user={{.Config.User}}"
                            + " net={{.HostConfig.NetworkMode}} mem={{.HostConfig.Memory}} cpus={{.HostConfig.NanoCpus}}"
                            + " pids={{.HostConfig.PidsLimit}} capdrop={{json .HostConfig.CapDrop}}"
                            + " secopt={{json .HostConfig.SecurityOpt}} tmpfs={{json .HostConfig.Tmpfs}}"
                            + " mounts={{range .Mounts}}{{.Source}}->{{.Destination}};{{end}} env={{json .Config.Env}}",
                    id), Duration.ofSeconds(30), Map.of()).text().strip()).append('\n');
        }
        inspected.set(sb.toString());
        List<String> envFiles = new ArrayList<>();
        try (var s = Files.newDirectoryStream(Path.of(System.getProperty("java.io.tmpdir")), "isobench-agent-env-*")) {
            s.forEach(p -> envFiles.add(p.toString()));
        } catch (IOException e) {
            envFiles.add("cannot list: " + e);
        }
        envFilesAtInspect.set(envFiles);
        hostArgvWithSecret.set(ProcessHandle.allProcesses()
                .map(h -> h.info().commandLine().orElse(""))
                .filter(c -> c.contains(SECRET)).toList());
    }

    private static String toyRepo(Path dest) throws Exception {
        Process p = new ProcessBuilder("bash", "examples/toy-engine/build-repo.sh", dest.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private static String field(String buildOutput, String task, String key) {
        return buildOutput.lines().filter(l -> l.startsWith("task=" + task + " ")).findFirst().orElseThrow()
                .replaceAll(".*\\b" + key + "=(\\S+).*", "$1");
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyWallHoldsFromInsideAndTheModelEndpointStreams() throws Exception {
        Path engine = tmp.resolve("engine");
        String built = toyRepo(engine);
        String human = field(built, "latency", "human");
        String parent = field(built, "latency", "parent");
        String subject = new String(new ProcessBuilder("git", "-C", engine.toString(), "log", "-1", "--format=%s",
                human).start().getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        AttemptDirs dirs = AttemptDirs.under(tmp.resolve("attempt"));
        SealedRepo sealed = SealedRepo.create(engine, "baseline", dirs);
        Files.write(dirs.home().resolve("probe.py"),
                DockerSandboxIT.class.getResourceAsStream("/agent/sandbox-probe.py").readAllBytes());
        List<String> hostPaths = new ArrayList<>(List.of(engine.toString(), dirs.root().toString(),
                Path.of("").toAbsolutePath().toString(), tmp.toString()));
        for (String p : List.of("/root/.m2", "/work/main", "/var/lib/docker", "/var/run/docker.sock")) {
            if (Files.exists(Path.of(p))) {
                hostPaths.add(p);
            }
        }
        String upstreamHost = "127.0.0.1:" + upstream.getAddress().getPort();
        Files.writeString(dirs.home().resolve("probe.json"), new com.fasterxml.jackson.databind.ObjectMapper()
                .writeValueAsString(Map.of("host_paths", hostPaths, "host_hostname",
                        Files.readString(Path.of("/etc/hostname")).strip(), "host_port", hostPort.getLocalPort(),
                        "human_sha", human, "parent_sha", parent, "human_subject", subject,
                        "upstream_host", upstreamHost)));

        AgentConfig config = new AgentConfig("command", null, List.of("python3", "{home}/probe.py", "{base_url}"),
                null, "http://" + upstreamHost + "/v1", List.of("ISOBENCH_TEST_SECRET"), Map.of("PROBE", "1"),
                new Budget(240.0, null, null, null), Map.of());
        AttemptResult result;
        List<EgressProxy.Request> egressLog;
        try (DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of("probe", BASE_IMAGE, null, "python3",
                config.baseUrl()).withLimits(new DockerSandbox.Limits(1.5, 768, 256, 64)))) {
            AttemptRunner runner = new AttemptRunner(new CommandAdapter(), config, sandbox,
                    Map.of("ISOBENCH_TEST_SECRET", SECRET));
            result = AtifStores.valid(runner.run(dirs, sealed, "make it faster"));
            egressLog = sandbox.egressLog(dirs);
            assertThat(sandbox.release(dirs)).isEqualTo(egressLog);
            assertThat(sandbox.egressLog(dirs)).isEmpty();
            assertThat(sandbox.image()).matches("isobench-agent/probe:[0-9a-f]{12}");
        }

        String out = result.rawStdout();
        List<String> checks = out.lines().filter(l -> l.startsWith("CHECK ")).toList();
        assertThat(checks).as(out + "\nstderr:\n" + result.rawStderr()).hasSizeGreaterThan(30);
        assertThat(checks).as("every wall held:\n" + String.join("\n", checks))
                .allMatch(l -> l.split(" ", 4)[2].equals("PASS"));
        for (String name : List.of("host-path-absent:" + engine, "hostname-differs", "host-loopback-port-unreachable",
                "no-ipv4-route-out", "no-ipv6-route-out", "no-resolver-reachable", "only-loopback-interface", "one-commit", "human-commit-absent", "no-remotes", "uid-10001",
                "no-sudo", "cannot-setuid-root", "no-capabilities", "proxy-refuses-absolute-uri",
                "proxy-refuses-connect", "proxy-forged-host-reaches-upstream-only", "proxy-refuses-other-path",
                "sse-streams-incrementally", "secret-in-env", "secret-in-no-cmdline", "host-inspected")) {
            assertThat(checks).as(name).anyMatch(l -> l.startsWith("CHECK " + name + " PASS"));
        }
        assertThat(hostPortConnections.get()).as("the host's port saw no connection").isZero();

        // the upstream saw only the allowed paths, always with its own Host
        assertThat(upstreamSaw).isNotEmpty().allMatch(s -> s.contains(" /v1/") && s.endsWith("host=" + upstreamHost));
        assertThat(egressLog).extracting(EgressProxy.Request::status).contains(200, 403, 405);
        assertThat(egressLog).anyMatch(r -> r.method().equals("CONNECT") && r.status() == 405);

        // docker inspect while it ran: limits, user, network, mounts; the secret in Env only, never in argv
        String insp = inspected.get();
        assertThat(insp).contains("user=10001:10001", "net=none", "mem=" + 768L * 1024 * 1024, "cpus=1500000000",
                "pids=256", "capdrop=[\"ALL\"]", "no-new-privileges", "\"/tmp\"");
        assertThat(insp.replaceAll(".*mounts=", "").replaceAll(" env=.*", "").split(";"))
                .filteredOn(s -> !s.isBlank()).hasSize(3)
                .anyMatch(s -> s.equals(dirs.repo() + "->/work/repo"))
                .anyMatch(s -> s.equals(dirs.home() + "->/home/agent"))
                .anyMatch(s -> s.matches("/tmp/isobench-egress-[^>]*->/run/isobench-egress"));
        String egressDir = insp.replaceAll("(?s).*mounts=.*?(/tmp/isobench-egress-[^;]*?)->/run/isobench-egress.*", "$1");
        assertThat(Path.of(egressDir)).as("the socket folder is removed with its proxy").doesNotExist();
        assertThat(insp.replaceAll(" env=.*", "")).doesNotContain(SECRET);
        assertThat(insp).as("docker inspect shows env vars (documented)").contains("ISOBENCH_TEST_SECRET=" + SECRET);
        assertThat(envFilesAtInspect.get()).as("env file deleted once the container started").isEmpty();
        assertThat(hostArgvWithSecret.get()).as("no host process has the secret in its argv").isEmpty();

        // the stored output is redacted; the edit is the patch, the scratch file is not
        assertThat(out).contains("the agent echoes its key: ***").doesNotContain(SECRET);
        assertThat(result.rawStderr()).doesNotContain(SECRET);
        assertThat(Files.readString(dirs.stdoutFile())).doesNotContain(SECRET).contains("CHECK ");
        assertThat(result.status()).as(result.detail()).isEqualTo(AttemptStatus.OK);
        assertThat(result.patch()).contains("+# edited by the sandbox probe").contains("toyllm/config.py")
                .doesNotContain("__pycache__");
        // the usage line the probe printed is only a claim: the egress proxy saw no model request, and that is
        // what is recorded, with the disagreement flagged
        assertThat(result.usage()).isEqualTo(new Usage(0, 0, 0, 0.001));
        assertThat(result.detail()).contains("usage mismatch: the CLI reported 1 turns, 120+30 tokens")
                .contains("the egress proxy counted 0 requests, 0+0 tokens");
        assertThat(result.cliVersion()).startsWith("Python 3");
        assertThat(leftContainers(ProcessHandle.current().pid())).isEmpty();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theWallTimeKillAndCloseLeaveNoContainer() throws Exception {
        Path engine = tmp.resolve("engine");
        toyRepo(engine);
        AttemptDirs dirs = AttemptDirs.under(tmp.resolve("attempt"));
        SealedRepo sealed = SealedRepo.create(engine, "baseline", dirs);
        AgentConfig config = new AgentConfig("command", null, List.of("sleep", "600"), null, null, List.of(),
                Map.of(), new Budget(3.0, null, null, null), Map.of());
        try (DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of("sleeper", BASE_IMAGE, null, "sleep",
                null))) {
            AttemptResult r = AtifStores.valid(new AttemptRunner(new CommandAdapter(), config, sandbox, Map.of())
                    .run(dirs, sealed, "x"));
            assertThat(r.status()).isEqualTo(AttemptStatus.AGENT_TIMEOUT);
            assertThat(r.wallS()).isLessThan(60);
            assertThat(leftContainers(ProcessHandle.current().pid())).isEmpty();

            Process running = sandbox.start(dirs, new Invocation(List.of("sleep", "600"), Map.of(), Map.of()), Map.of());
            assertThat(leftContainers(ProcessHandle.current().pid())).hasSize(1);
            sandbox.close();
            assertThat(running.isAlive()).isFalse();
            assertThat(leftContainers(ProcessHandle.current().pid())).isEmpty();
            sandbox.kill(running); // idempotent
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aJvmThatExitsOrIsKilledLeavesNoContainer() throws Exception {
        // exits normally: the shutdown hook kills its container
        Process exits = childJvm("exit");
        assertThat(exits.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(exits.exitValue()).as(new String(exits.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
        assertThat(leftContainers(exits.pid())).isEmpty();

        // SIGKILLed: its stopper helper removes its container (SandboxControlPathIT); the next sandbox's reap too
        Process killed = childJvm("hold");
        InputStream in = killed.getInputStream();
        StringBuilder seen = new StringBuilder();
        while (!seen.toString().contains("started")) {
            int c = in.read();
            assertThat(c).as(seen.toString()).isNotNegative();
            seen.append((char) c);
        }
        killed.destroyForcibly().waitFor();
        new DockerSandbox(DockerSandbox.Options.of("reaper", BASE_IMAGE, null, "true", null)).close();
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!leftContainers(killed.pid()).isEmpty() && System.nanoTime() < end) {
            Thread.sleep(200); // a removal already in progress (the helper's) may take a moment
        }
        assertThat(leftContainers(killed.pid())).isEmpty();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theRealClisAreBakedIntoTheImageAndRunAsTheAgentUser() throws Exception {
        Path modules = Path.of("tools/agent-clis/node_modules").toAbsolutePath();
        SharedData.requireService(Files.isDirectory(modules.resolve("@openai/codex-linux-x64"))
                        && Files.isDirectory(modules.resolve("@anthropic-ai/claude-code")),
                "the agent CLIs in tools/agent-clis/node_modules (npm install there)");
        record Cli(String name, AgentAdapter adapter, Path dir, String exe, String version) {
        }
        List<Cli> clis = List.of(
                new Cli("codex", new CodexAdapter(),
                        modules.resolve("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl"), "bin/codex",
                        "0.171.0"),
                new Cli("claude-code", new ClaudeCodeAdapter(), modules.resolve("@anthropic-ai/claude-code"),
                        "bin/claude.exe", "2.1.332"));
        for (Cli c : clis) {
            AttemptDirs dirs = AttemptDirs.under(tmp.resolve("bake-" + c.name()));
            Files.createDirectories(dirs.repo());
            AgentConfig config = new AgentConfig(c.name(), null, List.of(), null, null, List.of(), Map.of(), null, Map.of());
            try (DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of(c.name(), BASE_IMAGE, c.dir(),
                    c.exe(), "https://api.example.invalid/v1"))) {
                assertThat(sandbox.view(dirs).cli()).isEqualTo("/opt/isobench-agent/cli/" + c.exe());
                assertThat(sandbox.view(dirs).baseUrl()).isEqualTo("http://127.0.0.1:4010/v1");
                String version = new AttemptRunner(c.adapter(), config, sandbox, Map.of()).version(dirs);
                assertThat(version).as(c.name()).contains(c.version());
                assertThat(sandbox.image()).matches("isobench-agent/" + c.name() + ":[0-9a-f]{12}");
                // built once: a second sandbox finds the same tag without building
                long t0 = System.nanoTime();
                try (DockerSandbox again = new DockerSandbox(DockerSandbox.Options.of(c.name(), BASE_IMAGE, c.dir(),
                        c.exe(), null))) {
                    assertThat(again.image()).isEqualTo(sandbox.image());
                }
                assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
            }
        }
        assertThat(leftContainers(ProcessHandle.current().pid())).isEmpty();
    }

    private Process childJvm(String mode) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                SandboxChild.class.getName(), mode, tmp.resolve("child-" + mode).toString())
                .redirectErrorStream(true).start();
    }

    /** Containers labelled with {@code pid}, running or not. */
    static List<String> leftContainers(long pid) {
        AgentImage.Out ps = AgentImage.exec(List.of("docker", "ps", "-a", "-q", "--filter",
                "label=" + DockerSandbox.PID_LABEL + "=" + pid), Duration.ofSeconds(30), Map.of());
        assertThat(ps.code()).as(ps.text()).isZero();
        return ps.text().lines().filter(l -> !l.isBlank()).toList();
    }

    /** A JVM that starts one sandbox container, then exits normally ({@code exit}) or waits to be killed. */
    static final class SandboxChild {
        public static void main(String[] args) throws Exception {
            AttemptDirs dirs = AttemptDirs.under(Path.of(args[1]));
            Files.createDirectories(dirs.repo());
            DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of("child", BASE_IMAGE, null, "sleep",
                    null));
            sandbox.start(dirs, new Invocation(List.of("sleep", "600"), Map.of(), Map.of()), Map.of());
            System.out.println("started");
            System.out.flush();
            if (args[0].equals("exit")) {
                System.exit(0);
            }
            Thread.sleep(600_000);
        }
    }
}
