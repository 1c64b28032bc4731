package io.isobench.analysis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * How k ≥ 2 sessions of one comparison (same task, same arms, same hardware fingerprint) disagree, and what they say
 * together: random-effects pooling of the sessions' log speedups (docs/statistics.md §19). A session's interval
 * describes that session; this is the variation between sessions it does not cover.
 *
 * <ul>
 *   <li>weights w_i = 1 / se_i² (the within-session variance taken as known, as meta-analysis does);</li>
 *   <li>Cochran's Q = Σ w_i (y_i − ȳ_w)², I² = max(0, (Q − (k − 1)) / Q);</li>
 *   <li>DerSimonian–Laird τ² = max(0, (Q − (k − 1)) / (Σw − Σw² / Σw)); τ as a percent: exp(τ) − 1;</li>
 *   <li>pooled: μ = Σ w*_i y_i / Σ w*_i with w*_i = 1 / (se_i² + τ²); its interval by Hartung–Knapp–Sidik–Jonkman:
 *       μ ± t(k − 1) · sqrt(max(1, q) / Σ w*_i), q = Σ w*_i (y_i − μ)² / (k − 1).</li>
 * </ul>
 *
 * <p>The max(1, q) truncation (Knapp & Hartung 2003; Röver, Knapp & Friede 2015) keeps the HKSJ interval from
 * being narrower than the random-effects interval with the same t quantile: without it, sessions that agree by
 * chance (q &lt; 1, common at k = 2 or 3) give an interval narrower than the sessions' own evidence supports — the
 * overconfidence this class exists to prevent. The cost is some over-coverage when τ² is small.
 *
 * @param sessions   the sessions pooled, in input order (k = their number, ≥ 2)
 * @param confidence two-sided level of the pooled interval
 * @param q          Cochran's Q
 * @param tau2       the DerSimonian–Laird between-session variance τ² (log scale)
 * @param pooledLog  the random-effects pooled log speedup μ
 * @param hkScale    the HKSJ scale factor q before the max(1, q) truncation
 * @param pooledSe   the HKSJ standard error of μ, truncation applied
 */
