package io.isobench.loadgen;

import io.isobench.loadgen.LoadgenResult.Dist;
import io.isobench.loadgen.LoadgenResult.Summary;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The aggregates of a run's requests with {@code vllm bench serve}'s formulas (throughputs over the benchmark
 * duration, goodput against the SLOs, one-second peak buckets, percentiles), plus isobench's exact in-flight maximum,
 * token-source counts and prompt-length drift.
 */
final class RunSummary {

    private RunSummary() {
    }

    /** The summary of {@code rs} (measured requests, in send order) over {@code durationS} seconds. */
    static Summary of(LoadgenConfig c, List<RequestResult> rs, double durationS) {
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
}
