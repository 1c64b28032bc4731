package io.isobench.plan;

import io.isobench.IsobenchException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GpuDiscoveryTest {

    /** In the layout nvidia-smi prints for an 8 × H100 node (written by hand: no GPU on the build machine). */
    static final String H100_X8 = """
            0, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a50
            1, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a51
            2, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a52
            3, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a53
            4, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a54
            5, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a55
            6, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a56
            7, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a57
            """;

    @Test
    void parsesNvidiaSmiCsv() {
        List<GpuDiscovery.Gpu> gpus = GpuDiscovery.parse(H100_X8);
        assertThat(gpus).hasSize(8);
        assertThat(gpus.get(3)).isEqualTo(new GpuDiscovery.Gpu(3, "NVIDIA H100 80GB HBM3", 81559L,
                "GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a53"));
        assertThat(GpuDiscovery.parse("0, Tesla T4, [N/A], [N/A]\r\n\r\n")).containsExactly(
                new GpuDiscovery.Gpu(0, "Tesla T4", null, null));
    }

    /**
     * Byte for byte what {@link GpuDiscovery#NVIDIA_SMI} printed on a lent H200 machine (driver 580.159.04, CUDA 13.0,
     * 2026-11-26; the device check of issue 5).
     */
    static final String H200_REAL = "0, NVIDIA H200, 143771 MiB, GPU-5417b345-e020-e870-b6bc-30f906ce461d\n";

    @Test
    void parsesTheRealH200Output() {
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null, Map.of(), argv -> H200_REAL);
        assertThat(inv.gpus()).containsExactly(new GpuDiscovery.Gpu(0, "NVIDIA H200", 143771L,
                "GPU-5417b345-e020-e870-b6bc-30f906ce461d"));
        assertThat(inv.slots().total()).isEqualTo(1);
    }

    @Test
    void malformedOutputIsRefusedNotHalfRead() {
        assertThatThrownBy(() -> GpuDiscovery.parse("0, A, 1 MiB, GPU-1\nNo devices were found\n"))
                .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("line 2");
        assertThatThrownBy(() -> GpuDiscovery.parse("0, A, 1 MiB, u\n0, A, 1 MiB, u\n"))
                .isInstanceOf(IsobenchException.BadInput.class);
    }

    @Test
    void usesNvidiaSmiWithoutAShell() {
        List<List<String>> calls = new ArrayList<>();
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null, Map.of(), argv -> {
            calls.add(argv);
            return H100_X8;
        });
        assertThat(calls).containsExactly(GpuDiscovery.NVIDIA_SMI);
        assertThat(calls.get(0).get(0)).isEqualTo("nvidia-smi");
        assertThat(inv.count()).isEqualTo(8);
        assertThat(inv.source()).isEqualTo("nvidia-smi");
        assertThat(inv.slots().total()).isEqualTo(8);
    }

    @Test
    void honoursCudaVisibleDevices() {
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null, Map.of("CUDA_VISIBLE_DEVICES", "2,5"), a -> H100_X8);
        assertThat(inv.ids()).containsExactly(2, 5);
        inv = GpuDiscovery.discover(null,
                Map.of("CUDA_VISIBLE_DEVICES", "GPU-9d3f5a1e-6f0b-2c4e-8a55-0c1d2e3f4a57"), a -> H100_X8);
        assertThat(inv.ids()).containsExactly(7);
    }

    @Test
    void overridesWinOverNvidiaSmi() {
        GpuDiscovery.Runner fail = argv -> {
            throw new AssertionError("nvidia-smi must not run when overridden");
        };
        assertThat(GpuDiscovery.discover("4", Map.of("ISOBENCH_GPUS", "2"), fail).ids()).containsExactly(0, 1, 2, 3);
        assertThat(GpuDiscovery.discover(null, Map.of("ISOBENCH_GPUS", "0,3,1"), fail).ids()).containsExactly(0, 1, 3);
        assertThat(GpuDiscovery.discover(" ", Map.of("ISOBENCH_GPUS", "2"), fail).source()).isEqualTo("ISOBENCH_GPUS=2");
        assertThatThrownBy(() -> GpuDiscovery.discover("eight", Map.of(), fail))
                .isInstanceOf(IsobenchException.BadInput.class).hasMessageContaining("--gpus 'eight'");
        assertThatThrownBy(() -> GpuDiscovery.discover("1,1", Map.of(), fail))
                .isInstanceOf(IsobenchException.BadInput.class);
    }

    @Test
    void noNvidiaSmiMeansNoGpus() {
        GpuDiscovery.Inventory inv = GpuDiscovery.discover(null, Map.of(), argv -> null);
        assertThat(inv.count()).isZero();
        assertThat(inv.source()).contains("nvidia-smi not found");
        assertThat(GpuDiscovery.runQuietly(List.of("isobench-no-such-program-xyz"))).isNull();
        assertThat(GpuDiscovery.runQuietly(List.of("sh", "-c", "printf '0, X, 1 MiB, u\\n'"))).isEqualTo("0, X, 1 MiB, u\n");
    }
}
