package io.isobench.agent;

import io.isobench.plan.GpuLease;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An attempt as a plain process on this machine, in its own process group ({@code setsid}), in the repository,
 * with only an allowlisted environment: {@code PATH}, {@code LANG}, {@code HOME} and {@code TMPDIR} under the
 * attempt's home, then the adapter's variables and the secrets. No isolation from the host: the agent can read what
 * the user can read and reach any network (docs/agents.md says when that is acceptable).
 */
public final class LocalSandbox implements AgentSandbox {

    private final String cli;
    private final String baseUrl;
    /** Leased GPUs per attempt folder: {@code CUDA_VISIBLE_DEVICES} of its processes. */
    private final Map<Path, List<Integer>> gpus = new ConcurrentHashMap<>();

    /**
     * @param cli     the CLI's executable on this machine
     * @param baseUrl the model endpoint (null: the CLI's default)
     */
    public LocalSandbox(String cli, String baseUrl) {
        this.cli = cli;
        this.baseUrl = baseUrl;
    }

    /** A plain process: the leased GPUs by {@code CUDA_VISIBLE_DEVICES} (host indexes; no wall). */
    @Override
    public String lendGpus(AttemptDirs d, List<Integer> ids) {
        if (ids.isEmpty()) {
            gpus.remove(d.root().toAbsolutePath());
            return "none";
        }
        gpus.put(d.root().toAbsolutePath(), List.copyOf(ids));
        return "local";
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public SandboxView view(AttemptDirs d) {
        return new SandboxView(cli, d.repo().toString(), d.home().toString(), d.promptFile().toString(), baseUrl);
    }

    @Override
    public Process start(AttemptDirs d, Invocation inv, Map<String, String> secrets) throws IOException {
        List<String> argv = new ArrayList<>();
        argv.add("setsid");
        argv.addAll(inv.argv());
        ProcessBuilder pb = new ProcessBuilder(argv).directory(d.repo().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> env = pb.environment();
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.clear();
        env.put("PATH", path);
        env.put("LANG", "C.UTF-8");
        env.put("HOME", d.home().toString());
        env.put("TMPDIR", d.home().resolve("tmp").toString());
        env.put("USER", System.getProperty("user.name", "agent"));
        env.putAll(inv.env());
        List<Integer> ids = gpus.get(d.root().toAbsolutePath());
        if (ids != null) {
            env.put("CUDA_VISIBLE_DEVICES", new GpuLease(ids).cudaVisibleDevices());
        }
        env.putAll(secrets);
        Files.createDirectories(d.home().resolve("tmp"));
        return pb.start();
    }

    @Override
    public void kill(Process p) {
        if (!p.isAlive()) {
            return;
        }
        try {
            new ProcessBuilder("kill", "-KILL", "--", "-" + p.pid()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException e) {
            // fall through to destroying the leader
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /**
     * The attempt's process group, if its leader (pid in {@code agent.pid}) still runs in the attempt's repository:
     * killed.
     */
    @Override
    public void reap(AttemptDirs d) {
        try {
            Path pidFile = d.root().resolve("agent.pid");
            if (!Files.exists(pidFile)) {
                return;
            }
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            Path cwd = Path.of("/proc", Long.toString(pid), "cwd");
            if (Files.exists(cwd) && Files.readSymbolicLink(cwd).equals(d.repo().toAbsolutePath())) {
                new ProcessBuilder("kill", "-KILL", "--", "-" + pid).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
            }
        } catch (IOException | NumberFormatException e) {
            // nothing provably ours is left
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
    }

    /** The CLI path as given (for tests). */
    Path cliPath() {
        return Path.of(cli);
    }
}
