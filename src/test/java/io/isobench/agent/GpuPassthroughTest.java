package io.isobench.agent;

import io.isobench.IsobenchException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How leased GPUs get into an attempt's container, detected from a <b>fake host</b> (no GPU is here): the runtimes
 * JSON {@code docker info} would print, a device folder of plain files standing in for the character devices (an
 * unprivileged test cannot make real ones; the detection only checks that they exist), the listing
 * {@code src/test/resources/agent/gpu/ldconfig-p.txt} (written in the shape of {@code ldconfig -p}, not taken from a
 * machine) and a stand-in {@code nvidia-smi}.
 */
class GpuPassthroughTest {

    static final Path LDCONFIG = Path.of("src/test/resources/agent/gpu/ldconfig-p.txt");
    static final String RUNC_ONLY = "{\"io.containerd.runc.v2\":{\"path\":\"runc\"},\"runc\":{\"path\":\"runc\"}}\n";
    static final String WITH_NVIDIA = "{\"nvidia\":{\"path\":\"nvidia-container-runtime\"},\"runc\":{\"path\":\"runc\"}}";

    @TempDir
    Path dir;
    Path dev;
    Path smi;

    @BeforeEach
    void fakeHost() throws Exception {
        dev = Files.createDirectories(dir.resolve("dev"));
        for (String d : List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia0", "nvidia1")) {
            Files.createFile(dev.resolve(d));
        }
        smi = Files.writeString(dir.resolve("nvidia-smi"), "#!/bin/sh\n");
    }

    private GpuPassthrough.Host host(String runtimes) throws Exception {
        return new GpuPassthrough.Host(runtimes, dev, Files.readString(LDCONFIG), smi);
    }

    @Test
    void theNvidiaRuntimeGetsDockerGpusWithTheLeasedIds() throws Exception {
        GpuPassthrough g = GpuPassthrough.detect(host(WITH_NVIDIA));
        assertThat(g.mode()).isEqualTo(GpuPassthrough.Mode.NVIDIA_RUNTIME);
        assertThat(g.dockerArgs(List.of(1))).containsExactly("--gpus", "\"device=1\"");
        assertThat(g.dockerArgs(List.of(0, 1))).containsExactly("--gpus", "\"device=0,1\"");
        assertThat(g.env(List.of(1))).containsExactly(Map.entry("CUDA_VISIBLE_DEVICES", "0"),
                Map.entry("NVIDIA_VISIBLE_DEVICES", "1"));
        assertThat(g.dockerArgs(List.of())).isEmpty();
    }

