package io.isobench.exec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nvidia-smi CSV parser and the energy math (docs/gpu-telemetry.md) on a recorded-style series of two H100s
 * (golden input {@code golden/gpu/nvidia-smi-h100x2.csv}: 100 ms interval, idle start, GPU 1 power-capped at 700 W
 * with its SM clock down to 1755 MHz for the last second, one line with {@code [N/A]}/{@code [Not Supported]},
 * one line cut mid-way) and on hand-computed series.
 */
class GpuTelemetryTest {

    static final Path GOLDEN = Path.of("src/test/resources/golden/gpu/nvidia-smi-h100x2.csv");
    static final Path GOLDEN_METRICS = Path.of("src/test/resources/golden/gpu/nvidia-smi-h100x2.metrics.json");

    @Test
    void parsesTheGoldenSeriesAndRejectsTheCutLine() throws Exception {
        GpuTelemetry.Parsed p = GpuTelemetry.parse(Files.readAllLines(GOLDEN));
        assertThat(p.samples()).hasSize(61);
        assertThat(p.rejected()).hasSize(1);
        assertThat(p.rejected().get(0)).startsWith("line with 7 of 12 fields");
        GpuTelemetry.Sample first = p.samples().get(0);
        assertThat(first.index()).isZero();
        assertThat(first.uuid()).isEqualTo("GPU-5a3c2f1e-8b7d-4e6a-9c0b-1d2e3f4a5b6c");
        assertThat(first.values().powerW()).isEqualTo(72.0);
        assertThat(first.values().smMhz()).isEqualTo(1980.0);
        assertThat(first.values().powerLimitW()).isEqualTo(700.0);
        assertThat(first.reasons()).isEqualTo(1L);
        assertThat(first.throttled()).as("GPU idle (0x1) is not throttling").isFalse();
        GpuTelemetry.Sample na = p.samples().get(60);
        assertThat(na.values().powerW()).as("[N/A]").isNull();
        assertThat(na.reasons()).as("[Not Supported]").isNull();
        assertThat(na.values().smMhz()).isEqualTo(1980.0);
        assertThat(p.samples().stream().filter(GpuTelemetry.Sample::throttled).count()).isEqualTo(10);
    }

