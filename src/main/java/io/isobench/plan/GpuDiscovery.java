package io.isobench.plan;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which GPUs this machine offers (DESIGN.md §11). In order: an explicit override ({@code --gpus N} or a list
 * {@code 0,2,5}); the environment variable {@code ISOBENCH_GPUS} (same syntax); else
 * {@code nvidia-smi --query-gpu=index,name,memory.total,uuid --format=csv,noheader}, run without a shell, restricted
 * to {@code CUDA_VISIBLE_DEVICES} when that is set. No {@code nvidia-smi} → no GPUs (source says so).
 */
public final class GpuDiscovery {

    /** The query isobench runs (argv, no shell). */
    public static final List<String> NVIDIA_SMI = List.of("nvidia-smi",
            "--query-gpu=index,name,memory.total,uuid", "--format=csv,noheader");

    public static final String ENV = "ISOBENCH_GPUS";

    /**
     * One GPU.
     *
     * @param index     the index CUDA_VISIBLE_DEVICES and docker {@code --gpus device=} use
     * @param name      e.g. {@code NVIDIA H100 80GB HBM3}; null when given by an override
     * @param memoryMiB total memory; null when unknown
     * @param uuid      {@code GPU-…}; null when unknown
     */
    public record Gpu(int index, String name, Long memoryMiB, String uuid) {
    }

    /**
     * The GPUs found and where the list came from ({@code --gpus}, {@code ISOBENCH_GPUS}, {@code nvidia-smi},
     * {@code none (nvidia-smi not found)} …).
     */
    public record Inventory(List<Gpu> gpus, String source) {
        public Inventory {
            gpus = List.copyOf(gpus);
        }

        public List<Integer> ids() {
            return gpus.stream().map(Gpu::index).toList();
        }

        public int count() {
            return gpus.size();
        }

        public GpuSlots slots() {
            return new GpuSlots(ids());
        }

        /** {@link #slots()} whose leases also take the host-wide lock ({@link HostGpuLocks#forHost}). */
        public GpuSlots hostSlots(Map<String, String> env) {
            return slots().withHostLocks(HostGpuLocks.forHost(env));
        }

        /** The GPU with index {@code index}, or null. */
        public Gpu gpu(int index) {
            return gpus.stream().filter(g -> g.index() == index).findFirst().orElse(null);
        }
    }

    /** Runs a command (argv) and returns its stdout; null when the program is missing or fails. */
    @FunctionalInterface
    public interface Runner {
        String run(List<String> argv);
    }

    private static final Pattern MEMORY = Pattern.compile("(\\d+)\\s*(MiB|GiB|MB|GB)?", Pattern.CASE_INSENSITIVE);

    private GpuDiscovery() {
    }

    /** Discovers with the real environment and {@code nvidia-smi}. */
    public static Inventory discover(String override) {
        return discover(override, System.getenv(), GpuDiscovery::runQuietly);
    }

    public static Inventory discover(String override, Map<String, String> env, Runner runner) {
        if (override != null && !override.isBlank()) {
            return new Inventory(parseOverride(override, "--gpus"), "--gpus " + override.trim());
        }
        String fromEnv = env.get(ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new Inventory(parseOverride(fromEnv, ENV), ENV + "=" + fromEnv.trim());
        }
        String out = runner.run(NVIDIA_SMI);
        if (out == null) {
            return new Inventory(List.of(), "none (nvidia-smi not found or failed; set --gpus N or " + ENV + ")");
        }
        List<Gpu> gpus = parse(out);
        String visible = env.get("CUDA_VISIBLE_DEVICES");
        if (visible != null) {
            return new Inventory(restrict(gpus, visible), "nvidia-smi, CUDA_VISIBLE_DEVICES=" + visible);
        }
        return new Inventory(gpus, "nvidia-smi");
    }

