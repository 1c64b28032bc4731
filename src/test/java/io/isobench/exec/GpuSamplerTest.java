package io.isobench.exec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link GpuSampler} against a <b>named fake</b> {@code nvidia-smi} (a shell script put first on the sampler's PATH,
 * since no GPU runs in CI) that replays the golden series: one-shot queries print its first line, {@code -lms}
 * prints the whole series and stays alive until the sampler ends it. The real one is checked by
 * {@code bench/gpu-telemetry} on a machine with a GPU.
 */
class GpuSamplerTest {

    @TempDir
    Path dir;

    private Path fake(String body) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path smi = bin.resolve("nvidia-smi");
        Files.writeString(smi, "#!/bin/bash\n" + body);
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    private static final String REPLAY = "golden=\"$GOLDEN\"\n"
            + "args=\"$*\"\n"
            + "echo \"$args\" >> \"$(dirname \"$0\")/calls.txt\"\n"
            + "if [[ \"$args\" == *-lms* ]]; then cat \"$golden\"; exec sleep 60; fi\n"
            + "head -n 1 \"$golden\"\n";

    @Test
    void replaysTheGoldenSeriesThroughAFakeNvidiaSmi() throws Exception {
        Path golden = GpuTelemetryTest.GOLDEN.toAbsolutePath();
        Path bin = fake(REPLAY.replace("$GOLDEN", golden.toString()));
        assertThat(GpuSampler.find("/nonexistent:" + bin)).isEqualTo(bin.resolve("nvidia-smi"));
        Path csv = dir.resolve("run/gpu-telemetry.csv");
        GpuSampler s = GpuSampler.start(GpuSampler.find(bin.toString()), csv, 100, List.of(0, 1));
        assertThat(s.unavailable()).isNull();
        waitForLines(csv, 62);
        GpuSampler.Result r = s.stop();
        assertThat(r.available()).isTrue();
        assertThat(r.argv()).containsExactly(bin.resolve("nvidia-smi").toString(),
                "--query-gpu=" + String.join(",", GpuTelemetry.FIELDS), "--format=csv,noheader,nounits", "-i", "0,1",
                "-lms", "100");
        assertThat(Files.readAllLines(csv)).isEqualTo(Files.readAllLines(golden)); // the artifact is the raw series
        Map<String, Object> expected = GpuTelemetry.metrics(
                new ArrayList<>(GpuTelemetry.parse(Files.readAllLines(golden)).samples()), 12_000L);
        Map<String, Object> details = r.toMap(12_000L);
        assertThat(details).containsAllEntriesOf(expected);
        assertThat(details.get("available")).isEqualTo(true);
        assertThat(details.get("series")).isEqualTo("gpu-telemetry.csv");
        assertThat(details.get("rejected_lines")).isEqualTo(1);
        assertThat(Files.readAllLines(bin.resolve("calls.txt"))).hasSize(2); // the probe, then the series
    }

    @Test
    void fallsBackToClocksEventReasonsOnDriversWithoutTheOldName() throws Exception {
        Path golden = GpuTelemetryTest.GOLDEN.toAbsolutePath();
        Path bin = fake("if [[ \"$*\" == *clocks_throttle_reasons.active* ]]; then\n"
                + "  echo 'Field \"clocks_throttle_reasons.active\" is not a valid field to query.'; exit 2; fi\n"
                + REPLAY.replace("$GOLDEN", golden.toString()));
        Path csv = dir.resolve("gpu.csv");
        GpuSampler s = GpuSampler.start(GpuSampler.find(bin.toString()), csv, 250, List.of());
        waitForLines(csv, 62);
        GpuSampler.Result r = s.stop();
        assertThat(r.available()).isTrue();
        assertThat(r.argv().get(1)).contains(GpuTelemetry.EVENT_REASONS).doesNotContain("clocks_throttle_reasons");
        assertThat(r.argv()).doesNotContain("-i").endsWith("-lms", "250");
        assertThat(r.metrics(null)).containsEntry("gpu_throttle_share", 0.166667)
                .doesNotContainKey("gpu_energy_per_output_token_j");
    }

    @Test
    void noNvidiaSmiSamplesNothingAndFailsNothing() {
        GpuSampler s = GpuSampler.start((Path) null, dir.resolve("gpu.csv"), 100, List.of());
        assertThat(s.unavailable()).isEqualTo("no nvidia-smi on PATH: no GPU telemetry");
        GpuSampler.Result r = s.stop();
        assertThat(r.available()).isFalse();
        assertThat(r.toMap(10L)).containsExactly(Map.entry("available", false),
                Map.entry("reason", "no nvidia-smi on PATH: no GPU telemetry"));
        assertThat(Files.exists(dir.resolve("gpu.csv"))).isFalse();
        assertThat(GpuSampler.find(dir.toString())).isNull();
    }

    @Test
    void aDriverThatCannotTalkToTheGpuIsRecordedNotFailed() throws Exception {
        Path bin = fake("echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"\n"
                + "exit 9\n");
        GpuSampler s = GpuSampler.start(GpuSampler.find(bin.toString()), dir.resolve("gpu.csv"), 100, List.of());
        assertThat(s.unavailable()).startsWith("nvidia-smi answered no sample: exit 9: NVIDIA-SMI has failed");
        assertThat(s.stop().available()).isFalse();
    }

    private static void waitForLines(Path csv, int n) throws Exception {
        long end = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < end) {
            if (Files.exists(csv) && Files.readAllLines(csv).size() >= n) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the fake nvidia-smi wrote no series to " + csv);
    }
}
