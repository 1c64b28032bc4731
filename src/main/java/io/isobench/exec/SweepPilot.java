package io.isobench.exec;

import io.isobench.analysis.CapacityRule;
import io.isobench.parse.Metric;
import io.isobench.plan.AutoSweep;
import io.isobench.probe.Clients;
import io.isobench.probe.ServingClient;
import io.isobench.task.ParsedPerfCommand;
import io.isobench.task.Sweep;
import io.isobench.task.TaskSpec;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code sweep: auto}'s pilot runs against a running server (the baseline's; {@code isobench plan sweep-pilot}): the
 * task's client flags at each rate {@link AutoSweep} asks for, through the pinned serving client, until the stop
 * rule gives the sweep's points, printed as the {@code sweep:} line to put in the suite (docs/loadgen.md, "Load
 * sweeps"). By hand, against a server already running; a session runs the same rule itself ({@code session.PilotPhase},
 * each pilot a job of the session's executor, stored as a run).
 */
public final class SweepPilot {

    private SweepPilot() {
    }

    /** The pilots that ran, in order, and the rule's last step (its points). */
    public record Outcome(List<AutoSweep.Pilot> pilots, AutoSweep.Step step) {
        public Outcome {
            pilots = List.copyOf(pilots);
        }

        /** The suite line with the points found: {@code sweep: {request_rate: [2.38, 4.76, 9.52, 19]}}. */
        public String suiteLine(double minGoodFraction) {
            return "sweep: {request_rate: [" + String.join(", ", step.points().stream().map(Sweep::text).toList())
                    + "], min_good_fraction: " + Sweep.text(minGoodFraction) + "}";
        }
    }

    /**
     * Runs the pilots.
     *
     * @param baseUrl  the server
     * @param task     a serving task with {@code --goodput} targets (its sweep's {@code min_good_fraction}, else 0.9)
     * @param settings the stop rule's settings
     * @param client   the serving client ({@link Clients#serving()})
     * @param log      one line per pilot
     */
    public static Outcome run(URI baseUrl, TaskSpec task, AutoSweep.Settings settings, ServingClient client,
                              Consumer<String> log) {
        ParsedPerfCommand cmd = task.parsedCommand();
        if (cmd.client() == null || cmd.client().get("--goodput").isEmpty()) {
            throw new IllegalArgumentException("task " + task.id() + " is not a serving task with --goodput targets");
        }
        double minGood = task.sweep() == null ? Sweep.DEFAULT_MIN_GOOD_FRACTION : task.sweep().minGoodFraction();
        Map<String, String> flags = cmd.client().loadgenFlags();
        List<AutoSweep.Pilot> pilots = new ArrayList<>();
        AutoSweep.Step step = AutoSweep.next(pilots, minGood, settings);
        while (!step.done()) {
            Map<String, String> at = new LinkedHashMap<>(flags);
            at.put("request-rate", Sweep.text(step.nextRps()));
            AutoSweep.Pilot p;
            try {
                Map<String, Double> m = new LinkedHashMap<>();
                for (Metric x : client.run(baseUrl, new ServingClient.Workload(cmd.model(), at, 0, 0)).metrics()) {
                    m.put(x.name(), x.value());
                }
                Double achieved = m.get("request_throughput_rps");
                p = new AutoSweep.Pilot(step.nextRps(), achieved == null ? 0 : achieved, CapacityRule.goodFraction(
                        m.get("request_goodput_rps"), achieved, m.get("completed_requests"), m.get("failed_requests")));
            } catch (ServingClient.ClientFailure e) {
                p = new AutoSweep.Pilot(step.nextRps(), 0, null);
                log.accept("pilot at " + Sweep.text(step.nextRps()) + " req/s failed: " + e.getMessage());
            }
            pilots.add(p);
            log.accept(String.format(Locale.ROOT, "pilot %d at %s req/s: achieved %.3g req/s, good fraction %s"
                    + " (%s)", pilots.size(), Sweep.text(p.rateRps()), p.achievedRps(), p.goodFraction() == null ? "none"
                    : String.format(Locale.ROOT, "%.3f", p.goodFraction()), step.why()));
            step = AutoSweep.next(pilots, minGood, settings);
        }
        log.accept(step.why());
        return new Outcome(pilots, step);
    }
}
