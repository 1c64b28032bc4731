package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench gpu-telemetry} (what {@code bench/gpu-telemetry} runs): with a <b>named fake</b> nvidia-smi that
 * replays the golden two-H100 series it prints the run metrics and exits 0; with none it exits 3 and says why.
 */
class GpuTelemetryCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsTheMetricsOfTheSampledSeries() throws Exception {
        Path golden = Path.of("src/test/resources/golden/gpu/nvidia-smi-h100x2.csv").toAbsolutePath();
        Path smi = dir.resolve("nvidia-smi");
        Files.writeString(smi, "#!/bin/bash\nif [[ \"$*\" == *-lms* ]]; then cat '" + golden + "'; exec sleep 60; fi\n"
                + "head -n 1 '" + golden + "'\n");
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), "gpu-telemetry", "--seconds", "0.5",
                "--nvidia-smi", smi.toString(), "--series", dir.resolve("series.csv").toString());
        assertThat(code).as(e.toString()).isZero();
        JsonNode j = new ObjectMapper().readTree(o.toString());
        assertThat(j.get("available").asBoolean()).isTrue();
        assertThat(j.get("gpus").asInt()).isEqualTo(2);
        assertThat(j.get("gpu_energy_j").asDouble()).isEqualTo(3363.521);
        assertThat(j.get("gpu_throttle_share").asDouble()).isEqualTo(0.166667);
        assertThat(Files.readAllLines(dir.resolve("series.csv"))).hasSize(62);
    }

    @Test
    void exitsThreeWithoutAGpu() {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), "gpu-telemetry", "--seconds", "1",
                "--nvidia-smi", dir.resolve("absent/nvidia-smi").toString());
        assertThat(code).isEqualTo(3);
        assertThat(e.toString()).contains("no GPU telemetry on this machine: nvidia-smi did not start");
        assertThat(o.toString()).isEmpty();
    }
}
