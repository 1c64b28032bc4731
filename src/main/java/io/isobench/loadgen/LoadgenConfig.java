package io.isobench.loadgen;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Everything one load-generator run needs (what {@code vllm bench serve} takes, minus the engine internals).
 * Build with {@link #builder()}; validation happens in {@link Builder#build()} so a config error surfaces before
 * any request is sent.
 *
 * @param baseUrl             server root, e.g. {@code http://127.0.0.1:8000} (http only)
 * @param endpoint            path, {@code /v1/completions} or {@code /v1/chat/completions}
 * @param model               model name sent in each request
 * @param dataset             where prompts come from
 * @param numPrompts          requests to send (ignored when {@code duration} is set)
 * @param duration            send requests for this long instead of a fixed count, or null
 * @param requestRate         requests per second; {@code +Infinity} sends all at once
 * @param burstiness          gamma shape: 1 = Poisson, lower = burstier, higher = more uniform; {@code +Infinity}:
 *                            constant gaps of 1/rate (vLLM's {@code --burstiness inf})
 * @param maxConcurrency      cap on requests in flight, or null for none
 * @param rampUp              linear/exponential ramp of the request rate, or null
 * @param numWarmups          requests sent first and discarded
 * @param ignoreEos           send {@code ignore_eos: true}
 * @param sampling            temperature/top_p/top_k/min_p/seed… passed to the server as given
 * @param extraBody           merged into every request body
 * @param stream              use SSE streaming
 * @param includeUsage        ask for {@code stream_options.include_usage}
 * @param apiKeyEnv           environment variable holding the API key (value is never logged), or null
 * @param headers             extra HTTP headers
 * @param seed                seed for the dataset sampler and the arrival process
 * @param requestTimeout      per-request limit (a stalled stream fails after this)
 * @param percentiles         percentiles to report, e.g. [99]
 * @param percentileMetrics   which of ttft,tpot,itl,e2el the console block prints
 * @param goodputSloMs        SLOs for goodput: keys ttft, tpot, e2el; values in ms
 * @param requestIdPrefix     prefix for the {@code X-Request-Id} header
 * @param readyCheckTimeout   wait up to this for the server to answer before the run (zero: don't wait)
 * @param label               label saved in the result (vLLM's {@code endpoint_type}/label)
 * @param tokenizer           a HF {@code tokenizer.json} ({@code --tokenizer}): random prompts are built to an exact
 *                            token length with it; null: word-based prompts checked against the server's counts
 * @param keepText            keep each response's generated text ({@code --save-detailed}, correctness probes), up to
 *                            {@link #MAX_TEXT_BYTES} per response; otherwise only what the metrics need is kept
 * @param fidelityLimits      the thresholds of the schedule-fidelity and client self-check ({@link LoadFidelity})
 */
public record LoadgenConfig(
        URI baseUrl,
        String endpoint,
        String model,
        DatasetSpec dataset,
        int numPrompts,
        Duration duration,
        double requestRate,
        double burstiness,
        Integer maxConcurrency,
        RampUp rampUp,
        int numWarmups,
        boolean ignoreEos,
        Map<String, Object> sampling,
        Map<String, Object> extraBody,
        boolean stream,
        boolean includeUsage,
        String apiKeyEnv,
        Map<String, String> headers,
        long seed,
        Duration requestTimeout,
        List<Double> percentiles,
        Set<String> percentileMetrics,
        Map<String, Double> goodputSloMs,
        String requestIdPrefix,
        Duration readyCheckTimeout,
        String label,
        Path tokenizer,
        boolean keepText,
        LoadFidelity.Limits fidelityLimits) {

    public static final Set<String> METRIC_KEYS = Set.of("ttft", "tpot", "itl", "e2el");

    /**
     * The most generated text kept per response ({@link #keepText}), and the largest unstreamed response body read:
     * beyond it the request fails with {@code response_too_large}.
     */
    public static final int MAX_TEXT_BYTES = 8 << 20;
    /** The longest SSE line (one event's data) read; beyond it the request fails with {@code response_too_large}. */
    public static final int MAX_SSE_LINE_BYTES = 1 << 20;

    /**
     * The most chunks one response may stream for {@code maxTokens} requested tokens (a server streams at most one
     * chunk per token, plus a few for role and finish): beyond it the request fails with {@code response_too_large}.
     */
    public static int maxChunks(int maxTokens) {
        return (int) Math.min(Integer.MAX_VALUE - 8, 16L * Math.max(0, maxTokens) + 1024);
    }

    public LoadgenConfig {
        sampling = Map.copyOf(sampling == null ? Map.of() : sampling);
        extraBody = extraBody == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(extraBody));
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        percentiles = List.copyOf(percentiles == null ? List.of(99.0) : percentiles);
        percentileMetrics = Collections.unmodifiableSet(new LinkedHashSet<>(
                percentileMetrics == null ? List.of("ttft", "tpot", "itl") : percentileMetrics));
        goodputSloMs = goodputSloMs == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(goodputSloMs));
        fidelityLimits = fidelityLimits == null ? LoadFidelity.Limits.DEFAULT : fidelityLimits;
    }

    /** True when the endpoint speaks the chat API (messages in, delta.content out). */
    public boolean chat() {
        return endpoint.contains("chat");
    }

    /** The full request URI. */
    public URI requestUri() {
        String b = baseUrl.toString();
        if (b.endsWith("/")) {
            b = b.substring(0, b.length() - 1);
        }
        return URI.create(b + (endpoint.startsWith("/") ? endpoint : "/" + endpoint));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Arrival-rate ramp (vLLM's {@code --ramp-up-strategy}, {@code --ramp-up-start-rps}, {@code --ramp-up-end-rps}). */
    public record RampUp(String strategy, double startRps, double endRps) {
        public RampUp {
            if (!"linear".equals(strategy) && !"exponential".equals(strategy)) {
                throw new IllegalArgumentException("ramp-up strategy (" + strategy + ") must be linear or exponential");
            }
        }
    }

    /** Mutable builder with vLLM's defaults. */
    public static final class Builder {
        private URI baseUrl = URI.create("http://127.0.0.1:8000");
        private String endpoint = "/v1/completions";
        private String model;
        private Path tokenizer;
        private DatasetSpec dataset = DatasetSpec.random(1024, 128, 0.0, 0);
        private int numPrompts = 1000;
        private Duration duration;
        private double requestRate = Double.POSITIVE_INFINITY;
        private double burstiness = 1.0;
        private Integer maxConcurrency;
        private RampUp rampUp;
        private int numWarmups;
        private boolean ignoreEos;
        private final Map<String, Object> sampling = new LinkedHashMap<>();
        private Map<String, Object> extraBody = new LinkedHashMap<>();
        private boolean stream = true;
        private boolean includeUsage = true;
        private String apiKeyEnv = "OPENAI_API_KEY";
        private final Map<String, String> headers = new LinkedHashMap<>();
        private long seed;
        private Duration requestTimeout = Duration.ofHours(6);
        private List<Double> percentiles = new ArrayList<>(List.of(99.0));
        private Set<String> percentileMetrics = new LinkedHashSet<>(List.of("ttft", "tpot", "itl"));
        private final Map<String, Double> goodput = new LinkedHashMap<>();
        private String requestIdPrefix = "bench-";
        private Duration readyCheckTimeout = Duration.ZERO;
        private String label;
        private boolean keepText;
        private LoadFidelity.Limits fidelityLimits = LoadFidelity.Limits.DEFAULT;

        public Builder baseUrl(URI v) { baseUrl = v; return this; }
        public Builder baseUrl(String v) { baseUrl = URI.create(v); return this; }
        public Builder endpoint(String v) { endpoint = v; return this; }
        public Builder model(String v) { model = v; return this; }
        public Builder dataset(DatasetSpec v) { dataset = v; return this; }
        public Builder numPrompts(int v) { numPrompts = v; return this; }
        public Builder duration(Duration v) { duration = v; return this; }
        public Builder requestRate(double v) { requestRate = v; return this; }
        public Builder burstiness(double v) { burstiness = v; return this; }
        public Builder maxConcurrency(Integer v) { maxConcurrency = v; return this; }
        public Builder rampUp(RampUp v) { rampUp = v; return this; }
        public Builder numWarmups(int v) { numWarmups = v; return this; }
        public Builder ignoreEos(boolean v) { ignoreEos = v; return this; }
        public Builder sampling(String key, Object v) { sampling.put(key, v); return this; }
        public Builder extraBody(Map<String, Object> v) { extraBody = new LinkedHashMap<>(v); return this; }
        public Builder stream(boolean v) { stream = v; return this; }
        public Builder includeUsage(boolean v) { includeUsage = v; return this; }
        public Builder apiKeyEnv(String v) { apiKeyEnv = v; return this; }
        public Builder header(String k, String v) { headers.put(k, v); return this; }
        public Builder seed(long v) { seed = v; return this; }
        public Builder requestTimeout(Duration v) { requestTimeout = v; return this; }
        public Builder percentiles(List<Double> v) { percentiles = new ArrayList<>(v); return this; }
        public Builder percentileMetrics(Set<String> v) { percentileMetrics = new LinkedHashSet<>(v); return this; }
        public Builder goodput(String metric, double sloMs) { goodput.put(metric, sloMs); return this; }
        public Builder requestIdPrefix(String v) { requestIdPrefix = v; return this; }
        public Builder readyCheckTimeout(Duration v) { readyCheckTimeout = v; return this; }
        public Builder label(String v) { label = v; return this; }
        public Builder keepText(boolean v) { keepText = v; return this; }
        public Builder tokenizer(Path v) { tokenizer = v; return this; }
        public Builder fidelityLimits(LoadFidelity.Limits v) { fidelityLimits = v; return this; }

        /** The dataset's kind as set so far. */
        public DatasetSpec.Kind datasetKind() { return dataset.kind(); }

        /** Validates and builds; throws {@link IllegalArgumentException} with a one-line message on a bad value. */
        public LoadgenConfig build() {
            if (baseUrl == null || baseUrl.getScheme() == null || baseUrl.getHost() == null) {
                throw new IllegalArgumentException("base URL (" + baseUrl + ") must look like http://HOST:PORT");
            }
            if (!"http".equals(baseUrl.getScheme().toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("base URL (" + baseUrl + "): only http:// is supported"
                        + " (put a TLS terminator in front, or benchmark the plain-HTTP port)");
            }
            if (model == null || model.isBlank()) {
                throw new IllegalArgumentException("--model is required (the model name the server serves)");
            }
            if (dataset.kind() == DatasetSpec.Kind.TIMED_TRACE && (duration != null || rampUp != null
                    || !Double.isInfinite(requestRate))) {
                throw new IllegalArgumentException("a timed trace sends each request at its own timestamp: --duration,"
                        + " --request-rate and --ramp-up-* do not apply (fix: --trace-start/--trace-duration for a"
                        + " window, --trace-speedup for the pace)");
            }
            if (duration == null && numPrompts < 1) {
                throw new IllegalArgumentException("--num-prompts (" + numPrompts + ") must be >= 1");
            }
            if (duration != null && (duration.isNegative() || duration.isZero())) {
                throw new IllegalArgumentException("--duration (" + duration.toMillis() / 1000.0 + " s) must be > 0");
            }
            if (duration != null && Double.isInfinite(requestRate) && maxConcurrency == null && rampUp == null) {
                throw new IllegalArgumentException("--duration needs a finite --request-rate or a --max-concurrency"
                        + " (otherwise requests would be sent without limit)");
            }
            if (!(requestRate > 0)) {
                throw new IllegalArgumentException("--request-rate (" + requestRate + ") must be > 0 or inf");
            }
            if (!(burstiness > 0)) {
                throw new IllegalArgumentException("--burstiness (" + burstiness + ") must be > 0 or inf");
            }
            if (maxConcurrency != null && maxConcurrency < 1) {
                throw new IllegalArgumentException("--max-concurrency (" + maxConcurrency + ") must be >= 1");
            }
            if (rampUp != null && (!(rampUp.startRps() >= 0) || !(rampUp.endRps() > 0)
                    || ("exponential".equals(rampUp.strategy()) && rampUp.startRps() <= 0))) {
                throw new IllegalArgumentException("ramp-up rates (" + rampUp.startRps() + " -> " + rampUp.endRps()
                        + ") must be >= 0 (> 0 for exponential) and the end rate > 0");
            }
            if (numWarmups < 0) {
                throw new IllegalArgumentException("--num-warmups (" + numWarmups + ") must be >= 0");
            }
            if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("--request-timeout must be > 0");
            }
            for (Double p : percentiles) {
                if (p == null || !(p > 0) || p > 100) {
                    throw new IllegalArgumentException("--metric-percentiles value (" + p + ") must be in (0, 100]");
                }
            }
            for (String m : percentileMetrics) {
                if (!METRIC_KEYS.contains(m)) {
                    throw new IllegalArgumentException("--percentile-metrics value '" + m + "' must be one of ttft,tpot,itl,e2el");
                }
            }
            for (var e : goodput.entrySet()) {
                if (!Set.of("ttft", "tpot", "e2el").contains(e.getKey())) {
                    throw new IllegalArgumentException("--goodput key '" + e.getKey() + "' must be ttft, tpot or e2el");
                }
                if (!(e.getValue() >= 0)) {
                    throw new IllegalArgumentException("--goodput " + e.getKey() + " (" + e.getValue() + ") must be >= 0 ms");
                }
            }
            dataset.validate();
            if (dataset.multiTurn() != null && duration != null) {
                throw new IllegalArgumentException("--multi-turn runs --num-prompts conversations; --duration is not"
                        + " supported with it");
            }
            if (tokenizer != null && !Files.isRegularFile(tokenizer)) {
                throw new IllegalArgumentException("--tokenizer " + tokenizer + " is not a file (give the model's tokenizer.json)");
            }
            return new LoadgenConfig(baseUrl, endpoint, model, dataset, numPrompts, duration, requestRate, burstiness,
                    maxConcurrency, rampUp, numWarmups, ignoreEos, sampling, extraBody, stream, includeUsage, apiKeyEnv,
                    headers, seed, requestTimeout, percentiles, percentileMetrics, goodput, requestIdPrefix,
                    readyCheckTimeout, label, tokenizer, keepText, fidelityLimits);
        }
    }
}
