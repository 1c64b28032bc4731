package io.isobench.env;

import io.isobench.Fields;
import io.isobench.plan.GpuDiscovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hardware fingerprint of the machine a run measured on (docs/statistics.md, "Hardware"): GPU model, count,
 * driver and CUDA version (from {@code nvidia-smi}, run without a shell, where present), CPU model, logical cores,
 * kernel and memory. Runs are never paired or pooled across different fingerprints; {@link #id()} is the short key
 * stored on every run. Host names are not part of it: two identical machines have one fingerprint.
 *
 * @param gpus the GPUs, their driver and CUDA version
 * @param host the CPU, cores, kernel and memory
 */
public record Hardware(Gpus gpus, Host host) {

    /**
     * The GPU part of a fingerprint.
     *
     * @param name   e.g. {@code NVIDIA H200}; several models joined with {@code " + "}; null without GPUs
     * @param count  GPUs visible to isobench (CUDA_VISIBLE_DEVICES / ISOBENCH_GPUS respected)
     * @param driver NVIDIA driver version, or null
     * @param cuda   the CUDA version the driver supports (nvidia-smi's header), or null
     */
    public record Gpus(String name, int count, String driver, String cuda) {
        /** No GPU. */
        public static final Gpus NONE = new Gpus(null, 0, null, null);
    }

    /**
     * The machine part of a fingerprint.
     *
     * @param cpuModel  {@code model name} of /proc/cpuinfo, or the OS architecture when unknown
     * @param cores     logical cores the JVM sees
     * @param kernel    kernel release, e.g. {@code 6.1.0-18-amd64}
     * @param memoryGiB total memory, whole GiB (rounded, so that a boot's reserved pages do not change it)
     */
    public record Host(String cpuModel, int cores, String kernel, long memoryGiB) {
    }

    public Hardware {
        Objects.requireNonNull(gpus, "gpus");
        Objects.requireNonNull(host, "host");
    }

    /** e.g. {@code NVIDIA H200}; several models joined with {@code " + "}; null without GPUs. */
    public String gpuName() {
        return gpus.name();
    }

    /** GPUs visible to isobench. */
    public int gpuCount() {
        return gpus.count();
    }

    /** NVIDIA driver version, or null. */
    public String driver() {
        return gpus.driver();
    }

    /** The CUDA version the driver supports, or null. */
    public String cuda() {
        return gpus.cuda();
    }

    /** {@code model name} of /proc/cpuinfo, or the OS architecture when unknown. */
    public String cpuModel() {
        return host.cpuModel();
    }

    /** Logical cores the JVM sees. */
    public int cores() {
        return host.cores();
    }

    /** Kernel release. */
    public String kernel() {
        return host.kernel();
    }

    /** Total memory, whole GiB. */
    public long memoryGiB() {
        return host.memoryGiB();
    }

    /** The driver query (argv, no shell): one version line per GPU. */
    public static final List<String> DRIVER_QUERY = List.of("nvidia-smi", "--query-gpu=driver_version",
            "--format=csv,noheader");
    /** nvidia-smi's summary, whose header names the CUDA version. */
    public static final List<String> SUMMARY = List.of("nvidia-smi");

    private static final Pattern CUDA = Pattern.compile("CUDA Version:\\s*([0-9][0-9.]*)");

    /** The fingerprint of this machine. */
    public static Hardware detect() {
        return detect(GpuDiscovery.discover(null), GpuDiscovery::runQuietly, Path.of("/proc"),
                Runtime.getRuntime().availableProcessors());
    }

    /**
     * The fingerprint from a GPU inventory, a command runner (for nvidia-smi) and a /proc folder.
     *
     * @param runner returns a command's stdout, or null when the program is missing or fails
     */
    public static Hardware detect(GpuDiscovery.Inventory gpus, GpuDiscovery.Runner runner, Path proc, int cores) {
        String name = null;
        String driver = null;
        String cuda = null;
        if (gpus.count() > 0) {
            name = String.join(" + ", gpus.gpus().stream().map(g -> g.name() == null ? "unknown GPU" : g.name())
                    .distinct().toList());
            if (gpus.source().startsWith("nvidia-smi")) {
                String d = runner.run(DRIVER_QUERY);
                if (d != null) {
                    driver = String.join(" + ", d.lines().map(String::strip).filter(l -> !l.isEmpty()).distinct()
                            .toList());
                    driver = driver.isEmpty() ? null : driver;
                }
                String summary = runner.run(SUMMARY);
                Matcher m = summary == null ? null : CUDA.matcher(summary);
                cuda = m != null && m.find() ? m.group(1) : null;
            }
        }
        return new Hardware(new Gpus(name, gpus.count(), driver, cuda), new Host(cpuModel(proc), cores, kernel(proc),
                memoryGiB(proc)));
    }

    /** The fields in a fixed order (JSON-ready). */
    public Map<String, Object> toMap() {
        return Fields.inOrder("gpu", gpuName(), "gpu_count", gpuCount(), "driver", driver(), "cuda", cuda(),
                "cpu", cpuModel(), "cores", cores(), "kernel", kernel(), "memory_gib", memoryGiB());
    }

    /** {@code hw-} and the first 12 hex digits of the SHA-256 of {@link #toMap()} as text: equal iff the fields are. */
    public String id() {
        StringBuilder b = new StringBuilder();
        toMap().forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
            return "hw-" + HexFormat.of().formatHex(h, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The GPU part for the session record: {@code NVIDIA H200 x1, driver 580.159.04, CUDA 13.0}, or {@code none}. */
    public String gpuText() {
        if (gpuCount() == 0) {
            return "none";
        }
        return gpuName() + " x" + gpuCount() + (driver() == null ? "" : ", driver " + driver())
                + (cuda() == null ? "" : ", CUDA " + cuda());
    }

    /** One line for reports: GPU part, CPU, cores, memory, kernel. */
    public String oneLine() {
        return String.format(Locale.ROOT, "%s; %s, %d cores, %d GiB; kernel %s", gpuCount() == 0 ? "no GPU"
                : gpuText(), cpuModel(), cores(), memoryGiB(), kernel());
    }

    static String cpuModel(Path proc) {
        for (String line : lines(proc.resolve("cpuinfo"))) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().equals("model name")) {
                return line.substring(colon + 1).strip();
            }
        }
        return System.getProperty("os.arch");
    }

    static String kernel(Path proc) {
        List<String> l = lines(proc.resolve("sys").resolve("kernel").resolve("osrelease"));
        return l.isEmpty() ? System.getProperty("os.version") : l.get(0).strip();
    }

    static long memoryGiB(Path proc) {
        for (String line : lines(proc.resolve("meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                String[] p = line.substring("MemTotal:".length()).strip().split("\\s+");
                try {
                    return Math.round(Long.parseLong(p[0]) / (1024.0 * 1024.0)); // kB
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return Math.round(Runtime.getRuntime().maxMemory() / (1024.0 * 1024 * 1024));
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