    /**
     * Parses {@code nvidia-smi --query-gpu=index,name,memory.total,uuid --format=csv,noheader} output, e.g.
     * {@code 0, NVIDIA H100 80GB HBM3, 81559 MiB, GPU-9d3f…}. Blank lines are skipped; a malformed line is an error
     * naming it (a half-read GPU list would oversubscribe or idle GPUs silently).
     */
    public static List<Gpu> parse(String csv) {
        List<Gpu> out = new ArrayList<>();
        Set<Integer> seen = new LinkedHashSet<>();
        String[] lines = csv.split("\\R");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(",");
            if (f.length < 2) {
                throw bad(i, line);
            }
            int index;
            try {
                index = Integer.parseInt(f[0].strip());
            } catch (NumberFormatException e) {
                throw bad(i, line);
            }
            if (index < 0 || !seen.add(index)) {
                throw bad(i, line);
            }
            // a name never contains a comma in practice; still, take memory and uuid from the end
            String uuid = null;
            Long mem = null;
            int nameEnd = f.length;
            if (f.length >= 4) {
                uuid = blankToNull(f[f.length - 1].strip());
                mem = memoryMiB(f[f.length - 2].strip());
                nameEnd = f.length - 2;
            } else if (f.length == 3) {
                mem = memoryMiB(f[2].strip());
                nameEnd = mem == null ? 3 : 2;
            }
            StringBuilder name = new StringBuilder();
            for (int k = 1; k < nameEnd; k++) {
                if (k > 1) {
                    name.append(',');
                }
                name.append(f[k].strip());
            }
            out.add(new Gpu(index, blankToNull(name.toString()), mem, uuid));
        }
        return List.copyOf(out);
    }

    /** {@code 8} → GPUs 0…7; {@code 0,2,5} → those indexes. */
    public static List<Gpu> parseOverride(String value, String label) {
        String v = value.strip();
        try {
            if (!v.contains(",")) {
                int n = Integer.parseInt(v);
                if (n < 0 || n > 4096) {
                    throw new NumberFormatException();
                }
                List<Gpu> out = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    out.add(new Gpu(i, null, null, null));
                }
                return out;
            }
            Set<Integer> ids = new LinkedHashSet<>();
            for (String part : v.split(",")) {
                int id = Integer.parseInt(part.strip());
                if (id < 0 || !ids.add(id)) {
                    throw new NumberFormatException();
                }
            }
            return ids.stream().sorted().map(i -> new Gpu(i, null, null, null)).toList();
        } catch (NumberFormatException e) {
            throw IsobenchException.badInput("%s '%s': not a GPU count or a list of distinct GPU indexes"
                    + " (fix: e.g. 8, or 0,1,2,3)", label, value);
        }
    }

    private static List<Gpu> restrict(List<Gpu> gpus, String visible) {
        List<Gpu> out = new ArrayList<>();
        for (String part : visible.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            for (Gpu g : gpus) {
                if (p.equals(String.valueOf(g.index())) || (g.uuid() != null && g.uuid().startsWith(p))) {
                    if (!out.contains(g)) {
                        out.add(g);
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    private static Long memoryMiB(String text) {
        Matcher m = MEMORY.matcher(text);
        if (!m.matches()) {
            return null;
        }
        long v = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "MiB" : m.group(2).toUpperCase(Locale.ROOT);
        return unit.startsWith("G") ? v * 1024 : v;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() || s.equals("[N/A]") ? null : s;
    }

    private static IsobenchException.BadInput bad(int lineIndex, String line) {
        return IsobenchException.badInput("nvidia-smi output line %d unreadable: '%s' (fix: expected 'index, name,"
                + " memory.total, uuid'; or set --gpus N / %s)", lineIndex + 1, line, ENV);
    }

    /** Runs argv without a shell with a 20 s limit; null when missing, failing or hung. */
    public static String runQuietly(List<String> argv) {
        Path outFile = null;
        Process p = null;
        try {
            outFile = Files.createTempFile("isobench-nvidia-smi", ".txt");
            p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectOutput(outFile.toFile()).start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? Files.readString(outFile, StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (outFile != null) {
                try {
                    Files.deleteIfExists(outFile);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }
}
