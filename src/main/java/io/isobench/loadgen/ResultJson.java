package io.isobench.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.loadgen.LoadgenResult.Dist;
import io.isobench.loadgen.LoadgenResult.Summary;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * A run's {@code --save-result} file: vLLM's keys and file name, so vLLM's tooling reads it, then isobench's extras
 * prefixed {@code isobench_}, among them the workload fingerprint runs are compared by.
 */
final class ResultJson {

    private ResultJson() {
    }

    /** The {@code --save-result} JSON: vLLM's keys, then isobench extras prefixed {@code isobench_}. */
    static ObjectNode of(LoadgenResult result, boolean detailed) {
        LoadgenConfig config = result.config();
        ObjectMapper m = new ObjectMapper();
        ObjectNode o = m.createObjectNode();
        Summary s = result.summary();
        o.put("date", DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                .format(result.startedAt().atZone(ZoneId.systemDefault())));
        o.put("endpoint_type", config.chat() ? "openai-chat" : "openai");
        o.put("label", config.label()); // null: a JSON null
        o.put("model_id", config.model());
        o.put("tokenizer_id", config.tokenizer() != null ? config.tokenizer().toString() : config.model());
        o.put("num_prompts", result.requests().size());
        if (Double.isInfinite(config.requestRate())) {
            o.put("request_rate", "inf");
        } else {
            o.put("request_rate", config.requestRate());
        }
        if (Double.isInfinite(config.burstiness())) {
            o.put("burstiness", "inf");
        } else {
            o.put("burstiness", config.burstiness());
        }
        o.put("max_concurrency", config.maxConcurrency()); // null: a JSON null
        o.put("duration", result.durationS());
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
                o.put("p" + LoadgenResult.pWord(p.getKey()) + "_" + key + "_ms", p.getValue());
            }
        }
        if (detailed) {
            ArrayNode inputLens = o.putArray("input_lens");
            ArrayNode outputLens = o.putArray("output_lens");
            ArrayNode ttfts = o.putArray("ttfts");
            ArrayNode itls = o.putArray("itls");
            ArrayNode texts = o.putArray("generated_texts");
            ArrayNode errors = o.putArray("errors");
            for (RequestResult r : result.requests()) {
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
        o.put("isobench_version", LoadgenResult.VERSION);
        o.put("isobench_base_url", config.baseUrl().toString());
        o.put("isobench_endpoint", config.endpoint());
        o.put("isobench_dataset", config.dataset().id());
        o.put("isobench_seed", config.seed());
        o.put("isobench_num_warmups", result.warmups());
        o.put("isobench_started_at", result.startedAt().toString());
        o.put("isobench_max_in_flight", s.maxInFlight());
        o.put("isobench_output_tokens_from_usage", s.outputFromUsage());
        o.put("isobench_input_tokens_from_usage", s.inputFromUsage());
        o.put("isobench_chunks", s.chunks());
        if (result.clientCpu() != null) {
            o.put("isobench_client_cpu_s", result.clientCpu().processS());
            o.put("isobench_client_cpu_user_s", result.clientCpu().userS());
            o.put("isobench_client_cpu_sys_s", result.clientCpu().sysS());
            o.put("isobench_client_io_thread_cpu_s", result.clientCpu().ioThreadS());
            o.put("isobench_client_io_thread_user_s", result.clientCpu().ioThreadUserS());
            o.put("isobench_client_transport", result.clientCpu().transport());
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
            o.put("isobench_p" + LoadgenResult.pWord(p.getKey()) + "_client_queue_ms", p.getValue());
        }
        ObjectNode fr = o.putObject("isobench_failures_by_reason");
        s.failuresByReason().forEach(fr::put);
        ArrayNode notesNode = o.putArray("isobench_notes");
        result.notes().forEach(notesNode::add);
        fidelity(result, o);
        o.set("isobench_workload", workloadFingerprint(result));
        if (result.multiTurn() != null) {
            o.set("isobench_multi_turn", result.multiTurn().json(result.requests(), result.durationS(), config.percentiles()));
        }
        if (detailed) {
            // the run's monotonic origin (System.nanoTime, CLOCK_MONOTONIC on Linux): sent_s and ttfts are offsets
            o.put("isobench_start_monotonic_ns", result.startNanoTime());
            ArrayNode ready = o.putArray("isobench_ready_s");
            ArrayNode sched = o.putArray("isobench_scheduled_s");
            ArrayNode sent = o.putArray("isobench_sent_s");
            ArrayNode e2 = o.putArray("isobench_e2els");
            ArrayNode src = o.putArray("isobench_output_len_source");
            ArrayNode exp = o.putArray("isobench_expected_input_lens");
            for (RequestResult r : result.requests()) {
                sched.add(r.scheduledNs() / 1e9);
                ready.add(r.readyNs() / 1e9);
                sent.add(r.sendNs() / 1e9);
                e2.add(r.latencyNs() < 0 ? 0.0 : r.latencyNs() / 1e9);
                src.add(r.outputTokensFromUsage() ? "usage" : "chunks");
                exp.add(r.expectedInputTokens());
            }
        }
        return o;
    }

    /**
     * The fidelity metrics under their store names prefixed {@code isobench_}, and {@code isobench_client_check}:
     * {@code saturated}, {@code reasons} and the {@code thresholds} it was checked against.
     */
    private static void fidelity(LoadgenResult result, ObjectNode o) {
        LoadFidelity f = result.fidelity();
        if (f == null) {
            return;
        }
        for (var m : LoadgenResult.fidelityMetrics(f)) {
            if (m.name().equals("configured_max_concurrency") || m.name().equals("client_saturated")) {
                o.put("isobench_" + m.name(), (long) m.value());
            } else {
                o.put("isobench_" + m.name(), m.value());
            }
        }
        ObjectNode c = o.putObject("isobench_client_check");
        c.put("saturated", f.client().saturated());
        ArrayNode reasons = c.putArray("reasons");
        f.client().reasons().forEach(reasons::add);
        LoadFidelity.Limits lim = result.config().fidelityLimits();
        ObjectNode t = c.putObject("thresholds");
        t.put("schedule_late_ms", lim.lateMs());
        t.put("io_thread_busy_pct", lim.ioBusyPct());
        t.put("loop_lag_ms_p99", lim.loopLagMs());
        t.put("schedule_lag_ms_p99", lim.scheduleLagMs());
    }

    /**
     * Workload fingerprint (DESIGN §4): requests sent, input/output tokens, seed, dataset id, prompts' SHA-256. A
     * multi-turn run has no {@code input_tokens} (a later turn's context holds the arm's own replies, so its length is
     * the arm's output, not the workload) and adds the conversation count and the file's SHA-256. A timed trace adds
     * {@code schedule_sha256} (its intended send offsets, {@link TimedTrace#scheduleSha256}) and {@code trace_sha256}
     * (the trace file's bytes).
     */
    static ObjectNode workloadFingerprint(LoadgenResult result) {
        ObjectNode w = new ObjectMapper().createObjectNode();
        w.put("requests", result.requests().size());
        if (result.multiTurn() == null) {
            w.put("input_tokens", result.summary().totalInput());
        } else {
            w.put("conversations", result.multiTurn().conversations().size());
            w.put("dataset_sha256", result.multiTurn().datasetSha256());
        }
        w.put("output_tokens", result.summary().totalOutput());
        w.put("seed", result.config().seed());
        w.put("dataset", result.config().dataset().id());
        if (result.run().promptsSha256() != null) {
            w.put("prompts_sha256", result.run().promptsSha256());
        }
        if (result.config().dataset().kind() == DatasetSpec.Kind.TIMED_TRACE) {
            // a timed trace also fixes when each request is due: same offsets and same file, or the arms differ
            long[] offsets = result.requests().stream().sorted(Comparator.comparingInt(RequestResult::index))
                    .mapToLong(RequestResult::scheduledNs).toArray();
            w.put("schedule_sha256", TimedTrace.scheduleSha256(offsets));
            w.put("trace_sha256", TimedTrace.sha256(result.config().dataset().path()));
        }
        return w;
    }

    /** vLLM's default result file name: {@code openai-{rate}qps[-concurrency{N}]-{model}-{yyyyMMdd-HHmmss}.json}. */
    static String defaultFilename(LoadgenResult result) {
        LoadgenConfig config = result.config();
        String rate = Double.isInfinite(config.requestRate()) ? "inf" : Double.toString(config.requestRate());
        String conc = config.maxConcurrency() == null ? "" : "-concurrency" + config.maxConcurrency();
        String model = config.model().substring(config.model().lastIndexOf('/') + 1);
        String dt = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                .format(result.startedAt().atZone(ZoneId.systemDefault()));
        return (config.chat() ? "openai-chat" : "openai") + "-" + rate + "qps" + conc + "-" + model + "-" + dt + ".json";
    }
}
