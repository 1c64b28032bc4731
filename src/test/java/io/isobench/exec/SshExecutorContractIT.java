package io.isobench.exec;

import io.isobench.SharedData;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.task.ClientConfig;
import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.task.ExecutorNames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The executor contract on the ssh executor, the proof of the placement seam (docs/executors.md, "Adding an
 * executor"): every scenario through a real {@code sshd} this test starts on 127.0.0.1 only, with a throwaway host
 * key and authorized key in a temporary folder — the toy engine served and measured, the orchestrator-kill scenario
 * through the real CLI ({@code isobench run --executor ssh}) included. Skips (locally) or fails (under
 * {@code -Disobench.requireServices=true}) without {@code /usr/sbin/sshd} (scripts/provision installs it).
 */
class SshExecutorContractIT extends ExecutorContract {

    private static final Path SSHD = Path.of("/usr/sbin/sshd");

    private Sshd sshd;

    @Override
    protected void requireEnvironment() {
        SharedData.requireService(Files.isExecutable(SSHD) && Cli.has("ssh") && Cli.has("ssh-keygen"),
                "an sshd (" + SSHD + ": apt-get install openssh-server) and the ssh client for the ssh executor");
        SharedData.requireService(Cli.has("python3") && Cli.has("git") && Cli.has("setsid"),
                "python3, git and setsid for the toy engine");
        if (sshd == null) {
            try {
                sshd = Sshd.start();
            } catch (IOException e) {
                throw new IllegalStateException("cannot start the test's sshd: " + e.getMessage(), e);
            }
        }
    }

    @Override
    protected Executor executor() {
        return SshPlacement.connect(SshPlacement.Target.fromEnv(sshd.env()));
    }

    @Override
    protected String executorName() {
        return "ssh";
    }

    @Override
    protected Map<String, String> cliEnvironment() {
        return sshd.env();
    }

    @AfterAll
    void stopSshd() {
        if (sshd != null) {
            sshd.stop();
        }
    }

    /** The registry knows the kind by its name, and asks it for capabilities (it does not run on this host). */
    @Test
    void theKindIsRegisteredWithItsCapabilities() {
        ExecutorKind k = Executors.kind("ssh");
        assertThat(Executors.names()).contains("ssh");
        assertThat(k.can(ExecutorKind.Capability.NEEDS_LOCAL_CLONE)).isTrue();
        assertThat(k.can(ExecutorKind.Capability.RUNS_ON_THIS_HOST)).isFalse();
        assertThat(ExecutorNames.known()).contains("ssh");
    }

    /** The job's environment reaches the command through ssh's stdin, never its command line or a file left over. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void environmentTravelsOffTheCommandLine() throws IOException {
        Path cwd = Files.createDirectories(root().resolve("env"));
        Files.writeString(cwd.resolve("env.py"), "import os\nprint('got=' + os.environ.get('HF_TOKEN', '-'))\n"
                + "print('Avg latency: 0.5 seconds')\n");
        Job job = new Job(new Job.Place(0, "ssh-env/baseline/r0", "ssh-env", 0), Arm.BASELINE, Mode.LATENCY,
                new JobSpec.Measure(Command.template(List.of("python3", "env.py")), ClientConfig.NONE, 0, null),
                new Job.Where(cwd, Map.of("HF_TOKEN", SECRET), 1), Job.Limits.ofSeconds(30, 60));
        List<Path> before = envFiles();
        JobResult r = executor().execute(job, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.log()).contains("got=" + SECRET);
        assertThat(String.join(" ", r.argv())).doesNotContain(SECRET);
        assertThat(envFiles()).as("env files left in " + tmp()).isSubsetOf(before);
    }

    private static Path tmp() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static List<Path> envFiles() throws IOException {
        try (var s = Files.list(tmp())) {
            return s.filter(p -> p.getFileName().toString().startsWith("isobench-ssh-")).toList();
        }
    }

    /** A throwaway sshd on 127.0.0.1: its own host key, one authorized key, a known-hosts file for the client. */
    record Sshd(Process process, Path dir, int port) {

        static Sshd start() throws IOException {
            Path dir = Files.createTempDirectory("isobench-sshd-");
            run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("host_key").toString()));
            run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("client_key").toString()));
            Files.copy(dir.resolve("client_key.pub"), dir.resolve("authorized_keys"));
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            Files.writeString(dir.resolve("known_hosts"), "[127.0.0.1]:" + port + " "
                    + Files.readString(dir.resolve("host_key.pub")).strip() + "\n");
            Files.writeString(dir.resolve("sshd_config"), String.join("\n",
                    "ListenAddress 127.0.0.1",
                    "Port " + port,
                    "HostKey " + dir.resolve("host_key"),
                    "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                    "PidFile " + dir.resolve("sshd.pid"),
                    "StrictModes no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "UsePAM no",
                    "PermitRootLogin prohibit-password",
                    "MaxStartups 100:30:200",
                    "MaxSessions 100",
                    ""));
            try {
                Files.createDirectories(Path.of("/run/sshd")); // privilege separation (as root)
            } catch (IOException e) {
                // not root: sshd runs without it, for this user only
            }
            Process p = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", dir.resolve("sshd_config").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("sshd.log").toFile()).start();
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!listening(port)) {
                if (!p.isAlive() || System.nanoTime() > end) {
                    p.destroyForcibly();
                    throw new IOException("sshd did not listen on 127.0.0.1:" + port + ": "
                            + Files.readString(dir.resolve("sshd.log")));
                }
                sleep();
            }
            return new Sshd(p, dir, port);
        }

        Map<String, String> env() {
            return Map.of("ISOBENCH_SSH_HOST", "127.0.0.1", "ISOBENCH_SSH_PORT", Integer.toString(port),
                    "ISOBENCH_SSH_IDENTITY", dir.resolve("client_key").toString(),
                    "ISOBENCH_SSH_KNOWN_HOSTS", dir.resolve("known_hosts").toString());
        }

        void stop() {
            process.destroy();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process.destroyForcibly();
            try (var s = Files.walk(dir)) {
                for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            } catch (IOException e) {
                // temp dir
            }
        }

        private static boolean listening(int port) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        private static void run(List<String> argv) throws IOException {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IOException(argv + " failed: " + out);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }

        private static void sleep() {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
