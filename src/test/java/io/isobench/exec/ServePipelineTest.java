package io.isobench.exec;

import com.sun.net.httpserver.HttpServer;
import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.Metric;
import io.isobench.plan.Command;
import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.task.ClientConfig;
import io.isobench.probe.Clients;
import io.isobench.probe.ServingClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one serve-and-measure pipeline on a fake placed server (its liveness and crash set by the test) and a real
 * loopback HTTP endpoint for readiness: what each path classifies, that the server is stopped on every path, and
 * the typed result of a measured run.
 */
class ServePipelineTest {

    private HttpServer http;

    @BeforeEach
    void startEndpoint() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        for (String path : List.of("/health", "/v1/models")) {
            http.createContext(path, ex -> {
                byte[] b = "{}".getBytes();
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
                ex.close();
            });
        }
        http.start();
    }

    @AfterEach
    void stopEndpoint() {
        http.stop(0);
    }

    /** A server as a placement would report it; {@code endpoint} null until {@code ready} is set. */
    private final class Fake implements ServePipeline.Server {
        Failure crash;
        boolean alive = true;
        boolean ready = true;
        int stops;

        @Override
        public URI endpoint() {
            return ready ? URI.create("http://127.0.0.1:" + http.getAddress().getPort()) : null;
        }

        @Override
        public Failure crashedBeforeReady() {
            return crash;
        }

        @Override
        public boolean alive() {
            return alive;
        }

        @Override
        public String log() {
            return "server log\n";
        }

        @Override
        public List<String> argv() {
            return argv;
        }

        List<String> argv = List.of("serve", "--port", "1234");

        @Override
        public void stop(Map<String, Double> timings, StringBuilder notes) {
            stops++;
            timings.put("teardown_ms", 0.0);
        }
    }

    private static Job job() {
        return job(List.of("--model", "m", "--num-prompts", "1"));
    }

    private static Job job(List<String> client) {
        return new Job(new Job.Place(0, "t/baseline/r0", "t", 0), Arm.BASELINE, Mode.SERVING,
                new JobSpec.Measure(Command.template(List.of("serve", "--port", "{port}")),
                        ClientConfig.ofArgv(client), 0, null, 0),
                new Job.Where(Path.of("."), Map.of(), 1), Job.Limits.ofSeconds(30, 30));
    }

    private static ServePipeline pipeline(ServingClient client) {
        return new ServePipeline(Readiness.http(Duration.ofMillis(1)), client);
    }

    private static ServingClient failing(Runnable before) {
        return (base, workload, measuredStart) -> {
            before.run();
            throw new ServingClient.ClientFailure("every request failed");
        };
    }

    private JobResult serve(ServePipeline p, Fake f, Executor.Hooks hooks) {
        return p.serve(job(), hooks, System.nanoTime(), new LinkedHashMap<>(), () -> f);
    }

    @Test
    void aMeasuredRunIsTypedFromTheClientsResult() {
        List<String> asked = new ArrayList<>();
        ServingClient client = (base, workload, measuredStart) -> {
            asked.add(base + " " + workload.model() + " " + workload.flags().get("num-prompts"));
            return new ServingClient.Result(List.of(Metric.of("ttft_ms_mean", 12.5)), "{\"requests\":1}",
                    "client console\n");
        };
        Fake f = new Fake();
        JobResult r = serve(pipeline(client), f, Executor.Hooks.NONE);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(asked).containsExactly("http://127.0.0.1:" + http.getAddress().getPort() + " m 1");
        assertThat(r.metrics()).extracting(Metric::name).containsExactly("ttft_ms_mean");
        assertThat(r.workloadJson()).isEqualTo("{\"requests\":1}");
        assertThat(r.log()).startsWith("server log\n").contains("--- isobench client ---\nclient console\n");
        assertThat(r.argv()).containsExactly("serve", "--port", "1234");
        assertThat(r.timingsMs()).containsKeys("ready_ms", "client_ms", "teardown_ms");
        assertThat(f.stops).isEqualTo(1);
    }

    @Test
    void aServerThatEndsBeforeReadinessFailsAsItsPlacementClassifiesIt() {
        Fake f = new Fake();
        f.ready = false;
        f.crash = new Failure(FailureCategory.ENV_MISSING, "the server command serve does not exist", List.of());
        JobResult r = serve(pipeline(failing(() -> { })), f, Executor.Hooks.NONE);
        assertThat(r.failure()).isEqualTo(f.crash);
        assertThat(r.metrics()).isEmpty();
        assertThat(f.stops).isEqualTo(1);
    }

    @Test
    void aCancelledSessionStopsWaitingForReadiness() {
        Fake f = new Fake();
        f.ready = false;
        JobResult r = serve(pipeline(failing(() -> { })), f, new Executor.Hooks(pg -> { }, () -> true));
        assertThat(r.failure().category()).isEqualTo(FailureCategory.SERVER_START_TIMEOUT);
        assertThat(r.failure().detail()).contains("cancelled before the server was ready");
        assertThat(f.stops).isEqualTo(1);
    }

    @Test
    void aClientFailureIsTheClientsWhileTheServerRunsAndACrashAfterItDied() {
        Fake running = new Fake();
        JobResult own = serve(pipeline(failing(() -> { })), running, Executor.Hooks.NONE);
        assertThat(own.failure().category()).isEqualTo(FailureCategory.NO_METRICS);
        assertThat(own.failure().detail()).contains("the client failed: every request failed");

        Fake dying = new Fake();
        JobResult crashed = serve(pipeline(failing(() -> dying.alive = false)), dying, Executor.Hooks.NONE);
        assertThat(crashed.failure().category()).isEqualTo(FailureCategory.SERVER_CRASHED);
        assertThat(crashed.failure().detail()).contains("the server died during the run");
        assertThat(running.stops + dying.stops).isEqualTo(2);
    }

    @Test
    void aServerThatDoesNotStartIsTheStartsResultAndNothingIsStopped() {
        JobResult notStarted = JobResult.failed(System.nanoTime(), new Failure(FailureCategory.PORT_CONFLICT,
                "no free port", List.of()), "", Map.of(), List.of("serve"));
        JobResult r = pipeline(failing(() -> { })).serve(job(), Executor.Hooks.NONE, System.nanoTime(),
                new LinkedHashMap<>(), () -> {
                    throw new ServePipeline.NotStarted(notStarted);
                });
        assertThat(r).isSameAs(notStarted);
    }

    @Test
    void theClientAsksForTheJobsModelHoweverTheServerCommandSpellsIt() {
        for (List<String> serverArgv : List.of(List.of("vllm", "serve", "org/served", "--port", "1234"),
                List.of("python", "-m", "vllm.entrypoints.openai.api_server", "--model=org/served", "--port", "1234"),
                List.of("serve", "--model", "org/other", "--port", "1234"))) {
            List<String> asked = new ArrayList<>();
            ServingClient client = (base, workload, measuredStart) -> {
                asked.add(workload.model());
                return new ServingClient.Result(List.of(Metric.of("ttft_ms_mean", 1.0)), "{}", "");
            };
            Fake f = new Fake();
            f.argv = serverArgv;
            JobResult r = pipeline(client).serve(job(List.of("--model", "org/served", "--num-prompts", "1")),
                    Executor.Hooks.NONE, System.nanoTime(), new LinkedHashMap<>(), () -> f);
            assertThat(r.failure()).as(r.log()).isNull();
            // the typed job's model (its client's --model, from the task), never a word of the server's argv
            assertThat(asked).as(String.join(" ", serverArgv)).containsExactly("org/served");
        }
    }

    @Test
    void requestsTheClientLostAreInTheResultByReasonAndInTheStoredWorkload() {
        // every other completion request fails with HTTP 500: 2 of 4 lost, whatever order they arrive in
        AtomicInteger posts = new AtomicInteger();
        http.createContext("/v1/completions", ex -> {
            ex.getRequestBody().readAllBytes();
            if (posts.incrementAndGet() % 2 == 1) {
                byte[] b = "{\"error\":{\"message\":\"boom\"}}".getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(500, b.length);
                ex.getResponseBody().write(b);
                ex.close();
                return;
            }
            ex.getResponseHeaders().add("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            String chunk = "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
                    + "\"text\":\"x\",\"finish_reason\":null}]}";
            String usage = "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[],\"usage\":"
                    + "{\"prompt_tokens\":8,\"completion_tokens\":4,\"total_tokens\":12}}";
            StringBuilder sse = new StringBuilder();
            for (int i = 0; i < 4; i++) {
                sse.append("data: ").append(chunk).append("\n\n");
            }
            sse.append("data: ").append(usage).append("\n\ndata: [DONE]\n\n");
            ex.getResponseBody().write(sse.toString().getBytes(StandardCharsets.UTF_8));
            ex.close();
        });
        Job job = job(List.of("--model", "m", "--dataset-name", "random", "--random-input-len", "8",
                "--random-output-len", "4", "--num-prompts", "4", "--max-concurrency", "1"));
        JobResult r = pipeline(Clients.serving()).serve(job, Executor.Hooks.NONE, System.nanoTime(),
                new LinkedHashMap<>(), Fake::new);
        assertThat(r.failure()).as(r.log()).isNull();
        assertThat(r.metrics()).filteredOn(m -> m.name().equals("failed_requests")).extracting(Metric::value)
                .containsExactly(2.0);
        assertThat(r.lostRequests().byReason()).containsExactly(Map.entry("http_500", 2));
        // the stored workload is what it was: the reasons kept with the run, beside the work compared between arms
        assertThat(r.workloadJson()).contains("\"failures_by_reason\":{\"http_500\":2}");
    }
}
