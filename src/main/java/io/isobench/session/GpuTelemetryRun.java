package io.isobench.session;

import io.isobench.exec.ExecutorKind;
import io.isobench.exec.GpuSampler;
import io.isobench.exec.GpuTelemetry;
import io.isobench.exec.JobResult;
import io.isobench.exec.MeasuredWindow;
import io.isobench.parse.Metric;
import io.isobench.plan.Job;
import io.isobench.store.Store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * GPU telemetry around one measured run (docs/gpu-telemetry.md): a {@link GpuSampler} runs while the executor runs
 * the job, on this node only (executors that run on this host: local, docker; others run elsewhere). It samples every GPU
 * and keeps those the job held ({@link JobResult#gpus()}, when the executor leased some). The raw series is stored
 * as a {@code gpu-telemetry} artifact, the summary as the run's {@code gpu_telemetry} details section and its
 * numbers as the run's metrics. Where nothing can be sampled (no nvidia-smi) that is noted once per process and the
 * run goes on untouched. {@code ISOBENCH_GPU_TELEMETRY_MS}: the interval (default 100), 0 turns sampling off.
 */
final class GpuTelemetryRun {

    private final GpuSampler sampler;
    private final Path csv;

    private GpuTelemetryRun(GpuSampler sampler, Path csv) {
        this.sampler = sampler;
        this.csv = csv;
    }

    /** Starts sampling for a measured job run on this node; null when the job is not sampled. */
    static GpuTelemetryRun start(Job job, ExecutorKind executor, Map<String, String> env, Consumer<String> note) {
        int interval = interval(env.get("ISOBENCH_GPU_TELEMETRY_MS"));
        if (job.kind() != Job.Kind.MEASURE || !executor.can(ExecutorKind.Capability.RUNS_ON_THIS_HOST)
                || interval == 0) {
            return null;
        }
        Path csv;
        try {
            csv = Files.createTempFile("isobench-gpu-", ".csv");
            Files.delete(csv); // nvidia-smi's stdout creates it
        } catch (IOException e) {
            note.accept("gpu telemetry: no temporary file (" + e.getMessage() + "): not sampled");
            return null;
        }
        GpuSampler s = GpuSampler.start(GpuSampler.find(env.get("PATH")), csv, interval, List.of());
        if (s.firstUnavailable()) {
            note.accept("gpu telemetry: " + s.unavailable() + " (noted once; runs go on without it)");
        }
        return s.unavailable() == null ? new GpuTelemetryRun(s, csv) : null;
    }

    /** The interval in ms from its setting (blank: the default; 0: off). */
    static int interval(String setting) {
        if (setting == null || setting.isBlank()) {
            return GpuSampler.DEFAULT_INTERVAL_MS;
        }
        int ms = Integer.parseInt(setting.strip());
        if (ms != 0 && ms < 10) {
            throw new IllegalArgumentException("ISOBENCH_GPU_TELEMETRY_MS (" + ms + ") must be 0 (off) or >= 10");
        }
        return ms;
    }

    /**
     * Ends sampling: stores the series, puts the {@code gpu_telemetry} section into {@code extra} and returns the
     * result with the telemetry's metrics added.
     */
    JobResult finish(JobResult result, Map<String, Object> extra, Store store) {
        GpuSampler.Result r = sampler.stop();
        try {
            Long tokens = result.metrics().stream().filter(m -> m.name().equals("total_output_tokens")).findFirst()
                    .map(m -> Math.round(m.value())).orElse(null);
            List<GpuTelemetry.Sample> kept = held(r.parsed().samples(), result.gpus());
            Map<String, Object> section = new LinkedHashMap<>();
            section.put("available", !kept.isEmpty());
            section.put("argv", r.argv());
            if (result.gpus() != null) {
                section.put("gpus_held", result.gpus());
            }
            if (!kept.isEmpty()) {
                section.put("series_sha256", store.putArtifact("gpu-telemetry", Files.readAllBytes(csv)));
                section.putAll(windowed(kept, tokens, result.measuredWindow(), ZoneId.systemDefault()));
            } else {
                section.put("reason", r.reason() != null ? r.reason() : "no sample of the GPUs the job held");
            }
            if (!r.parsed().rejected().isEmpty()) {
                section.put("rejected_lines", r.parsed().rejected().size());
                section.put("first_rejected", r.parsed().rejected().get(0));
            }
            extra.put("gpu_telemetry", section);
            List<Metric> all = new ArrayList<>(result.metrics());
            for (Map.Entry<String, Object> e : section.entrySet()) {
                if (e.getKey().startsWith("gpu_") && e.getValue() instanceof Number n) {
                    all.add(Metric.of(e.getKey(), n.doubleValue()));
                }
            }
            return result.withMetrics(all);
        } catch (IOException e) {
            extra.put("gpu_telemetry", Map.of("available", false, "reason", "series unreadable: " + e.getMessage()));
            return result;
        } finally {
            try {
                Files.deleteIfExists(csv);
            } catch (IOException e) {
                // a temporary file
            }
        }
    }

    /**
     * The metrics over the run's measured phase when the executor recorded one ({@code window}: the samples' local
     * time in {@code zone}), with {@code gpu_energy_run_j} (the whole sampled run) and {@code window} ({@code
     * measured} with its bounds and length) beside them; over the whole series, {@code window: job}, otherwise.
     */
    static Map<String, Object> windowed(List<GpuTelemetry.Sample> kept, Long tokens,
                                        MeasuredWindow window, ZoneId zone) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (window == null) {
            out.put("window", "job");
            out.putAll(GpuTelemetry.metrics(kept, tokens));
            return out;
        }
        out.put("window", "measured");
        out.put("window_start", window.start().toString());
        out.put("window_end", window.end().toString());
        out.put("gpu_window_s", Math.round(window.durationS() * 1000.0) / 1000.0);
        out.putAll(GpuTelemetry.metrics(kept, tokens, GpuTelemetry.Window.of(window.start(), window.end(), zone)));
        Object run = GpuTelemetry.metrics(kept, null).get("gpu_energy_j");
        if (run != null) {
            out.put("gpu_energy_run_j", run);
        }
        return out;
    }

    /** The samples of the GPUs a job held ({@code 0,1}); all of them when it held none recorded. */
    static List<GpuTelemetry.Sample> held(List<GpuTelemetry.Sample> samples, String gpus) {
        if (gpus == null || gpus.isBlank()) {
            return new ArrayList<>(samples);
        }
        Set<Integer> ids = new HashSet<>();
        for (String g : gpus.split(",")) {
            try {
                ids.add(Integer.parseInt(g.strip()));
            } catch (NumberFormatException e) {
                return new ArrayList<>(samples); // UUIDs or MIG names: cannot match indices, keep all
            }
        }
        return new ArrayList<>(samples.stream().filter(s -> ids.contains(s.index())).toList());
    }
}