    @Test
    void goldenMetrics() throws Exception {
        GpuTelemetry.Parsed p = GpuTelemetry.parse(Files.readAllLines(GOLDEN));
        Map<String, Object> m = GpuTelemetry.metrics(new ArrayList<>(p.samples()), 12_000L);
        String json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m) + "\n";
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN_METRICS, json);
        }
        assertThat(json).isEqualTo(Files.readString(GOLDEN_METRICS));
        // what the golden says, checked against the series' design
        assertThat(m.get("gpus")).isEqualTo(2);
        assertThat(m.get("gpu_samples")).isEqualTo(61);
        assertThat((double) m.get("gpu_power_w_max")).isBetween(699.0, 700.0);
        assertThat((double) m.get("gpu_throttle_share")).isEqualTo(0.166667); // 10 of the 60 samples with a bitmask
        assertThat(m.get("gpu_throttle_reasons_seen")).isEqualTo("0x0000000000000005");
        assertThat((double) m.get("gpu_temp_c_max")).isEqualTo(45.0);
        double energy = (double) m.get("gpu_energy_j");
        // two boards near 600-700 W for ~2.7 s plus an idle 0.3 s: between 2 x 550 x 2.9 and 2 x 700 x 3
        assertThat(energy).isBetween(3100.0, 4200.0);
        assertThat((double) m.get("gpu_energy_per_output_token_j")).isCloseTo(energy / 12_000, org.assertj.core.data
                .Offset.offset(1e-6));
    }

    /**
     * A series recorded from the real nvidia-smi (driver 580.159.04, one H200, 2026-11-26, through the device tool)
     * with the sampler's exact query, a bf16 matrix-product load from 1.5 s to 7 s: idle at 345 MHz and ~78 W, then
     * up to 535 W with the SW power cap (0x4) bit set and the SM clock at 1515-1980 MHz; the run ended by SIGTERM.
     */
    @Test
    void parsesARecordedH200Series() throws Exception {
        GpuTelemetry.Parsed p = GpuTelemetry.parse(Files.readAllLines(
                Path.of("src/test/resources/golden/gpu/nvidia-smi-h200-recorded.csv")));
        assertThat(p.rejected()).isEmpty();
        assertThat(p.samples()).hasSize(99).allSatisfy(s -> assertThat(s.index()).isZero());
        Map<String, Object> m = GpuTelemetry.metrics(new ArrayList<>(p.samples()), null);
        assertThat(m.get("gpus")).isEqualTo(1);
        assertThat(m.get("gpu_power_w_max")).isEqualTo(535.38);
        assertThat(m.get("gpu_power_limit_w")).isEqualTo(700.0);
        assertThat(m.get("gpu_temp_c_max")).isEqualTo(58.0);
        assertThat(m.get("gpu_throttle_share")).isEqualTo(0.10101); // 10 of 99 samples with the SW power cap bit
        assertThat(m.get("gpu_throttle_reasons_seen")).isEqualTo("0x0000000000000005");
        double span = (double) m.get("gpu_sampled_s");
        assertThat(span).isBetween(9.5, 10.0);
        assertThat((double) m.get("gpu_energy_j") / span).isCloseTo((double) m.get("gpu_power_w_mean"),
                org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    void trapezoidEnergyAndTimeWeightedMean() {
        List<GpuTelemetry.Sample> s = new ArrayList<>(List.of(
                sample(0, 0, 100.0, 1980.0, 0L),
                sample(3000, 0, 400.0, 1980.0, 4L), // out of order on purpose: sorted by time
                sample(1000, 0, 200.0, 1755.0, 0L)));
        Map<String, Object> m = GpuTelemetry.metrics(s, 1500L);
        // (100 + 200) / 2 * 1 s + (200 + 400) / 2 * 2 s = 150 + 600
        assertThat(m.get("gpu_energy_j")).isEqualTo(750.0);
        assertThat(m.get("gpu_power_w_mean")).isEqualTo(250.0); // 750 J / 3 s, not the sample mean 233.3
        assertThat(m.get("gpu_power_w_max")).isEqualTo(400.0);
        assertThat(m.get("gpu_sampled_s")).isEqualTo(3.0);
        assertThat(m.get("gpu_energy_per_output_token_j")).isEqualTo(0.5);
        assertThat(m.get("gpu_sm_clock_mhz_mean")).isEqualTo(1905.0);
        assertThat(m.get("gpu_throttle_share")).isEqualTo(0.333333);
    }

    @Test
    void aWindowCutsTheTrapezoidAtItsEdgesByInterpolation() {
        List<GpuTelemetry.Sample> s = new ArrayList<>(List.of(
                sample(0, 0, 100.0, 1980.0, 0L), sample(1000, 0, 200.0, 1755.0, 0L),
                sample(3000, 0, 400.0, 1980.0, 4L)));
        Map<String, Object> m = GpuTelemetry.metrics(s, 1500L, new GpuTelemetry.Window(500, 2000));
        // [500, 1000]: P(500) = 150 by interpolation, P(1000) = 200 -> 0.5 s x 175 W = 87.5 J
        // [1000, 2000]: P(1000) = 200, P(2000) = 300 by interpolation -> 1 s x 250 W = 250 J
        assertThat(m.get("gpu_energy_j")).isEqualTo(337.5);
        assertThat(m.get("gpu_sampled_s")).isEqualTo(1.5);
        assertThat(m.get("gpu_power_w_mean")).isEqualTo(225.0); // 337.5 J / 1.5 s
        assertThat(m.get("gpu_energy_per_output_token_j")).isEqualTo(0.225);
        // the other statistics: the one sample stamped inside the window (t = 1000)
        assertThat(m).containsEntry("gpu_samples", 1).containsEntry("gpus", 1).containsEntry("gpu_power_w_max", 200.0)
                .containsEntry("gpu_sm_clock_mhz_mean", 1755.0).containsEntry("gpu_throttle_share", 0.0);
        // windows that cover the series give the whole run; adjacent windows add up to it
        assertThat(GpuTelemetry.metrics(s, null, new GpuTelemetry.Window(-1000, 9000)).get("gpu_energy_j"))
                .isEqualTo(750.0);
        double left = (double) GpuTelemetry.metrics(s, null, new GpuTelemetry.Window(0, 1234)).get("gpu_energy_j");
        double right = (double) GpuTelemetry.metrics(s, null, new GpuTelemetry.Window(1234, 3000)).get("gpu_energy_j");
        assertThat(left + right).isCloseTo(750.0, org.assertj.core.data.Offset.offset(0.002));
        // a window beside the series: nothing sampled in it
        assertThat(GpuTelemetry.metrics(s, 10L, new GpuTelemetry.Window(4000, 5000)))
                .containsOnlyKeys("gpu_samples", "gpus");
    }

    @Test
    void theGoldenSeriesCutByAWindow() throws Exception {
        List<GpuTelemetry.Sample> all = GpuTelemetry.parse(Files.readAllLines(GOLDEN)).samples();
        List<GpuTelemetry.Sample> gpu1 = new ArrayList<>(all.stream().filter(x -> x.index() == 1).toList());
        ZoneId zone = ZoneId.of("Europe/Berlin"); // nvidia-smi's local time in that zone
        Instant from = LocalDateTime.of(2026, 11, 26, 21, 40, 12, 250_000_000).atZone(zone)
                .toInstant();
        GpuTelemetry.Window w = GpuTelemetry.Window.of(from, from.plusMillis(1800), zone);
        Map<String, Object> m = GpuTelemetry.metrics(gpu1, 12_000L, w);
        // 12.200 -> 12.300 (73 -> 606.73 W) cut at 12.250: 0.05 s x (339.865 + 606.73) / 2 = 23.664875 J;
        // the whole trapezoids 12.300 .. 14.000; 14.000 -> 14.100 cut at 14.050: 0.05 s x (699.64 + 699.735) / 2
        assertThat(m.get("gpu_energy_j")).isEqualTo(1108.168);
        assertThat(m.get("gpu_sampled_s")).isEqualTo(1.8);
        assertThat(m.get("gpu_power_w_mean")).isEqualTo(615.649);
        assertThat(m.get("gpu_energy_per_output_token_j")).isEqualTo(0.092347);
        // samples 12.300 .. 14.000: 17 at 1980 MHz, the first power-capped one (0x4) at 1755
        assertThat(m).containsEntry("gpu_samples", 18).containsEntry("gpu_sm_clock_mhz_mean", 1967.5)
                .containsEntry("gpu_throttle_share", 0.055556);
        assertThat(GpuTelemetry.metrics(gpu1, null).get("gpu_energy_j")).isEqualTo(1727.643);
    }

    @Test
    void energySumsOverGpusAndBridgesGaps() {
        List<GpuTelemetry.Sample> s = new ArrayList<>(List.of(
                sample(0, 0, 100.0, null, null), sample(1000, 0, null, null, null), sample(2000, 0, 100.0, null, null),
                sample(0, 1, 300.0, null, null), sample(2000, 1, 300.0, null, null)));
        Map<String, Object> m = GpuTelemetry.metrics(s, null);
        assertThat(m.get("gpu_energy_j")).isEqualTo(800.0); // 100 W x 2 s + 300 W x 2 s
        assertThat(m.get("gpu_power_w_mean")).isEqualTo(400.0);
        assertThat(m).doesNotContainKeys("gpu_energy_per_output_token_j", "gpu_sm_clock_mhz_mean",
                "gpu_throttle_share");
    }

    @Test
    void noSamplesNoPowerMetrics() {
        Map<String, Object> m = GpuTelemetry.metrics(new ArrayList<>(), 100L);
        assertThat(m).containsOnlyKeys("gpu_samples", "gpus");
    }

    @Test
    void robustToJunk() {
        GpuTelemetry.Parsed p = GpuTelemetry.parse(List.of(
                "No devices were found",
                "",
                "2026/11/26 21:40:12.000, 0, GPU-x, 612.5, 1980, 2619, 50, 99, 40, 70000, 0x0000000000000004, 700.00",
                "2026/11/26 21:40:12.100, zero, GPU-x, 612.5, 1980, 2619, 50, 99, 40, 70000, 0x0, 700.00",
                "garbage 21:40, 0, GPU-x, 612.5, 1980, 2619, 50, 99, 40, 70000, 0x0, 700.00",
                "2026/11/26 21:40:12.200, 0, GPU-x, [Unknown Error], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], "
                        + "[N/A], [N/A]"));
        assertThat(p.samples()).hasSize(2);
        assertThat(p.samples().get(0).throttled()).isTrue();
        assertThat(p.samples().get(1).values().powerW()).isNull();
        assertThat(p.rejected()).hasSize(3);
    }

    private static GpuTelemetry.Sample sample(long ms, int gpu, Double w, Double sm, Long reasons) {
        return new GpuTelemetry.Sample(ms, gpu, "GPU-" + gpu, new GpuTelemetry.Values(w, sm, 2619.0, 40.0, 90.0, 30.0,
                1000.0, 700.0), reasons);
    }
}
