package io.isobench.loadgen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.parse.Metric;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one load-generator run: every request (raw samples) and the summary derived from them with
 * {@code vllm bench serve}'s formulas ({@link RunSummary}). Its forms for people and tools are made elsewhere: the
 * console text by {@link ConsoleBlocks}, the {@code --save-result} file by {@link ResultJson}; the metrics for the
 * store here.
 *
 * @param config        what ran
 * @param run           when and how long the measured phase ran, and the warm-ups before it
 * @param requests      measured requests, in send order
 * @param summary       aggregates
 * @param notes         things the user should know (token-count fallbacks, prompt length drift, ignored flags…)
 * @param clientCpu     what the client itself cost during the measured phase, or null when not measured
 * @param multiTurn     a multi-turn run's turns and conversations ({@code --multi-turn}), else null
 * @param fidelity      whether the delivered load was the configured one (schedule lag, client self-check), or null
 *                      when not measured
 */
public record LoadgenResult(LoadgenConfig config, Run run, List<RequestResult> requests, Summary summary,
                            List<String> notes, ClientCpu clientCpu, MultiTurnResult multiTurn,
                            LoadFidelity fidelity) {

    static final String VERSION = "isobench-loadgen/1";

    public LoadgenResult {
        requests = List.copyOf(requests);
        notes = List.copyOf(notes);
    }

    public LoadgenResult(LoadgenConfig config, Run run, List<RequestResult> requests, Summary summary,
                         List<String> notes) {
        this(config, run, requests, summary, notes, null, null, null);
    }

    public LoadgenResult(LoadgenConfig config, Run run, List<RequestResult> requests, Summary summary,
                         List<String> notes, ClientCpu clientCpu) {
        this(config, run, requests, summary, notes, clientCpu, null, null);
    }

    /**
     * When and how long the measured phase ran.
     *
     * @param startedAt     wall-clock start of the measured phase
     * @param startNanoTime {@link System#nanoTime()} at the start (request times are offsets from it)
     * @param durationS     benchmark duration: first dispatch to last completion
     * @param warmups       warm-up requests sent and discarded (a multi-turn run: every turn of its warm-up
     *                      conversations)
     * @param promptsSha256 {@code Datasets.digest} of every prompt made (measured and warm-up), or null when not known;
     *                      a multi-turn run: {@code Conversations.digest} of its conversations' turns
     */
    public record Run(Instant startedAt, long startNanoTime, double durationS, int warmups, String promptsSha256) {

        public Run(Instant startedAt, long startNanoTime, double durationS, int warmups) {
            this(startedAt, startNanoTime, durationS, warmups, null);
        }
    }

    /** Wall-clock start of the measured phase. */
    public Instant startedAt() {
        return run.startedAt();
    }

    /** {@link System#nanoTime()} at the start (request times are offsets from it). */
    public long startNanoTime() {
        return run.startNanoTime();
    }

    /** Benchmark duration: first dispatch to last completion. */
    public double durationS() {
        return run.durationS();
    }

    /** Warm-up requests sent and discarded. */
    public int warmups() {
        return run.warmups();
    }

    /**
     * The client's own CPU over the measured phase (first dispatch to last completion; warm-ups, start-up and
     * reporting excluded): the whole process (every thread: I/O loop, dispatcher, GC, JIT) and the I/O thread alone.
     *
     * @param processS  process CPU seconds (user + system), -1 when the JVM cannot tell
     * @param userS     the user part of it from /proc/self/stat (10 ms ticks), -1 where there is none
     * @param sysS      the system (kernel) part, likewise
     * @param ioThreadS CPU seconds of the I/O thread, -1 when the JVM cannot tell
     * @param ioThreadUserS the user part of it, -1 when the JVM cannot tell
     * @param transport the I/O thread's socket layer: {@code ffm} (libc through java.lang.foreign) or {@code nio}
     */
    public record ClientCpu(double processS, double userS, double sysS, double ioThreadS, double ioThreadUserS,
                            String transport) {
    }

    /** Distribution of one per-request metric, in ms. */
    public record Dist(int count, double mean, double median, double std, double min, double max,
                       Map<Double, Double> percentiles) {
    }

    /**
     * Aggregates (vLLM's {@code BenchmarkMetrics} plus isobench extras).
     *
     * @param peakOutputTokS        vLLM's "Peak output token throughput": most chunks in one 1-s bucket
     * @param peakConcurrentVllm    vLLM's "Peak concurrent requests" (1-s buckets)
     * @param maxInFlight           exact maximum of requests in flight at any instant
     * @param outputFromUsage       successful requests whose output count is the server's usage
     * @param inputFromUsage        successful requests whose input count is the server's usage
     * @param promptDriftPct        mean of (reported − intended)/intended × 100 over requests with both, or null
     * @param promptDriftMeanTokens mean of (reported − intended) tokens, or null
     */
    public record Summary(int completed, int failed, long totalInput, long totalOutput, double requestThroughput,
                          Double requestGoodput, double outputThroughput, double totalTokenThroughput,
                          double inputThroughput, double peakOutputTokS, int peakConcurrentVllm, int maxInFlight,
                          Map<String, Dist> dists, Map<String, Integer> failuresByReason, int outputFromUsage,
                          int inputFromUsage, Double promptDriftPct, Double promptDriftMeanTokens, int chunks) {
    }

    /** A percentile as vLLM writes it in keys and labels: 99.0 as "99", 99.9 as "99.9". */
    static String pWord(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }

    /** The console block of {@code vllm bench serve}, line for line ({@code {:<40} {:<10}} rows). */
    public String consoleBlock() {
        return ConsoleBlocks.vllm(this);
    }

    /** isobench's own lines after the vLLM block (stderr-worthy detail: failures, token sources, queueing). */
    public String detailBlock() {
        return ConsoleBlocks.detail(this);
    }

    /** The {@code --save-result} JSON: vLLM's keys, then isobench extras prefixed {@code isobench_}. */
    public ObjectNode resultJson(boolean detailed) {
        return ResultJson.of(this, detailed);
    }

    /**
     * Workload fingerprint (DESIGN §4): requests sent, input/output tokens, seed, dataset id, prompts' SHA-256. A
     * multi-turn run has no {@code input_tokens} (a later turn's context holds the arm's own replies, so its length is
     * the arm's output, not the workload) and adds the conversation count and the file's SHA-256.
     */
    public ObjectNode workloadFingerprint() {
        return ResultJson.workloadFingerprint(this);
    }

    /** vLLM's default result file name: {@code openai-{rate}qps[-concurrency{N}]-{model}-{yyyyMMdd-HHmmss}.json}. */
    public String defaultResultFilename() {
        return ResultJson.defaultFilename(this);
    }

    /**
     * The fidelity metrics (docs/loadgen.md, "Schedule fidelity" and "Client self-check"; the names are a contract):
     * the schedule's only with an arrival schedule, each rate or cap only when defined. Empty for null.
     */
    static List<Metric> fidelityMetrics(LoadFidelity f) {
        List<Metric> out = new ArrayList<>();
        if (f == null) {
            return out;
        }
        LoadFidelity.Schedule sc = f.schedule();
        if (sc != null) {
            out.add(Metric.of("schedule_lag_ms_p50", sc.lagMsP50()));
            out.add(Metric.of("schedule_lag_ms_p99", sc.lagMsP99()));
            out.add(Metric.of("schedule_lag_ms_max", sc.lagMsMax()));
            out.add(Metric.of("schedule_late_pct", sc.latePct()));
            if (sc.configuredRateRps() != null) {
                out.add(Metric.of("configured_request_rate_rps", sc.configuredRateRps()));
            }
            out.add(Metric.of("delivered_request_rate_rps", sc.deliveredRateRps()));
            if (sc.configuredMaxConcurrency() != null) {
                out.add(Metric.of("configured_max_concurrency", sc.configuredMaxConcurrency()));
            }
            out.add(Metric.of("delivered_concurrency_mean", sc.deliveredConcurrencyMean()));
        }
        LoadFidelity.ClientCheck c = f.client();
        if (c.cpuBusyPct() >= 0) {
            out.add(Metric.of("client_cpu_busy_pct", c.cpuBusyPct()));
        }
        out.add(Metric.of("client_loop_lag_ms_p99", c.loopLagMsP99()));
        out.add(Metric.of("client_loop_lag_ms_max", c.loopLagMsMax()));
        out.add(Metric.of("client_saturated", c.saturated() ? 1 : 0));
        return out;
    }

    /** Canonical metrics (DESIGN §5) for the store. */
    public List<Metric> metrics() {
        Summary s = summary;
        List<Metric> out = new ArrayList<>();
        out.add(Metric.of("completed_requests", s.completed()));
        out.add(Metric.of("failed_requests", s.failed()));
        out.add(Metric.of("duration_s", durationS()));
        out.add(Metric.of("total_input_tokens", s.totalInput()));
        out.add(Metric.of("total_output_tokens", s.totalOutput()));
        out.add(Metric.of("request_throughput_rps", s.requestThroughput()));
        if (s.requestGoodput() != null) {
            out.add(Metric.of("request_goodput_rps", s.requestGoodput()));
        }
        out.add(Metric.of("output_throughput_tok_s", s.outputThroughput()));
        out.add(Metric.of("total_throughput_tok_s", s.totalTokenThroughput()));
        out.add(Metric.of("input_throughput_tok_s", s.inputThroughput()));
        out.add(Metric.of("peak_output_throughput_tok_s", s.peakOutputTokS()));
        out.add(Metric.of("peak_concurrent_requests", s.maxInFlight()));
        out.addAll(fidelityMetrics(fidelity));
        if (multiTurn != null) {
            out.addAll(multiTurn.metrics(requests, durationS(), config.percentiles()));
        }
        if (s.completed() == 0) {
            return out;
        }
        for (var e : s.dists().entrySet()) {
            String fam = e.getKey().equals("client_queue") ? "client_queue_ms_" : e.getKey() + "_ms_";
            Dist d = e.getValue();
            if (d.count() == 0) {
                continue;
            }
            out.add(Metric.of(fam + "mean", d.mean()));
            out.add(Metric.of(fam + "median", d.median()));
            out.add(Metric.of(fam + "std", d.std()));
            out.add(Metric.of(fam + "max", d.max()));
            for (var p : d.percentiles().entrySet()) {
                out.add(Metric.of(fam + "p" + pWord(p.getKey()), p.getValue()));
            }
        }
        return out;
    }
}
