package io.isobench.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The correctness gate's input: greedy ({@code temperature 0}) completions of fixed prompts. */
public final class Greedy {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Greedy() {
    }

    /** The {@code n} fixed prompts (seeded, identical for every arm). */
    public static List<String> prompts(int n) {
        Random rng = new Random(20260105L);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(prompt(rng, 6 + i % 7));
        }
        return out;
    }

    private static final String LETTERS = "abcdefghiklmnoprstuvz";

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

    /**
     * Prefix of the line on which {@code isobench greedy} (the check client inside a cluster pod) prints the whole
     * {@link ProbeRun} as JSON, after its line of texts.
     */
    public static final String PROBE_MARKER = "isobench-greedy-probe: ";

    /** The fewest requests in flight in the concurrent pass (padded with repeated prompts when there are fewer). */
    public static final int MIN_BATCH = 8;

    /** Requests sent at once in the concurrent pass for {@code prompts} prompts: all, at least {@link #MIN_BATCH}. */
    public static int batchSize(int prompts) {
        return Math.max(MIN_BATCH, prompts);
    }

    /**
     * One check's probes: the sequential pass (batch size 1) and the concurrent pass (the same prompts with
     * {@code batchSize} requests in flight, each prompt's first answer). Probe commands that decide their own batching
     * (offline) and clients that only return texts have no concurrent pass: {@code batched} empty, {@code batchSize} 0.
     *
     * @param sequential one probe per prompt, sent one at a time
     * @param batched    one probe per prompt from the concurrent pass; empty when it did not run
     * @param batchSize  requests in flight in the concurrent pass; 0 when it did not run
     */
    public record ProbeRun(List<Probe> sequential, List<Probe> batched, int batchSize) {

        public ProbeRun {
            sequential = List.copyOf(sequential);
            batched = List.copyOf(batched);
            if (batched.isEmpty() != (batchSize == 0) || batchSize < 0) {
                throw new IllegalArgumentException("batchSize (" + batchSize + ") must be 0 exactly when there is no"
                        + " batched pass (" + batched.size() + " batched probes)");
            }
        }

        /** A run without concurrent pass (offline probe commands, clients that only return texts). */
        public static ProbeRun sequentialOnly(List<Probe> sequential) {
            return new ProbeRun(sequential, List.of(), 0);
        }

        public boolean hasBatched() {
            return batchSize > 0;
        }

        /** The sequential pass's texts (the check's {@code outputs}). */
        public List<String> texts() {
            return sequential.stream().map(Probe::text).toList();
        }

        /** {@code {"sequential": [...], "batched": [...], "batch_size": n}} ({@link Probe#toMap()} objects). */
        public String toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("sequential", sequential.stream().map(Probe::toMap).toList());
            m.put("batched", batched.stream().map(Probe::toMap).toList());
            m.put("batch_size", batchSize);
            try {
                return JSON.writeValueAsString(m);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * Reads {@link #toJson} back; also the older form, a bare array of probes (sequential only, as stored before
         * the concurrent pass existed). An empty run for null or malformed text.
         */
        public static ProbeRun fromJson(String json) {
            if (json == null || json.isBlank()) {
                return sequentialOnly(List.of());
            }
            try {
                JsonNode n = JSON.readTree(json);
                if (n.isArray()) {
                    return sequentialOnly(Probe.fromJson(json));
                }
                List<Probe> batched = probes(n.path("batched"));
                return new ProbeRun(probes(n.path("sequential")), batched,
                        batched.isEmpty() ? 0 : n.path("batch_size").asInt(Greedy.batchSize(batched.size())));
            } catch (IOException | RuntimeException e) {
                return sequentialOnly(List.of());
            }
        }

        private static List<Probe> probes(JsonNode array) {
            List<Probe> out = new ArrayList<>();
            for (JsonNode p : array) {
                out.add(Probe.of(p));
            }
            return out;
        }
    }

    /**
     * Runs the probe set against the server at {@code baseUrl}, each request with {@code temperature 0}, a fixed seed
     * and {@code max_tokens}: first one prompt at a time (batch size 1), then the first prompt a second time (greedy
     * decoding must repeat itself), then all prompts at once with {@link #batchSize} requests in flight (prompts
     * repeated in order to fill the batch; each prompt's first answer is kept).
     *
     * @param logprobs also ask for per-token logprobs ({@code "logprobs": 1}) and token ids
     * @throws ProbeException PROBE_REJECTED when the server answers a probe with an error, NO_GREEDY_SUPPORT when it
     *                        refuses temperature 0 or two identical greedy requests give different text
     */
    public static ProbeRun probe(URI baseUrl, String model, int prompts, int maxTokens, boolean logprobs)
            throws IOException, InterruptedException {
        List<Probe> out = new ArrayList<>();
        List<String> ps = prompts(prompts);
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            Requests requests = new Requests(http, baseUrl, model, maxTokens, logprobs);
            for (int i = 0; i < ps.size(); i++) {
                out.add(requests.one(ps.get(i), i));
            }
            Probe again = requests.one(ps.get(0), 0);
            if (!again.text().equals(out.get(0).text())) {
                throw new ProbeException(ProbeException.Kind.NO_GREEDY_SUPPORT, "the server does not decode greedily:"
                        + " two identical temperature-0 requests for prompt 0 gave different text ("
                        + quote(out.get(0).text()) + " then " + quote(again.text()) + ")");
            }
            int batch = batchSize(ps.size());
            return new ProbeRun(out, requests.concurrently(ps, batch), batch);
        }
    }

    /**
     * How every probe request of one probe run is sent: to one server, for one model, at most {@code maxTokens}
     * tokens each, with or without logprobs.
     */
    private record Requests(HttpClient http, URI baseUrl, String model, int maxTokens, boolean logprobs) {

        /** The prompts sent at once, {@code batch} requests in flight; each prompt's first answer, in prompt order. */
        List<Probe> concurrently(List<String> ps, int batch) throws IOException, InterruptedException {
            List<Future<Probe>> answers = new ArrayList<>();
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < batch; i++) {
                    int k = i % ps.size();
                    answers.add(threads.submit(() -> one(ps.get(k), k)));
                }
                List<Probe> out = new ArrayList<>();
                for (int i = 0; i < batch; i++) {
                    Probe p;
                    try {
                        p = answers.get(i).get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof ProbeException pe) {
                            throw new ProbeException(pe.kind(), pe.getMessage() + " (concurrent pass, " + batch
                                    + " requests in flight)");
                        }
                        if (e.getCause() instanceof IOException io) {
                            throw io;
                        }
                        if (e.getCause() instanceof RuntimeException re) {
                            throw re;
                        }
                        throw new IOException(e.getCause());
                    }
                    if (i < ps.size()) {
                        out.add(p);
                    }
                }
                return out;
            }
        }

        /** One greedy request for {@code prompt} (probe {@code index}) and its answer. */
        Probe one(String prompt, int index) throws IOException, InterruptedException {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("model", model);
            body.put("prompt", prompt);
            body.put("max_tokens", maxTokens);
            body.put("temperature", 0);
            body.put("seed", SEED);
            if (logprobs) {
                body.put("logprobs", 1);
                body.put("return_token_ids", true);
            }
            HttpRequest req = HttpRequest.newBuilder(baseUrl.resolve("/v1/completions"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build();
            HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
            String answer;
            try (InputStream in = r.body()) {
                // a probe's answer is small: a server that sends more is refused, never held
                byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
                if (bytes.length > MAX_BODY_BYTES) {
                    throw new ProbeException(ProbeException.Kind.PROBE_REJECTED, "response_too_large: the answer"
                            + " to probe " + index + " passed " + (MAX_BODY_BYTES >> 20) + " MiB, the most read");
                }
                answer = new String(bytes, StandardCharsets.UTF_8);
            }
            if (r.statusCode() != 200) {
                String b = answer.strip();
                String low = b.toLowerCase(Locale.ROOT);
                boolean greedy = low.contains("temperature") || low.contains("greedy");
                String why = greedy ? "the server refuses greedy decoding: "
                        : "the server rejected probe " + index + ": ";
                throw new ProbeException(greedy ? ProbeException.Kind.NO_GREEDY_SUPPORT
                        : ProbeException.Kind.PROBE_REJECTED, why + "HTTP " + r.statusCode() + " from /v1/completions: "
                        + (b.length() > 300 ? b.substring(0, 300) + "…" : b));
            }
            JsonNode n;
            try {
                n = JSON.readTree(answer);
            } catch (IOException e) {
                throw new ProbeException(ProbeException.Kind.PROBE_REJECTED, "the server answered probe " + index
                        + " with a body that is not JSON: " + e.getMessage());
            }
            JsonNode c = n.path("choices").path(0);
            if (!c.path("text").isTextual()) {
                throw new ProbeException(ProbeException.Kind.PROBE_REJECTED, "the server's answer to probe " + index
                        + " has no choices[0].text");
            }
            List<Integer> ids = null;
            JsonNode tid = c.path("token_ids");
            if (tid.isArray()) {
                ids = new ArrayList<>();
                for (JsonNode t : tid) {
                    ids.add(t.asInt());
                }
            }
            List<Double> lps = null;
            JsonNode tl = c.path("logprobs").path("token_logprobs");
            if (tl.isArray()) {
                lps = new ArrayList<>();
                for (JsonNode t : tl) {
                    lps.add(t.isNumber() ? t.asDouble() : Double.NaN);
                }
            }
            return new Probe(c.path("text").asText(), ids, lps);
        }
    }

    /** The largest probe answer read ({@code response_too_large} beyond). */
    static final int MAX_BODY_BYTES = 8 << 20;

    /** The seed sent with every probe (greedy decoding must not depend on it). */
    public static final long SEED = 0;

    private static String quote(String s) {
        String t = s.replace("\n", "\\n");
        return "\"" + (t.length() > 40 ? t.substring(0, 40) + "…" : t) + "\"";
    }

    /** Fraction of prompts whose text differs from the reference's (1.0 when the sizes differ). */
    public static double mismatchFraction(List<String> reference, List<String> texts) {
        if (reference.size() != texts.size() || reference.isEmpty()) {
            return 1.0;
        }
        int diff = 0;
        for (int i = 0; i < reference.size(); i++) {
            if (!reference.get(i).equals(texts.get(i))) {
                diff++;
            }
        }
        return (double) diff / reference.size();
    }
}
