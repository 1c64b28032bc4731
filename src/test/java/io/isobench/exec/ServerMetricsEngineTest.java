package io.isobench.exec;

import com.sun.net.httpserver.HttpServer;
import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A serving job's server metrics are scraped and summarised under the names of its engine (docs/engines.md, "At
 * run time"): the adapter its server command picks. An SGLang server's {@code sglang:*} exposition (a loopback
 * stand-in) gives {@code sglang:*} summaries; vLLM's, the toy's and a generic server's commands keep vLLM's names.
 */
class ServerMetricsEngineTest {

    private static Job serving(List<String> server) {
        return new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.SERVING,
                new JobSpec.Measure(Command.template(server), ClientConfig.NONE, 0, null, 3_600_000),
                new Job.Where(null, Map.of(), 0), Job.Limits.ofSeconds(10, 10));
    }

    private static final Job SGLANG = serving(List.of("python3", "-m", "sglang.launch_server", "--model-path", "m",
            "--host", "{host}", "--port", "{port}"));

    @Test
    void theNamesAreThoseOfTheServerCommandsAdapter() {
        assertThat(ServerMetricsRun.namesOf(SGLANG).namespace()).isEqualTo("sglang:");
        for (List<String> vllmLike : List.of(
                List.of("python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "{port}"),
                List.of("vllm", "serve", "m", "--port", "{port}"),
                // the toy engine's server and a generic engine's: no other engine's program, so vLLM's (as before)
                List.of("python3", "-m", "toyllm.entrypoints.api_server", "--port", "{port}"),
                List.of("./llama-server", "--port", "{port}"))) {
            assertThat(ServerMetricsRun.namesOf(serving(vllmLike)).namespace()).as(vllmLike.toString())
                    .isEqualTo("vllm:");
        }
    }

    @Test
    void anSglangServersScrapeIsSummarisedUnderSglangsNames() throws Exception {
        AtomicReference<String> exposition = new AtomicReference<>(text(2, 0.25, 10, 1.0));
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/metrics", ex -> {
            byte[] body = exposition.get().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        http.start();
        try {
            URI base = URI.create("http://127.0.0.1:" + http.getAddress().getPort());
            ServerMetricsRun run = ServerMetricsRun.start(SGLANG, base);
            run.measuredStart().run();
            exposition.set(text(4, 0.75, 30, 5.0)); // 20 more requests, 4 s more TTFT: a 200 ms mean
            run.stop(new StringBuilder());
            JobResult done = run.attach(JobResult.ended(System.nanoTime(), null,
                    List.of(Metric.of("ttft_ms_mean", 250.0)), null, "", Map.of(), List.of()));
            Map<String, Double> m = new LinkedHashMap<>();
            done.metrics().forEach(x -> m.put(x.name(), x.value()));
            assertThat(m).containsKeys("sglang:num_running_reqs_mean", "sglang:token_usage_max",
                    "sglang:time_to_first_token_ms_mean").noneSatisfy((k, v) -> assertThat(k).startsWith("vllm:"));
            assertThat(m.get("sglang:time_to_first_token_ms_mean")).isCloseTo(200.0, within(1e-9));
            assertThat(m.get("ttft_client_minus_server_ms")).isCloseTo(50.0, within(1e-9));
        } finally {
            http.stop(0);
        }
    }

    /** SGLang's exposition: two gauges and the TTFT histogram (seconds) with {@code count} requests. */
    private static String text(int running, double usage, int count, double sumS) {
        return "# TYPE sglang:num_running_reqs gauge\n"
                + "sglang:num_running_reqs{model_name=\"m\"} " + running + "\n"
                + "# TYPE sglang:token_usage gauge\n"
                + "sglang:token_usage{model_name=\"m\"} " + usage + "\n"
                + "# TYPE sglang:time_to_first_token_seconds histogram\n"
                + "sglang:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"0.5\"} " + count + "\n"
                + "sglang:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"+Inf\"} " + count + "\n"
                + "sglang:time_to_first_token_seconds_sum{model_name=\"m\"} " + sumS + "\n"
                + "sglang:time_to_first_token_seconds_count{model_name=\"m\"} " + count + "\n";
    }
}
