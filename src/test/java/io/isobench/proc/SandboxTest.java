package io.isobench.proc;

import io.isobench.SharedData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 2: the wall around a measured process, with the real bubblewrap. A confined command writes only its
 * arm's folders, cannot reach the host's loopback (a listener of this test's own), is not root, has no capabilities
 * and sees none of isobench's secrets; a confined server is reached through its door and nothing else.
 */
@Isolated("it looks for leftover processes machine-wide and doors in java.io.tmpdir: nothing runs beside it (ItLocks)")
class SandboxTest {

    @TempDir
    Path dir;
    Path tree;
    Path outside;

    @BeforeEach
    void setUp() throws Exception {
        SharedData.requireService(Sandbox.problem().isEmpty(), "bwrap (bubblewrap): " + Sandbox.problem().orElse(""));
        tree = Files.createDirectories(dir.resolve("envs/t/agent"));
        outside = Files.createDirectories(dir.resolve("outside"));
        Sandbox.handOver(Sandbox.runAs(), List.of(tree));
    }

    private Sandbox.Spec spec(Sandbox.Bridge bridge) {
        return new Sandbox.Spec(tree, List.of(tree), false, bridge, List.of(), Sandbox.runAs());
    }

    /** Runs {@code command} confined; its exit code and output. */
    private String run(List<String> command, Map<String, String> env) throws Exception {
        Path log = dir.resolve("log-" + System.nanoTime());
        ProcessGroup pg = ProcessGroup.startMeasured(Sandbox.argv(spec(null), command), tree, env, log);
        Integer exit = pg.waitFor(Duration.ofSeconds(60));
        pg.terminate(Duration.ofSeconds(2));
        return "exit=" + exit + "\n" + ProcessGroup.readLog(log);
    }

    @Test
    void theArgvIsTheWallWithTheCommandsWordsKept() {
        Sandbox.Spec s = new Sandbox.Spec(Path.of("/w/envs/t/agent"), List.of(Path.of("/w/envs/t/agent"),
                Path.of("/w/envs/t/agent.tmp")), false, new Sandbox.Bridge(Path.of("/tmp/isobench-net-1"), 40123,
                Path.of("/jdk/bin/java")), List.of(Path.of("/dev/nvidia0")), Sandbox.NOBODY);
        assertThat(String.join(" ", Sandbox.argv(s, List.of("python3", "-c", "print('a b'); $(rm -rf /)"))))
                .isEqualTo("setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --die-with-parent"
                        + " --unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net"
                        + " --cap-drop ALL --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /dev/shm --tmpfs /run"
                        + " --dev-bind-try /dev/nvidia0 /dev/nvidia0 --bind /w/envs/t/agent /w/envs/t/agent"
                        + " --bind /w/envs/t/agent.tmp /w/envs/t/agent.tmp --bind /tmp/isobench-net-1 /tmp/isobench-net"
                        + " --chdir /w/envs/t/agent -- /jdk/bin/java -Xmx32m -Xss512k -XX:+UseSerialGC"
                        + " -XX:TieredStopAtLevel=1 -XX:-UsePerfData -cp /tmp/isobench-net/classes"
                        + " io.isobench.proc.NetBridge /tmp/isobench-net/s 40123 -- python3 -c print('a b'); $(rm -rf /)");
        assertThat(Sandbox.argv(s, List.of("python3", "-c", "print('a b'); $(rm -rf /)")))
                .endsWith("python3", "-c", "print('a b'); $(rm -rf /)");
    }

    @Test
    void itWritesItsTreeAndNothingElse() throws Exception {
        Path home = Path.of(System.getProperty("user.home"));
        String out = run(List.of("sh", "-c", "echo in > inside.txt; echo out > " + outside + "/x.txt;"
                + " echo home > " + home + "/isobench-sandbox-test-" + ProcessHandle.current().pid()
                + "; echo etc > /etc/isobench-sandbox-test; echo tmp > /tmp/private; ls /tmp"), Map.of("PATH",
                "/usr/bin:/bin"));
        assertThat(tree.resolve("inside.txt")).hasContent("in");
        assertThat(outside.resolve("x.txt")).doesNotExist();
        assertThat(home.resolve("isobench-sandbox-test-" + ProcessHandle.current().pid())).doesNotExist();
        assertThat(Path.of("/etc/isobench-sandbox-test")).doesNotExist();
        assertThat(out).contains("private"); // its /tmp is its own
    }

    @Test
    void itIsNotRootAndHasNoCapabilities() throws Exception {
        String out = run(List.of("sh", "-c", "id -u; grep CapEff /proc/self/status; cat /proc/1/cmdline | tr '\\0' ' '"),
                Map.of("PATH", "/usr/bin:/bin"));
        List<String> lines = out.lines().toList();
        assertThat(lines.get(1)).as(out).isNotEqualTo("0");
        assertThat(out).contains("CapEff:\t0000000000000000");
        assertThat(out).as("its own PID namespace: PID 1 is the sandbox's init, not the host's")
                .doesNotContain("systemd").doesNotContain("/sbin/init");
    }

    @Test
    void itCannotReachTheHostsLoopback() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = Thread.ofVirtual().start(() -> {
                while (true) {
                    try (Socket s = listener.accept()) {
                        accepted.incrementAndGet();
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            String out = run(List.of("python3", "-c", "import socket\ntry:\n socket.create_connection(('127.0.0.1', "
                    + listener.getLocalPort() + "), timeout=3)\n print('CONNECTED')\nexcept OSError as e:\n"
                    + " print('refused', e)"), Map.of("PATH", "/usr/bin:/bin"));
            assertThat(out).contains("refused").doesNotContain("CONNECTED");
            listener.close();
            t.join(2000);
        }
        assertThat(accepted.get()).isZero();
    }

    @Test
    void itCannotReachTheHostsUnixSocketsUnderRun() throws Exception {
        Path sock = Path.of("/run/isobench-sandbox-test-" + ProcessHandle.current().pid() + ".sock");
        try (ServerSocketChannel l = ServerSocketChannel.open(
                StandardProtocolFamily.UNIX)) {
            l.bind(UnixDomainSocketAddress.of(sock));
            Files.setPosixFilePermissions(sock, PosixFilePermissions.fromString("rw-rw-rw-"));
            String out = run(List.of("python3", "-c", "import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n"
                    + " s.connect('" + sock + "')\n print('CONNECTED')\nexcept OSError as e:\n print('refused', e)"),
                    Map.of("PATH", "/usr/bin:/bin"));
            assertThat(out).contains("refused").doesNotContain("CONNECTED");
        } finally {
            Files.deleteIfExists(sock);
        }
    }

    @Test
    void nothingOutlivesTheSandbox() throws Exception {
        String marker = "isobench-sandbox-leftover-" + System.nanoTime();
        Path log = dir.resolve("leftover.log");
        // a child that leaves the process group (setsid), ignores SIGTERM and says it started; the command exits
        String child = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
                + " open('started', 'w').close(); time.sleep(300)";
        ProcessGroup pg = ProcessGroup.startMeasured(Sandbox.argv(spec(null), List.of("sh", "-c",
                "setsid python3 -c \"$0\" \"$1\" >/dev/null 2>&1 & while [ ! -e started ]; do sleep 0.05; done; exit 0",
                child, marker)), tree, Map.of("PATH", "/usr/bin:/bin"), log);
        assertThat(pg.waitFor(Duration.ofSeconds(30))).as(ProcessGroup.readLog(log)).isZero();
        assertThat(tree.resolve("started")).as("the escaping child ran").exists();
        pg.terminate(Duration.ofSeconds(2));
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (leftovers(marker) > 0 && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertThat(leftovers(marker)).as("processes of the sandbox still alive").isZero();
    }

    @Test
    void aConfinedCommandDiesWithItsParent() throws Exception {
        String marker = "isobench-sandbox-orphan-" + System.nanoTime();
        List<String> argv = new ArrayList<>(List.of("sh", "-c", "\"$@\" & wait", "sh"));
        argv.addAll(Sandbox.argv(spec(null), List.of("python3", "-c", "import time; time.sleep(300)", marker)));
        Path out = dir.resolve("parent.log");
        Process parent = new ProcessBuilder(argv).directory(tree.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (leftovers(marker) == 0 && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertThat(leftovers(marker)).as("the confined command runs: " + Files.readString(out)).isPositive();
        parent.destroyForcibly(); // SIGKILL: like an isobench killed mid-run
        parent.waitFor();
        end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (leftovers(marker) > 0 && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertThat(leftovers(marker)).as("a confined command outlived its killed parent").isZero();
    }

    /** Live Python processes whose arguments hold {@code marker} (the sandboxes' own processes aside). */
    private static long leftovers(String marker) {
        return ProcessHandle.allProcesses().filter(p -> p.info().command().map(c -> c.contains("python"))
                .orElse(false) && p.info().arguments().map(a -> String.join(" ", a).contains(marker)).orElse(false))
                .count();
    }

    @Test
    void aMeasuredProcessSeesOnlyTheAllowlist() throws Exception {
        Map<String, String> host = Map.of("PATH", "/usr/bin:/bin", "HF_TOKEN", "hf_HostTokenAAbbCCddEEffGGhh",
                "ANTHROPIC_API_KEY", "sk-ant-HostKey1234567890", "MY_RUNNER_SECRET", "runner-value-42",
                "UNRELATED_SETTING", "x", "LC_ALL", "C.UTF-8", "CUDA_VISIBLE_DEVICES", "0");
        Map<String, String> env = MeasuredEnv.of(host, List.of("MY_RUNNER_SECRET", "UNRELATED_SETTING"),
                Set.of("MY_RUNNER_SECRET"), Map.of("TOY_FLAG", "1"));
        assertThat(env).containsOnlyKeys("PATH", "LC_ALL", "CUDA_VISIBLE_DEVICES", "UNRELATED_SETTING", "TOY_FLAG");
        String out = run(List.of("env"), env);
        assertThat(out).doesNotContain("hf_HostToken").doesNotContain("HostKey").doesNotContain("runner-value")
                .contains("TOY_FLAG=1").contains("ISOBENCH_GROUP=");
    }

    @Test
    void aConfinedServerIsReachedThroughItsDoorOnly() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Files.writeString(tree.resolve("index.html"), "hello from the sandbox");
        Sandbox.handOver(Sandbox.runAs(), List.of(tree));
        Path log = dir.resolve("server.log");
        List<String> server = List.of("python3", "-m", "http.server", "--bind", "127.0.0.1", Integer.toString(port));
        Path folder;
        try (Door door = Door.open(port, Sandbox.runAs(), false)) {
            folder = door.dir();
            ProcessGroup pg = ProcessGroup.startMeasured(Sandbox.argv(spec(door.sandboxSide(Sandbox.java())), server),
                    tree, Map.of("PATH", "/usr/bin:/bin"), log);
            try {
                String body = null;
                long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (body == null && System.nanoTime() < end) {
                    body = get(port);
                    if (body == null) {
                        Thread.sleep(100);
                    }
                }
                assertThat(body).as(ProcessGroup.readLog(log)).contains("hello from the sandbox");
                List<String> many = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    many.add(get(port));
                }
                assertThat(many).allMatch(b -> b != null && b.contains("hello from the sandbox"));
            } finally {
                assertThat(pg.terminate(Duration.ofSeconds(5))).isTrue();
            }
        }
        assertThat(folder).doesNotExist();
    }

    @Test
    void aKilledIsobenchsDoorFolderIsClearedByTheNextDoor() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path stale = Files.createDirectories(tmp.resolve("isobench-net-" + gone.pid() + "-42"));
        Files.writeString(stale.resolve("s"), "left by a SIGKILLed isobench");
        Path live = Files.createDirectories(tmp.resolve("isobench-net-" + ProcessHandle.current().pid() + "-43"));
        Path fresh = Sandbox.bridgeDir(null);
        try {
            assertThat(stale).doesNotExist();
            assertThat(live).as("a live process's door").exists();
            assertThat(fresh.getFileName().toString()).startsWith("isobench-net-" + ProcessHandle.current().pid() + "-");
        } finally {
            Sandbox.deleteBridgeDir(fresh);
            Sandbox.deleteBridgeDir(live);
            Sandbox.deleteBridgeDir(stale);
        }
    }

    /** {@code GET /index.html} on the host's loopback; the body, or null when nothing answered. */
    private static String get(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            OutputStream o = s.getOutputStream();
            o.write(("GET /index.html HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.isEmpty() ? null : text;
        } catch (Exception e) {
            return null;
        }
    }
}
