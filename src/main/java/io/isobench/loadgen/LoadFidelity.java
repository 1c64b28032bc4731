package io.isobench.loadgen;

import java.util.List;
import java.util.Objects;

/**
 * Whether the load a run delivered was the load it was asked for (docs/loadgen.md, "Schedule fidelity" and "Client
 * self-check"): the arrival schedule kept, and the client not the bottleneck.
 *
 * @param schedule the schedule's fidelity, or null when the run had no arrival schedule (every request at once:
 *                 {@code --request-rate inf} and no timed trace)
 * @param client   the client's check of itself over the measured phase
 */
public record LoadFidelity(Schedule schedule, ClientCheck client) {

    public LoadFidelity {
        Objects.requireNonNull(client, "client");
    }

    /**
     * Intended against actual send times. A request's schedule lag is its actual send time minus the later of its
     * intended time and the moment a concurrency slot was free for it (waiting for a slot under
     * {@code --max-concurrency} is the configured load, not lateness; that wait is the client queue time).
     *
     * @param requests                 measured requests with an intended send time
     * @param lagMsP50                 schedule lag, median (ms)
     * @param lagMsP99                 schedule lag, 99th percentile (ms)
     * @param lagMsMax                 schedule lag, maximum (ms)
     * @param lateThresholdMs          a request is late when its lag exceeds this (ms)
     * @param latePct                  share of requests that were late (%)
     * @param configuredRateRps        the intended request rate over the schedule (req/s): {@code --request-rate}, or
     *                                 a trace's requests over its scaled span; null when not defined
     * @param deliveredRateRps         requests actually sent over the span of actual send times (req/s)
     * @param configuredMaxConcurrency {@code --max-concurrency}, or null when none
     * @param deliveredConcurrencyMean time-weighted mean of requests in flight over the measured phase
     */
    public record Schedule(int requests, double lagMsP50, double lagMsP99, double lagMsMax, double lateThresholdMs,
                           double latePct, Double configuredRateRps, double deliveredRateRps,
                           Integer configuredMaxConcurrency, double deliveredConcurrencyMean) {
    }

    /**
     * The load generator's check of itself: a run where the client, not the server, set the numbers is saturated, its
     * round is excluded from verdicts (docs/statistics.md, "Which rounds count").
     *
     * @param saturated    true when any signal crossed its threshold
     * @param reasons      one line per crossed threshold, with the measured number and the threshold
     *                     (e.g. {@code event-loop lag p99 38.2 ms > 10 ms}); empty when not saturated
     * @param cpuBusyPct   the client process's CPU over the measured phase, % of the CPU time its allowed cores had
     * @param loopLagMsP99 event-loop lag, 99th percentile (ms): how late the I/O loop ran its periodic check
     * @param loopLagMsMax event-loop lag, maximum (ms)
     * @param sendLagMsP99 schedule lag p99 (ms) as above, or null without an arrival schedule
     */
    public record ClientCheck(boolean saturated, List<String> reasons, double cpuBusyPct, double loopLagMsP99,
                              double loopLagMsMax, Double sendLagMsP99) {

        public ClientCheck {
            reasons = List.copyOf(reasons);
        }
    }
}