    @Test
    void withoutTheRuntimeTheDeviceNodesAndReadOnlyDriverFilesGoIn() throws Exception {
        GpuPassthrough g = GpuPassthrough.detect(host(RUNC_ONLY));
        assertThat(g.mode()).isEqualTo(GpuPassthrough.Mode.DEVICE_NODES);
        List<String> a = g.dockerArgs(List.of(1));
        assertThat(a).containsSubsequence("--device", dev + "/nvidiactl:/dev/nvidiactl", "--device",
                dev + "/nvidia-uvm:/dev/nvidia-uvm", "--device", dev + "/nvidia-uvm-tools:/dev/nvidia-uvm-tools",
                "--device", dev + "/nvidia1:/dev/nvidia1");
        assertThat(a).as("exactly one GPU device node: the leased one").filteredOn(s -> s.matches(".*/nvidia\\d+:.*"))
                .containsExactly(dev + "/nvidia1:/dev/nvidia1");
        List<String> mounts = a.stream().filter(s -> s.endsWith(":ro")).toList();
        assertThat(mounts).as("every mount read-only, each 64-bit driver library of the rule once, nvidia-smi")
                .containsExactly(
                        "/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.1:/usr/local/nvidia/lib64/libnvidia-ptxjitcompiler.so.1:ro",
                        "/usr/lib/x86_64-linux-gnu/libnvidia-nvvm.so.4:/usr/local/nvidia/lib64/libnvidia-nvvm.so.4:ro",
                        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1:/usr/local/nvidia/lib64/libnvidia-ml.so.1:ro",
                        "/usr/lib/x86_64-linux-gnu/libnvidia-gpucomp.so.550.54.15:/usr/local/nvidia/lib64/libnvidia-gpucomp.so.550.54.15:ro",
                        "/usr/lib/x86_64-linux-gnu/libnvidia-cfg.so.1:/usr/local/nvidia/lib64/libnvidia-cfg.so.1:ro",
                        "/usr/lib/x86_64-linux-gnu/libnvidia-allocator.so.1:/usr/local/nvidia/lib64/libnvidia-allocator.so.1:ro",
                        "/usr/lib/x86_64-linux-gnu/libcudadebugger.so.1:/usr/local/nvidia/lib64/libcudadebugger.so.1:ro",
                        "/usr/lib/x86_64-linux-gnu/libcuda.so.1:/usr/local/nvidia/lib64/libcuda.so.1:ro",
                        "/usr/lib/x86_64-linux-gnu/libcuda.so:/usr/local/nvidia/lib64/libcuda.so:ro",
                        smi + ":/usr/local/bin/nvidia-smi:ro");
        assertThat(String.join(" ", a)).doesNotContain("i386", "glcore", "libz", "libc.so");
        assertThat(g.env(List.of(1))).containsExactly(Map.entry("CUDA_VISIBLE_DEVICES", "0"),
                Map.entry("NVIDIA_VISIBLE_DEVICES", "1"), Map.entry("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64"));
    }

    @Test
    void uvmToolsGoInOnlyWhenPresentAndAnUnansweredDockerInfoMeansNoRuntime() throws Exception {
        Files.delete(dev.resolve("nvidia-uvm-tools"));
        GpuPassthrough g = GpuPassthrough.detect(host(null));
        assertThat(g.mode()).isEqualTo(GpuPassthrough.Mode.DEVICE_NODES);
        assertThat(g.dockerArgs(List.of(0))).doesNotContain(dev + "/nvidia-uvm-tools:/dev/nvidia-uvm-tools")
                .contains(dev + "/nvidia0:/dev/nvidia0", dev + "/nvidiactl:/dev/nvidiactl");
    }

    @Test
    void whatIsMissingIsOneLineNamingItAndTheFix() throws Exception {
        Files.delete(dev.resolve("nvidia-uvm"));
        assertThatThrownBy(() -> GpuPassthrough.detect(new GpuPassthrough.Host(RUNC_ONLY, dev,
                "\tlibz.so.1 (libc6,x86-64) => /lib/libz.so.1\n", null)))
                .isInstanceOf(IsobenchException.EnvironmentMissing.class)
                .hasMessage("sandbox.gpus: docker has no nvidia runtime (runtimes [io.containerd.runc.v2, runc]) and"
                        + " the device-node mode lacks " + dev + "/nvidia-uvm, libcuda.so* (in ldconfig -p),"
                        + " libnvidia-ml.so* (in ldconfig -p), nvidia-smi (on PATH) (fix: install the NVIDIA container"
                        + " toolkit and run nvidia-ctk runtime configure --runtime=docker, or load the driver"
                        + " (nvidia-smi; nvidia-modprobe -u -c=0) so its devices and libraries exist)");
        Files.createFile(dev.resolve("nvidia-uvm"));
        GpuPassthrough g = GpuPassthrough.detect(host(RUNC_ONLY));
        assertThatThrownBy(() -> g.dockerArgs(List.of(5)))
                .isInstanceOf(IsobenchException.EnvironmentMissing.class)
                .hasMessageStartingWith("sandbox.gpus: GPU 5 has no device node " + dev + "/nvidia5 (fix:");
        assertThat(GpuPassthrough.hasNvidiaRuntime("not json")).isFalse();
    }
}
