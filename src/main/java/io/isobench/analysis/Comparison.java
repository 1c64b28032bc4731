package io.isobench.analysis;

import io.isobench.parse.Better;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One comparison "arm vs reference" (human vs baseline, agent vs baseline, agent vs human, and the A/A arm vs
 * baseline) for one metric, over paired rounds, read at one look (docs/statistics.md §5–7, §19). Numbers are
 * {@code null} when undefined.
 *
 * @param arm                label of the arm X (e.g. {@code human}, {@code agent:claude_code})
 * @param reference          label of the reference ({@code baseline}: its run of each round, the A/A run standing in
 *                           only where the baseline's is missing)
 * @param n                  valid rounds of X
 * @param nReference         valid rounds of the reference
 * @param pairs              valid paired rounds the estimate uses
 * @param pairsDropped       rounds where X had a valid value but the reference (and any stand-in) had none
 * @param roundsExcluded     rounds of X or of the reference kept out because the work or hardware differed,
 *                           requests failed or the load generator was saturated ({@link RoundExclusion})
 * @param medianRatio        median(X) / median(reference) over their valid rounds, not oriented (descriptive)
 * @param speedup            the estimate: exp(mean paired log ratio), oriented so > 1 is better
 * @param deltaPct           the estimate as an improvement in percent (DESIGN §5 formula, positive = better)
 * @param ciLowSpeedup       lower bound of the interval better / worse read ({@link Read#ciConfidence()}: 95 % for
 *                           a fixed design, the look's repeated CI for an adaptive one); null for an ordinal metric
 * @param ciHighSpeedup      upper bound
 * @param equivLowSpeedup    lower bound of the equivalence (TOST) interval; null for an ordinal metric
 * @param equivHighSpeedup   upper bound
 * @param df                 degrees of freedom of the t interval (pairs − 1)
 * @param variance           where the per-run variance came from
 * @param pairedCvPct        the per-run CV (percent) of two equally noisy runs whose ratio scatters as X's paired
 *                           rounds do, round drift removed: sqrt(exp(var(d) / 2) − 1)
 * @param marginPct          the margin: better needs speedup > 1 + margin, worse speedup < 1 / (1 + margin);
 *                           equivalent needs the equivalence interval inside both
 * @param mannWhitneyU       U of X against the reference (pairs X > ref plus half the ties), unpaired
 * @param pValue             two-sided Mann-Whitney p-value (reported, not gating)
 * @param pValueMethod       exact, normal or undefined
 * @param verdict            the verdict
 * @param inconclusiveReason why it is inconclusive; null for every other verdict
 * @param reason             one line that explains the verdict
 * @param read               the look the comparison was read at, its levels, and whether more rounds could decide it
 * @param config             the method that produced these numbers
 */
public record Comparison(
        String arm,
        String reference,
        Better better,
        int n,
        int nReference,
        int pairs,
        int pairsDropped,
        int roundsExcluded,
        Double medianRatio,
        Double speedup,
        Double deltaPct,
        Double ciLowSpeedup,
        Double ciHighSpeedup,
        Double equivLowSpeedup,
        Double equivHighSpeedup,
        Integer df,
        Variance variance,
        Double pairedCvPct,
        double marginPct,
        Double mannWhitneyU,
        Double pValue,
        MannWhitney.Method pValueMethod,
        Verdict verdict,
        InconclusiveReason inconclusiveReason,
        String reason,
        Read read,
        StatsConfig config) {

    /** Where a comparison's per-run variance came from. */
    public enum Variance {
        /** X's own paired rounds (the only source: no pooling). */
        OWN_PAIRS,
        /** An ordinal metric (a sweep's capacity): no variance, the sign test decides (§17). */
        ORDINAL,
        /** Not estimated (fewer than two pairs, or nothing to compare). */
        NONE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The look a comparison was read at.
     *
     * @param rounds                the look comes after this many rounds
     * @param ciConfidence          coverage of the better/worse interval (0.95 fixed; a repeated CI's nominal level)
     * @param equivalenceConfidence coverage of the equivalence interval (0.90 fixed)
     * @param logSe                 standard error of the log estimate (null when undefined)
     * @param conditionalPower      at an interim look: the chance of any verdict by the last look under the current
     *                              estimate (null at the last look or when not computed)
     * @param open                  more rounds could still decide it (an interim look, not decided, not futile)
     * @param standInPairs          pairs whose reference was the A/A run (the baseline's run was missing)
     * @param repeated              the intervals are repeated confidence intervals of an adaptive design
     */
    public record Read(int rounds, double ciConfidence, double equivalenceConfidence, Double logSe,
                       Double conditionalPower, boolean open, int standInPairs, boolean repeated) {

        /** {@code 95 % CI} or {@code 99.9 % repeated CI}. */
        public String ciText() {
            return StatsConfig.fmt(Math.round(ciConfidence * 1000) / 10.0) + " % " + (repeated ? "repeated " : "")
                    + "CI";
        }
    }

    public Comparison {
        if (verdict == null || config == null || better == null || variance == null || pValueMethod == null
                || read == null) {
            throw new IllegalArgumentException("verdict, config, better, variance, pValueMethod and read must not be"
                    + " null");
        }
        if ((verdict == Verdict.INCONCLUSIVE) != (inconclusiveReason != null)) {
            throw new IllegalArgumentException("an inconclusive verdict, and only that, carries a reason: " + verdict
                    + ", " + inconclusiveReason);
        }
    }

    /**
     * Flat machine form with snake_case keys (insertion-ordered, unmodifiable; {@code null} values kept), without
     * the config: store it once per task ({@link TaskAnalysis#toMap()}).
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("arm", arm);
        m.put("reference", reference);
        m.put("better", better.label());
        m.put("n", n);
        m.put("n_reference", nReference);
        m.put("pairs", pairs);
        m.put("pairs_dropped", pairsDropped);
        m.put("pairs_aa_reference", read.standInPairs());
        m.put("rounds_excluded", roundsExcluded);
        m.put("median_ratio", medianRatio);
        m.put("speedup", speedup);
        m.put("delta_pct", deltaPct);
        m.put("ci_low_speedup", ciLowSpeedup);
        m.put("ci_high_speedup", ciHighSpeedup);
        m.put("ci_level", variance == Variance.ORDINAL ? null : read.ciConfidence());
        m.put("equivalence_low_speedup", equivLowSpeedup);
        m.put("equivalence_high_speedup", equivHighSpeedup);
        m.put("equivalence_level", variance == Variance.ORDINAL ? null : read.equivalenceConfidence());
        m.put("log_se", read.logSe());
        m.put("df", df);
        m.put("variance", variance.label());
        m.put("paired_cv_pct", pairedCvPct);
        m.put("margin_pct", marginPct);
        m.put("ci_clears_margin", ciClearsMargin());
        m.put("look_rounds", read.rounds());
        m.put("conditional_power", read.conditionalPower());
        m.put("mann_whitney_u", mannWhitneyU);
        m.put("p_value", pValue);
        m.put("p_value_method", pValueMethod.label());
        m.put("verdict", verdict.label());
        m.put("inconclusive_reason", inconclusiveReason == null ? null : inconclusiveReason.label());
        m.put("reason", reason);
        return Collections.unmodifiableMap(m);
    }

    /** The verdict with its inconclusive reason: {@code better}, {@code inconclusive: wide CI}. */
    public String verdictText() {
        return inconclusiveReason == null ? verdict.label() : verdict.label() + ": " + inconclusiveReason.label();
    }

    /**
     * The verdict as every renderer shows it: {@link #verdictText()}, and for {@code equivalent} its margin
     * ("equivalent within ±2 %").
     */
    public String verdictShown() {
        return verdict == Verdict.EQUIVALENT ? "equivalent within ±" + StatsConfig.fmt(
                Math.round(marginPct * 100) / 100.0) + " %" : verdictText();
    }

    /** True when the CI lies wholly above or wholly below 1. */
    public boolean ciExcludesOne() {
        return ciLowSpeedup != null && ciHighSpeedup != null && (ciLowSpeedup > 1.0 || ciHighSpeedup < 1.0);
    }

    /** True when the whole CI lies beyond the margin (a stronger statement than better/worse alone). */
    public boolean ciClearsMargin() {
        if (ciLowSpeedup == null || ciHighSpeedup == null) {
            return false;
        }
        double m = 1 + marginPct / 100.0;
        return ciLowSpeedup > m || ciHighSpeedup < 1 / m;
    }

    /** Decided at its look: better, worse, equivalent, or an outcome more rounds cannot change. */
    public boolean decided() {
        return !read.open();
    }

    /** Standard error of the log estimate (null when undefined). */
    public Double logSe() {
        return read.logSe();
    }

    /** Compares {@code x} with {@code reference} over their paired rounds, with a fixed design's levels. */
    public static Comparison compute(ArmSamples x, ArmSamples reference, ArmSamples standIn, Better better,
                                     int roundsExcluded, StatsConfig config) {
        return compute(x, reference, standIn, better, roundsExcluded, config, LookLevels.fixed(config,
                Math.max(requireArm(x).roundsSpanned(), requireArm(reference).roundsSpanned())));
    }

    /**
     * Compares {@code x} with {@code reference} over their paired rounds, read at {@code look}.
     *
     * @param standIn        the A/A arm when the reference is the baseline (its run stands in, in a round where the
     *                       baseline's is missing), else null
     * @param roundsExcluded rounds of X or the reference excluded for workload, failed requests, hardware or clocks
     * @throws IllegalArgumentException for a metric without direction ({@link Better#NONE})
     */
    public static Comparison compute(ArmSamples x, ArmSamples reference, ArmSamples standIn, Better better,
                                     int roundsExcluded, StatsConfig config, LookLevels look) {
        return compute(x, reference, standIn, better, Excluded.of(roundsExcluded), config, look);
    }

    /**
     * The rounds kept out of one comparison ({@link RoundExclusion}s of X or its reference), counted by what the
     * verdict's reason needs.
     *
     * @param rounds                   distinct rounds in which X or the reference was excluded
     * @param clientSaturated          those of them in which X or the reference was excluded as
     *                                 {@link RoundExclusion.Cause#CLIENT_SATURATED}
     * @param armClientSaturated       rounds in which X itself was excluded as client saturated
     * @param referenceClientSaturated rounds in which the reference itself was excluded as client saturated
     */
    public record Excluded(int rounds, int clientSaturated, int armClientSaturated, int referenceClientSaturated) {

        /** {@code rounds} excluded, none of them for a saturated client. */
        public static Excluded of(int rounds) {
            return new Excluded(rounds, 0, 0, 0);
        }
    }

    /**
     * As {@link #compute(ArmSamples, ArmSamples, ArmSamples, Better, int, StatsConfig, LookLevels)}, with the
     * exclusions by cause: an arm (or reference) left without valid runs because its load generator was saturated,
     * or too few pairs left mostly by such rounds, is inconclusive ({@link InconclusiveReason#CLIENT_SATURATED}), and
     * open, so an adaptive design runs more rounds.
     */
    public static Comparison compute(ArmSamples x, ArmSamples reference, ArmSamples standIn, Better better,
                                     Excluded excluded, StatsConfig config, LookLevels look) {
        if (config == null || look == null || excluded == null) {
            throw new IllegalArgumentException("config, look and excluded must not be null");
        }
        Pairs p = Pairs.of(requireArm(x), requireArm(reference), standIn, requireDirection(better));
        Builder b = new Builder(x, reference, better, excluded, config, p, look);
        double[] xs = x.values();
        double[] rs = reference.values();
        if (xs.length == 0) {
            if (excluded.armClientSaturated() > 0) {
                return b.pending(InconclusiveReason.CLIENT_SATURATED, b.armLabel + " has no valid runs: "
                        + excluded.armClientSaturated() + " round(s) excluded because its load generator was saturated"
                        + " (client_saturated: the client, not the server, set the numbers)");
            }
            return b.done(Verdict.FAILED, null, b.armLabel + " has no valid runs");
        }
        if (rs.length > 0) {
            double mx = Samples.median(xs);
            double mr = Samples.median(rs);
            b.medianRatio = mr == 0 ? null : mx / mr;
            MannWhitney.Result mw = MannWhitney.test(xs, rs, config.exactMaxN());
            b.u = mw.u();
            b.pValue = mw.pValue();
            b.method = mw.method();
        }
        Comparison speed = b.speedVerdict();
        if (!x.failsCorrectness()) {
            return speed;
        }
        return b.closed().done(Verdict.INCORRECT, null, b.armLabel + " failed the correctness gate (speed alone: "
                + speed.verdictText() + "; " + speed.reason() + ")");
    }

    private static ArmSamples requireArm(ArmSamples a) {
        if (a == null) {
            throw new IllegalArgumentException("arm and reference samples must not be null");
        }
        return a;
    }

    private static Better requireDirection(Better better) {
        if (better == null || better == Better.NONE) {
            throw new IllegalArgumentException("metric direction (" + better
                    + ") must be lower or higher: a metric without direction has no better/worse");
        }
        return better;
    }

    /** The computation of one comparison, step by step. */
    private static final class Builder {
        final ArmSamples x;
        final ArmSamples reference;
        final Better better;
        final int excluded;
        final Excluded byCause;
        final StatsConfig config;
        final Pairs p;
        final LookLevels look;
        final String armLabel;
        final double marginLog;
        Double medianRatio;
        Double u;
        Double pValue;
        MannWhitney.Method method = MannWhitney.Method.UNDEFINED;
        Double speedup;
        Double delta;
        Double lo;
        Double hi;
        Double eqLo;
        Double eqHi;
        Integer df;
        Double se;
        Variance variance = Variance.NONE;
        Double cv;
        Double power;
        boolean zeroSpread;
        boolean open;

        Builder(ArmSamples x, ArmSamples reference, Better better, Excluded excluded, StatsConfig config, Pairs pairs,
                LookLevels look) {
            this.x = x;
            this.reference = reference;
            this.better = better;
            this.excluded = excluded.rounds();
            this.byCause = excluded;
            this.config = config;
            this.p = pairs;
            this.look = look;
            this.armLabel = x.arm().label();
            this.marginLog = config.marginLog();
        }

        Builder closed() {
            open = false;
            return this;
        }

        Comparison done(Verdict v, InconclusiveReason why, String reason) {
            return new Comparison(armLabel, reference.arm().label(), better, x.n(), reference.n(), p.n(), p.dropped(),
                    excluded, medianRatio, speedup, delta, lo, hi, eqLo, eqHi, df, variance, cv,
                    Math.expm1(marginLog) * 100.0, u, pValue, method, v, why, reason, new Read(look.rounds(),
                    look.ciConfidence(), look.equivalenceConfidence(), se, power, open, p.standIn(), look.repeated()), config);
        }

        /** Inconclusive, and still open at an interim look. */
        Comparison pending(InconclusiveReason why, String reason) {
            open = look.interim();
            return done(Verdict.INCONCLUSIVE, why, reason);
        }

        Comparison speedVerdict() {
            String refLabel = reference.arm().label();
            if (reference.n() == 0 && p.n() == 0) {
                if (byCause.referenceClientSaturated() > 0) {
                    return pending(InconclusiveReason.CLIENT_SATURATED, refLabel + " (reference) has no valid runs: "
                            + byCause.referenceClientSaturated() + " round(s) excluded because its load generator was"
                            + " saturated (client_saturated: the client, not the server, set the numbers)");
                }
                return done(Verdict.INCONCLUSIVE, InconclusiveReason.NO_REFERENCE, refLabel
                        + " (reference) has no valid runs");
            }
            if (p.undefined()) {
                return done(Verdict.INCONCLUSIVE, InconclusiveReason.UNDEFINED,
                        "speedup undefined: a value is <= 0");
            }
            if (p.n() > 0) {
                estimate();
            }
            int min = config.minPairedRounds();
            if (p.n() < min) {
                String counts = String.format(Locale.ROOT, "%d valid paired round%s (< %d)", p.n(),
                        p.n() == 1 ? "" : "s", min);
                if (excluded > 0 && p.n() + excluded >= min && 2 * byCause.clientSaturated() >= excluded) {
                    return pending(InconclusiveReason.CLIENT_SATURATED, counts + ": " + excluded + " round(s) excluded, "
                            + byCause.clientSaturated() + " of them because the load generator was saturated"
                            + " (client_saturated: the client, not the server, set the numbers)");
                }
                if (excluded > 0 && p.n() + excluded >= min) {
                    return pending(InconclusiveReason.WORKLOAD_MISMATCH, counts + ": " + excluded
                            + " round(s) excluded because the work or hardware differed or requests failed");
                }
                return pending(InconclusiveReason.TOO_FEW_ROUNDS, counts
                        + (p.dropped() > 0 ? ", " + p.dropped() + " dropped for want of a reference run" : ""));
            }
            int signMin = signTestMinPairs(config.confidence());
            if (zeroSpread && p.n() < signMin) {
                // a discrete metric can give the same ratio in every round: its interval has no width, which is no
                // evidence of precision; with no spread to estimate, n agreeing pairs decide only when the exact sign
                // test could: 2 * 0.5^n <= 1 - confidence
                return pending(InconclusiveReason.TOO_FEW_ROUNDS, String.format(Locale.ROOT,
                        "ratio %.4f in each of %d paired rounds: no spread to build an interval from; the exact sign"
                        + " test needs %d agreeing rounds for p <= %s", speedup, p.n(), signMin,
                        StatsConfig.fmt(1 - config.confidence())));
            }
            String ci = String.format(Locale.ROOT, "speedup %.4f, %s%% %sCI [%.4f, %.4f] (%d pairs)", speedup,
                    pct(look.ciConfidence()), look.repeated() ? "repeated " : "", lo, hi, p.n());
            String margin = String.format(Locale.ROOT, "margin %.2f%%", Math.expm1(marginLog) * 100);
            double est = Math.log(speedup);
            if (lo > 1.0 && est > marginLog) {
                return done(Verdict.BETTER, null, ci + " lies above 1 and the estimate beyond the " + margin);
            }
            if (hi < 1.0 && est < -marginLog) {
                return done(Verdict.WORSE, null, ci + " lies below 1 and the estimate beyond the " + margin);
            }
            if (Math.log(eqLo) > -marginLog && Math.log(eqHi) < marginLog) {
                return done(Verdict.EQUIVALENT, null, String.format(Locale.ROOT,
                        "%s%% %sTOST interval [%.4f, %.4f] inside ±%s", pct(look.equivalenceConfidence()),
                        look.repeated() ? "repeated " : "", eqLo, eqHi, margin));
            }
            boolean noisy = cv != null && cv > config.cvGatePct();
            String noise = String.format(Locale.ROOT, "paired per-run CV %.1f%% > %s%%: ", cv == null ? 0 : cv,
                    StatsConfig.fmt(config.cvGatePct()));
            if (look.futility() != null) {
                power = look.futility().conditionalPower(est, Math.sqrt(p.variance()), p.n(), marginLog);
                if (power < look.futility().threshold()) {
                    String why = String.format(Locale.ROOT, "%s; conditional power %.1f%% < %s%% by round %d: more"
                            + " rounds are not expected to decide it", ci, power * 100,
                            StatsConfig.fmt(look.futility().threshold() * 100), look.futility().lastRounds());
                    return noisy ? done(Verdict.INCONCLUSIVE, InconclusiveReason.NOISY, noise + why)
                            : done(Verdict.INCONCLUSIVE, InconclusiveReason.FUTILE, why);
                }
            }
            if (noisy) {
                return pending(InconclusiveReason.NOISY, noise + ci + " neither beyond nor inside ±" + margin);
            }
            return pending(InconclusiveReason.WIDE_CI, ci + " neither beyond nor inside ±" + margin);
        }

        /** Point estimate, own-pairs variance, intervals at the look's levels. */
        void estimate() {
            double est = p.estimate();
            speedup = Math.exp(est);
            // X / reference, not oriented, as the DESIGN §5 improvement formula wants it
            double ratio = better == Better.LOWER ? Math.exp(-est) : Math.exp(est);
            delta = Improvement.pct(better, 1.0, ratio);
            if (p.n() < 2) {
                return;
            }
            double var = p.variance();
            variance = Variance.OWN_PAIRS;
            cv = Math.sqrt(Math.expm1(var / 2)) * 100.0;
            df = p.df();
            zeroSpread = var == 0;
            se = Math.sqrt(var / p.n());
            double t = Distributions.tQuantile(1 - (1 - look.ciConfidence()) / 2, df);
            double t2 = Distributions.tQuantile(1 - (1 - look.equivalenceConfidence()) / 2, df);
            lo = Math.exp(est - t * se);
            hi = Math.exp(est + t * se);
            eqLo = Math.exp(est - t2 * se);
            eqHi = Math.exp(est + t2 * se);
        }

        private static String pct(double level) {
            return StatsConfig.fmt(Math.round(level * 1000) / 10.0);
        }
    }

    /** This comparison with another verdict and reason (a rule that decides again: {@link OrdinalVerdicts}). */
    Comparison withVerdict(Verdict v, InconclusiveReason why, String because) {
        return new Comparison(arm, reference, better, n, nReference, pairs, pairsDropped, roundsExcluded, medianRatio,
                speedup, deltaPct, ciLowSpeedup, ciHighSpeedup, equivLowSpeedup, equivHighSpeedup, df, variance,
                pairedCvPct, marginPct, mannWhitneyU, pValue, pValueMethod, v, why, because, read, config);
    }

    /** This comparison as an ordinal metric's (no t interval kept: the sign test decides), with its verdict. */
    Comparison ordinal(Verdict v, InconclusiveReason why, String because, boolean stillOpen) {
        return new Comparison(arm, reference, better, n, nReference, pairs, pairsDropped, roundsExcluded, medianRatio,
                speedup, deltaPct, null, null, null, null, null, Variance.ORDINAL, null, marginPct, mannWhitneyU,
                pValue, pValueMethod, v, why, because, new Read(read.rounds(), read.ciConfidence(),
                read.equivalenceConfidence(), null, null, stillOpen, read.standInPairs(), read.repeated()), config);
    }

    /**
     * The fewest paired rounds, all in one direction, with which the exact two-sided sign test reaches {@code 1 −
     * confidence}: the smallest n with 2 · 0.5^n ≤ 1 − confidence (6 at 95 %). A comparison whose paired ratios have no
     * spread at all decides only from that many pairs (docs/statistics.md section 7).
     */
    static int signTestMinPairs(double confidence) {
        int n = 1;
        while (2 * Math.pow(0.5, n) > 1 - confidence + 1e-12) {
            n++;
        }
        return n;
    }
}
