package io.isobench.track;

import io.isobench.analysis.ArmSamples;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.analysis.Verdict;
import io.isobench.parse.Better;

import java.util.List;
import java.util.Locale;

/**
 * The confirmation rule of a candidate change (docs/statistics.md §21): a paired, interleaved session of the commit
 * against its parent, with the parent again as the A/A arm, read by the verdicts' own machinery
 * ({@link TaskAnalysis#analyse(TaskAnalysis.Input, SequentialDesign, int, StatsConfig)}: paired log ratios, the
 * adaptive design's repeated intervals, the margin, the A/A check). The candidate is {@code confirmed} exactly when
 * that comparison's verdict is {@code better} for a faster candidate or {@code worse} for a slower one (its interval
 * excludes no change on the candidate's side and its estimate is beyond the margin); {@code rejected} otherwise
 * (equivalent, inconclusive — A/A unstable included —, the other direction, failed). No second statistic.
 *
 * <p>One more session, once, for a candidate: a confirming session whose verdict is {@code inconclusive} (of any
 * reason) answered nothing, so the pair gets a second, independent session, and that one decides ({@link #reopens},
 * {@link #SESSIONS_PER_PAIR}). It depends on the verdict alone, never on its direction; a session that decided
 * (better, worse, equivalent) is final. The price is at most a doubled false rate in the candidate's direction (each
 * session's is at most α/2); the gain is that a real change is lost far less often to one disturbed run.
 *
 * <p>A bisect step asks another question — on which side of a confirmed change is this commit — and is read against
 * the change's midpoint, not by a verdict ({@link #settles}, {@link #carries}; docs/statistics.md §21c, measured in
 * §21d).
 */
public final class Confirmation {

