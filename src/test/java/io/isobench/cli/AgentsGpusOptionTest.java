package io.isobench.cli;

import io.isobench.ToyRepo;
import io.isobench.exec.GpuSampler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code isobench agents run --gpus N} overrides the runner's {@code sandbox.gpus}: on a host without GPUs (no
 * {@code ISOBENCH_GPUS}, no nvidia-smi) asking for GPUs is one line and exit 3 before any attempt, a negative count is
 * bad input, and {@code --gpus 0} runs an agent whose suite asks for one GPU without any.
 */
class AgentsGpusOptionTest {

    @TempDir
    Path dir;

    @Test
    void theOptionOverridesTheSuitesGpus() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        assumeTrue(System.getenv("ISOBENCH_GPUS") == null && GpuSampler.find(System.getenv("PATH")) == null,
                "a host without GPUs");
        ToyRepo.build(dir.resolve("toyllm-repo"));
        String demo = Files.readString(Path.of("examples/toy-engine/demo-suite.yaml"));
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, demo.substring(0, demo.indexOf("\nagents:")) + """

                agents:
                  - name: gpu-agent
                    runner:
                      adapter: command
                      argv: [python3, -c, "print(1)"]
                      sandbox: {gpus: 1}
                """);
        String db = dir.resolve("x.duckdb").toString();
        String work = dir.resolve("w").toString();
        MainTest.Result none = MainTest.run("--db", db, "agents", "run", suite.toString(), "--agent", "gpu-agent",
                "--tasks", "tpot", "--workdir", work, "--executor", "local", "--gpus", "2");
        assertThat(none.code()).isEqualTo(Main.ENV_MISSING);
        assertThat(none.err()).contains("sandbox.gpus: 2 GPU(s) per attempt, but this host has 0",
                "fix: run on a host with GPUs and nvidia-smi").doesNotContain("set --gpus N");
        assertThat(MainTest.run("--db", db, "agents", "run", suite.toString(), "--agent", "gpu-agent", "--tasks",
                "tpot", "--workdir", work, "--executor", "local", "--gpus", "-1").code()).isEqualTo(Main.BAD_INPUT);
        MainTest.Result off = MainTest.run("--db", db, "agents", "run", suite.toString(), "--agent", "gpu-agent",
                "--tasks", "tpot", "--workdir", work, "--executor", "local", "--gpus", "0");
        assertThat(off.code()).as(off.err()).isEqualTo(Main.OK);
        assertThat(off.out()).contains("tpot\tgpu-agent@1\tEMPTY_PATCH");
    }
}
