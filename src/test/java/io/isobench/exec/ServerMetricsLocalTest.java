package io.isobench.exec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A serving run of the real toy engine (examples/toy-engine, a Python process) through the local executor: its
 * {@code /metrics} (the named fake of vLLM's exporter, toyllm/metrics.py) is scraped during the measured run, the
 * series comes back for the artifact and the summaries and the TTFT cross-check join the run's metrics.
 */
class ServerMetricsLocalTest {

    @TempDir
    Path root;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void toyEngineRunCarriesServerMetricsAndTheCrossCheck() throws IOException {
        io.isobench.SharedData.requireSandbox();
        Path cwd = toyEngine();
        int prompts = 12;
        Job job = new Job(new Job.Place(0, "server-metrics/baseline/r0", "server-metrics", 0), Arm.BASELINE,
                Mode.SERVING, new JobSpec.Measure(Command.template(List.of("python3", "-m", "toyllm.entrypoints.api_server",
                "--host", "{host}", "--port", "{port}", "--model", "toy-1m", "--disable-log-requests")),
                ClientConfig.ofArgv(List.of("--model", "toy-1m", "--dataset-name", "random", "--random-input-len", "32",
                        "--random-output-len", "32", "--num-prompts", Integer.toString(prompts),
                        "--max-concurrency", "4", "--ignore-eos")), 1, null),
                new Job.Where(cwd, Map.of(), 1), Job.Limits.ofSeconds(60, 120));
        Instant before0 = Instant.now();
        JobResult r = Executors.create("local").execute(job, Executor.Hooks.NONE);
        Instant after0 = Instant.now();
        assertThat(r.failure()).as(r.log()).isNull();
        // the measured phase (warm-up done → client returned): the GPU energy window, inside the job, shorter than it
        MeasuredWindow w = r.measuredWindow();
        assertThat(w).isNotNull();
        assertThat(w.start()).isAfter(before0);
        assertThat(w.end()).isBeforeOrEqualTo(after0).isAfterOrEqualTo(w.start());
        assertThat(w.durationS() * 1000).isLessThan(r.timingsMs().get("client_ms"));
        Map<String, Double> m = r.metrics().stream().collect(Collectors.toMap(Metric::name, Metric::value));
        assertThat(m.get("server_metrics_scrapes")).as(r.log()).isGreaterThanOrEqualTo(2.0);
        assertThat(m.get("server_metrics_scrape_failures")).isZero();
        assertThat(m.get("server_metrics_bad_lines")).isZero();
        assertThat(m).containsKeys("vllm:num_requests_running_mean", "vllm:num_requests_running_max",
                "vllm:num_requests_waiting_mean", "vllm:kv_cache_usage_perc_max", "vllm:prefix_cache_hit_rate",
                "vllm:num_preemptions_delta", "vllm:e2e_request_latency_ms_mean", "vllm:e2e_request_latency_ms_p99",
                "vllm:time_to_first_token_ms_p99", "ttft_client_server_gap_large");
        assertThat(m).as("the toy has no speculative decoding: no drafts, no acceptance rate")
                .doesNotContainKey("vllm:spec_decode_acceptance_rate");
        assertThat(m.get("vllm:num_preemptions_delta")).isZero();
        assertThat(m.get("vllm:time_to_first_token_ms_mean")).isPositive();
        // the server stamps TTFT after the request arrived, the client before it sent it: client ≥ server − slack
        assertThat(m.get("ttft_client_minus_server_ms")).isGreaterThan(-5.0);
        assertThat(m.get("ttft_ms_mean") - m.get("vllm:time_to_first_token_ms_mean"))
                .isEqualTo(m.get("ttft_client_minus_server_ms"));
        assertThat(r.log()).contains("isobench: server metrics http://127.0.0.1:").contains("0 failed");
        // the series: every request of the run (the warm-up and the measured ones) is in the histograms' Δcount
        JsonNode series = new ObjectMapper().readTree(r.serverMetricsJson());
        assertThat(series.path("format").asText()).isEqualTo("isobench-server-metrics/1");
        assertThat(series.path("interval_ms").asDouble()).isEqualTo(1000.0);
        JsonNode scrapes = series.path("scrapes");
        String key = "vllm:e2e_request_latency_seconds_count{engine=\"0\",model_name=\"toy-1m\"}";
        double before = scrapes.get(0).path("samples").path(key).asDouble();
        double after = scrapes.get(scrapes.size() - 1).path("samples").path(key).asDouble();
        assertThat(after - before).isEqualTo(prompts + 1.0);
        assertThat(series.path("types").path("vllm:e2e_request_latency_seconds").asText()).isEqualTo("histogram");
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void intervalZeroScrapesNothing() throws IOException {
        io.isobench.SharedData.requireSandbox();
        Path cwd = toyEngine();
        Job job = new Job(new Job.Place(0, "server-metrics-off/baseline/r0", "server-metrics-off", 0), Arm.BASELINE,
                Mode.SERVING, new JobSpec.Measure(Command.template(List.of("python3", "-m", "toyllm.entrypoints.api_server",
                "--host", "{host}", "--port", "{port}", "--model", "toy-1m", "--disable-log-requests")),
                ClientConfig.ofArgv(List.of("--model", "toy-1m", "--dataset-name", "random", "--random-input-len", "8",
                        "--random-output-len", "4", "--num-prompts", "2", "--ignore-eos")), 0, null, 0),
                new Job.Where(cwd, Map.of(), 1), Job.Limits.ofSeconds(60, 120));
        JobResult r = Executors.create("local").execute(job, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.serverMetricsJson()).isNull();
        assertThat(r.measuredWindow()).as("the window does not depend on scraping").isNotNull();
        assertThat(r.metrics()).extracting(Metric::name).noneMatch(n -> n.startsWith("vllm:") || n.startsWith("server_"));
        assertThat(r.log()).doesNotContain("isobench: server metrics");
    }

    private Path toyEngine() throws IOException {
        return ExecutorContract.copyToyEngine(root, "toy");
    }
}
