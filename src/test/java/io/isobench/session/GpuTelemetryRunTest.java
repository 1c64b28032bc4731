package io.isobench.session;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.exec.Executors;
import io.isobench.exec.GpuTelemetry;
import io.isobench.exec.JobResult;
import io.isobench.exec.MeasuredWindow;
import io.isobench.parse.Metric;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * GPU telemetry around a measured run, with a <b>named fake</b> {@code nvidia-smi} on the run's PATH (a shell script
 * replaying the golden two-H100 series; no GPU runs in CI) and a real DuckDB store: the series is stored as an
 * artifact byte for byte, the run gets its {@code gpu_telemetry} section and metrics, only the GPUs the job held count.
 */
class GpuTelemetryRunTest {

    @TempDir
    Path dir;

    static final Path GOLDEN = Path.of("src/test/resources/golden/gpu/nvidia-smi-h100x2.csv").toAbsolutePath();

    private Map<String, String> envWithFake() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path smi = bin.resolve("nvidia-smi");
        Files.writeString(smi, "#!/bin/bash\nif [[ \"$*\" == *-lms* ]]; then cat '" + GOLDEN + "'; exec sleep 60; fi\n"
                + "head -n 1 '" + GOLDEN + "'\n");
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        return Map.of("PATH", bin + ":/usr/bin:/bin");
    }

    private static Job job(Job.Kind kind) {
        JobSpec spec = kind == Job.Kind.MEASURE ? new JobSpec.Measure(Command.template(List.of("x")), ClientConfig.NONE, 0, null)
                : null;
        return new Job(new Job.Place(0, "t/human/r0", "t", 0), Arm.HUMAN, Mode.SERVING, spec,
                new Job.Where(Path.of("/w"), Map.of(), 1), Job.Limits.ofSeconds(10, 10));
    }

    @Test
    void aMeasuredRunGetsItsSeriesSectionAndMetrics() throws Exception {
        List<String> notes = new ArrayList<>();
        GpuTelemetryRun t = GpuTelemetryRun.start(job(Job.Kind.MEASURE), Executors.kind("local"), envWithFake(), notes::add);
        assertThat(t).isNotNull();
        Thread.sleep(500); // the fake prints the whole series at once
        JobResult result = JobResult.notStarted(null, "", List.of("x")).withMetrics(List.of(
                Metric.of("tpot_ms_mean", 8.0), Metric.of("total_output_tokens", 12_000))).withGpus("1");
        Map<String, Object> extra = new LinkedHashMap<>();
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            JobResult out = t.finish(result, extra, store);
            @SuppressWarnings("unchecked")
            Map<String, Object> s = (Map<String, Object>) extra.get("gpu_telemetry");
            assertThat(s).containsEntry("available", true).containsEntry("gpus_held", "1")
                    .containsEntry("gpus", 1).containsEntry("gpu_samples", 30) // GPU 1's line cut mid-way is rejected
                    .containsEntry("gpu_throttle_share", 0.333333).containsEntry("rejected_lines", 1);
            assertThat(store.artifact((String) s.get("series_sha256"))).hasValueSatisfying(
                    b -> assertThat(b).isEqualTo(readBytes(GOLDEN)));
            assertThat(out.metrics()).extracting(Metric::name).contains("tpot_ms_mean", "gpu_energy_j",
                    "gpu_energy_per_output_token_j", "gpu_sm_clock_mhz_mean", "gpu_throttle_share")
                    .doesNotContain("gpu_throttle_reasons_seen", "gpus");
            double e = out.metrics().stream().filter(m -> m.name().equals("gpu_energy_j")).findFirst().orElseThrow()
                    .value();
            double perToken = out.metrics().stream().filter(m -> m.name().equals("gpu_energy_per_output_token_j"))
                    .findFirst().orElseThrow().value();
            assertThat(perToken).isCloseTo(e / 12_000, org.assertj.core.data.Offset.offset(1e-6));
            assertThat(out.metrics().stream().filter(m -> m.name().equals("gpu_sm_clock_mhz_mean")).findFirst()
                    .orElseThrow().value()).isEqualTo(1905.0); // 20 samples at 1980, 10 power-capped at 1755
        }
        assertThat(notes).isEmpty();
    }

    @Test
    void aServingRunsEnergyIsItsMeasuredPhase() throws Exception {
        GpuTelemetryRun t = GpuTelemetryRun.start(job(Job.Kind.MEASURE), Executors.kind("local"), envWithFake(), n -> { });
        assertThat(t).isNotNull();
        Thread.sleep(500);
        // the executor's window in wall-clock time; the fake's series is stamped in this JVM's zone, as nvidia-smi's
        Instant from = LocalDateTime.of(2026, 11, 26, 21, 40, 12, 250_000_000)
                .atZone(ZoneId.systemDefault()).toInstant();
        JobResult result = JobResult.notStarted(null, "", List.of("x")).withMetrics(List.of(
                Metric.of("total_output_tokens", 12_000))).withGpus("1")
                .withMeasuredWindow(new MeasuredWindow(from, from.plusMillis(1800)));
        Map<String, Object> extra = new LinkedHashMap<>();
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            JobResult out = t.finish(result, extra, store);
            @SuppressWarnings("unchecked")
            Map<String, Object> s = (Map<String, Object>) extra.get("gpu_telemetry");
            // the numbers of GpuTelemetryTest.theGoldenSeriesCutByAWindow, hand-checked there
            assertThat(s).containsEntry("window", "measured").containsEntry("window_start", from.toString())
                    .containsEntry("gpu_window_s", 1.8).containsEntry("gpu_energy_j", 1108.168)
                    .containsEntry("gpu_energy_run_j", 1727.643).containsEntry("gpu_samples", 18)
                    .containsEntry("gpu_sm_clock_mhz_mean", 1967.5);
            // the whole series stays the artifact
            assertThat(store.artifact((String) s.get("series_sha256"))).hasValueSatisfying(
                    b -> assertThat(b).isEqualTo(readBytes(GOLDEN)));
            Map<String, Double> m = new LinkedHashMap<>();
            out.metrics().forEach(x -> m.put(x.name(), x.value()));
            assertThat(m).containsEntry("gpu_energy_j", 1108.168).containsEntry("gpu_energy_run_j", 1727.643)
                    .containsEntry("gpu_energy_per_output_token_j", 0.092347).containsEntry("gpu_window_s", 1.8);
        }
    }

    @Test
    void anOfflineRunKeepsTheWholeJob() {
        List<GpuTelemetry.Sample> s = GpuTelemetry.parse(readLines(GOLDEN)).samples();
        Map<String, Object> m = GpuTelemetryRun.windowed(new ArrayList<>(s), null, null,
                ZoneId.systemDefault());
        assertThat(m).containsEntry("window", "job").doesNotContainKeys("gpu_energy_run_j", "gpu_window_s");
        assertThat(m.get("gpu_energy_j")).isEqualTo(GpuTelemetry.metrics(new ArrayList<>(s), null).get("gpu_energy_j"));
    }

    @Test
    void onlyMeasuredRunsOnThisNodeAreSampled() throws Exception {
        Map<String, String> env = envWithFake();
        assertThat(GpuTelemetryRun.start(job(Job.Kind.MEASURE), Executors.kind("slurm"), env, n -> { })).isNull();
        assertThat(GpuTelemetryRun.start(job(Job.Kind.MEASURE), Executors.kind("kubernetes"), env, n -> { })).isNull();
        Map<String, String> off = new LinkedHashMap<>(env);
        off.put("ISOBENCH_GPU_TELEMETRY_MS", "0");
        assertThat(GpuTelemetryRun.start(job(Job.Kind.MEASURE), Executors.kind("local"), off, n -> { })).isNull();
        assertThat(GpuTelemetryRun.interval(null)).isEqualTo(100);
        assertThat(GpuTelemetryRun.interval(" 250 ")).isEqualTo(250);
        assertThatThrownBy(() -> GpuTelemetryRun.interval("5")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void noNvidiaSmiIsNotedAtMostOnceAndSamplesNothing() {
        List<String> notes = new ArrayList<>();
        Map<String, String> env = Map.of("PATH", dir.toString());
        assertThat(GpuTelemetryRun.start(job(Job.Kind.MEASURE), Executors.kind("local"), env, notes::add)).isNull();
        assertThat(GpuTelemetryRun.start(job(Job.Kind.MEASURE), Executors.kind("docker"), env, notes::add)).isNull();
        // once per process: an earlier test in this JVM may already have noted it
        assertThat(notes).hasSizeLessThanOrEqualTo(1)
                .allSatisfy(n -> assertThat(n).isEqualTo("gpu telemetry: no nvidia-smi on PATH: no GPU telemetry "
                        + "(noted once; runs go on without it)"));
    }

    private static List<String> readLines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] readBytes(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
