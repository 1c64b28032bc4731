package io.isobench.agent;

import io.isobench.IsobenchException;
import io.isobench.ToyRepo;
import io.isobench.exec.GpuTelemetry;
import io.isobench.plan.GpuDiscovery;
import io.isobench.plan.HostGpuLocks;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The done-when of issue 32, part 1, without a GPU: {@code agents run} with {@code sandbox.gpus: 1} through the real
 * {@link AgentsRun}, {@link AttemptRunner} and {@link DockerSandbox} on a <b>fake host</b>: a fake {@code docker}
 * CLI ({@code src/test/resources/agent/gpu/fake-docker}: records each call, starts nothing), a fake device folder and
 * {@code ldconfig -p} listing with no NVIDIA runtime (device-node mode, {@link GpuPassthroughTest}), and a fake
 * {@code nvidia-smi} ({@code src/test/resources/agent/gpu/fake-nvidia-smi}: two H100s, the golden telemetry series)
 * as both the inventory and the host-side sampler. GPU 0 is held by a "measured run" (the host-wide lock, held by
 * another claim), so the attempt gets GPU 1: its container gets exactly that device, the walls of the argv hold, and
 * the record names the GPU and stores its telemetry. What this does not run: a container (the real walls are
 * {@code DockerSandboxIT}'s, unchanged) and a GPU.
 */
class AgentsGpuAttemptTest {

    @TempDir
    Path dir;
    Path suiteFile;
    Path bin;
    Path dev;

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        ToyRepo.build(dir.resolve("toyllm-repo"));
        String demo = Files.readString(Path.of("examples/toy-engine/demo-suite.yaml"));
        suiteFile = dir.resolve("suite.yaml");
        Files.writeString(suiteFile, demo.substring(0, demo.indexOf("\nagents:")) + """

                agents:
                  - name: gpu-agent
                    model: scripted-1
                    runner:
                      adapter: command
                      argv: [python3, /home/agent/agent.py, "{repo}"]
                      sandbox: {gpus: 1, cpus: 2}
                """);
        bin = Files.createDirectories(dir.resolve("bin"));
        Files.copy(Path.of("src/test/resources/agent/gpu/fake-docker"), bin.resolve("docker"),
                StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(Path.of("src/test/resources/agent/gpu/fake-nvidia-smi"), bin.resolve("nvidia-smi"),
                StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(SERIES, bin.resolve("series.csv"));
        dev = Files.createDirectories(dir.resolve("dev"));
        for (String d : List.of("nvidiactl", "nvidia-uvm", "nvidia0", "nvidia1")) {
            Files.createFile(dev.resolve(d));
        }
    }

    /** The golden series GpuSamplerTest replays. */
    static final Path SERIES = Path.of("src/test/resources/golden/gpu/nvidia-smi-h100x2.csv");

    private AttemptGpus.Host host(Path locks) {
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null, Map.of(),
                argv -> GpuDiscovery.runQuietly(replaceFirst(argv, bin.resolve("nvidia-smi").toString())));
        return new AttemptGpus.Host(inv, new HostGpuLocks(locks), Duration.ZERO, bin.resolve("nvidia-smi"), 100);
    }

    private static List<String> replaceFirst(List<String> argv, String first) {
        List<String> out = new ArrayList<>(argv);
        out.set(0, first);
        return out;
    }

    private AgentsRun.SandboxFactory fakeDocker(List<Integer> seenGpus) throws Exception {
        String ld = Files.readString(GpuPassthroughTest.LDCONFIG);
        return (config, runner, suite) -> {
            seenGpus.add(runner.gpus());
            return new DockerSandbox(DockerSandbox.Options.of("command", "isobench/python:bookworm", null, "python3",
                    null), bin.resolve("docker").toString()).withGpus(GpuPassthrough.detect(new GpuPassthrough.Host(
                    GpuPassthroughTest.RUNC_ONLY, dev, ld, bin.resolve("nvidia-smi"))));
        };
    }

    @Test
    void anAttemptWithOneGpuGetsExactlyTheFreeOneAndRecordsItWithItsTelemetry() throws Exception {
        Path locks = dir.resolve("locks");
        List<Integer> seen = new ArrayList<>();
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString());
             HostGpuLocks.Held measured = new HostGpuLocks(locks).tryLock(List.of(0), "isobench run job-7")
                     .orElseThrow()) {
            Suite suite = SuiteLoader.load(suiteFile);
            List<String> progress = new ArrayList<>();
            AgentsRun.Summary s = new AgentsRun(store, Map.of(), progress::add, fakeDocker(seen))
                    .gpuHost(host(locks))
                    .run(new AgentsRun.Request(suite, "gpu-agent", List.of("tpot"), 1, "docker", dir.resolve("w"),
                            null));
            assertThat(seen).containsExactly(1);
            assertThat(s.attempts()).hasSize(1);
            assertThat(progress).anyMatch(l -> l.contains("tpot attempt 1: running on GPU(s) [1] (device-nodes)"));

            List<List<String>> runs = Files.readAllLines(bin.resolve("docker-calls.txt")).stream()
                    .map(l -> Arrays.asList(l.split("\t"))).filter(a -> a.get(0).equals("run")).toList();
            assertThat(runs).as("the --version call and the attempt").hasSize(2);
            for (List<String> argv : runs) {
                assertThat(argv.stream().filter(a -> a.matches(".*/nvidia\\d+(:.*)?")).toList())
                        .as("exactly one GPU device: the free one").containsExactly(dev + "/nvidia1:/dev/nvidia1");
                assertThat(argv).containsSubsequence("--network", "none").containsSubsequence("--user", "10001:10001")
                        .containsSubsequence("--cap-drop", "ALL")
                        .containsSubsequence("--security-opt", "no-new-privileges")
                        .doesNotContain("--privileged", "--gpus");
                List<String> mounts = new ArrayList<>();
                for (int i = 0; i < argv.size() - 1; i++) {
                    if (argv.get(i).equals("-v")) {
                        mounts.add(argv.get(i + 1));
                    }
                }
                assertThat(mounts.get(0)).endsWith("/repo:/work/repo");
                assertThat(mounts.get(1)).endsWith("/home:/home/agent");
                assertThat(mounts.subList(2, mounts.size())).as("every other host path: a read-only driver file")
                        .allMatch(m -> m.endsWith(":ro")).hasSize(10);
            }
            assertThat(Files.readString(bin.resolve("docker-env-1.txt")))
                    .contains("CUDA_VISIBLE_DEVICES=0\n", "NVIDIA_VISIBLE_DEVICES=1\n",
                            "LD_LIBRARY_PATH=/usr/local/nvidia/lib64\n");
            assertThat(Files.readAllLines(bin.resolve("smi-calls.txt")))
                    .as("the host-side sampler asked for the leased GPU only")
                    .anyMatch(l -> l.endsWith("-i 1 -lms 100"));

            List<RunRecord> stored = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.AGENT_ATTEMPT), s.sessionId(), false),
                    stored::add);
            assertThat(stored).hasSize(1);
            var d = stored.get(0).details().section(AttemptRecords.SECTION);
            assertThat(d.path("gpus").asInt()).isEqualTo(1);
            assertThat(d.path("gpu_ids").toString()).isEqualTo("[1]");
            assertThat(d.path("gpu_models").toString()).isEqualTo("[\"NVIDIA H100 80GB HBM3\"]");
            assertThat(d.path("gpu_uuids").toString()).isEqualTo("[\"GPU-9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b\"]");
            assertThat(d.path("gpu_mode").asText()).isEqualTo("device-nodes");
            var t = d.path("gpu_telemetry");
            assertThat(t.path("available").asBoolean()).isTrue();
            assertThat(t.path("gpus_held").asText()).isEqualTo("1");
            List<GpuTelemetry.Sample> gpu1 = GpuTelemetry.parse(Files.readAllLines(SERIES))
                    .samples().stream().filter(x -> x.index() == 1).toList();
            Map<String, Object> expected = GpuTelemetry.metrics(new ArrayList<>(gpu1), null);
            assertThat(t.path("gpu_samples").asInt()).isEqualTo(gpu1.size()).isEqualTo(expected.get("gpu_samples"));
            assertThat(t.path("gpu_energy_j").asDouble()).isEqualTo(((Number) expected.get("gpu_energy_j"))
                    .doubleValue());
            assertThat(t.path("gpu_sm_clock_mhz_mean").asDouble())
                    .isEqualTo(((Number) expected.get("gpu_sm_clock_mhz_mean")).doubleValue());
            assertThat(new String(store.artifact(t.path("series_sha256").asText()).orElseThrow()).lines())
                    .as("the raw series is stored: GPU 1's lines as the fake replayed them")
                    .isEqualTo(Files.readAllLines(SERIES).stream()
                            .filter(l -> l.split(", ").length > 1 && l.split(", ")[1].equals("1")).toList());
            assertThat(new HostGpuLocks(locks).heldElsewhere(1)).as("the attempt gave its GPU back").isFalse();
        }
    }

    @Test
    void noFreeGpuIsOneLineNamingTheHolderAndNoContainerStarts() throws Exception {
        Path locks = dir.resolve("locks");
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString());
             HostGpuLocks.Held measured = new HostGpuLocks(locks).tryLock(List.of(0, 1), "isobench run job-7")
                     .orElseThrow()) {
            Suite suite = SuiteLoader.load(suiteFile);
            AgentsRun run = new AgentsRun(store, Map.of(), l -> { }, fakeDocker(new ArrayList<>()))
                    .gpuHost(host(locks));
            assertThatThrownBy(() -> run.run(new AgentsRun.Request(suite, "gpu-agent", List.of("tpot"), 1, "docker",
                    dir.resolve("w"), null)))
                    .isInstanceOf(IsobenchException.EnvironmentMissing.class)
                    .hasMessageContaining("GPU 0 by pid " + ProcessHandle.current().pid() + " (isobench run job-7")
                    .hasMessageContaining("GPU 1 by pid ");
            assertThat(bin.resolve("docker-calls.txt")).satisfiesAnyOf(
                    p -> assertThat(p).doesNotExist(),
                    p -> assertThat(Files.readAllLines(p)).noneMatch(l -> l.startsWith("run\t")));
            assertThatThrownBy(() -> new AgentsRun(store, Map.of(), l -> { }, fakeDocker(new ArrayList<>()))
                    .gpuHost(host(locks)).gpus(3).run(new AgentsRun.Request(suite, "gpu-agent", List.of("tpot"), 1,
                            "docker", dir.resolve("w"), null)))
                    .isInstanceOf(IsobenchException.EnvironmentMissing.class)
                    .hasMessageStartingWith("sandbox.gpus: 3 GPU(s) per attempt, but this host has 2 (nvidia-smi)");
        }
    }
}
