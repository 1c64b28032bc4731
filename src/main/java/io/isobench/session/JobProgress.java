package io.isobench.session;

import io.isobench.plan.AutoSweep;
import io.isobench.plan.Job;
import io.isobench.store.RunRecord;
import io.isobench.task.Sweep;

import java.util.Locale;

/**
 * One job's result as progress reports it.
 *
 * @param done    jobs of the plan done (this attempt and earlier ones)
 * @param total   jobs of the plan
 * @param round   {@code round N/M} (a sweep's: {@code round N/M at request_rate=4}), {@code check} or
 *                {@code repeat check}
 * @param outcome the failure, else the primary metric, else ok
 * @param etaS    estimated seconds until the last job ends
 */
public record JobProgress(int done, int total, Job job, String round, Outcome outcome, long etaS) {

    /**
     * What a job's run came to.
     *
     * @param failure the failure category; null when the run succeeded
     * @param metric  the primary metric's name; null when the run has no value
     * @param value   the primary metric's value
     */
    public record Outcome(String failure, String metric, Double value) {

        /** The category, else {@code metric=value}, else ok. */
        public String text() {
            return failure != null ? failure
                    : value != null ? String.format(Locale.ROOT, "%s=%.2f", metric, value)
                    : "ok";
        }
    }

    /** {@code ETA} as minutes:seconds. */
    public String eta() {
        return String.format(Locale.ROOT, "%d:%02d", etaS / 60, etaS % 60);
    }

    static JobProgress of(Tally tally, Job job, RunRecord rec, long etaS, int rounds) {
        Outcome what = new Outcome(rec.failure() == null ? null : rec.failure().category(),
                rec.primaryValue() == null ? null : rec.primaryMetric(), rec.primaryValue());
        String round = job.repeatCheck() ? "repeat check" : job.kind() == Job.Kind.CHECK ? "check"
                : AutoSweep.isPilot(job) ? "pilot " + (job.sweepPoint().index() + 1) + " at "
                + Sweep.text(job.sweepPoint().value()) + " req/s" // sweep: auto, before round 1
                : "round " + (job.round() + 1) + "/" + rounds
                + (job.sweepPoint() == null ? "" : " at " + job.sweepPoint().name()); // a sweep's load point
        return new JobProgress(tally.done, tally.total, job, round, what, etaS);
    }
}
