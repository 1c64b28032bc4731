package io.isobench.loadgen;

import io.isobench.loadgen.LoadgenResult.Dist;
import io.isobench.loadgen.LoadgenResult.Summary;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A run's console text: {@code vllm bench serve}'s result block line for line (so the output parser reads it back as
 * vLLM's), then isobench's own detail lines.
 */
final class ConsoleBlocks {

    private ConsoleBlocks() {
    }

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

    /** The console block of {@code vllm bench serve}, line for line ({@code {:<40} {:<10}} rows). */
    static String vllm(LoadgenResult result) {
        LoadgenConfig config = result.config();
        Summary s = result.summary();
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
        l.add(row("Benchmark duration (s):", f2(result.durationS())));
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
        metricBlock(result, l, "ttft", "TTFT", "Time to First Token");
        metricBlock(result, l, "tpot", "TPOT", "Time per Output Token (excl. 1st token)");
        metricBlock(result, l, "itl", "ITL", "Inter-token Latency");
        metricBlock(result, l, "e2el", "E2EL", "End-to-end Latency");
        fidelityBlock(result.fidelity(), l);
        l.add("=".repeat(50));
        return String.join("\n", l) + "\n";
    }

    private static void metricBlock(LoadgenResult result, List<String> l, String key, String name, String header) {
        if (!result.config().percentileMetrics().contains(key)) {
            return;
        }
        Dist d = result.summary().dists().get(key);
        l.add(center(header, '-'));
        l.add(row("Mean " + name + " (ms):", f2(d.mean())));
        l.add(row("Median " + name + " (ms):", f2(d.median())));
        for (var p : d.percentiles().entrySet()) {
            l.add(row("P" + LoadgenResult.pWord(p.getKey()) + " " + name + " (ms):", f2(p.getValue())));
        }
    }

    /**
     * isobench's sections inside vLLM's block (docs/loadgen.md, "Schedule fidelity" and "Client self-check"): rows in
     * vLLM's layout, read back by {@code parse.OutputParser} as the metrics {@link LoadgenResult#metrics()} stores.
     */
    private static void fidelityBlock(LoadFidelity f, List<String> l) {
        if (f == null) {
            return;
        }
        LoadFidelity.Schedule s = f.schedule();
        if (s != null) {
            l.add(center("Schedule fidelity", '-'));
            l.add(row("Schedule lag P50 (ms):", f2(s.lagMsP50())));
            l.add(row("Schedule lag P99 (ms):", f2(s.lagMsP99())));
            l.add(row("Schedule lag max (ms):", f2(s.lagMsMax())));
            l.add(row("Late threshold (ms):", f2(s.lateThresholdMs())));
            l.add(row("Late requests (%):", f2(s.latePct())));
            if (s.configuredRateRps() != null) {
                l.add(row("Configured request rate (req/s):", f2(s.configuredRateRps())));
            }
            l.add(row("Delivered request rate (req/s):", f2(s.deliveredRateRps())));
            if (s.configuredMaxConcurrency() != null) {
                l.add(row("Configured max concurrency:", Integer.toString(s.configuredMaxConcurrency())));
            }
            l.add(row("Delivered mean concurrency:", f2(s.deliveredConcurrencyMean())));
        }
        LoadFidelity.ClientCheck c = f.client();
        l.add(center("Client self-check", '-'));
        if (c.cpuBusyPct() >= 0) {
            l.add(row("Client I/O thread busy (%):", f2(c.cpuBusyPct())));
        }
        l.add(row("Client loop lag P99 (ms):", f2(c.loopLagMsP99())));
        l.add(row("Client loop lag max (ms):", f2(c.loopLagMsMax())));
        l.add(row("Client saturated (0/1):", c.saturated() ? "1" : "0"));
    }

    /** isobench's own lines after the vLLM block (stderr-worthy detail: failures, token sources, queueing). */
    static String detail(LoadgenResult result) {
        Summary s = result.summary();
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
        if (result.clientCpu() != null && result.clientCpu().processS() >= 0) {
            l.add(row("Client CPU, measured phase (s):", String.format(Locale.ROOT, "%.3f", result.clientCpu().processS())));
            if (s.chunks() > 0) {
                l.add(row("Client CPU per chunk (us):",
                        String.format(Locale.ROOT, "%.2f", result.clientCpu().processS() * 1e6 / s.chunks())));
            }
            l.add(row("Client transport:", result.clientCpu().transport()));
        }
        if (result.multiTurn() != null) {
            l.addAll(result.multiTurn().detailLines(result.requests(), result.durationS(), result.config().percentiles()));
        }
        for (var f : s.failuresByReason().entrySet()) {
            l.add(row("Failed (" + f.getKey() + "):", Integer.toString(f.getValue())));
        }
        for (String n : result.notes()) {
            l.add("note: " + n);
        }
        return String.join("\n", l) + "\n";
    }
}
