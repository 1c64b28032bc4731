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
     * <p>Rates are requests over the span from the phase start to the last send: intended ({@code configured}) and
     * actual ({@code delivered}), so a client that kept the schedule delivers the configured rate (vLLM's fixed-count
     * Poisson schedule puts its last arrival at N/R: configured = {@code --request-rate} exactly). A multi-turn run
     * counts conversation starts (its later turns are due when the previous reply ends; they count for the lag).
     *
     * @param requests                 measured requests with an intended send time
     * @param lagMsP50                 schedule lag, median (ms)
     * @param lagMsP99                 schedule lag, 99th percentile (ms)
     * @param lagMsMax                 schedule lag, maximum (ms)
     * @param lateThresholdMs          a request is late when its lag exceeds this (ms)
     * @param latePct                  share of requests that were late (%)
     * @param configuredRateRps        arrivals over the span from the phase start to the last intended send (req/s):
     *                                 {@code --request-rate} for vLLM's schedule, a trace's requests over its scaled
     *                                 span; null when not defined (every intended send at the phase start)
     * @param deliveredRateRps         arrivals over the span from the phase start to the last actual send (req/s)
     * @param configuredMaxConcurrency {@code --max-concurrency}, or null when none
     * @param deliveredConcurrencyMean time-weighted mean of requests in flight over the measured phase: the sum of
     *                                 every request's send-to-end time over the phase's duration
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
     * @param cpuBusyPct   the I/O thread's CPU time over the measured phase's wall time (%): the one thread every
     *                     byte goes through, so near 100 % the client cannot go faster; -1 when the JVM cannot tell
     *                     (the whole process's share of its allowed cores is in {@link LoadgenResult.ClientCpu}, for
     *                     reference)
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

    /**
     * The thresholds of the check (docs/loadgen.md, "Client self-check", gives the reason for each default).
     *
     * @param lateMs          a request is late when its schedule lag exceeds this ({@code --schedule-late-ms}, 1)
     * @param ioBusyPct       saturated when the I/O thread's CPU share reaches this ({@code --client-busy-limit-pct},
     *                        90)
     * @param loopLagMs       saturated when the event-loop lag p99 exceeds this ({@code --client-loop-lag-limit-ms},
     *                        10)
     * @param scheduleLagMs   saturated when the schedule lag p99 exceeds this ({@code --schedule-lag-limit-ms}, 10)
     */
    public record Limits(double lateMs, double ioBusyPct, double loopLagMs, double scheduleLagMs) {

        public static final Limits DEFAULT = new Limits(1, 90, 10, 10);

        public Limits {
            check("--schedule-late-ms", lateMs);
            check("--client-busy-limit-pct", ioBusyPct);
            check("--client-loop-lag-limit-ms", loopLagMs);
            check("--schedule-lag-limit-ms", scheduleLagMs);
        }

        private static void check(String flag, double v) {
            if (!(v > 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException(flag + " (" + v + ") must be a finite number > 0");
            }
        }
    }
}
