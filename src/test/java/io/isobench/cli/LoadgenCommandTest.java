package io.isobench.cli;

import io.isobench.parse.Metric;
import io.isobench.store.RunDetailsCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.loadgen.StreamingTestServer;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LoadgenCommandTest {

    static StreamingTestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new StreamingTestServer(0, 2, 1, 0);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        List<String> a = new ArrayList<>(List.of("loadgen"));
        a.addAll(List.of(args));
        int code = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), a.toArray(String[]::new));
        return new Run(code, o.toString(), e.toString());
    }

    @Test
    void tokenizerDirectoryBuildsExactLengthPrompts(@TempDir Path dir) throws Exception {
        Path tok = io.isobench.SharedData.require("fixtures/tiny-llama-hf");
        Run r = run("--base-url", server.baseUrl(), "--model", "m", "--dataset-name", "random", "--random-input-len", "16",
                "--random-output-len", "2", "--num-prompts", "4", "--tokenizer", tok.toString(), "--save-result",
                "--result-dir", dir.toString(), "--result-filename", "r.json");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("random prompts built with the tokenizer " + tok.resolve("tokenizer.json"));
        assertThat(new ObjectMapper().readTree(dir.resolve("r.json").toFile()).path("tokenizer_id").asText())
                .isEqualTo(tok.resolve("tokenizer.json").toString());
        Run bad = run("--base-url", server.baseUrl(), "--model", "m", "--tokenizer", dir.resolve("r.json").toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("model type '' is not supported");
    }

    @Test
    void sonnetRunsWithItsVllmFlagsAndSavesThePromptsDigest(@TempDir Path dir) throws Exception {
        Path tok = io.isobench.SharedData.require("fixtures/tiny-llama-hf");
        Path poem = Path.of("src/test/resources/sonnet/sonnet.txt").toAbsolutePath();
        String digest = null;
        for (int i = 0; i < 2; i++) {
            Run r = run("--base-url", server.baseUrl(), "--model", "m", "--dataset-name", "sonnet", "--dataset-path",
                    poem.toString(), "--sonnet-input-len", "256", "--sonnet-output-len", "4", "--sonnet-prefix-len", "100",
                    "--num-prompts", "6", "--tokenizer", tok.toString(), "--seed", "5", "--save-result",
                    "--result-dir", dir.toString(), "--result-filename", "r" + i + ".json");
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.err()).doesNotContain("ignoring --sonnet");
            com.fasterxml.jackson.databind.JsonNode w = new ObjectMapper().readTree(dir.resolve("r" + i + ".json").toFile())
                    .path("isobench_workload");
            assertThat(w.path("dataset").asText()).isEqualTo("sonnet:sonnet.txt,in=256,out=4,prefix=100");
            assertThat(w.path("prompts_sha256").asText()).hasSize(64);
            if (digest != null) {
                assertThat(w.path("prompts_sha256").asText()).isEqualTo(digest);
            }
            digest = w.path("prompts_sha256").asText();
        }
    }

    @Test
    void vllmFlagsRunAndSaveResultWithVllmKeys(@TempDir Path dir) throws Exception {
        Run r = run("--base-url", server.baseUrl(), "--model", "org/test-model", "--dataset-name", "random",
                "--random-input-len", "16", "--random-output-len", "8", "--num-prompts", "20", "--request-rate", "200",
                "--burstiness", "0.5", "--max-concurrency", "4", "--ignore-eos", "--save-result", "--save-detailed",
                "--result-dir", dir.toString(), "--result-filename", "r.json", "--metric-percentiles", "50,90,99",
                "--percentile-metrics", "ttft,tpot,itl,e2el", "--goodput", "ttft:1000", "tpot:1000",
                "--backend", "vllm", "--tokenizer", "meta/llama", "--trust-remote-code", "--seed", "3");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("============ Serving Benchmark Result ============\n")
                .contains("Successful requests:                     20        \n")
                .contains("Maximum request concurrency:             4         \n")
                .contains("Request goodput (req/s):")
                .contains("P90 TTFT (ms):").contains("Median E2EL (ms):")
                .contains("---------------Time to First Token----------------\n")
                .contains("-----Time per Output Token (excl. 1st token)------\n")
                .endsWith("==================================================\n");
        assertThat(r.err()).contains("warning: ignoring --backend vllm (only meaningful inside vLLM)")
                .contains("warning: --tokenizer meta/llama is not a local tokenizer.json")
                .contains("warning: ignoring --trust-remote-code");
        JsonNode j = new ObjectMapper().readTree(dir.resolve("r.json").toFile());
        for (String k : List.of("date", "endpoint_type", "label", "model_id", "tokenizer_id", "num_prompts", "request_rate",
                "burstiness", "max_concurrency", "duration", "completed", "failed", "total_input_tokens",
                "total_output_tokens", "request_throughput", "request_goodput", "output_throughput",
                "total_token_throughput", "max_output_tokens_per_s", "max_concurrent_requests", "mean_ttft_ms",
                "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms", "p50_tpot_ms", "p90_itl_ms", "mean_e2el_ms", "input_lens",
                "output_lens", "ttfts", "itls", "generated_texts", "errors")) {
            assertThat(j.has(k)).as(k).isTrue();
        }
        assertThat(j.get("completed").asInt()).isEqualTo(20);
        assertThat(j.get("total_output_tokens").asInt()).isEqualTo(160);
        assertThat(j.get("request_rate").asDouble()).isEqualTo(200.0);
        assertThat(j.get("itls").get(0).size()).isEqualTo(7);
        assertThat(j.get("isobench_output_tokens_from_usage").asInt()).isEqualTo(20);
    }

    @Test
    void storeKeepsTheRunWithMetricsAndDetail(@TempDir Path dir) {
        String db = dir.resolve("s.duckdb").toString();
        Run r = run("--base-url", server.baseUrl(), "--model", "m", "--random-input-len", "8", "--random-output-len", "4",
                "--num-prompts", "6", "--db", db, "--arm", "baseline", "--header", "Authorization=Bearer sk-secret");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("stored run loadgen-");
        try (Store st = Stores.open(db)) {
            List<RunRecord> runs = new ArrayList<>();
            st.forEachRun(RunFilter.all(), runs::add);
            assertThat(runs).hasSize(1);
            RunRecord run = runs.get(0);
            assertThat(run.kind()).isEqualTo(RunRecord.RunKind.MEASURED);
            assertThat(run.arm().label()).isEqualTo("baseline");
            assertThat(run.primaryMetric()).isEqualTo("tpot_ms_mean");
            assertThat(run.metrics()).extracting(Metric::name).contains("ttft_ms_p99", "completed_requests");
            assertThat(run.argvJson()).doesNotContain("sk-secret").contains("Authorization=Bearer ***");
            assertThat(run.workload()).contains("\"requests\":6");
            String sha = new ObjectMapper().readTree(RunDetailsCodec.encode(run.details())).get("loadgen_detail_artifact").asText();
            assertThat(new String(st.artifact(sha).orElseThrow())).contains("\"itls\"");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void unknownFlagNamesTheNearestKnownFlag() {
        Run r = run("--model", "m", "--request-rat", "5");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("isobench: unknown flag '--request-rat'; did you mean '--request-rate'?"
                + " (see isobench loadgen --help)");
        assertThat(server.requests.get()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void configErrorsAreOneLineBeforeAnyRequest(@TempDir Path dir) {
        int before = server.requests.get();
        Run noModel = run("--base-url", server.baseUrl());
        assertThat(noModel.code()).isEqualTo(2);
        assertThat(noModel.err().strip()).contains("--model is required").doesNotContain("\n");
        Run missing = run("--base-url", server.baseUrl(), "--model", "m", "--dataset-name", "sharegpt",
                "--dataset-path", dir.resolve("nope.json").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err().strip()).endsWith("nope.json does not exist");
        Run badRate = run("--base-url", server.baseUrl(), "--model", "m", "--request-rate", "fast");
        assertThat(badRate.code()).isEqualTo(2);
        assertThat(badRate.err()).contains("--request-rate 'fast' must be a number or inf");
        Run badBody = run("--base-url", server.baseUrl(), "--model", "m", "--extra-body", "{nope");
        assertThat(badBody.code()).isEqualTo(2);
        assertThat(badBody.err()).contains("--extra-body is not a JSON object");
        assertThat(server.requests.get()).isEqualTo(before);
    }

    @Test
    void unreachableServerIsRecordedPerRequestAndExits4() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Run r = run("--port", Integer.toString(port), "--model", "m", "--num-prompts", "5", "--random-input-len", "4");
        assertThat(r.code()).isEqualTo(4);
        assertThat(r.out()).contains("Successful requests:                     0 ").contains("Failed requests:                         5 ");
        assertThat(r.err()).contains("Failed (connect):                        5").contains("server not reachable");
    }

    @Test
    void helpReadsLikeVllmBenchServe() {
        Run r = run("--help");
        assertThat(r.code()).isZero();
        for (String f : List.of("--base-url", "--host", "--port", "--endpoint", "--model", "--dataset-name",
                "--random-input-len", "--random-output-len", "--num-prompts", "--request-rate", "--burstiness",
                "--max-concurrency", "--ignore-eos", "--save-result", "--result-dir", "--result-filename",
                "--goodput", "--metric-percentiles", "--num-warmups", "--duration")) {
            assertThat(r.out()).contains(f);
        }
    }

    @Test
    void jsonlDatasetAndChatEndpoint(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("p.jsonl");
        Files.writeString(f, "{\"prompt\": \"hello there\"}\n{\"prompt\": \"general kenobi\"}\n");
        Run r = run("--base-url", server.baseUrl(), "--model", "m", "--dataset-name", "jsonl", "--dataset-path",
                f.toString(), "--custom-output-len", "3", "--num-prompts", "4");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("Total generated tokens:                  12 ");
        Files.writeString(f, "{\"prompt\": \"hello there\"}\nnot json\n");
        Run bad = run("--base-url", server.baseUrl(), "--model", "m", "--dataset-name", "jsonl", "--dataset-path", f.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("line 2 is not JSON");
    }
}
