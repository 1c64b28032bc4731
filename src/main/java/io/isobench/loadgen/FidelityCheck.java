package io.isobench.loadgen;

import io.isobench.loadgen.LoadFidelity.ClientCheck;
import io.isobench.loadgen.LoadFidelity.Limits;
import io.isobench.loadgen.LoadFidelity.Schedule;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Computes a run's {@link LoadFidelity} from its measured requests and what the client saw of itself
 * (docs/loadgen.md, "Schedule fidelity" and "Client self-check"). Pure arithmetic: every number here is derived from
 * the times the I/O loop stamped, nothing is measured.
 */
final class FidelityCheck {

    private FidelityCheck() {
    }

    /**
     * What the measured phase saw beyond its requests.
     *
     * @param scheduled  true when the run had an arrival schedule (an intended send after the phase start: a finite
     *                   {@code --request-rate}, a ramp-up, a timed trace)
     * @param arrivals   the requests that were arrivals of the schedule (every request; a multi-turn run: each
     *                   conversation's first turn), for the rates
     * @param loopLagNs  the event loop's tick lags over the phase (ns)
     */
    record Observed(boolean scheduled, List<RequestResult> arrivals, long[] loopLagNs) {
    }

    /** The fidelity of a measured phase under {@code limits}. */
    static LoadFidelity of(Limits limits, Integer maxConcurrency, LoadGenerator.Measured phase) {
        Observed seen = phase.observed();
        double durationS = phase.run().durationS();
        Schedule schedule = seen.scheduled() && !phase.requests().isEmpty()
                ? schedule(phase.requests(), seen.arrivals(), maxConcurrency, durationS, limits.lateMs()) : null;
        LoadgenResult.ClientCpu cpu = phase.cpu();
        double busyPct = cpu == null || cpu.ioThreadS() < 0 || !(durationS > 0) ? -1
                : 100.0 * cpu.ioThreadS() / durationS;
        return new LoadFidelity(schedule, check(limits, busyPct, seen.loopLagNs(), schedule));
    }

    /**
     * Schedule fidelity: lags of {@code all}, rates of {@code arrivals} (offsets from the phase start), mean requests
     * in flight over {@code durationS}.
     */
    static Schedule schedule(List<RequestResult> all, List<RequestResult> arrivals, Integer maxConcurrency,
                             double durationS, double lateMs) {
        double[] lag = new double[all.size()];
        int late = 0;
        long busyNs = 0;
        for (int i = 0; i < lag.length; i++) {
            RequestResult r = all.get(i);
            lag[i] = r.scheduleLagNs() / 1e6;
            if (lag[i] > lateMs) {
                late++;
            }
            busyNs += Math.max(0, r.endNs() - r.sendNs());
        }
        Arrays.sort(lag);
        long lastIntended = 0;
        long lastSent = 0;
        for (RequestResult r : arrivals) {
            lastIntended = Math.max(lastIntended, r.scheduledNs());
            lastSent = Math.max(lastSent, r.sendNs());
        }
        Double configured = lastIntended > 0 ? arrivals.size() / (lastIntended / 1e9) : null;
        double delivered = lastSent > 0 ? arrivals.size() / (lastSent / 1e9) : 0;
        double meanInFlight = durationS > 0 ? busyNs / (durationS * 1e9) : 0;
        return new Schedule(lag.length, Stats.percentile(lag, 50), Stats.percentile(lag, 99),
                lag.length == 0 ? 0 : lag[lag.length - 1], lateMs, lag.length == 0 ? 0 : 100.0 * late / lag.length,
                configured, delivered, maxConcurrency, meanInFlight);
    }

    /**
     * The client's check of itself: saturated when the I/O thread's busy share ({@code busyPct}, -1 unknown) reaches
     * its limit, or the loop-lag p99 or the schedule-lag p99 (when there is a schedule) exceeds its limit.
     */
    static ClientCheck check(Limits limits, double busyPct, long[] loopLagNs, Schedule schedule) {
        double[] ms = new double[loopLagNs.length];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = loopLagNs[i] / 1e6;
        }
        Arrays.sort(ms);
        double p99 = Stats.percentile(ms, 99);
        double max = ms.length == 0 ? 0 : ms[ms.length - 1];
        List<String> reasons = new ArrayList<>();
        if (busyPct >= limits.ioBusyPct()) {
            reasons.add(String.format(Locale.ROOT, "I/O thread busy %.1f %% >= %s %%", busyPct, num(limits.ioBusyPct())));
        }
        if (p99 > limits.loopLagMs()) {
            reasons.add(String.format(Locale.ROOT, "event-loop lag p99 %.2f ms > %s ms", p99, num(limits.loopLagMs())));
        }
        if (schedule != null && schedule.lagMsP99() > limits.scheduleLagMs()) {
            reasons.add(String.format(Locale.ROOT, "schedule lag p99 %.2f ms > %s ms", schedule.lagMsP99(),
                    num(limits.scheduleLagMs())));
        }
        return new ClientCheck(!reasons.isEmpty(), reasons, busyPct, p99, max,
                schedule == null ? null : schedule.lagMsP99());
    }

    /** A threshold as written: 10 as "10", 2.5 as "2.5". */
    static String num(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
