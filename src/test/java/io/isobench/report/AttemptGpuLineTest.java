package io.isobench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The attempt section's GPU line (docs/agents.md, "GPUs in the sandbox"): which GPUs, how, and the telemetry. */
class AttemptGpuLineTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void namesTheGpusTheModeAndTheTelemetry() throws Exception {
        var d = JSON.readTree("""
                {"gpus": 1, "gpu_ids": [1], "gpu_models": ["NVIDIA H100 80GB HBM3"], "gpu_mode": "device-nodes",
                 "gpu_telemetry": {"available": true, "gpu_samples": 30, "gpu_power_w_mean": 512.34,
                  "gpu_power_w_max": 700, "gpu_energy_j": 1234.56, "gpu_sm_clock_mhz_mean": 1980.2,
                  "gpu_util_pct_mean": 85}}""");
        assertThat(AttemptSection.gpuLine(d)).isEqualTo("1 × NVIDIA H100 80GB HBM3 (GPU 1, device-nodes); 30 samples:"
                + " power 512.3 W mean, 700.0 W max, energy 1234.6 J, SM clock 1980 MHz, utilisation 85.0%");
        var none = JSON.readTree("""
                {"gpus": 2, "gpu_ids": [0, 1], "gpu_models": [null, null], "gpu_mode": "nvidia-runtime",
                 "gpu_telemetry": {"available": false, "reason": "no nvidia-smi on PATH: no GPU telemetry"}}""");
        assertThat(AttemptSection.gpuLine(none)).isEqualTo("2 × unknown model (GPU 0,1, nvidia-runtime); no telemetry:"
                + " no nvidia-smi on PATH: no GPU telemetry");
    }
}
