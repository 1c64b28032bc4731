package io.isobench;

import io.isobench.exec.GpuTelemetry;
import io.isobench.task.AgentSpec;
import io.isobench.task.RoundsPlan;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.TaskLint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the GPU session ready for a session that is lent a GPU (bench/gpu-session, examples/gpu-session,
 * docs/gpu-session.md; issue 32, Deliver 4): the script and the agent parse, both suites load and lint without an
 * error, they measure the same commits with the same checkpoint and agent, the device call written at the top of the
 * script is the one the docs give, and the named fake nvidia-smi of the rehearsal answers in the form isobench's
 * telemetry parser reads. What the session measures is for the device machine; the rehearsal
 * ({@code bench/gpu-session --rehearse}) runs every other step here.
 */
class GpuSessionExampleTest {

    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final Path SCRIPT = ROOT.resolve("bench/gpu-session");
    private static final Path EXAMPLE = ROOT.resolve("examples/gpu-session");
    private static final Pattern RUN_CALL = Pattern.compile("run\\(command=\"[^\"]+\", carry=\\[[^]]*], timeout_s=\\d+\\)");

    @Test
    void theScriptAndTheAgentParse() throws Exception {
        assertThat(run(ROOT, "bash", "-n", SCRIPT.toString())).isEmpty();
        assertThat(run(ROOT, "sh", "-n", EXAMPLE.resolve("gpu-agent").toString())).isEmpty();
        assertThat(Files.isExecutable(SCRIPT)).isTrue();
        assertThat(Files.isExecutable(EXAMPLE.resolve("gpu-agent"))).isTrue();
        assertThat(Files.isExecutable(EXAMPLE.resolve("fake-gpu/nvidia-smi"))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"suite.yaml", "suite-cpu.yaml"})
    void bothSuitesLoadAndLintWithoutAnError(String name) {
        List<TaskLint.Linted> linted = TaskLint.lintFile(EXAMPLE.resolve(name));
        assertThat(linted).hasSize(1);
        assertThat(linted).allSatisfy(l -> assertThat(l.command().errors()).as(l.source()).isEmpty());
        assertThat(linted).allMatch(TaskLint.Linted::runnable);
    }

    @Test
    void theRehearsalMeasuresTheSameCommitsCheckpointAndAgentAsTheGpuSuite() {
        // the repository is made by bench/gpu-session (a clone of the carried bundle): not there in CI
        Suite gpu = SuiteLoader.load(EXAMPLE.resolve("suite.yaml"), false);
        Suite cpu = SuiteLoader.load(EXAMPLE.resolve("suite-cpu.yaml"), false);
        assertThat(cpu.engine().localPath()).isEqualTo(gpu.engine().localPath());
        assertThat(gpu.engine().localPath()).isEqualTo(ROOT.resolve(".gpu-session/llama2.cu"));
        assertThat(cpu.tasks()).hasSameSizeAs(gpu.tasks());
        for (int i = 0; i < gpu.tasks().size(); i++) {
            assertThat(cpu.tasks().get(i).id()).isEqualTo(gpu.tasks().get(i).id());
            assertThat(cpu.tasks().get(i).commits()).isEqualTo(gpu.tasks().get(i).commits());
        }
        assertThat(cpu.setup()).isEqualTo(gpu.setup());
        AgentSpec a = gpu.agents().get(0);
        AgentSpec b = cpu.agents().get(0);
        assertThat(a.name()).isEqualTo("gpu-probe").isEqualTo(b.name());
        assertThat(a.runner().adapter()).isEqualTo("command").isEqualTo(b.runner().adapter());
        assertThat(a.runner().cli()).isEqualTo(EXAMPLE.resolve("gpu-agent").toString()).isEqualTo(b.runner().cli());
        assertThat(a.runner().env()).doesNotContainKey("GPU_AGENT_REHEARSAL");     // on the GPU a failed workload fails
        assertThat(b.runner().env()).containsEntry("GPU_AGENT_REHEARSAL", "1");
        assertThat(gpu.run().rounds()).isEqualTo(RoundsPlan.fixed(5));
        assertThat(cpu.run().rounds()).isEqualTo(RoundsPlan.fixed(5));
        assertThat(gpu.run().aa()).isTrue();
        assertThat(cpu.run().aa()).isTrue();
    }

    @Test
    void theDeviceCallAtTheTopOfTheScriptIsTheOneTheDocsGive() throws IOException {
        List<String> inScript = calls(Files.readString(SCRIPT));
        List<String> inDocs = calls(Files.readString(ROOT.resolve("docs/gpu-session.md")));
        assertThat(inScript).isNotEmpty();
        assertThat(inDocs).isNotEmpty();
        assertThat(inScript).containsOnly(inScript.get(0));
        assertThat(inDocs).containsOnly(inScript.get(0));
        assertThat(inScript.get(0)).contains("carry=[\".gpu-session\"]");
    }

    @Test
    void theFakeNvidiaSmiAnswersInTheFormTheTelemetryParserReads() throws Exception {
        Path fake = EXAMPLE.resolve("fake-gpu/nvidia-smi");
        String once = run(ROOT, fake.toString(), "--query-gpu=" + String.join(",", GpuTelemetry.FIELDS),
                "--format=csv,noheader,nounits");
        GpuTelemetry.Parsed parsed = GpuTelemetry.parse(once.lines().toList());
        assertThat(parsed.samples()).hasSize(1);
        assertThat(parsed.rejected()).isEmpty();
        assertThat(parsed.samples().get(0).reasons()).isEqualTo(1L);          // the recorded idle bit, 0x1
        assertThat(parsed.samples().get(0).uuid()).startsWith("GPU-");
        // the newer drivers' name of the throttle bitmask is answered too (the sampler falls back to it)
        String events = run(ROOT, fake.toString(), "--query-gpu=" + String.join(",", GpuTelemetry.FIELDS)
                .replace("clocks_throttle_reasons.active", GpuTelemetry.EVENT_REASONS), "--format=csv,noheader,nounits");
        assertThat(GpuTelemetry.parse(events.lines().toList()).samples())
                .singleElement().extracting(GpuTelemetry.Sample::reasons).isEqualTo(1L);
        assertThat(run(ROOT, fake.toString(), "-L")).startsWith("GPU 0: NVIDIA H200 (fake) (UUID: GPU-");
        assertThat(run(ROOT, fake.toString(), "--query-gpu=name,driver_version", "--format=csv,noheader"))
                .isEqualTo("NVIDIA H200 (fake), 580.159.04\n");
    }

    private static List<String> calls(String text) {
        List<String> found = new ArrayList<>();
        Matcher m = RUN_CALL.matcher(text);
        while (m.find()) {
            found.add(m.group());
        }
        return found;
    }

    /** Runs a command; returns its stdout, failing on a non-zero exit (with its stderr). */
    private static String run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(false).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + err).isZero();
        return out;
    }
}
