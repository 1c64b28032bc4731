package io.isobench.agent;

import io.isobench.Golden;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The docker sandbox without docker: the {@code docker run} argv of an attempt (golden
 * {@code golden/docker-sandbox-run.txt}, one element per line; rewrite with {@code -Disobench.golden.rewrite=true}),
 * the view from inside, and the env file (mode 600, one line per variable, multi-line values refused).
 */
class DockerSandboxArgvTest {

    static final Path GOLDEN = Path.of("src/test/resources/golden/docker-sandbox-run.txt");

    @TempDir
    Path tmp;

    private static AttemptDirs dirs() {
        Path root = Path.of("/data/agents/codex/task-latency/attempt-1");
        Path home = root.resolve("home");
        return new AttemptDirs(root, root.resolve("repo"), home, home.resolve("prompt.md"),
                root.resolve("agent.stdout"), root.resolve("agent.stderr"));
    }

    @Test
    void theRunArgvIsSealed() throws Exception {
        var options = new DockerSandbox.Options("codex", "isobench/python:bookworm",
                Path.of("/opt/clis/codex"), "bin/codex", "https://api.openai.com/v1",
                new DockerSandbox.Limits(4, 8192, 2048, 512), 0);
        try (DockerSandbox sandbox = new DockerSandbox(options)) {
            List<String> argv = sandbox.runArgv("isobench-agent-0123456789ab", "isobench-agent/codex:0123456789ab",
                    dirs(), Path.of("/tmp/isobench-egress-42"), Path.of("/tmp/isobench-agent-env-42/env"),
                    List.of("/opt/isobench-agent/cli/bin/codex", "exec", "--json", "fix it; rm -rf / $(x)"));
            String text = String.join("\n", argv).replace("=" + ProcessHandle.current().pid() + "\n", "=<pid>\n")
                    .replaceAll("jvm-started=\\d+\n", "jvm-started=<started>\n") + "\n";
            Golden.check(GOLDEN, text);
            assertThat(argv).doesNotContain("--privileged").contains("none", "ALL", "10001:10001");

            SandboxView v = sandbox.view(dirs());
            assertThat(v).isEqualTo(new SandboxView("/opt/isobench-agent/cli/bin/codex", "/work/repo", "/home/agent",
                    "/home/agent/prompt.md", "http://127.0.0.1:4010/v1"));
        }
    }

    static final Path GOLDEN_GPU_RUNTIME = Path.of("src/test/resources/golden/docker-sandbox-run-gpu-runtime.txt");
    static final Path GOLDEN_GPU_DEVICES = Path.of("src/test/resources/golden/docker-sandbox-run-gpu-devices.txt");

