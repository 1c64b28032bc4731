package io.isobench.exec;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Samples GPU telemetry during one measured run (docs/gpu-telemetry.md): runs {@code nvidia-smi
 * --query-gpu=FIELDS --format=csv,noheader,nounits -lms INTERVAL [-i GPUS]} (an argv list, no shell) with its
 * stdout written to the run's CSV artifact, and on {@link #stop} ends it and reads the series back through
 * {@link GpuTelemetry}. Where no {@code nvidia-smi} is on PATH, or it cannot talk to a GPU, nothing is sampled:
 * the result says why and nothing fails; {@link #firstUnavailable()} lets the caller log that once per process.
 */
public final class GpuSampler {

    /** Default interval: 100 ms (nvidia-smi's power reading refreshes at about that rate on H100-class boards). */
    public static final int DEFAULT_INTERVAL_MS = 100;
    private static final AtomicBoolean NOTED = new AtomicBoolean();
    private static final String NOT_STARTED = "nvidia-smi did not start: ";

    private final Process process;
    private final List<String> argv;
    private final Path csv;
    private final String unavailable;

    private GpuSampler(Process process, List<String> argv, Path csv, String unavailable) {
        this.process = process;
        this.argv = argv;
        this.csv = csv;
        this.unavailable = unavailable;
    }

    /** The first {@code nvidia-smi} on {@code path} (a PATH value), or null. */
    public static Path find(String path) {
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, "nvidia-smi");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Starts sampling with the nvidia-smi on this process's PATH; {@code gpus} empty = every GPU. */
    public static GpuSampler start(Path csv, int intervalMs, List<Integer> gpus) {
        return start(find(System.getenv("PATH")), csv, intervalMs, gpus);
    }

    /**
     * Starts sampling with {@code nvidiaSmi} (null: unavailable). A query run first picks the throttle bitmask's
     * name ({@code clocks_throttle_reasons.active}, else {@code clocks_event_reasons.active}) and finds out
     * whether a GPU answers at all.
     */
    public static GpuSampler start(Path nvidiaSmi, Path csv, int intervalMs, List<Integer> gpus) {
        if (intervalMs < 10) {
            throw new IllegalArgumentException("interval (" + intervalMs + " ms) must be >= 10 ms");
        }
        if (nvidiaSmi == null) {
            return new GpuSampler(null, List.of(), csv, "no nvidia-smi on PATH: no GPU telemetry");
        }
        List<String> fields = new ArrayList<>(GpuTelemetry.FIELDS);
        String probe = probe(nvidiaSmi, fields, gpus);
        if (probe != null && probe.contains(fields.get(10))) {
            fields.set(10, GpuTelemetry.EVENT_REASONS);
            probe = probe(nvidiaSmi, fields, gpus);
        }
        if (probe != null) {
            return new GpuSampler(null, List.of(), csv, probe.startsWith(NOT_STARTED) ? probe
                    : "nvidia-smi answered no sample: " + probe);
        }
        List<String> argv = new ArrayList<>(query(nvidiaSmi, fields, gpus));
        argv.add("-lms");
        argv.add(Integer.toString(intervalMs));
        try {
            Files.createDirectories(csv.toAbsolutePath().getParent());
            Process p = new ProcessBuilder(argv).redirectOutput(csv.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return new GpuSampler(p, List.copyOf(argv), csv, null);
        } catch (IOException e) {
            return new GpuSampler(null, List.copyOf(argv), csv, "nvidia-smi did not start: " + e.getMessage());
        }
    }

    private static List<String> query(Path nvidiaSmi, List<String> fields, List<Integer> gpus) {
        List<String> argv = new ArrayList<>();
        argv.add(nvidiaSmi.toString());
        argv.add("--query-gpu=" + String.join(",", fields));
        argv.add("--format=csv,noheader,nounits");
        if (gpus != null && !gpus.isEmpty()) {
            argv.add("-i");
            argv.add(String.join(",", gpus.stream().map(String::valueOf).toList()));
        }
        return argv;
    }

    /** One query; null when it printed at least one well-formed sample, else what it said (one line). */
    private static String probe(Path nvidiaSmi, List<String> fields, List<Integer> gpus) {
        try {
            Process p = new ProcessBuilder(query(nvidiaSmi, fields, gpus)).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "the query did not end in 20 s";
            }
            String text = new String(out, StandardCharsets.UTF_8);
            GpuTelemetry.Parsed parsed = GpuTelemetry.parse(text.lines().toList());
            if (p.exitValue() == 0 && !parsed.samples().isEmpty()) {
                return null;
            }
            String said = text.strip().replace('\n', ' ');
            return "exit " + p.exitValue() + (said.isEmpty() ? "" : ": " + (said.length() > 300
                    ? said.substring(0, 300) + "…" : said));
        } catch (IOException e) {
            return NOT_STARTED + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** True once per JVM for the first sampler that found no GPU telemetry (the caller logs it then only). */
    public boolean firstUnavailable() {
        return unavailable != null && NOTED.compareAndSet(false, true);
    }

    /** Why nothing is sampled, or null while sampling. */
    public String unavailable() {
        return unavailable;
    }

    /** Ends nvidia-smi and reads the series back. */
    public Result stop() {
        if (process == null) {
            return new Result(false, unavailable, argv, null, new GpuTelemetry.Parsed(List.of(), List.of()));
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return new Result(false, "the series could not be read: " + e.getMessage(), argv, csv,
                    new GpuTelemetry.Parsed(List.of(), List.of()));
        }
        GpuTelemetry.Parsed parsed = GpuTelemetry.parse(lines);
        return new Result(!parsed.samples().isEmpty(), parsed.samples().isEmpty() ? "nvidia-smi wrote no sample"
                : null, argv, csv, parsed);
    }

    /**
     * What was sampled.
     *
     * @param available true when at least one sample was read
     * @param reason    why nothing was sampled, or null
     * @param argv      the nvidia-smi command (empty when none ran)
     * @param csv       the raw series (the artifact), or null when none was written
     * @param parsed    the samples and the rejected lines
     */
    public record Result(boolean available, String reason, List<String> argv, Path csv, GpuTelemetry.Parsed parsed) {

        /** The run's metrics ({@link GpuTelemetry#metrics}); empty when nothing was sampled. */
        public Map<String, Object> metrics(Long outputTokens) {
            return available ? GpuTelemetry.metrics(new ArrayList<>(parsed.samples()), outputTokens) : Map.of();
        }

        /** The run's {@code gpu_telemetry} details section: availability, source, the metrics, rejected lines. */
        public Map<String, Object> toMap(Long outputTokens) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("available", available);
            if (reason != null) {
                m.put("reason", reason);
            }
            if (!argv.isEmpty()) {
                m.put("argv", argv);
            }
            if (csv != null && available) {
                m.put("series", csv.getFileName().toString());
            }
            m.putAll(metrics(outputTokens));
            if (!parsed.rejected().isEmpty()) {
                m.put("rejected_lines", parsed.rejected().size());
                m.put("first_rejected", parsed.rejected().get(0));
            }
            return Collections.unmodifiableMap(m);
        }
    }
}
