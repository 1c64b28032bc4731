package io.isobench.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.parse.Metric;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The outcome of one load-generator run: every request (raw samples) and the summary derived from them with
 * {@code vllm bench serve}'s formulas.
 *
 * @param config        what ran
 * @param run           when and how long the measured phase ran, and the warm-ups before it
 * @param requests      measured requests, in send order
 * @param summary       aggregates
 * @param notes         things the user should know (token-count fallbacks, prompt length drift, ignored flags…)
 * @param clientCpu     what the client itself cost during the measured phase, or null when not measured
 * @param multiTurn     a multi-turn run's turns and conversations ({@code --multi-turn}), else null
 */
public record LoadgenResult(LoadgenConfig config, Run run, List<RequestResult> requests, Summary summary,
                            List<String> notes, ClientCpu clientCpu, MultiTurnResult multiTurn) {

    static final String VERSION = "isobench-loadgen/1";

    public LoadgenResult {
        requests = List.copyOf(requests);
        notes = List.copyOf(notes);
    }

    public LoadgenResult(LoadgenConfig config, Run run, List<RequestResult> requests, Summary summary,
                         List<String> notes) {
        this(config, run, requests, summary, notes, null, null);
    }

    public LoadgenResult(LoadgenConfig config, Run run, List<RequestResult> requests, Summary summary,
                         List<String> notes, ClientCpu clientCpu) {
        this(config, run, requests, summary, notes, clientCpu, null);
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
     */
    public record ClientCpu(double processS, double userS, double sysS, double ioThreadS, double ioThreadUserS) {
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

    static Summary summarize(LoadgenConfig c, List<RequestResult> rs, double durationS) {
        List<Double> ttft = new ArrayList<>();
        List<Double> tpot = new ArrayList<>();
        List<Double> allTpot = new ArrayList<>();
        List<Double> e2el = new ArrayList<>();
        List<Double> queue = new ArrayList<>();
        int itlCount = 0;
        for (RequestResult r : rs) {
            if (r.success()) {
                itlCount += Math.max(0, r.chunkNs().length - 1);
            }
        }
        double[] itl = new double[itlCount];
        int k = 0;
        int completed = 0;
        long in = 0;
        long out = 0;
        int outFromUsage = 0;
        int inFromUsage = 0;
        int chunks = 0;
        double driftPctSum = 0;
        double driftTokSum = 0;
        int driftN = 0;
        Map<String, Integer> failures = new TreeMap<>();
        for (RequestResult r : rs) {
            queue.add(r.clientQueueNs() / 1e6);
            if (!r.success()) {
                failures.merge(r.errorKind(), 1, Integer::sum);
                continue;
            }
            completed++;
            in += r.inputTokens();
            out += r.outputTokens();
            chunks += r.chunkNs().length;
            if (r.outputTokensFromUsage()) {
                outFromUsage++;
            }
            if (r.promptTokens() >= 0) {
                inFromUsage++;
                if (r.expectedInputTokens() > 0) {
                    driftN++;
                    driftTokSum += r.promptTokens() - r.expectedInputTokens();
                    driftPctSum += 100.0 * (r.promptTokens() - r.expectedInputTokens()) / r.expectedInputTokens();
                }
            }
            ttft.add(r.ttftNs() / 1e6);
            e2el.add(r.latencyNs() / 1e6);
            double t = r.tpotNs();
            if (t >= 0) {
                tpot.add(t / 1e6);
                allTpot.add(t / 1e6);
            } else {
                allTpot.add(0.0);
            }
            long[] ch = r.chunkNs();
            for (int i = 1; i < ch.length; i++) {
                itl[k++] = (ch[i] - ch[i - 1]) / 1e6;
            }
        }
        Double goodput = null;
        if (!c.goodputSloMs().isEmpty()) {
            int good = 0;
            int j = 0;
            for (RequestResult r : rs) {
                if (!r.success()) {
                    continue;
                }
                boolean ok = true;
                Double slo = c.goodputSloMs().get("ttft");
                if (slo != null && ttft.get(j) > slo) {
                    ok = false;
                }
                slo = c.goodputSloMs().get("tpot");
                if (slo != null && allTpot.get(j) > slo) {
                    ok = false;
                }
                slo = c.goodputSloMs().get("e2el");
                if (slo != null && e2el.get(j) > slo) {
                    ok = false;
                }
                if (ok) {
                    good++;
                }
                j++;
            }
            goodput = durationS > 0 ? good / durationS : 0.0;
        }
        Map<String, Dist> dists = new LinkedHashMap<>();
        dists.put("ttft", Stats.dist(toArray(ttft), c.percentiles()));
        dists.put("tpot", Stats.dist(toArray(tpot), c.percentiles()));
        dists.put("itl", Stats.dist(itl, c.percentiles()));
        dists.put("e2el", Stats.dist(toArray(e2el), c.percentiles()));
        dists.put("client_queue", Stats.dist(toArray(queue), c.percentiles()));

        // vLLM's peak output tok/s and concurrency: one-second buckets from the first successful start
        double peakTok = 0;
        int peakConc = 0;
        long minStart = Long.MAX_VALUE;
        long maxEnd = Long.MIN_VALUE;
        for (RequestResult r : rs) {
            if (r.success()) {
                minStart = Math.min(minStart, r.sendNs());
                maxEnd = Math.max(maxEnd, r.sendNs() + r.latencyNs());
            }
        }
        if (minStart != Long.MAX_VALUE) {
            int buckets = (int) Math.ceil((maxEnd - minStart) / 1e9) + 1;
            double[] tok = new double[buckets];
            int[] conc = new int[buckets];
            for (RequestResult r : rs) {
                if (!r.success()) {
                    continue;
                }
                for (long ch : r.chunkNs()) {
                    int b = (int) ((r.sendNs() + ch - minStart) / 1_000_000_000L);
                    if (b >= 0 && b < buckets) {
                        tok[b]++;
                    }
                }
                int s = (int) ((r.sendNs() - minStart) / 1_000_000_000L);
                int e = (int) ((r.sendNs() + r.latencyNs() - minStart) / 1_000_000_000L);
                for (int b = s; b <= e && b < buckets; b++) {
                    conc[b]++;
                }
            }
            for (int b = 0; b < buckets; b++) {
                peakTok = Math.max(peakTok, tok[b]);
                peakConc = Math.max(peakConc, conc[b]);
            }
        }
        // exact in-flight maximum: sweep over send/end events of all requests
        long[] ev = new long[rs.size() * 2];
        int e = 0;
        for (RequestResult r : rs) {
            ev[e++] = r.sendNs() * 2 + 1;     // start (odd sorts after an end at the same instant)
            ev[e++] = r.endNs() * 2;          // end
        }
        Arrays.sort(ev);
        int cur = 0;
        int maxInFlight = 0;
        for (long x : ev) {
            cur += (x & 1) == 1 ? 1 : -1;
            maxInFlight = Math.max(maxInFlight, cur);
        }
        double d = durationS > 0 ? durationS : Double.MIN_VALUE;
        return new Summary(completed, rs.size() - completed, in, out, completed / d, goodput, out / d, (in + out) / d,
                in / d, peakTok, peakConc, maxInFlight, dists, failures, outFromUsage, inFromUsage,
                driftN == 0 ? null : driftPctSum / driftN, driftN == 0 ? null : driftTokSum / driftN, chunks);
    }

    private static double[] toArray(List<Double> l) {
        double[] a = new double[l.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = l.get(i);
        }
        return a;
    }

    // ---------------------------------------------------------------- console block (vLLM's exact layout)

    private static String center(String s, char fill) {
        int pad = Math.max(0, 50 - s.length());
        int left = pad / 2;
        return String.valueOf(fill).repeat(left) + s + String.valueOf(fill).repeat(pad - left);
    }

    private static String row(String label, String value) {
        return String.format(Locale.ROOT, "%-40s %-10s", label, value);
    }

    private static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String pWord(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }

    /** The console block of {@code vllm bench serve}, line for line ({@code {:<40} {:<10}} rows). */
    public String consoleBlock() {
        Summary s = summary;
        List<String> l = new ArrayList<>();
        l.add(center(" Serving Benchmark Result ", '='));
        l.add(row("Successful requests:", Integer.toString(s.completed())));
        l.add(row("Failed requests:", Integer.toString(s.failed())));
        if (config.maxConcurrency() != null) {
            l.add(row("Maximum request concurrency:", Integer.toString(config.maxConcurrency())));
        }
        if (!Double.isInfinite(config.requestRate())) {
            l.add(row("Request rate configured (RPS):", f2(config.requestRate())));
        }
        l.add(row("Benchmark duration (s):", f2(durationS())));
        l.add(row("Total input tokens:", Long.toString(s.totalInput())));
        l.add(row("Total generated tokens:", Long.toString(s.totalOutput())));
        l.add(row("Request throughput (req/s):", f2(s.requestThroughput())));
        if (s.requestGoodput() != null) {
            l.add(row("Request goodput (req/s):", f2(s.requestGoodput())));
        }
        l.add(row("Output token throughput (tok/s):", f2(s.outputThroughput())));
        l.add(row("Peak output token throughput (tok/s):", f2(s.peakOutputTokS())));
        l.add(row("Peak concurrent requests:", f2(s.peakConcurrentVllm())));
        l.add(row("Total Token throughput (tok/s):", f2(s.totalTokenThroughput())));
        metricBlock(l, "ttft", "TTFT", "Time to First Token");
        metricBlock(l, "tpot", "TPOT", "Time per Output Token (excl. 1st token)");
        metricBlock(l, "itl", "ITL", "Inter-token Latency");
        metricBlock(l, "e2el", "E2EL", "End-to-end Latency");
        l.add("=".repeat(50));
        return String.join("\n", l) + "\n";
    }

    private void metricBlock(List<String> l, String key, String name, String header) {
        if (!config.percentileMetrics().contains(key)) {
            return;
        }
        Dist d = summary.dists().get(key);
        l.add(center(header, '-'));
        l.add(row("Mean " + name + " (ms):", f2(d.mean())));
        l.add(row("Median " + name + " (ms):", f2(d.median())));
        for (var p : d.percentiles().entrySet()) {
            l.add(row("P" + pWord(p.getKey()) + " " + name + " (ms):", f2(p.getValue())));
        }
    }

    /** isobench's own lines after the vLLM block (stderr-worthy detail: failures, token sources, queueing). */
    public String detailBlock() {
        Summary s = summary;
        List<String> l = new ArrayList<>();
        l.add(center(" isobench loadgen detail ", '-'));
        l.add(row("Max requests in flight:", Integer.toString(s.maxInFlight())));
        Dist q = s.dists().get("client_queue");
        l.add(row("Mean client queue time (ms):", f2(q.mean())));
        l.add(row("Max client queue time (ms):", f2(q.max())));
        l.add(row("Output tokens from server usage:", s.outputFromUsage() + "/" + s.completed()));
        l.add(row("Input tokens from server usage:", s.inputFromUsage() + "/" + s.completed()));
        if (s.promptDriftPct() != null) {
            l.add(row("Prompt length drift (%):", f2(s.promptDriftPct())));
        }
        if (clientCpu != null && clientCpu.processS() >= 0) {
            l.add(row("Client CPU, measured phase (s):", String.format(Locale.ROOT, "%.3f", clientCpu.processS())));
            if (s.chunks() > 0) {
                l.add(row("Client CPU per chunk (us):",
                        String.format(Locale.ROOT, "%.2f", clientCpu.processS() * 1e6 / s.chunks())));
            }
        }
        if (multiTurn != null) {
            l.addAll(multiTurn.detailLines(requests, durationS(), config.percentiles()));
        }
        for (var f : s.failuresByReason().entrySet()) {
            l.add(row("Failed (" + f.getKey() + "):", Integer.toString(f.getValue())));
        }
        for (String n : notes) {
            l.add("note: " + n);
        }
        return String.join("\n", l) + "\n";
    }

    // ---------------------------------------------------------------- --save-result JSON (vLLM's keys)

    /** The {@code --save-result} JSON: vLLM's keys, then isobench extras prefixed {@code isobench_}. */
    public ObjectNode resultJson(boolean detailed) {
        ObjectMapper m = new ObjectMapper();
        ObjectNode o = m.createObjectNode();
        Summary s = summary;
        o.put("date", DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                .format(startedAt().atZone(ZoneId.systemDefault())));
        o.put("endpoint_type", config.chat() ? "openai-chat" : "openai");
        o.put("label", config.label()); // null: a JSON null
        o.put("model_id", config.model());
        o.put("tokenizer_id", config.tokenizer() != null ? config.tokenizer().toString() : config.model());
        o.put("num_prompts", requests.size());
        if (Double.isInfinite(config.requestRate())) {
            o.put("request_rate", "inf");
        } else {
            o.put("request_rate", config.requestRate());
        }
        o.put("burstiness", config.burstiness());
        o.put("max_concurrency", config.maxConcurrency()); // null: a JSON null
        o.put("duration", durationS());
        o.put("completed", s.completed());
        o.put("failed", s.failed());
        o.put("total_input_tokens", s.totalInput());
        o.put("total_output_tokens", s.totalOutput());
        o.put("request_throughput", s.requestThroughput());
        o.put("request_goodput", s.requestGoodput()); // null: a JSON null
        o.put("output_throughput", s.outputThroughput());
        o.put("total_token_throughput", s.totalTokenThroughput());
        o.put("max_output_tokens_per_s", s.peakOutputTokS());
        o.put("max_concurrent_requests", s.peakConcurrentVllm());
        for (String key : List.of("ttft", "tpot", "itl", "e2el")) {
            if (!config.percentileMetrics().contains(key)) {
                continue;
            }
            Dist d = s.dists().get(key);
            o.put("mean_" + key + "_ms", d.mean());
            o.put("median_" + key + "_ms", d.median());
            o.put("std_" + key + "_ms", d.std());
            for (var p : d.percentiles().entrySet()) {
                o.put("p" + pWord(p.getKey()) + "_" + key + "_ms", p.getValue());
            }
        }
        if (detailed) {
            ArrayNode inputLens = o.putArray("input_lens");
            ArrayNode outputLens = o.putArray("output_lens");
            ArrayNode ttfts = o.putArray("ttfts");
            ArrayNode itls = o.putArray("itls");
            ArrayNode texts = o.putArray("generated_texts");
            ArrayNode errors = o.putArray("errors");
            for (RequestResult r : requests) {
                inputLens.add(r.inputTokens());
                outputLens.add(r.success() ? r.outputTokens() : 0);
                ttfts.add(r.ttftNs() < 0 ? 0.0 : r.ttftNs() / 1e9);
                ArrayNode il = itls.addArray();
                for (long g : r.itlNs()) {
                    il.add(g / 1e9);
                }
                texts.add(r.generatedText());
                errors.add(r.error() == null ? "" : r.error());
            }
        }
        // isobench extras
        o.put("isobench_version", VERSION);
        o.put("isobench_base_url", config.baseUrl().toString());
        o.put("isobench_endpoint", config.endpoint());
        o.put("isobench_dataset", config.dataset().id());
        o.put("isobench_seed", config.seed());
        o.put("isobench_num_warmups", warmups());
        o.put("isobench_started_at", startedAt().toString());
        o.put("isobench_max_in_flight", s.maxInFlight());
        o.put("isobench_output_tokens_from_usage", s.outputFromUsage());
        o.put("isobench_input_tokens_from_usage", s.inputFromUsage());
        o.put("isobench_chunks", s.chunks());
        if (clientCpu != null) {
            o.put("isobench_client_cpu_s", clientCpu.processS());
            o.put("isobench_client_cpu_user_s", clientCpu.userS());
            o.put("isobench_client_cpu_sys_s", clientCpu.sysS());
            o.put("isobench_client_io_thread_cpu_s", clientCpu.ioThreadS());
            o.put("isobench_client_io_thread_user_s", clientCpu.ioThreadUserS());
        }
        o.put("isobench_input_throughput", s.inputThroughput());
        if (s.promptDriftPct() != null) {
            o.put("isobench_prompt_len_drift_pct", s.promptDriftPct());
            o.put("isobench_prompt_len_drift_tokens", s.promptDriftMeanTokens());
        }
        Dist q = s.dists().get("client_queue");
        o.put("isobench_mean_client_queue_ms", q.mean());
        o.put("isobench_median_client_queue_ms", q.median());
        o.put("isobench_max_client_queue_ms", q.max());
        for (var p : q.percentiles().entrySet()) {
            o.put("isobench_p" + pWord(p.getKey()) + "_client_queue_ms", p.getValue());
        }
        ObjectNode fr = o.putObject("isobench_failures_by_reason");
        s.failuresByReason().forEach(fr::put);
        ArrayNode notesNode = o.putArray("isobench_notes");
        notes.forEach(notesNode::add);
        o.set("isobench_workload", workloadFingerprint());
        if (multiTurn != null) {
            o.set("isobench_multi_turn", multiTurn.json(requests, durationS(), config.percentiles()));
        }
        if (detailed) {
            // the run's monotonic origin (System.nanoTime, CLOCK_MONOTONIC on Linux): sent_s and ttfts are offsets
            o.put("isobench_start_monotonic_ns", startNanoTime());
            ArrayNode sched = o.putArray("isobench_scheduled_s");
            ArrayNode sent = o.putArray("isobench_sent_s");
            ArrayNode e2 = o.putArray("isobench_e2els");
            ArrayNode src = o.putArray("isobench_output_len_source");
            ArrayNode exp = o.putArray("isobench_expected_input_lens");
            for (RequestResult r : requests) {
                sched.add(r.scheduledNs() / 1e9);
                sent.add(r.sendNs() / 1e9);
                e2.add(r.latencyNs() < 0 ? 0.0 : r.latencyNs() / 1e9);
                src.add(r.outputTokensFromUsage() ? "usage" : "chunks");
                exp.add(r.expectedInputTokens());
            }
        }
        return o;
    }

    /**
     * Workload fingerprint (DESIGN §4): requests sent, input/output tokens, seed, dataset id, prompts' SHA-256. A
     * multi-turn run has no {@code input_tokens} (a later turn's context holds the arm's own replies, so its length is
     * the arm's output, not the workload) and adds the conversation count and the file's SHA-256.
     */
    public ObjectNode workloadFingerprint() {
        ObjectNode w = new ObjectMapper().createObjectNode();
        w.put("requests", requests.size());
        if (multiTurn == null) {
            w.put("input_tokens", summary.totalInput());
        } else {
            w.put("conversations", multiTurn.conversations().size());
            w.put("dataset_sha256", multiTurn.datasetSha256());
        }
        w.put("output_tokens", summary.totalOutput());
        w.put("seed", config.seed());
        w.put("dataset", config.dataset().id());
        if (run.promptsSha256() != null) {
            w.put("prompts_sha256", run.promptsSha256());
        }
        return w;
    }

    /** vLLM's default result file name: {@code openai-{rate}qps[-concurrency{N}]-{model}-{yyyyMMdd-HHmmss}.json}. */
    public String defaultResultFilename() {
        String rate = Double.isInfinite(config.requestRate()) ? "inf" : Double.toString(config.requestRate());
        String conc = config.maxConcurrency() == null ? "" : "-concurrency" + config.maxConcurrency();
        String model = config.model().substring(config.model().lastIndexOf('/') + 1);
        String dt = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                .format(startedAt().atZone(ZoneId.systemDefault()));
        return (config.chat() ? "openai-chat" : "openai") + "-" + rate + "qps" + conc + "-" + model + "-" + dt + ".json";
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
