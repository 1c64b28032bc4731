package io.isobench.agent;

import io.isobench.AtifStores;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.ResourceLock;
import io.isobench.ItLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27's attacks on the docker sandbox's control path, in the real sandbox (the image isobench/python:bookworm,
 * a stand-in agent written in python, a stand-in model endpoint on the host's loopback): usage lines the agent forges
 * do not move the budget (the egress proxy counts), a connection flood on the egress socket does not reach this JVM's
 * file descriptors and the wall-time kill still lands, a kill from a JVM with no file descriptor left still stops the
 * container, and a JVM that dies leaves no container running.
 */
@ResourceLock(ItLocks.SANDBOX)
class SandboxControlPathIT {

    static final String BASE_IMAGE = DockerSandboxIT.BASE_IMAGE;

    /** The stand-in agent: {@code honest}/{@code forged} make model calls and print usage; {@code flood} floods. */
    static final String AGENT = """
            import http.client, json, socket, sys, time
            mode = sys.argv[1]
            if mode == "flood":
                held = []
                for i in range(3000):
                    s = socket.socket(socket.AF_UNIX)
                    try:
                        s.connect("/run/isobench-egress/egress.sock")
                        held.append(s)
                    except OSError as e:
                        print("connect failed", i, e, flush=True)
                        break
                print("holding", len(held), flush=True)
                time.sleep(600)
            for turn in range(6):
                c = http.client.HTTPConnection("127.0.0.1", 4010, timeout=30)
                c.request("POST", "/v1/messages", body="{}", headers={"Content-Type": "application/json"})
                r = c.getresponse()
                body = r.read()
                if r.status != 200:
                    print("refused", r.status, flush=True)
                    time.sleep(30)
                    sys.exit(3)
                u = json.loads(body)["usage"]
                if mode == "honest":
                    line = {"turns": 1, "tokens_in": u["input_tokens"], "tokens_out": u["output_tokens"]}
                else:  # what a process writing into the CLI's /proc/<pid>/fd/1 would claim
                    line = {"turns": 0, "tokens_in": 1, "tokens_out": 1, "cost_usd": 0.0001}
                print("isobench-usage: " + json.dumps(line), flush=True)
            open("/work/repo/edited.txt", "w").write("x")
            print("done", flush=True)
            """;

    @TempDir
    Path tmp;

    private HttpServer upstream;
    private final List<String> modelCalls = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startUpstream() throws IOException {
        DockerSandboxIT.requireDocker();
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.setExecutor(Executors.newCachedThreadPool());
        upstream.createContext("/", this::handle);
        upstream.start();
    }

    @AfterEach
    void stopUpstream() {
        if (upstream != null) {
            upstream.stop(0);
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        ex.getRequestBody().readAllBytes();
        modelCalls.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath());
        byte[] out = "{\"type\":\"message\",\"usage\":{\"input_tokens\":1000,\"output_tokens\":200}}"
                .getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, out.length);
        ex.getResponseBody().write(out);
        ex.close();
    }

    private String upstreamUrl() {
        return "http://127.0.0.1:" + upstream.getAddress().getPort() + "/v1";
    }

    private AttemptResult attempt(DockerSandbox sandbox, String name, String mode, Budget budget, List<String> egress)
            throws Exception {
        return attempt(sandbox, name, mode, budget, Map.of(), egress);
    }

    private AttemptResult attempt(DockerSandbox sandbox, String name, String mode, Budget budget,
                                  Map<String, Double> pricing, List<String> egress) throws Exception {
        Path engine = tmp.resolve("engine");
        if (!Files.isDirectory(engine)) {
            Process p = new ProcessBuilder("bash", "examples/toy-engine/build-repo.sh", engine.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(out).isZero();
        }
        AttemptDirs dirs = AttemptDirs.under(tmp.resolve(name));
        SealedRepo sealed = SealedRepo.create(engine, "baseline", dirs);
        Files.writeString(dirs.home().resolve("agent.py"), AGENT);
        AgentConfig config = new AgentConfig("command", null, List.of("python3", "{home}/agent.py", mode), null,
                upstreamUrl(), List.of(), Map.of(), budget, pricing);
        AttemptRunner runner = new AttemptRunner(new CommandAdapter(), config, sandbox, Map.of());
        AttemptResult r = AtifStores.valid(runner.run(dirs, sealed, "x"));
        egress.addAll(runner.finish(dirs));
        return r;
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void forgedUsageLinesDoNotMoveTheBudgetTheProxyCounts() throws Exception {
        Budget oneTurn = new Budget(120.0, 1, null, null);
        try (DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of("usage", BASE_IMAGE, null, "python3",
                upstreamUrl()))) {
            List<String> egress = new ArrayList<>();
            AttemptResult honest = attempt(sandbox, "honest", "honest", oneTurn, egress);
            assertThat(honest.status()).as(honest.detail() + "\n" + honest.rawStdout())
                    .isEqualTo(AttemptStatus.BUDGET_EXCEEDED);
            assertThat(honest.detail()).doesNotContain("usage mismatch");
            assertThat(modelCalls).as("the second turn was refused, not forwarded").hasSize(1);

            modelCalls.clear();
            AttemptResult forged = attempt(sandbox, "forged", "forged", oneTurn,
                    Map.of("input_usd_per_mtok", 3.0, "output_usd_per_mtok", 15.0), egress);
            String why = forged.detail() + "\n" + forged.rawStdout() + "\n" + egress;
            assertThat(forged.status()).as(why).isEqualTo(AttemptStatus.BUDGET_EXCEEDED);
            assertThat(modelCalls).as(why).hasSize(1);
            assertThat(forged.usage()).as("the proxy's count, priced, is recorded")
                    .isEqualTo(new Usage(2, 1000, 200, 1000 * 3.0 / 1e6 + 200 * 15.0 / 1e6));
            assertThat(forged.detail()).contains("usage mismatch")
                    .contains("the CLI reported 0 turns, 1+1 tokens, $0.0001")
                    .contains("the egress proxy counted 2 requests, 1000+200 tokens, $0.0060");
            assertThat(egress).anyMatch(l -> l.startsWith("POST /v1/messages 403 "));
        }
        assertThat(DockerSandboxIT.leftContainers(ProcessHandle.current().pid())).isEmpty();
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aConnectionFloodNeitherReachesThisJvmsDescriptorsNorStopsTheKill() throws Exception {
        long before = openFds();
        AtomicLong peak = new AtomicLong(before);
        Thread watch = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    peak.accumulateAndGet(openFds(), Math::max);
                    Thread.sleep(50);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        AttemptResult r;
        List<String> egress = new ArrayList<>();
        try (DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of("flood", BASE_IMAGE, null, "python3",
                upstreamUrl()))) {
            r = attempt(sandbox, "flood", "flood", new Budget(12.0, null, null, null), egress);
        } finally {
            watch.interrupt();
        }
        String why = r.detail() + "\n" + r.rawStdout() + "\n" + r.rawStderr() + "\n" + egress;
        System.out.println("flood: this JVM's open files grew by at most " + (peak.get() - before) + "; "
                + egress.get(egress.size() - 1) + "; " + r.status() + " after " + r.wallS() + " s");
        assertThat(r.rawStdout()).as(why).contains("holding 3000");
        assertThat(r.status()).as(why).isEqualTo(AttemptStatus.AGENT_TIMEOUT);
        assertThat(r.wallS()).isLessThan(60);
        assertThat(peak.get() - before).as("this JVM's open files during the flood")
                .isLessThan(EgressProxy.MAX_CONNECTIONS + 150);
        assertThat(egress.get(egress.size() - 1)).contains("connections refused over the cap");
        assertThat(DockerSandboxIT.leftContainers(ProcessHandle.current().pid())).isEmpty();
    }

    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aKillFromAJvmWithoutFileDescriptorsStillStopsTheContainer() throws Exception {
        Process child = childJvm("starve");
        String seen = readUntil(child.getInputStream(), "exhausted");
        assertThat(seen).contains("exhausted");
        // the child holds every file descriptor it can get for 10 s while its kill runs: the container stops anyway
        long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        while (!running(child.pid()).isEmpty() && System.nanoTime() < end) {
            Thread.sleep(200);
        }
        assertThat(running(child.pid())).as("stopped while the JVM had no file descriptor").isEmpty();
        String rest = seen + new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(rest).contains("unstoppable=false");
        assertThat(DockerSandboxIT.leftContainers(child.pid())).isEmpty();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aKilledJvmsContainerIsRemovedByItsStopperAndLeftoversOnlyWhenProvablyOrphaned() throws Exception {
        Process killed = childJvm("hold");
        assertThat(readUntil(killed.getInputStream(), "started")).contains("started");
        killed.destroyForcibly().waitFor();
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!DockerSandboxIT.leftContainers(killed.pid()).isEmpty() && System.nanoTime() < end) {
            Thread.sleep(200);
        }
        assertThat(DockerSandboxIT.leftContainers(killed.pid())).as("removed with no new sandbox started").isEmpty();

        // leftovers the stopper could not remove: the next sandbox removes those whose JVM is provably gone (a pid
        // reused by a process started at another time), and keeps this live JVM's own
        long self = ProcessHandle.current().pid();
        String reused = leftover(self, 1L);
        String own = leftover(self, DockerSandbox.jvmStartedMs(ProcessHandle.current()));
        try {
            new DockerSandbox(DockerSandbox.Options.of("reaper", BASE_IMAGE, null, "true", null)).close();
            assertThat(exists(reused)).as("pid reused: reaped").isFalse();
            assertThat(exists(own)).as("this JVM's own: kept").isTrue();
        } finally {
            AgentImage.exec(List.of("docker", "rm", "-f", reused, own), Duration.ofSeconds(30), Map.of());
        }
    }

    /** A created (never started) container labelled like a sandbox's, owned by {@code pid} started at {@code ms}. */
    private static String leftover(long pid, long startedMs) {
        byte[] b = new byte[6];
        new SecureRandom().nextBytes(b);
        String name = "isobench-agent-" + HexFormat.of().formatHex(b);
        AgentImage.Out o = AgentImage.exec(List.of("docker", "create", "--name", name, "--label",
                DockerSandbox.LABEL + "=leftover", "--label", DockerSandbox.PID_LABEL + "=" + pid, "--label",
                DockerSandbox.STARTED_LABEL + "=" + startedMs, "--network", "none", BASE_IMAGE, "true"),
                Duration.ofSeconds(60), Map.of());
        assertThat(o.code()).as(o.text()).isZero();
        return name;
    }

    private static boolean exists(String name) {
        return AgentImage.exec(List.of("docker", "container", "inspect", name), Duration.ofSeconds(30), Map.of())
                .code() == 0;
    }

    /** Running containers labelled with {@code pid}. */
    private static List<String> running(long pid) {
        AgentImage.Out ps = AgentImage.exec(List.of("docker", "ps", "-q", "--filter",
                "label=" + DockerSandbox.PID_LABEL + "=" + pid), Duration.ofSeconds(30), Map.of());
        assertThat(ps.code()).as(ps.text()).isZero();
        return ps.text().lines().filter(l -> !l.isBlank()).toList();
    }

    private static String readUntil(InputStream in, String word) throws IOException {
        StringBuilder seen = new StringBuilder();
        while (!seen.toString().contains(word)) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            seen.append((char) c);
        }
        return seen.toString();
    }

    private Process childJvm(String mode) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                Child.class.getName(), mode, tmp.resolve("child-" + mode).toString())
                .redirectErrorStream(true).start();
    }

    /**
     * A JVM that starts one sandbox container, then either waits to be killed ({@code hold}) or takes every file
     * descriptor it can, kills the container while holding them for 10 s, and says whether it proved it stopped
     * ({@code starve}).
     */
    static final class Child {
        public static void main(String[] args) throws Exception {
            AttemptDirs dirs = AttemptDirs.under(Path.of(args[1]));
            Files.createDirectories(dirs.repo());
            DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of("child", BASE_IMAGE, null, "sleep",
                    null));
            Process p = sandbox.start(dirs, new Invocation(List.of("sleep", "600"), Map.of(), Map.of()), Map.of());
            System.out.println("started");
            System.out.flush();
            if (args[0].equals("hold")) {
                Thread.sleep(600_000);
            }
            List<FileChannel> hog = new ArrayList<>();
            try {
                while (true) {
                    hog.add(FileChannel.open(Path.of("/dev/null")));
                }
            } catch (IOException e) {
                System.out.println("exhausted after " + hog.size() + ": " + e.getMessage());
                System.out.flush();
            }
            Thread kill = Thread.ofPlatform().start(() -> sandbox.kill(p));
            Thread.sleep(10_000);
            for (FileChannel c : hog) {
                try {
                    c.close();
                } catch (IOException e) {
                    // a descriptor the JDK already closed after a failed start: released either way
                }
            }
            kill.join();
            System.out.println("unstoppable=" + sandbox.unstoppable(p));
            System.out.flush();
            sandbox.close();
            System.exit(0);
        }
    }
}
