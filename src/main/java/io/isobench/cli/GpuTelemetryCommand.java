package io.isobench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.isobench.IsobenchException;
import io.isobench.exec.GpuSampler;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * A check of GPU telemetry on this machine (docs/gpu-telemetry.md): samples the real {@code nvidia-smi} for a few
 * seconds exactly as a measured run does and prints the run-style metrics as JSON. Exit 3 when no GPU answers.
 * Run by {@code bench/gpu-telemetry}.
 */
@Command(name = "gpu-telemetry", hidden = true, mixinStandardHelpOptions = true,
        description = "Sample nvidia-smi for --seconds as a measured run does; print the metrics as JSON; exit 3 when"
                + " no GPU telemetry is available.")
final class GpuTelemetryCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "10", description = "How long (default ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--interval-ms", paramLabel = "MS", defaultValue = "100",
            description = "Sampling interval (default ${DEFAULT-VALUE}).")
    int intervalMs;

    @Option(names = "--series", paramLabel = "FILE", description = "Keep the raw CSV series here (default: discarded).")
    Path series;

    @Option(names = "--nvidia-smi", paramLabel = "PATH", description = "The nvidia-smi to run (default: the one on PATH).")
    Path nvidiaSmi;

    @Override
    public Integer call() throws Exception {
        if (!(seconds > 0) || seconds > 3600) {
            throw new IsobenchException.BadInput("--seconds (" + seconds + ") must be in (0, 3600]");
        }
        if (intervalMs < 10) {
            throw new IsobenchException.BadInput("--interval-ms (" + intervalMs + ") must be >= 10");
        }
        Path csv = series != null ? series : Files.createTempFile("isobench-gpu-", ".csv");
        Files.deleteIfExists(csv);
        Path smi = nvidiaSmi != null ? nvidiaSmi : GpuSampler.find(System.getenv("PATH"));
        GpuSampler s = GpuSampler.start(smi, csv, intervalMs, List.of());
        if (s.unavailable() != null) {
            main.err.println("isobench gpu-telemetry: no GPU telemetry on this machine: " + s.unavailable());
            return Main.ENV_MISSING;
        }
        Thread.sleep(Math.round(seconds * 1000));
        GpuSampler.Result r = s.stop();
        try {
            if (!r.available()) {
                main.err.println("isobench gpu-telemetry: nvidia-smi ran but no sample was read: " + r.reason());
                return Main.ENV_MISSING;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("seconds", seconds);
            out.put("interval_ms", intervalMs);
            out.put("samples_per_gpu_expected", (int) Math.floor(seconds * 1000 / intervalMs));
            out.putAll(r.toMap(null));
            if (series == null) {
                out.remove("series");
            }
            main.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
            main.out.flush();
            return Main.OK;
        } finally {
            if (series == null) {
                Files.deleteIfExists(csv);
            }
        }
    }
}
