package io.isobench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.IsobenchException;
import io.isobench.exec.GpuSampler;
import io.isobench.plan.GpuLease;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How leased GPUs get into an attempt's container (docs/agents.md, "GPUs in the sandbox"), detected once per sandbox
 * from three inputs ({@link Host}: what {@code docker info} says of the runtimes, the device folder, the
 * {@code ldconfig -p} listing and the host's {@code nvidia-smi}) so a test can hand in a fake host:
 * <ul>
 *   <li>{@link Mode#NVIDIA_RUNTIME}: the daemon lists a runtime named {@code nvidia} (the NVIDIA container toolkit):
 *   {@code --gpus "device=I,J"}; the toolkit mounts the driver.</li>
 *   <li>{@link Mode#DEVICE_NODES}: no such runtime: {@code --device} for {@code nvidiactl}, {@code nvidia-uvm},
 *   {@code nvidia-uvm-tools} (when present) and {@code nvidiaN} of each leased GPU, the driver's user-space
 *   libraries ({@link #LIBRARIES}, found in {@code ldconfig -p} as nvidia-container-cli finds them) bind-mounted
 *   read-only into {@value #LIB_DIR} (on {@code LD_LIBRARY_PATH}) and {@code nvidia-smi} read-only at
 *   {@value #SMI}.</li>
 * </ul>
 * Anything missing is one line naming what is missing and the fix ({@link IsobenchException.EnvironmentMissing});
 * no container starts. Both modes number the leased GPUs from 0 inside the container, so {@code CUDA_VISIBLE_DEVICES}
 * there is {@code 0..N-1}; {@code NVIDIA_VISIBLE_DEVICES} holds the host's indexes.
 */
public final class GpuPassthrough {

    /** How the devices are passed. */
    public enum Mode {
        NVIDIA_RUNTIME("nvidia-runtime"), DEVICE_NODES("device-nodes");

        private final String label;

        Mode(String label) {
            this.label = label;
        }

        /** As recorded: {@code nvidia-runtime} or {@code device-nodes}. */
        public String label() {
            return label;
        }
    }

    /**
     * The driver's user-space libraries mounted in device-node mode: every 64-bit {@code ldconfig -p} entry whose
     * name starts with one of these (the compute and utility libraries nvidia-container-cli mounts). The first two
     * are required.
     */
    public static final List<String> LIBRARIES = List.of("libcuda.so", "libnvidia-ml.so",
            "libnvidia-ptxjitcompiler.so", "libnvidia-nvvm.so", "libnvidia-gpucomp.so", "libnvidia-allocator.so",
            "libcudadebugger.so", "libnvidia-cfg.so");
    /** The control devices (required; {@code nvidia-uvm-tools} only when present). */
    static final List<String> CONTROL = List.of("nvidiactl", "nvidia-uvm");
    static final String UVM_TOOLS = "nvidia-uvm-tools";
    /** Where the libraries go inside the container (the CUDA images' convention). */
    public static final String LIB_DIR = "/usr/local/nvidia/lib64";
    /** Where the host's {@code nvidia-smi} goes inside the container. */
    public static final String SMI = "/usr/local/bin/nvidia-smi";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code \tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1}. */
    private static final Pattern LDCONFIG = Pattern.compile("^\\s*(\\S+)\\s+\\(([^)]*)\\)\\s+=>\\s+(\\S+)\\s*$");

    /**
     * What the detection reads (the seam a test fakes).
     *
     * @param runtimesJson {@code docker info --format '{{json .Runtimes}}'} (null: not answered)
     * @param devRoot      the folder holding the device nodes ({@code /dev})
     * @param ldconfig     {@code ldconfig -p} (null: not available)
     * @param nvidiaSmi    the host's {@code nvidia-smi} (null: not on PATH)
     */
    public record Host(String runtimesJson, Path devRoot, String ldconfig, Path nvidiaSmi) {
    }

    /** A read-only bind mount of a driver file. */
    record Mount(Path host, String container) {
    }

    private final Mode mode;
    private final Path devRoot;
    private final List<Mount> mounts;
    private final List<String> controlDevices;

    private GpuPassthrough(Mode mode, Path devRoot, List<Mount> mounts, List<String> controlDevices) {
        this.mode = mode;
        this.devRoot = devRoot;
        this.mounts = List.copyOf(mounts);
        this.controlDevices = List.copyOf(controlDevices);
    }

    public Mode mode() {
        return mode;
    }

    /** This host as docker, {@code /dev}, {@code ldconfig -p} and PATH show it. */
    public static Host probe(String docker) {
        AgentImage.Out info = AgentImage.exec(List.of(docker, "info", "--format", "{{json .Runtimes}}"),
                Duration.ofSeconds(30), Map.of());
        AgentImage.Out ld = AgentImage.exec(List.of(ldconfigBinary(), "-p"), Duration.ofSeconds(30), Map.of());
        return new Host(info.code() == 0 ? info.text() : null, Path.of("/dev"), ld.code() == 0 ? ld.text() : null,
                GpuSampler.find(System.getenv("PATH")));
    }

    private static String ldconfigBinary() {
        return Files.isExecutable(Path.of("/sbin/ldconfig")) ? "/sbin/ldconfig" : "ldconfig";
    }

    /** The mode this host supports, or one line naming what is missing. */
    public static GpuPassthrough detect(Host host) {
        if (hasNvidiaRuntime(host.runtimesJson())) {
            return new GpuPassthrough(Mode.NVIDIA_RUNTIME, host.devRoot(), List.of(), List.of());
        }
        List<String> missing = new ArrayList<>();
        List<String> control = new ArrayList<>();
        for (String c : CONTROL) {
            if (Files.exists(host.devRoot().resolve(c))) {
                control.add(c);
            } else {
                missing.add(host.devRoot().resolve(c).toString());
            }
        }
        if (Files.exists(host.devRoot().resolve(UVM_TOOLS))) {
            control.add(UVM_TOOLS);
        }
        List<Mount> mounts = new ArrayList<>(libraries(host.ldconfig()));
        for (String required : LIBRARIES.subList(0, 2)) {
            if (mounts.stream().noneMatch(m -> m.container().startsWith(LIB_DIR + "/" + required))) {
                missing.add(required + "* (in ldconfig -p)");
            }
        }
        if (host.nvidiaSmi() == null) {
            missing.add("nvidia-smi (on PATH)");
        } else {
            mounts.add(new Mount(host.nvidiaSmi(), SMI));
        }
        if (!missing.isEmpty()) {
            throw new IsobenchException.EnvironmentMissing("sandbox.gpus: docker has no nvidia runtime ("
                    + (host.runtimesJson() == null ? "docker info did not answer" : "runtimes "
                    + runtimeNames(host.runtimesJson())) + ") and the device-node mode lacks " + String.join(", ",
                    missing) + " (fix: install the NVIDIA container toolkit and run nvidia-ctk runtime configure"
                    + " --runtime=docker, or load the driver (nvidia-smi; nvidia-modprobe -u -c=0) so its devices"
                    + " and libraries exist)");
        }
        return new GpuPassthrough(Mode.DEVICE_NODES, host.devRoot(), mounts, control);
    }

    /** The docker argv fragment that passes {@code ids} (host indexes) into the container. */
    public List<String> dockerArgs(List<Integer> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        if (mode == Mode.NVIDIA_RUNTIME) {
            return new GpuLease(ids).dockerArgs();
        }
        List<String> a = new ArrayList<>();
        List<String> devices = new ArrayList<>(controlDevices);
        for (int id : ids) {
            if (!Files.exists(devRoot.resolve("nvidia" + id))) {
                throw new IsobenchException.EnvironmentMissing("sandbox.gpus: GPU " + id + " has no device node "
                        + devRoot.resolve("nvidia" + id) + " (fix: check the GPU list (nvidia-smi -L) against "
                        + devRoot + ", or load the driver: nvidia-modprobe -c=" + id + ")");
            }
            devices.add("nvidia" + id);
        }
        for (String d : devices) {
            Path hostPath = devRoot.resolve(d);
            String inside = "/dev/" + d;
            a.addAll(List.of("--device", hostPath.toString().equals(inside) ? inside : hostPath + ":" + inside));
        }
        for (Mount m : mounts) {
            a.addAll(List.of("-v", m.host() + ":" + m.container() + ":ro"));
        }
        return a;
    }

    /** The variables the container gets for {@code ids}. */
    public Map<String, String> env(List<Integer> ids) {
        Map<String, String> env = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return env;
        }
        List<String> ordinals = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            ordinals.add(Integer.toString(i));
        }
        env.put("CUDA_VISIBLE_DEVICES", String.join(",", ordinals));
        env.put("NVIDIA_VISIBLE_DEVICES", new GpuLease(ids).cudaVisibleDevices());
        if (mode == Mode.DEVICE_NODES) {
            env.put("LD_LIBRARY_PATH", LIB_DIR);
        }
        return env;
    }

    /** Whether {@code docker info}'s runtimes (a JSON object keyed by name) hold {@code nvidia}. */
    static boolean hasNvidiaRuntime(String runtimesJson) {
        if (runtimesJson == null || runtimesJson.isBlank()) {
            return false;
        }
        try {
            JsonNode n = JSON.readTree(runtimesJson.strip());
            return n != null && n.isObject() && n.has("nvidia");
        } catch (IOException e) {
            return false;
        }
    }

    private static String runtimeNames(String runtimesJson) {
        try {
            JsonNode n = JSON.readTree(runtimesJson.strip());
            List<String> names = new ArrayList<>();
            if (n != null && n.isObject()) {
                n.fieldNames().forEachRemaining(names::add);
            }
            return names.toString();
        } catch (IOException e) {
            return "unreadable";
        }
    }

    /**
     * The driver libraries in {@code ldconfig -p} output: 64-bit entries (the tag names {@code x86-64} or
     * {@code AArch64}... any tag holding {@code 64}) whose name starts with one of {@link #LIBRARIES}, each name once
     * (the first listed), mounted at {@value #LIB_DIR}/NAME.
     */
    static List<Mount> libraries(String ldconfig) {
        Map<String, Mount> out = new LinkedHashMap<>();
        if (ldconfig == null) {
            return List.of();
        }
        for (String line : ldconfig.lines().toList()) {
            Matcher m = LDCONFIG.matcher(line);
            if (!m.matches() || !m.group(2).contains("64")) {
                continue;
            }
            String name = m.group(1);
            if (LIBRARIES.stream().anyMatch(name::startsWith) && !out.containsKey(name)) {
                out.put(name, new Mount(Path.of(m.group(3)), LIB_DIR + "/" + name));
            }
        }
        return List.copyOf(out.values());
    }
}
