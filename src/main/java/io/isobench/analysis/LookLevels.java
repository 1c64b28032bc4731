package io.isobench.analysis;

/**
 * The levels a comparison is read at (docs/statistics.md §19): after how many rounds, the coverage of the interval
 * better / worse read and of the equivalence interval, and — at an interim look of an adaptive design — what the
 * futility rule needs. A fixed design has one look at the method's confidence (95 % and the 90 % TOST interval).
 *
 * @param rounds                the look comes after this many rounds
 * @param ciConfidence          coverage of the better/worse interval
 * @param equivalenceConfidence coverage of the equivalence interval
 * @param repeated              the intervals are repeated confidence intervals of a sequential design
 * @param interim               more rounds may follow (an adaptive design before its last look): an undecided
 *                              comparison stays open
 * @param futility              at an interim look of an adaptive design with futility on: the last look's levels and
 *                              the threshold; null otherwise
 */
public record LookLevels(int rounds, double ciConfidence, double equivalenceConfidence, boolean repeated,
                         boolean interim, Futility futility) {

    /**
     * What a futility decision at an interim look needs: the last look's rounds and levels, the threshold.
     *
     * @param remainingRounds       rounds still to come up to the last look
     * @param lastRounds            the last look
     * @param lastCiConfidence      coverage of the last look's better/worse interval
     * @param lastEquivalenceConfidence coverage of the last look's equivalence interval
     * @param threshold             futile below this conditional power
     */
    public record Futility(int remainingRounds, int lastRounds, double lastCiConfidence,
                           double lastEquivalenceConfidence, double threshold) {

        /**
         * The conditional power (Lan, Simon &amp; Halperin's stochastic curtailment, under the current trend): the
         * chance that the last look is better, worse or equivalent when the true log speedup equals the current
         * estimate {@code est} and the paired sd is the current {@code sd}, with every remaining round paired. The
         * last estimate is then normal around {@code est} with sd {@code sd · √m / N} (m remaining, N = n + m
         * pairs); better needs it beyond max(margin, t_N · sd / √N), equivalence inside ±(margin − t'_N · sd / √N).
         */
        double conditionalPower(double est, double sd, int pairs, double marginLog) {
            int m = remainingRounds;
            int total = pairs + m;
            if (m <= 0 || !(sd >= 0) || Double.isNaN(est)) {
                return 1.0;
            }
            double tN = Distributions.tQuantile(1 - (1 - lastCiConfidence) / 2, total - 1);
            double tEq = Distributions.tQuantile(1 - (1 - lastEquivalenceConfidence) / 2, total - 1);
            double spread = sd * Math.sqrt(m) / total;
            double beyond = Math.max(marginLog, tN * sd / Math.sqrt(total));
            double inside = marginLog - tEq * sd / Math.sqrt(total);
            if (spread == 0) {
                return Math.abs(est) > beyond || Math.abs(est) < inside ? 1.0 : 0.0;
            }
            double power = Normal.upperTail((beyond - est) / spread) + Normal.cdf((-beyond - est) / spread);
            if (inside > 0) {
                power += Normal.cdf((inside - est) / spread) - Normal.cdf((-inside - est) / spread);
            }
            return Math.min(1.0, power);
        }
    }

    /** A fixed design's one look after {@code rounds} rounds: 95 % and the 90 % TOST interval by default. */
    public static LookLevels fixed(StatsConfig config, int rounds) {
        return new LookLevels(rounds, config.confidence(), 1 - 2 * config.equivalenceAlpha(), false, false, null);
    }

    /**
     * The levels of {@code design} after {@code rounds} rounds: a fixed design's one look; an adaptive design's look
     * of that round, with the futility rule before the last look.
     */
    public static LookLevels of(SequentialDesign design, int rounds, StatsConfig config) {
        SequentialDesign.Look look = design.lookAt(rounds, config.confidence());
        if (!design.adaptive()) {
            return new LookLevels(rounds, look.ciConfidence(), look.equivalenceConfidence(), false, false, null);
        }
        boolean lastLook = rounds >= design.maxRounds();
        Futility f = null;
        if (!lastLook && design.futilityPower() > 0) {
            SequentialDesign.Look end = design.lookAt(design.maxRounds(), config.confidence());
            f = new Futility(design.maxRounds() - rounds, design.maxRounds(), end.ciConfidence(),
                    end.equivalenceConfidence(), design.futilityPower());
        }
        return new LookLevels(rounds, look.ciConfidence(), look.equivalenceConfidence(), true, !lastLook, f);
    }
}