    /** The status of a change (the names are a contract). */
    public enum Status {
        CANDIDATE, CONFIRMED, REJECTED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The paired session of a commit against its parent, one value per round (rounds 0, 1, … in order; use
     * {@link ArmSamples#ofRounds} for missing rounds).
     *
     * @param parent   the parent's runs: the baseline
     * @param parentAa the parent's runs in an environment of their own: the A/A arm; null when the session ran none
     * @param commit   the commit's runs: the compared arm
     */
    public record PairedSession(String metric, Better better, ArmSamples parent, ArmSamples parentAa,
                                ArmSamples commit) {
    }

    /**
     * A decided candidate.
     *
     * @param status     confirmed or rejected
     * @param direction  what the session measured: faster, slower, or none (no better/worse verdict)
     * @param changePct  the metric's change commit vs parent, percent (exp of the paired mean log ratio, − 1)
     * @param ciLowPct   the low end of the session's interval on that change (the look's repeated CI), percent
     * @param ciHighPct  the high end
     * @param comparison the verdict it was read from (the evidence: its numbers and reason)
     */
    public record Outcome(Status status, Direction direction, double changePct, double ciLowPct, double ciHighPct,
                          Comparison comparison) {
    }

    /** Sessions a candidate's pair of commits gets at most: the first, and one more when the first was inconclusive. */
    public static final int SESSIONS_PER_PAIR = 2;

    /** Where a bisect step's estimate turns from clean to carries: this share of the change, in log space. */
    private static final double MIDPOINT = 0.5;

    private Confirmation() {
    }

    /**
     * Whether a session leaves its pair open, so that the pair gets one more session (at most
     * {@link #SESSIONS_PER_PAIR} in all): its verdict on the commit against the parent is {@code inconclusive}.
     */
    public static boolean reopens(TaskAnalysis session) {
        return session.humanVsBaseline().verdict() == Verdict.INCONCLUSIVE;
    }

    /** The session read by the verdicts' machinery: the parent as baseline (and A/A arm), the commit as human. */
    public static TaskAnalysis analyse(PairedSession s, SequentialDesign design, int roundsRun, StatsConfig config) {
        TaskAnalysis.Input input = new TaskAnalysis.Input(s.metric(), s.better(), s.parent(), s.parentAa(), s.commit(),
                List.of(), List.of());
        return TaskAnalysis.analyse(input, design, roundsRun, config);
    }

    /** Confirmed or rejected: the session's verdict on the commit against its parent, in the candidate's direction. */
    public static Outcome decide(Direction candidate, TaskAnalysis session) {
        Comparison c = session.humanVsBaseline();
        Direction measured = c.verdict() == Verdict.BETTER ? Direction.FASTER
                : c.verdict() == Verdict.WORSE ? Direction.SLOWER : Direction.NONE;
        boolean confirmed = candidate != Direction.NONE && measured == candidate;
        return new Outcome(confirmed ? Status.CONFIRMED : Status.REJECTED, measured, pct(c, c.speedup()),
                bound(c, true), bound(c, false), c);
    }

    /**
     * Whether one bisect step session settles which side of the confirmed change its commit is on (docs/statistics.md
     * §21c): its look's interval lies wholly beyond the change's midpoint (half of it in log space, on its side) or
     * wholly short of it. A session whose interval holds the midpoint, or that has none, leaves the step open: the
     * commit gets one more session ({@link #carries} then reads both).
     *
     * @param changePct the confirmed change, the metric's change later vs earlier commit, percent (not 0)
     * @param step      the step session's analysis (the asked commit as human, the clean end as baseline and A/A)
     */
    public static boolean settles(double changePct, TaskAnalysis step) {
        double change = changeLog(changePct);
        Outcome o = decide(Direction.NONE, step);
        double low = Math.log1p(o.ciLowPct() / 100) / change;
        double high = Math.log1p(o.ciHighPct() / 100) / change;
        return Double.isFinite(low) && Double.isFinite(high)
                && (Math.min(low, high) > MIDPOINT || Math.max(low, high) < MIDPOINT);
    }

    /**
     * A bisect step's answer (docs/statistics.md §21c) from its sessions that measured (one, or two when the first did
     * not {@link #settles settle}): the commit carries the change when the sessions' pooled estimate
     * ({@link #pooledChangePct}) lies beyond the change's midpoint, nearer the change than no change; it is clean when
     * it lies short of it; SKIP when no session has an estimate. The estimate decides, not a verdict against no change:
     * a bisect must put every commit it asks on one side, and the midpoint errs equally both ways, where a verdict
     * calls an open session clean and a clean commit's one disturbed run a carrier.
     *
     * @param changePct the confirmed change, percent (not 0)
     */
    public static Bisect.Answer carries(double changePct, List<TaskAnalysis> sessions) {
        double change = changeLog(changePct);
        double pooled = Math.log1p(pooledChangePct(sessions) / 100);
        if (!Double.isFinite(pooled)) {
            return Bisect.Answer.SKIP;
        }
        return pooled / change > MIDPOINT ? Bisect.Answer.CARRIES : Bisect.Answer.CLEAN;
    }

    /**
     * The sessions' pooled change of the metric, commit vs parent, percent: the mean paired log ratio over all their
     * pairs (each session's mean weighted by its pairs), as a change; NaN when none has an estimate.
     */
    public static double pooledChangePct(List<TaskAnalysis> sessions) {
        double sum = 0;
        int pairs = 0;
        for (TaskAnalysis t : sessions) {
            Comparison c = t.humanVsBaseline();
            double log = Math.log1p(decide(Direction.NONE, t).changePct() / 100);
            if (Double.isFinite(log) && c.pairs() > 0) {
                sum += c.pairs() * log;
                pairs += c.pairs();
            }
        }
        return pairs == 0 ? Double.NaN : Math.expm1(sum / pairs) * 100;
    }

    /** The midpoint of a change, percent: half of it in log space ({@code +10 %} → {@code +4.88 %}). */
    public static double midpointPct(double changePct) {
        return Math.expm1(MIDPOINT * changeLog(changePct)) * 100;
    }

    private static double changeLog(double changePct) {
        double change = Math.log1p(changePct / 100);
        if (!Double.isFinite(change) || change == 0) {
            throw new IllegalArgumentException("a confirmed change is a finite change, not " + changePct + " %");
        }
        return change;
    }

    /** A speedup (> 1 better) as the metric's change commit vs parent, percent. */
    private static double pct(Comparison c, Double speedup) {
        if (speedup == null) {
            return Double.NaN;
        }
        return ((c.better() == Better.HIGHER ? speedup : 1 / speedup) - 1) * 100;
    }

    private static double bound(Comparison c, boolean low) {
        double a = pct(c, c.ciLowSpeedup());
        double b = pct(c, c.ciHighSpeedup());
        return low ? Math.min(a, b) : Math.max(a, b);
    }
}