    /**
     * The same attempt with one leased GPU (host index 1) on a fake host ({@link GpuPassthroughTest}): with the
     * NVIDIA runtime and with device nodes plus read-only driver files (goldens, the fake device folder written
     * {@code <dev>}); every wall of the plain argv is still there and the plain golden is untouched.
     */
    @Test
    void theRunArgvWithAGpuIsSealedInBothModes() throws Exception {
        Path dev = Files.createDirectories(tmp.resolve("dev"));
        for (String d : List.of("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia1")) {
            Files.createFile(dev.resolve(d));
        }
        String ld = Files.readString(GpuPassthroughTest.LDCONFIG);
        for (boolean runtime : List.of(true, false)) {
            var host = new GpuPassthrough.Host(runtime ? GpuPassthroughTest.WITH_NVIDIA : GpuPassthroughTest.RUNC_ONLY,
                    dev, ld, Path.of("/usr/bin/nvidia-smi"));
            var options = new DockerSandbox.Options("codex", "isobench/python:bookworm",
                    Path.of("/opt/clis/codex"), "bin/codex", "https://api.openai.com/v1",
                    new DockerSandbox.Limits(4, 8192, 2048, 512), 0);
            try (DockerSandbox sandbox = new DockerSandbox(options).withGpus(GpuPassthrough.detect(host))) {
                assertThat(sandbox.lendGpus(dirs(), List.of(1))).isEqualTo(runtime ? "nvidia-runtime" : "device-nodes");
                List<String> argv = sandbox.runArgv("isobench-agent-0123456789ab",
                        "isobench-agent/codex:0123456789ab", dirs(), Path.of("/tmp/isobench-egress-42"),
                        Path.of("/tmp/isobench-agent-env-42/env"),
                        List.of("/opt/isobench-agent/cli/bin/codex", "exec", "--json", "fix it; rm -rf / $(x)"));
                String text = String.join("\n", argv).replace("=" + ProcessHandle.current().pid() + "\n", "=<pid>\n")
                        .replaceAll("jvm-started=\\d+\n", "jvm-started=<started>\n").replace(dev.toString(), "<dev>")
                        + "\n";
                Golden.check(runtime ? GOLDEN_GPU_RUNTIME : GOLDEN_GPU_DEVICES, text);
                List<String> plain = Files.readAllLines(GOLDEN);
                List<String> lines = text.lines().toList();
                assertThat(lines).as("every element of the plain argv, in order: the walls hold")
                        .containsSubsequence(plain);
                assertThat(lines).doesNotContain("--privileged", "--cap-add", "--network=host")
                        .contains("none", "ALL", "10001:10001", "no-new-privileges");
                assertThat(lines.stream().filter(l -> l.matches(".*nvidia\\d+.*|.*device=.*")).toList())
                        .as("exactly one GPU").containsExactly(runtime ? "\"device=1\"" : "<dev>/nvidia1:/dev/nvidia1");
                List<String> hostPaths = new ArrayList<>();
                for (int i = 0; i < lines.size() - 1; i++) {
                    if (lines.get(i).equals("-v")) {
                        hostPaths.add(lines.get(i + 1));
                    }
                }
                assertThat(hostPaths.subList(3, hostPaths.size())).as("beyond the attempt's three mounts: read-only"
                        + " driver files only").allMatch(v -> v.endsWith(":ro") && (v.startsWith("/usr/lib/")
                        || v.startsWith("/usr/bin/nvidia-smi")));
                assertThat(hostPaths.size() > 3).isEqualTo(!runtime);
                sandbox.lendGpus(dirs(), List.of());
                assertThat(String.join("\n", sandbox.runArgv("n", "i", dirs(), null, Path.of("/e"), List.of())))
                        .doesNotContain("nvidia", "--gpus");
            }
        }
    }

    @Test
    void withoutAnUpstreamThereIsNoBaseUrlAndACommandCliIsUsedAsGiven() {
        try (DockerSandbox sandbox = new DockerSandbox(DockerSandbox.Options.of("mini", "img", null,
                "/usr/local/bin/mini-swe-agent", null))) {
            assertThat(sandbox.view(dirs()).baseUrl()).isNull();
            assertThat(sandbox.view(dirs()).cli()).isEqualTo("/usr/local/bin/mini-swe-agent");
        }
        assertThatThrownBy(() -> DockerSandbox.Options.of("x", "img", Path.of("/cli"), "../../bin/sh", null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DockerSandbox.Limits(0, 4096, 1024, 64))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theEnvFileIsPrivateAndRefusesWhatDockerCannotRead() throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", "/home/agent");
        env.put("OPENAI_API_KEY", "sk-test-value with spaces='quotes'");
        Path file = tmp.resolve("env");
        DockerSandbox.writeEnvFile(file, env);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Files.readString(file)).isEqualTo("HOME=/home/agent\nOPENAI_API_KEY=sk-test-value with spaces='quotes'\n");
        assertThatThrownBy(() -> DockerSandbox.writeEnvFile(tmp.resolve("e2"), Map.of("K", "a\nB=b")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one line");
        assertThatThrownBy(() -> DockerSandbox.writeEnvFile(tmp.resolve("e3"), Map.of("A-B", "x")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
