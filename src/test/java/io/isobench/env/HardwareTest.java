package io.isobench.env;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.plan.GpuDiscovery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class HardwareTest {

    /** What nvidia-smi's GPU query printed on the lent H200 machine (the same line as GpuDiscoveryTest.H200_REAL). */
    static final String H200_QUERY = "0, NVIDIA H200, 143771 MiB, GPU-5417b345-e020-e870-b6bc-30f906ce461d\n";
    /**
     * The driver line and the summary header of the same machine: driver 580.159.04, CUDA 13.0 as recorded by the
     * device check of issue 5 (GpuDiscoveryTest's note); the header layout is nvidia-smi's.
     */
    static final String H200_DRIVER = "580.159.04\n";
    static final String H200_SUMMARY = "+-----------------------------------------------------------------------------------------+\n"
            + "| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |\n"
            + "+-----------------------------------------+------------------------+----------------------+\n";

    @TempDir
    Path proc;

    private void fakeProc() throws Exception {
        Files.writeString(proc.resolve("cpuinfo"), "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                + "model name\t: AMD EPYC 9654 96-Core Processor\nprocessor\t: 1\n"
                + "model name\t: AMD EPYC 9654 96-Core Processor\n", StandardCharsets.UTF_8);
        Files.createDirectories(proc.resolve("sys/kernel"));
        Files.writeString(proc.resolve("sys/kernel/osrelease"), "6.8.0-1015-nvidia\n");
        Files.writeString(proc.resolve("meminfo"), "MemTotal:       131916860 kB\nMemFree:        1 kB\n");
    }

    @Test
    void h200FingerprintIsGolden() throws Exception {
        fakeProc();
        List<List<String>> calls = new ArrayList<>();
        GpuDiscovery.Runner runner = argv -> {
            calls.add(argv);
            if (argv.equals(GpuDiscovery.NVIDIA_SMI)) {
                return H200_QUERY;
            }
            return argv.equals(Hardware.DRIVER_QUERY) ? H200_DRIVER : H200_SUMMARY;
        };
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null, Map.of(), runner);
        Hardware h = Hardware.detect(inv, runner, proc, 16);
        String json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(h.toMap())
                + "\n";
        String golden = new String(getClass().getResourceAsStream("/golden/hardware-h200.json").readAllBytes(),
                StandardCharsets.UTF_8);
        assertThat(json).isEqualTo(golden);
        assertThat(h.gpuText()).isEqualTo("NVIDIA H200 x1, driver 580.159.04, CUDA 13.0");
        assertThat(h.id()).matches("hw-[0-9a-f]{12}");
        // every command is an argv, never a shell line
        assertThat(calls).contains(Hardware.DRIVER_QUERY, Hardware.SUMMARY);
        assertThat(calls).allMatch(a -> a.get(0).equals("nvidia-smi"));
    }

    @Test
    void theIdChangesWithAnyFieldAndNotWithTheHost() throws Exception {
        fakeProc();
        Hardware a = Hardware.detect(new GpuDiscovery.Inventory(List.of(), "none (nvidia-smi not found)"),
                argv -> null, proc, 2);
        Hardware same = Hardware.detect(new GpuDiscovery.Inventory(List.of(), "none"), argv -> null, proc, 2);
        assertThat(same.id()).isEqualTo(a.id());
        assertThat(a.gpuText()).isEqualTo("none");
        assertThat(a.cpuModel()).isEqualTo("AMD EPYC 9654 96-Core Processor");
        assertThat(a.memoryGiB()).isEqualTo(126);
        assertThat(new Hardware(Hardware.Gpus.NONE, new Hardware.Host(a.cpuModel(), 4, a.kernel(), a.memoryGiB())).id())
                .isNotEqualTo(a.id());
        assertThat(new Hardware(Hardware.Gpus.NONE, new Hardware.Host(a.cpuModel(), 2, "6.1.0", a.memoryGiB())).id())
                .isNotEqualTo(a.id());
        assertThat(a.oneLine()).startsWith("no GPU; AMD EPYC 9654 96-Core Processor, 2 cores, 126 GiB; kernel 6.8.0");
    }

    @Test
    void thisMachineHasAFingerprint() {
        Hardware h = Hardware.detect();
        assertThat(h.cores()).isPositive();
        assertThat(h.cpuModel()).isNotBlank();
        assertThat(h.kernel()).isNotBlank();
    }
}
