package io.isobench.exec;

import io.isobench.IsobenchException;
import io.isobench.exec.ExecutorKind.Capability;
import io.isobench.plan.Job;
import io.isobench.probe.Clients;
import io.isobench.proc.ProcessGroup;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The ssh executor (docs/executors.md): every command of a job runs on a host reached with {@code ssh}, in the job's
 * folder at the same path there (this machine's worktrees on a shared file system, or this machine itself). The
 * {@code ssh} client runs here in the job's process group and carries the command's output into the job's log; the
 * job's environment goes through its standard input from a file removed as soon as it is open (never a command line).
 * The remote command writes its process group to {@code /tmp/isobench-ssh-<job hash>.pgid} on the host, so teardown
 * (and a resumed session's reap) kills the whole group there, {@code TERM} then {@code KILL} after the grace. A server
 * listens on the host's 127.0.0.1; on another host {@code ssh -L} forwards the same port here.
 *
 * <p>Settings: {@code ISOBENCH_SSH_HOST} ({@code [user@]host}, required), {@code ISOBENCH_SSH_PORT} (22),
 * {@code ISOBENCH_SSH_IDENTITY} (a private key file), {@code ISOBENCH_SSH_KNOWN_HOSTS} (a known-hosts file; the host
 * key is always checked).
 */
final class SshPlacement implements Placement {

    /** ssh: commands on a host reached by ssh; arms prepared here and seen at the same path there. */
    static final ExecutorKind KIND = new ExecutorKind("ssh", EnumSet.of(Capability.NEEDS_LOCAL_CLONE,
            Capability.INSTALLS_ARTIFACTS, Capability.RUNS_ACCURACY), suite -> connect(Target.fromEnv(System.getenv())));

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Reads the environment lines from stdin up to a blank line, records the process group, then runs the argv. */
    private static final String REMOTE = "f=$1; shift; echo $$ > \"$f\"; "
            + "while IFS= read -r l; do [ -z \"$l\" ] && break; export \"$l\"; done; exec \"$@\"";
    /** Opens the environment file as stdin, removes it, then runs ssh. */
    private static final String LOCAL = "exec 3<\"$1\"; rm -f \"$1\"; shift; exec \"$@\" <&3 3<&-";

    /**
     * Where commands run.
     *
     * @param host       {@code [user@]host}
     * @param identity   the private key; null: ssh's default
     * @param knownHosts the known-hosts file; null: ssh's default
     */
    record Target(String host, int port, Path identity, Path knownHosts) {

        static Target fromEnv(Map<String, String> env) {
            String host = env.get("ISOBENCH_SSH_HOST");
            if (host == null || host.isBlank()) {
                throw new IsobenchException.EnvironmentMissing("executor ssh: no host (set ISOBENCH_SSH_HOST=[user@]host,"
                        + " and ISOBENCH_SSH_PORT, ISOBENCH_SSH_IDENTITY, ISOBENCH_SSH_KNOWN_HOSTS as needed;"
                        + " see docs/executors.md)");
            }
            String port = env.getOrDefault("ISOBENCH_SSH_PORT", "22").strip();
            if (!port.matches("\\d{1,5}")) {
                throw new IsobenchException.BadInput("ISOBENCH_SSH_PORT (" + port + ") must be a port number");
            }
            return new Target(host.strip(), Integer.parseInt(port), path(env.get("ISOBENCH_SSH_IDENTITY")),
                    path(env.get("ISOBENCH_SSH_KNOWN_HOSTS")));
        }

        private static Path path(String s) {
            return s == null || s.isBlank() ? null : Path.of(s.strip());
        }

        /** The ssh argv that runs {@code command} (a line for the remote shell) on the host. */
        List<String> ssh(List<String> options, String command) {
            List<String> a = new ArrayList<>(List.of("ssh", "-p", Integer.toString(port), "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR", "-o", "ServerAliveInterval=15"));
            if (identity != null) {
                a.addAll(List.of("-i", identity.toString(), "-o", "IdentitiesOnly=yes"));
            }
            if (knownHosts != null) {
                a.addAll(List.of("-o", "UserKnownHostsFile=" + knownHosts));
            }
            a.addAll(options);
            a.add(host);
            a.add("--");
            a.add(command);
            return a;
        }

        /** Whether the host is this machine's loopback (no port forward needed). */
        boolean loopback() {
            String h = host.substring(host.indexOf('@') + 1);
            try {
                return h.equals("localhost") || InetAddress.getByName(h).isLoopbackAddress();
            } catch (UnknownHostException e) {
                return false;
            }
        }
    }

    private final Target target;

    SshPlacement(Target target) {
        this.target = target;
    }

    /**
     * The ssh executor: {@code ssh} must be on PATH and a command must run on the host within 30 s (else one line
     * naming what failed).
     */
    static Executor connect(Target target) {
        DockerExecutor.Cmd c;
        try {
            c = DockerExecutor.Cmd.run(target.ssh(List.of("-o", "ConnectTimeout=20"), "true"),
                    Duration.ofSeconds(30));
        } catch (IOException e) {
            throw new IsobenchException.EnvironmentMissing("executor ssh: the ssh client is not installed (Debian:"
                    + " apt-get install openssh-client)");
        }
        if (c.code() != 0) {
            throw new IsobenchException.EnvironmentMissing("executor ssh: cannot run a command on " + target.host()
                    + " port " + target.port() + " (" + c.out().strip().lines().reduce((a, b) -> b).orElse("exit "
                    + c.code()) + "); check ISOBENCH_SSH_HOST, ISOBENCH_SSH_IDENTITY, ISOBENCH_SSH_KNOWN_HOSTS");
        }
        return new LocalExecutor(KIND, new ServePipeline(Readiness.http(Duration.ofMillis(10)), Clients.serving()),
                Duration.ofSeconds(5), null, new SshPlacement(target));
    }

    @Override
    public ProcessGroup start(Job job, List<String> argv, Path log) throws IOException {
        return start(job, argv, log, List.of());
    }

    @Override
    public ProcessGroup startServer(Job job, List<String> argv, Path log, int port) throws IOException {
        return start(job, argv, log, target.loopback() ? List.of()
                : List.of("-o", "ExitOnForwardFailure=yes", "-L", port + ":127.0.0.1:" + port));
    }

    private ProcessGroup start(Job job, List<String> argv, Path log, List<String> options) throws IOException {
        Path env = Files.createTempFile("isobench-ssh-", ".env",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(env, envLines(job), StandardCharsets.UTF_8);
            StringBuilder remote = new StringBuilder("cd ").append(q(job.cwd().toString())).append(" && exec sh -c ")
                    .append(q(REMOTE)).append(" isobench-ssh ").append(q(groupFile(job)));
            argv.forEach(w -> remote.append(' ').append(q(w)));
            List<String> local = new ArrayList<>(List.of("sh", "-c", LOCAL, "isobench-ssh", env.toString()));
            local.addAll(target.ssh(options, remote.toString()));
            return ProcessGroup.start(local, job.cwd(), Map.of(), log);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(env);
            throw e;
        }
    }

    /** The job's variables, one {@code NAME=value} a line, then the blank line that ends them. */
    static String envLines(Job job) {
        Map<String, String> env = new TreeMap<>(job.env());
        env.putIfAbsent("PYTHONUNBUFFERED", "1");
        StringBuilder sb = new StringBuilder();
        env.forEach((k, v) -> {
            if (ENV_NAME.matcher(k).matches() && !v.contains("\n")) {
                sb.append(k).append('=').append(v).append('\n');
            }
        });
        return sb.append('\n').toString();
    }

    @Override
    public boolean stop(Job job, ProcessGroup group, Duration grace) {
        boolean remoteGone = killRemote(job, grace);
        return group.terminate(grace) && remoteGone;
    }

    /** A killed orchestrator's job: its process group on the host. */
    @Override
    public void reap(Job job) {
        killRemote(job, Duration.ofSeconds(5));
    }

    /** TERM to the job's process group on the host, KILL after {@code grace}; true when none is left. */
    private boolean killRemote(Job job, Duration grace) {
        long tenths = Math.max(1, grace.toMillis() / 100);
        String script = "f=" + q(groupFile(job)) + "; [ -f \"$f\" ] || exit 0; p=$(cat \"$f\"); "
                + "kill -TERM -$p 2>/dev/null; i=0; while kill -0 -$p 2>/dev/null && [ $i -lt " + tenths
                + " ]; do sleep 0.1; i=$((i+1)); done; kill -KILL -$p 2>/dev/null; sleep 0.1; rm -f \"$f\"; "
                + "! kill -0 -$p 2>/dev/null";
        try {
            return DockerExecutor.Cmd.run(target.ssh(List.of(), "sh -c " + q(script)),
                    grace.plusSeconds(30)).code() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** The file on the host that holds the job's process group: stable across an orchestrator restart. */
    static String groupFile(Job job) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest((job.jobId() + "\n" + job.cwd())
                    .getBytes(StandardCharsets.UTF_8));
            return "/tmp/isobench-ssh-" + HexFormat.of().formatHex(h, 0, 8) + ".pgid";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A word for the remote shell: as is when safe, else single-quoted. */
    static String q(String s) {
        if (s.matches("[A-Za-z0-9_./:=,+@%-]+")) {
            return s;
        }
        return "'" + s.replace("'", "'\"'\"'") + "'";
    }
}
