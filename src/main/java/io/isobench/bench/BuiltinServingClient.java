package io.isobench.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * A small streaming OpenAI-completions client: random prompts of {@code random-input-len} words, {@code
 * random-output-len} tokens each, {@code num-prompts} requests at most {@code max-concurrency} at a time, all sent
 * at once (request rate inf). TPOT per request = (e2e − ttft) / (tokens − 1), as vLLM.
 */
final class BuiltinServingClient implements ServingClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String LETTERS = "abcdefghiklmnoprstuvz";

    private record One(double ttftMs, double e2eMs, int outputTokens, int inputTokens) {
    }

    @Override
    public Result run(URI baseUrl, String model, Map<String, String> flags, int warmupRequests, long seed) {
        int inputLen = intFlag(flags, "random-input-len", 128);
        int outputLen = intFlag(flags, "random-output-len", 128);
        int numPrompts = intFlag(flags, "num-prompts", 100);
        int concurrency = intFlag(flags, "max-concurrency", numPrompts);
        boolean ignoreEos = flags.containsKey("ignore-eos");
        Random rng = new Random(seed);
        List<String> prompts = new ArrayList<>();
        for (int i = 0; i < numPrompts + warmupRequests; i++) {
            prompts.add(prompt(rng, inputLen));
        }
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Semaphore slots = new Semaphore(Math.max(1, concurrency));
            for (int i = 0; i < warmupRequests; i++) {
                try {
                    request(http, baseUrl, model, prompts.get(numPrompts + i), 8, ignoreEos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ClientFailure("interrupted");
                } catch (IOException e) {
                    // a failed warm-up is visible in the measured requests
                }
            }
            long t0 = System.nanoTime();
            List<Future<One>> futures = new ArrayList<>();
            for (int i = 0; i < numPrompts; i++) {
                String p = prompts.get(i);
                futures.add(pool.submit(() -> {
                    slots.acquire();
                    try {
                        return request(http, baseUrl, model, p, outputLen, ignoreEos);
                    } finally {
                        slots.release();
                    }
                }));
            }
            List<One> done = new ArrayList<>();
            List<String> errors = new ArrayList<>();
            for (Future<One> f : futures) {
                try {
                    done.add(f.get());
                } catch (Exception e) {
                    errors.add(String.valueOf(e.getCause() == null ? e : e.getCause()));
                }
            }
            double durS = (System.nanoTime() - t0) / 1e9;
            if (done.isEmpty()) {
                throw new ClientFailure("no request completed: " + (errors.isEmpty() ? "?" : errors.get(0)));
            }
            return result(done, errors.size(), durS, inputLen, outputLen, numPrompts, concurrency, seed);
        } finally {
            http.close();
        }
    }

    private static Result result(List<One> done, int failed, double durS, int inputLen, int outputLen, int n,
                                 int concurrency, long seed) {
        double[] tpot = done.stream().filter(o -> o.outputTokens > 1)
                .mapToDouble(o -> (o.e2eMs - o.ttftMs) / (o.outputTokens - 1)).toArray();
        double[] ttft = done.stream().mapToDouble(One::ttftMs).toArray();
        double[] e2e = done.stream().mapToDouble(One::e2eMs).toArray();
        long out = done.stream().mapToLong(One::outputTokens).sum();
        long in = done.stream().mapToLong(One::inputTokens).sum();
        List<Metric> m = new ArrayList<>();
        m.add(Metric.of("completed_requests", done.size()));
        m.add(Metric.of("failed_requests", failed));
        m.add(Metric.of("duration_s", durS));
        m.add(Metric.of("total_input_tokens", in));
        m.add(Metric.of("total_output_tokens", out));
        m.add(Metric.of("request_throughput_rps", done.size() / durS));
        m.add(Metric.of("output_throughput_tok_s", out / durS));
        m.add(Metric.of("total_throughput_tok_s", (in + out) / durS));
        if (tpot.length > 0) {
            m.add(Metric.of("tpot_ms_mean", mean(tpot)));
            m.add(Metric.of("tpot_ms_median", median(tpot)));
        }
        m.add(Metric.of("ttft_ms_mean", mean(ttft)));
        m.add(Metric.of("ttft_ms_median", median(ttft)));
        m.add(Metric.of("e2el_ms_mean", mean(e2e)));
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("client", "isobench-builtin");
        w.put("requests", n);
        w.put("input_len", inputLen);
        w.put("output_len", outputLen);
        w.put("max_concurrency", concurrency);
        w.put("seed", seed);
        w.put("dataset", "random-words");
        StringBuilder console = new StringBuilder("============ Serving Benchmark Result ============\n");
        for (Metric x : m) {
            console.append(String.format(Locale.ROOT, "%-40s %.2f%n", x.name(), x.value()));
        }
        try {
            return new Result(m, JSON.writeValueAsString(w), console.toString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static One request(HttpClient http, URI base, String model, String prompt, int maxTokens,
                               boolean ignoreEos) throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("prompt", prompt);
        body.put("max_tokens", maxTokens);
        body.put("temperature", 0.0);
        body.put("ignore_eos", ignoreEos);
        body.put("stream", true);
        body.put("stream_options", Map.of("include_usage", true));
        HttpRequest req = HttpRequest.newBuilder(base.resolve("/v1/completions")).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
        long t0 = System.nanoTime();
        HttpResponse<java.io.InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        if (resp.statusCode() != 200) {
            String err = new String(resp.body().readAllBytes(), StandardCharsets.UTF_8);
            throw new IOException("HTTP " + resp.statusCode() + ": " + err);
        }
        Double ttft = null;
        int chunks = 0;
        int outTokens = -1;
        int inTokens = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("data: ")) {
                    continue;
                }
                String data = line.substring(6).strip();
                if (data.equals("[DONE]")) {
                    break;
                }
                JsonNode c = JSON.readTree(data);
                JsonNode choices = c.path("choices");
                if (choices.isArray() && !choices.isEmpty()) {
                    if (ttft == null) {
                        ttft = (System.nanoTime() - t0) / 1e6;
                    }
                    chunks++;
                }
                JsonNode usage = c.path("usage");
                if (usage.isObject()) {
                    outTokens = usage.path("completion_tokens").asInt(-1);
                    inTokens = usage.path("prompt_tokens").asInt(0);
                }
            }
        }
        double e2e = (System.nanoTime() - t0) / 1e6;
        if (ttft == null) {
            throw new IOException("no token received");
        }
        return new One(ttft, e2e, outTokens >= 0 ? outTokens : chunks, inTokens);
    }

    static String prompt(Random rng, int words) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            int len = 2 + rng.nextInt(5);
            for (int k = 0; k < len; k++) {
                sb.append(LETTERS.charAt(rng.nextInt(LETTERS.length())));
            }
        }
        return sb.toString();
    }

    private static int intFlag(Map<String, String> flags, String name, int dflt) {
        String v = flags.get(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static double mean(double[] a) {
        double s = 0;
        for (double x : a) {
            s += x;
        }
        return a.length == 0 ? Double.NaN : s / a.length;
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        java.util.Arrays.sort(s);
        int n = s.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