public record SessionSpread(List<Estimate> sessions, double confidence, double q, double tau2, double pooledLog,
                            double hkScale, double pooledSe) {

    /**
     * One session's comparison on the log scale.
     *
     * @param sessionId   the session
     * @param logEstimate the log speedup (oriented: > 0 is better)
     * @param se          its standard error (> 0: a session without spread has no weight)
     * @param df          degrees of freedom of the session's t interval
     */
    public record Estimate(String sessionId, double logEstimate, double se, int df) {
        public Estimate {
            if (sessionId == null || sessionId.isBlank()) {
                throw new IllegalArgumentException("sessionId must not be blank");
            }
            if (!Double.isFinite(logEstimate)) {
                throw new IllegalArgumentException("logEstimate (" + logEstimate + ") of session " + sessionId
                        + " must be finite");
            }
            if (!(se > 0) || Double.isInfinite(se)) {
                throw new IllegalArgumentException("se (" + se + ") of session " + sessionId
                        + " must be > 0 and finite: a session without spread has no weight");
            }
            if (df < 1) {
                throw new IllegalArgumentException("df (" + df + ") of session " + sessionId + " must be >= 1");
            }
        }

        /** The session's speedup, exp(logEstimate). */
        public double speedup() {
            return Math.exp(logEstimate);
        }
    }

    public SessionSpread {
        sessions = List.copyOf(sessions);
    }

    /**
     * The one place a stored comparison becomes a session's (log estimate, se, df): the comparison's own standard
     * error of its log estimate (sd of its paired log ratios / √pairs, docs/statistics.md §5), whatever level its
     * interval was read at. Empty when the comparison has none (an ordinal metric, fewer than two pairs) or it is 0.
     */
    public static Optional<Estimate> estimate(String sessionId, Comparison c) {
        if (c == null || c.speedup() == null || c.logSe() == null || c.df() == null || c.df() < 1) {
            return Optional.empty();
        }
        double se = c.logSe();
        double est = Math.log(c.speedup());
        return se > 0 && Double.isFinite(se) && Double.isFinite(est)
                ? Optional.of(new Estimate(sessionId, est, se, c.df())) : Optional.empty();
    }

    /**
     * Pools k ≥ 2 sessions of one comparison.
     *
     * @throws IllegalArgumentException for fewer than 2 sessions, a session named twice, or a confidence outside (0, 1)
     */
    public static SessionSpread of(List<Estimate> sessions, double confidence) {
        if (sessions == null || sessions.size() < 2) {
            List<String> ids = new ArrayList<>();
            if (sessions != null) {
                sessions.forEach(s -> ids.add(s.sessionId()));
            }
            throw new IllegalArgumentException("a between-session spread needs k >= 2 sessions of the same comparison"
                    + " on the same hardware, got " + ids.size() + (ids.isEmpty() ? "" : " (session "
                    + String.join(", ", ids) + ")") + ": one session's interval describes that session only");
        }
        if (!(confidence > 0 && confidence < 1)) {
            throw new IllegalArgumentException("confidence (" + confidence + ") must be in (0, 1)");
        }
        Set<String> seen = new HashSet<>();
        for (Estimate e : sessions) {
            if (!seen.add(e.sessionId())) {
                throw new IllegalArgumentException("session " + e.sessionId() + " appears twice: each session counts once");
            }
        }
        int k = sessions.size();
        double sw = 0;
        double sw2 = 0;
        double swy = 0;
        for (Estimate e : sessions) {
            double w = 1 / (e.se() * e.se());
            sw += w;
            sw2 += w * w;
            swy += w * e.logEstimate();
        }
        double fixed = swy / sw;
        double q = 0;
        for (Estimate e : sessions) {
            double d = e.logEstimate() - fixed;
            q += d * d / (e.se() * e.se());
        }
        double tau2 = Math.max(0, (q - (k - 1)) / (sw - sw2 / sw));
        double rw = 0;
        double rwy = 0;
        for (Estimate e : sessions) {
            double w = 1 / (e.se() * e.se() + tau2);
            rw += w;
            rwy += w * e.logEstimate();
        }
        double mu = rwy / rw;
        double hk = 0;
        for (Estimate e : sessions) {
            double d = e.logEstimate() - mu;
            hk += d * d / (e.se() * e.se() + tau2);
        }
        hk /= k - 1;
        return new SessionSpread(sessions, confidence, q, tau2, mu, hk, Math.sqrt(Math.max(1, hk) / rw));
    }

    /** Number of sessions pooled. */
    public int k() {
        return sessions.size();
    }

    /** Degrees of freedom of the pooled interval: k − 1. */
    public int df() {
        return k() - 1;
    }

    /** τ, the between-session standard deviation of the log speedup. */
    public double tau() {
        return Math.sqrt(tau2);
    }

    /** τ as a percent: (exp(τ) − 1) × 100, the typical session-to-session change of the speedup. */
    public double tauPct() {
        return Math.expm1(tau()) * 100;
    }

    /** I² (0..1): the share of the spread of the sessions' estimates beyond what their own intervals explain. */
    public double i2() {
        return q > k() - 1 ? (q - (k() - 1)) / q : 0.0;
    }

    /** Whether the max(1, q) truncation widened the HKSJ interval (q &lt; 1). */
    public boolean truncated() {
        return hkScale < 1;
    }

    /** The pooled speedup, exp(μ). */
    public double pooledSpeedup() {
        return Math.exp(pooledLog);
    }

    public double ciLowSpeedup() {
        return Math.exp(pooledLog - halfWidth());
    }

    public double ciHighSpeedup() {
        return Math.exp(pooledLog + halfWidth());
    }

    private double halfWidth() {
        return Distributions.tQuantile((1 + confidence) / 2, df()) * pooledSe;
    }

    /**
     * One plain line: {@code between sessions: speedups 4.310×, 3.810× (2 sessions); between-session spread ±9.0 % (τ);
     * pooled 4.057× [1.854, 8.879] (random effects, HKSJ)}.
     */
    public String line() {
        List<String> s = new ArrayList<>();
        sessions.forEach(e -> s.add(String.format(Locale.ROOT, "%.3f×", e.speedup())));
        return String.format(Locale.ROOT, "between sessions: speedups %s (%d sessions); between-session spread ±%.1f %%"
                + " (τ); pooled %.3f× [%.3f, %.3f] (random effects, HKSJ)", String.join(", ", s), k(), tauPct(),
                pooledSpeedup(), ciLowSpeedup(), ciHighSpeedup());
    }
}
