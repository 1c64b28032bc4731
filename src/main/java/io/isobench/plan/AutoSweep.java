package io.isobench.plan;

import io.isobench.task.Sweep;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The stop rule of {@code sweep: auto} (docs/loadgen.md, "Load sweeps", auto), GuideLLM-style: find the baseline's
 * saturation rate from a short series of pilot runs, then fix the sweep's points for every arm. Pure and
 * deterministic: the same pilot measurements always give the same next rate and the same points.
 *
 * <ol>
 *   <li><b>Doubling.</b> The first pilot runs at {@link Settings#startRps}; each next one at twice the last rate, until
 *       a run <i>breaks</i>: its share of requests meeting every SLO target is below the sweep's
 *       {@code min_good_fraction}, its achieved request throughput grew by less than {@link Settings#minGrowth}
 *       over the previous run's (the server saturated: more offered load, no more served), or it fell below
 *       (1 − minGrowth) × the offered rate (the server no longer keeps up; this test also applies to bisection).</li>
 *   <li><b>Bisection.</b> Between the highest unbroken rate (lo) and the lowest broken one (hi), the geometric mean
 *       √(lo·hi) is run; it replaces lo or hi; repeated {@link Settings#bisections} times or until hi/lo ≤ 1.1.</li>
 *   <li><b>Bound.</b> At most {@link Settings#maxPilots} pilot runs in all; a series that never breaks ends at the
 *       last rate (the saturation rate is then at least that).</li>
 *   <li><b>Points.</b> The saturation rate s is the highest unbroken rate (the start rate when the first run broke);
 *       the sweep's points are s × {@link Settings#factors} (default ½, 1, 2, 4), rounded to 3 significant digits:
 *       the same points for every arm, so capacities from half to four times the baseline's are told apart.</li>
 * </ol>
 *
 * The pilot runs are the baseline's (the reference every other arm is compared with), before the measured rounds.
 */
public final class AutoSweep {

    private AutoSweep() {
    }

    /**
     * The rule's settings.
     *
     * @param startRps   the first pilot's request rate (req/s)
     * @param minGrowth  a doubling whose achieved throughput grew by less than this fraction saturated (0.1 = 10 %)
     * @param bisections bisection steps after the doubling phase
     * @param maxPilots  pilot runs in all, at most
     * @param factors    the sweep's points as multiples of the saturation rate, ascending
     */
    public record Settings(double startRps, double minGrowth, int bisections, int maxPilots, List<Double> factors) {
        /** 1 req/s, 10 %, 2 bisections, 8 pilots, points ½, 1, 2, 4 × the saturation rate. */
        public static final Settings DEFAULTS = new Settings(1.0, 0.10, 2, 8, List.of(0.5, 1.0, 2.0, 4.0));

        public Settings {
            factors = List.copyOf(factors);
            if (!(startRps > 0) || !(minGrowth >= 0) || bisections < 0 || maxPilots < 1 || factors.isEmpty()) {
                throw new IllegalArgumentException("bad auto sweep settings");
            }
        }
    }

    /**
     * One pilot run's outcome.
     *
     * @param rateRps     the offered request rate
     * @param achievedRps the achieved request throughput
     * @param goodFraction the share of requests meeting every SLO target (null: none known, which breaks the run)
     */
    public record Pilot(double rateRps, double achievedRps, Double goodFraction) {
    }

    /**
     * What to do next: run another pilot at {@code nextRps}, or stop with the sweep's {@code points}.
     *
     * @param nextRps    the next pilot's rate; null when done
     * @param saturationRps the saturation rate found; null until done
     * @param points     the sweep's points; empty until done
     * @param why        one line: why this step
     */
    public record Step(Double nextRps, Double saturationRps, List<Double> points, String why) {
        public Step {
            points = List.copyOf(points);
        }

        public boolean done() {
            return nextRps == null;
        }
    }

    /**
     * The next step after {@code pilots} (in the order they ran).
     *
     * @param minGoodFraction the sweep's {@code min_good_fraction}
     */
    public static Step next(List<Pilot> pilots, double minGoodFraction, Settings s) {
        Objects.requireNonNull(s, "settings");
        if (pilots.isEmpty()) {
            return new Step(s.startRps(), null, List.of(), "first pilot at the start rate");
        }
        Double lo = null;
        Double hi = null;
        boolean doubling = true;
        Pilot previous = null;
        for (Pilot p : pilots) {
            boolean broken = broken(p, doubling ? previous : null, minGoodFraction, s);
            if (broken) {
                hi = hi == null ? p.rateRps() : Math.min(hi, p.rateRps());
                doubling = false;
            } else {
                lo = lo == null ? p.rateRps() : Math.max(lo, p.rateRps());
            }
            previous = p;
        }
        int bisected = countBisections(pilots, minGoodFraction, s);
        if (pilots.size() >= s.maxPilots()) {
            return done(lo, s, "pilot limit " + s.maxPilots() + " reached");
        }
        if (hi == null) {
            return new Step(pilots.get(pilots.size() - 1).rateRps() * 2, null, List.of(),
                    "no pilot broke yet: double the rate");
        }
        if (lo == null) {
            return done(null, s, "the first pilot broke: the saturation rate is at most the start rate");
        }
        if (bisected >= s.bisections() || hi / lo <= 1.1) {
            return done(lo, s, "bisected between " + text(lo) + " and " + text(hi) + " req/s");
        }
        return new Step(round3(Math.sqrt(lo * hi)), null, List.of(), "bisect between " + text(lo) + " and "
                + text(hi) + " req/s");
    }

    /**
     * A pilot broke: the SLO was missed, the server no longer kept up (achieved below (1 − minGrowth) × offered), or
     * (in the doubling phase) its achieved throughput grew by less than minGrowth over the previous pilot's.
     */
    private static boolean broken(Pilot p, Pilot previous, double minGoodFraction, Settings s) {
        if (p.goodFraction() == null || p.goodFraction() < minGoodFraction - 1e-9) {
            return true;
        }
        if (p.achievedRps() < p.rateRps() * (1 - s.minGrowth())) {
            return true;
        }
        return previous != null && p.achievedRps() < previous.achievedRps() * (1 + s.minGrowth());
    }

    /** Pilots after the first broken one are bisection steps. */
    private static int countBisections(List<Pilot> pilots, double minGoodFraction, Settings s) {
        Pilot previous = null;
        for (int i = 0; i < pilots.size(); i++) {
            if (broken(pilots.get(i), previous, minGoodFraction, s)) {
                return pilots.size() - 1 - i;
            }
            previous = pilots.get(i);
        }
        return 0;
    }

    private static Step done(Double lo, Settings s, String why) {
        double sat = lo == null ? s.startRps() : lo;
        List<Double> points = new ArrayList<>();
        for (double f : s.factors()) {
            double p = round3(sat * f);
            if (points.isEmpty() || p > points.get(points.size() - 1)) {
                points.add(p);
            }
        }
        return new Step(null, sat, points, why + "; saturation " + text(sat) + " req/s");
    }

    /** The rule's settings for a task's {@code sweep: auto} (its {@code start_rps} and {@code max_pilots}). */
    public static Settings settingsOf(Sweep sweep) {
        Sweep.Pilots p = sweep.pilots() == null ? Sweep.Pilots.DEFAULTS : sweep.pilots();
        Settings d = Settings.DEFAULTS;
        return new Settings(p.startRps(), d.minGrowth(), d.bisections(), p.maxPilots(), d.factors());
    }

    /** The rule in one line, as {@code --dry-run} and the report state it. */
    public static String ruleText(Settings s, double minGoodFraction) {
        return "from " + text(s.startRps()) + " req/s, doubling until a pilot breaks (good fraction < "
                + text(minGoodFraction) + ", throughput growth < " + text(Math.round(s.minGrowth() * 1000) / 10.0)
                + " %, or achieved < " + text(Math.round((1 - s.minGrowth()) * 1000) / 10.0) + " % of offered), then "
                + s.bisections() + " geometric bisection(s), at most " + s.maxPilots() + " pilot(s); points = saturation"
                + " × " + String.join(", ", s.factors().stream().map(AutoSweep::text).toList());
    }

    /**
     * The baseline's measured job a task's pilots run from (the plan's {@link Plan#pilots}): its client at the start
     * rate, marked as a pilot by its point on the {@code auto} sweep, outside the rounds (round -1).
     */
    static Job template(Job measured, Sweep auto) {
        JobSpec.Measure m = (JobSpec.Measure) measured.spec();
        Job j = measured.withSpec(m.at(new JobSpec.Point(auto, 0, settingsOf(auto).startRps())));
        return j.at(0, measured.taskId() + "/" + measured.arm().label() + "/pilot", -1);
    }

    /**
     * The {@code n}-th pilot (1-based) at {@code rateRps}: the template with the rate as its {@code --request-rate},
     * job id {@code <task>/baseline/pilot<n>/request_rate=<rate>}.
     */
    public static Job pilotJob(Job template, int n, double rateRps) {
        JobSpec.Measure m = (JobSpec.Measure) template.spec();
        Sweep auto = m.point().sweep();
        Job j = template.withSpec(m.at(new JobSpec.Point(auto, n - 1, rateRps)));
        return j.at(0, template.jobId() + n + "/request_rate=" + text(rateRps), -1);
    }

    /** A pilot job of {@code sweep: auto}: a measured job on the auto sweep's point (never one of the rounds). */
    public static boolean isPilot(Job job) {
        JobSpec.Point p = job.sweepPoint();
        return p != null && p.sweep().kind() == Sweep.Kind.AUTO;
    }

    /** Rounded to 3 significant digits. */
    static double round3(double v) {
        return Double.parseDouble(String.format(Locale.ROOT, "%.3g", v));
    }

    private static String text(double v) {
        return Sweep.text(v);
    }
}
