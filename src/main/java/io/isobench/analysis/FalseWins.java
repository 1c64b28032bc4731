package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The chance that a counted test of a leaderboard is a false win (docs/statistics.md §10): for an agent vs baseline
 * comparison on a replay-valid task, P(agent {@code better} | human {@code better}) when the agent has <b>no</b> true
 * effect. Both comparisons read the same baseline runs, so the condition that makes the task count (human better)
 * raises the agent's chance of a false {@code better} above the verdict's nominal one-sided rate.
 *
 * <p>The probability is simulated through the real {@link TaskAnalysis#analyse(TaskAnalysis.Input, SequentialDesign,
 * int, StatsConfig)} under the task's own design (a fixed design: its rounds; an adaptive one: up to its last look),
 * with the task's measured noise and a lower bound on its replay's strength. Model, in log space per round (a round's
 * drift cancels in every pair, so none is drawn): baseline ε_b ~ N(0, σ²_b), the A/A arm ε ~ N(0, σ²_aa) when the task
 * ran one, human −θ + ε_h with ε_h ~ N(0, σ²_h), agent ε_a ~ N(0, σ²_a); lognormal values around 100.
 * <ul>
 *   <li><b>Noise</b>: a comparison's {@code logSe² × pairs} is the variance of its paired log ratios: v_h (human vs
 *       baseline), v_a (agent vs baseline), v_ah (agent vs human), v_aa (A/A). Then σ²_b = (v_h + v_a − v_ah) / 2,
 *       σ²_h = v_h − σ²_b, σ²_a = v_a − σ²_b, σ²_aa = v_aa − σ²_b (at least σ²_b / 4). σ²_b is clamped: at most
 *       {@link #BASELINE_CAP} × min(v_h, v_a) (each compared arm keeps some noise of its own) and at least
 *       {@link #BASELINE_FLOOR} × min(v_h, v_a) (the baseline as noisy as the quieter arm) and, with an A/A arm,
 *       v_aa / 2 (the baseline's code run twice), without one max(v_h, v_a) / 2. A quieter baseline gives a smaller
 *       figure, the side not to err on; and the human's pairs are selected (the task counts only when the human is
 *       better, which favours a small spread), so the floor leans on pairs that are not.</li>
 *   <li><b>Replay strength</b>: θ ({@link #theta}) a {@link #THETA_LEVEL} lower bound on the human's true log
 *       speedup that allows for the selection: a replay valid only by chance gets θ = 0. The figure falls as θ grows,
 *       so it holds whenever each human's true effect is at least its θ — the condition stated beside it.</li>
 *   <li><b>Importance sampling</b>: with θ ≈ 0 the human is better in 1–2.5 % of sessions, too rare for plain Monte
 *       Carlo at a few hundred sessions. Each simulated session draws its arms' noise from one of two shifted normal
 *       distributions, chosen with probability ½ ({@link #shifts}): the baseline up and the human down so that the
 *       human is often better, or the baseline up and both the human and the agent down so that both often are. It
 *       is weighted by the exact likelihood ratio p / q of the draws of the rounds its analysis read (the stopping
 *       look is a stopping time, so the ratio there is exact). The figure is Σ w·[A better ∧ H better] /
 *       Σ w·[H better], with its delta-method Monte Carlo error; {@link #SESSIONS} sessions per test.</li>
 *   <li><b>Without an estimate</b> (a comparison without {@code logSe}): fewer than the minimum paired rounds vs
 *       baseline — 0, exactly (such a comparison cannot be {@code better}); an ordinal metric (a sweep's capacity,
 *       decided by the sign test) or a missing human / agent-vs-human estimate — {@link #fallback}: the figure of a
 *       chance-valid replay (θ = 0) with equally noisy arms under the task's design, and for an ordinal metric at least
 *       (2/3)^m, m the sign test's fewest pairs (with exchangeable noise, given the baseline's rounds the human and
 *       the agent each beat it in a round with probability F(b); both in all m rounds: E[F²]^m / E[F]^m of the
 *       human's E[F]^m).</li>
 * </ul>
 * Deterministic: each test draws from its own seed (the task, commit, hardware, agent and measured numbers).
 */
public final class FalseWins {

    /** Simulated sessions per counted test. */
    public static final int SESSIONS = 400;
    /** σ²_b at least this × min(v_h, v_a), and this × (v_aa, or max(v_h, v_a) without an A/A arm). */
    public static final double BASELINE_FLOOR = 0.5;
    /** σ²_b at most this × min(v_h, v_a). */
    public static final double BASELINE_CAP = 0.9;
    /** One-sided level of the lower bound on the human's true effect. */
    public static final double THETA_LEVEL = 0.99;

    /** Where a test's figure came from. */
    public enum Basis {
        /** Simulated from the task's measured noise and replay strength. */
        SIMULATED,
        /** The agent had fewer paired rounds than a verdict needs: it cannot be better (0). */
        TOO_FEW_PAIRS,
        /** No log standard error to model (an ordinal metric, or an estimate missing): the stated fallback. */
        FALLBACK
    }

    /**
     * The per-round noise of the model, variances of log values.
     *
     * @param baseline σ²_b
     * @param human    σ²_h
     * @param agent    σ²_a
     * @param aa       σ²_aa; NaN when the task ran no A/A arm
     * @param clamped  σ²_b was moved into its clamp
     */
    public record Noise(double baseline, double human, double agent, double aa, boolean clamped) {
        boolean hasAa() {
            return !Double.isNaN(aa);
        }
    }

    /**
     * What is simulated: the human's true log speedup θ, the noise, the design and the rounds it may run.
     *
     * @param metric metric name (its direction in {@code better})
     * @param rounds rounds the simulated session runs (a fixed design: its rounds; adaptive: up to its last look)
     */
    public record Model(String metric, Better better, double theta, Noise noise, SequentialDesign design,
                        int rounds) {
    }

    /**
     * One test's figure.
     *
     * @param rate     P(agent better | human better)
     * @param mcSe     its Monte Carlo standard error (0 for a rule that is not simulated)
     * @param basis    where it came from
     * @param model    the model simulated; null unless {@code SIMULATED}
     */
    public record Estimate(double rate, double mcSe, Basis basis, Model model) {
    }

    private static final Map<String, Double> FALLBACKS = new ConcurrentHashMap<>();

    private FalseWins() {
    }

    /**
     * The figure of one counted test: the agent arm {@code agent} of task {@code t}, whose human is better.
     *
     * @param seed the test's own seed (the leaderboard derives it from the task, hardware and agent)
     */
    public static Estimate of(TaskAnalysis t, AgentOutcome agent, long seed, StatsConfig config) {
        Comparison hb = t.humanVsBaseline();
        Comparison ab = agent.vsBaseline();
        Comparison ah = agent.vsHuman();
        Stopping st = t.stopping();
        SequentialDesign design = st.adaptive() ? st.design() : SequentialDesign.fixed(Math.max(1, st.roundsRun()));
        int rounds = st.adaptive() && st.reason() != Stopping.Reason.RUNNING ? design.plannedRounds()
                : Math.max(1, st.roundsRun());
        if (ab.pairs() < config.minPairedRounds() && ab.variance() != Comparison.Variance.ORDINAL) {
            return new Estimate(0, 0, Basis.TOO_FEW_PAIRS, null);
        }
        boolean ordinal = hb.variance() == Comparison.Variance.ORDINAL || ab.variance() == Comparison.Variance.ORDINAL;
        Double vh = variance(hb);
        Double va = variance(ab);
        Double vah = variance(ah);
        if (ordinal || vh == null || va == null || vah == null || hb.speedup() == null || !(Math.min(vh, va) > 0)) {
            return new Estimate(fallback(t.metric(), t.better(), design, rounds, t.aa() != null, ordinal, config), 0,
                    Basis.FALLBACK, null);
        }
        Double vaa = t.aa() == null ? null : variance(t.aa());
        Noise noise = noise(vh, va, vah, vaa == null ? Double.NaN : vaa, t.aa() != null);
        double theta = theta(hb, design, config);
        Model m = new Model(t.metric(), t.better(), theta, noise, design, rounds);
        long s = seed;
        for (double v : new double[] {vh, va, vah, theta}) {
            s = mix(s ^ Double.doubleToLongBits(v));
        }
        return simulate(m, SESSIONS, s, config);
    }

    /**
     * θ, the human's true log speedup assumed: the smaller of two {@link #THETA_LEVEL} lower bounds, and 0 when both
     * are below it. The plain one, est − t(level, df) · logSe. And one <b>given that the human was better</b> — the task
     * counts only then, so its estimate is selected (a replay valid by chance clears the bar by a little, and the
     * plain bound would often credit it with an effect): with the estimate normal around θ with the measured logSe, T
     * = est / logSe and c the most lenient bar the human could have cleared, max(t of the design's last look, margin /
     * logSe), the θ at which P(T ≥ t_obs | T ≥ c) = 1 − level (truncated-normal inference after selection, as in Lee,
     * Sun, Sun &amp; Taylor 2016). Near c it is 0; far above c it is est − z(level) · logSe.
     */
    static double theta(Comparison hb, SequentialDesign design, StatsConfig config) {
        double est = Math.log(hb.speedup());
        double se = hb.logSe();
        int df = hb.df();
        if (!(se > 0)) {
            return Math.max(0, est);
        }
        double plain = est - Distributions.tQuantile(THETA_LEVEL, df) * se;
        double tObs = est / se;
        double level = design.adaptive() ? design.lookAt(design.maxRounds(), config.confidence()).ciConfidence()
                : hb.read().ciConfidence();
        int lastDf = design.adaptive() ? Math.max(1, design.maxRounds() - 1) : df;
        double c = Math.min(tObs, Math.max(Distributions.tQuantile(1 - (1 - level) / 2, lastDf),
                config.marginLog() / se));
        double alpha = 1 - THETA_LEVEL;
        if (plain <= 0 || tailRatio(0, tObs, c) >= alpha) {
            return 0;
        }
        double lo = 0;
        double hi = tObs;
        for (int i = 0; i < 60; i++) {
            double mid = (lo + hi) / 2;
            if (tailRatio(mid, tObs, c) < alpha) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return Math.min(plain, lo * se);
    }

    /** P(T ≥ t | T ≥ c) for T ~ N(δ, 1), c ≤ t; increasing in δ. */
    private static double tailRatio(double delta, double t, double c) {
        double below = Normal.cdf(delta - c);
        return below <= 0 ? 1 : Normal.cdf(delta - t) / below;
    }

    /** The variance of a comparison's paired log ratios, logSe² × pairs; null without an estimate. */
    static Double variance(Comparison c) {
        if (c == null || c.logSe() == null || c.pairs() < 2 || c.variance() == Comparison.Variance.ORDINAL) {
            return null;
        }
        return c.logSe() * c.logSe() * c.pairs();
    }

    /** σ² per arm from the three (or four) comparisons' variances, clamped as the class says. */
    static Noise noise(double vh, double va, double vah, double vaa, boolean hasAa) {
        double m = Math.min(vh, va);
        double raw = (vh + va - vah) / 2;
        // the human's pairs are selected (the task counts only when the human is better, which favours a small
        // spread): the floor leans on pairs that are not — the A/A arm's (the baseline's code run twice), else the
        // noisier of the two comparisons
        double floor = BASELINE_FLOOR * (hasAa ? Math.max(m, Double.isNaN(vaa) ? 0 : vaa) : Math.max(vh, va));
        double b = Math.min(BASELINE_CAP * m, Math.max(floor, raw));
        boolean clamped = b != raw;
        double aa = !hasAa ? Double.NaN : Double.isNaN(vaa) ? b : Math.max(b / 4, vaa - b);
        return new Noise(b, vh - b, va - b, aa, clamped);
    }

    /**
     * The fallback figure: a chance-valid replay (θ = 0) with equally noisy arms (CV 4 % each) under the design;
     * for an ordinal metric at least (2/3)^m, m = the sign test's fewest pairs. Cached per design.
     */
    static double fallback(String metric, Better better, SequentialDesign design, int rounds, boolean aa,
                           boolean ordinal, StatsConfig config) {
        String key = design + "|" + rounds + "|" + aa + "|" + config;
        double sigma2 = Math.log1p(0.04 * 0.04);
        double equal = FALLBACKS.computeIfAbsent(key, k -> simulate(new Model(metric, better, 0, new Noise(sigma2,
                sigma2, sigma2, aa ? sigma2 : Double.NaN, false), design, rounds), 4 * SESSIONS, 20261128L, config)
                .rate());
        return ordinal ? Math.max(equal, Math.pow(2.0 / 3, Comparison.signTestMinPairs(config.confidence()))) : equal;
    }

    /**
     * P(agent better | human better) under {@code m}, {@code sessions} importance-sampled sessions through the real
     * analysis ({@link #shifts}: each session draws from one of two shifted distributions, chosen with probability ½,
     * and is weighted by the exact likelihood ratio of the rounds the stopped analysis read).
     */
    static Estimate simulate(Model m, int sessions, long seed, StatsConfig config) {
        return simulate(m, sessions, seed, config, shifts(m, config));
    }

    /**
     * The same with the given shifts: {@code mu[j]} = {baseline, human, agent} mean shift of component j, per round, in
     * log cost; {@code {{0, 0, 0}}}: plain Monte Carlo, every weight 1.
     */
    static Estimate simulate(Model m, int sessions, long seed, StatsConfig config, double[][] mu) {
        Noise n = m.noise();
        double[] var = {n.baseline(), n.human(), n.agent()};
        double[] sd = {Math.sqrt(var[0]), Math.sqrt(var[1]), Math.sqrt(var[2])};
        double saa = n.hasAa() ? Math.sqrt(n.aa()) : 0;
        int r = m.rounds();
        double sign = m.better() == Better.HIGHER ? -1 : 1; // x is a log cost: lower is better
        SplittableRandom rng = new SplittableRandom(seed);
        double[] wh = new double[sessions];
        double[] wha = new double[sessions];
        double sumH = 0;
        double sumHa = 0;
        double[][] eps = new double[3][r];
        for (int s = 0; s < sessions; s++) {
            double[] shift = mu[rng.nextInt(mu.length)];
            double[][] x = new double[4][r]; // baseline, human, agent, A/A
            for (int i = 0; i < r; i++) {
                for (int a = 0; a < 3; a++) {
                    eps[a][i] = shift[a] + sd[a] * rng.nextGaussian();
                }
                x[0][i] = 100 * Math.exp(sign * eps[0][i]);
                x[1][i] = 100 * Math.exp(sign * (eps[1][i] - m.theta()));
                x[2][i] = 100 * Math.exp(sign * eps[2][i]);
                x[3][i] = 100 * Math.exp(sign * saa * rng.nextGaussian());
            }
            TaskAnalysis t = TaskAnalysis.analyse(TaskAnalysis.Input.of(m.metric(), m.better(),
                    ArmSamples.of(Arm.BASELINE, x[0]), ArmSamples.of(Arm.HUMAN, x[1]))
                    .withBaselineAa(n.hasAa() ? ArmSamples.of(Arm.BASELINE_AA, x[3]) : null)
                    .withAgents(List.of(ArmSamples.of(AGENT, x[2]))), m.design(), r,
                    config);
            if (t.humanVsBaseline().verdict() == Verdict.BETTER) {
                double w = weight(eps, t.stopping().lookRounds(), mu, var);
                wh[s] = w;
                sumH += w;
                if (t.agents().get(0).vsBaseline().verdict() == Verdict.BETTER) {
                    wha[s] = w;
                    sumHa += w;
                }
            }
        }
        if (sumH == 0) {
            return new Estimate(0, 0, Basis.SIMULATED, m);
        }
        double rate = sumHa / sumH;
        double ss = 0;
        for (int s = 0; s < sessions; s++) {
            double e = wha[s] - rate * wh[s];
            ss += e * e;
        }
        return new Estimate(rate, Math.sqrt(ss) / sumH, Basis.SIMULATED, m);
    }

    /**
     * The likelihood ratio p / q of the first {@code used} rounds' draws — the rounds the stopped analysis read (a
     * stopping time, so the ratio there is exact) — p: every arm's noise N(0, σ²_arm); q: the equal mixture over the
     * components j of N(μ_j,arm, σ²_arm).
     */
    static double weight(double[][] eps, int used, double[][] mu, double[] var) {
        int k = Math.min(used, eps[0].length);
        double[] sum = new double[eps.length];
        for (int a = 0; a < eps.length; a++) {
            for (int i = 0; i < k; i++) {
                sum[a] += eps[a][i];
            }
        }
        // log q_j / p = Σ_arm (μ Σ ε − k μ² / 2) / σ²
        double[] l = new double[mu.length];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < mu.length; j++) {
            for (int a = 0; a < eps.length; a++) {
                l[j] += (mu[j][a] * sum[a] - k * mu[j][a] * mu[j][a] / 2) / var[a];
            }
            max = Math.max(max, l[j]);
        }
        double q = 0;
        for (double lj : l) {
            q += Math.exp(lj - max);
        }
        return Math.exp(-max) * mu.length / q;
    }

    private static final Arm AGENT = Arm.agent("false_wins");

    /**
     * The two components' mean shifts {baseline, human, agent}, per round, in log cost. A comparison's paired estimate
     * has to reach c = max(margin, t* · √(v / n)) to be better at the design's last look (n rounds, t* its critical
     * value, v its paired variance): the human lacks Δ_h = c_h − θ, the agent Δ_a = c_a. The likeliest way there
     * (least Σ shift² / σ² over the arms' means) moves the baseline up by B, minimising B² / σ²_b + (Δ_h − B)₊² / σ²_h
     * [+ (Δ_a − B)₊² / σ²_a], and the human and agent down by the rest: the first component for the human alone, the
     * second for both.
     */
    static double[][] shifts(Model m, StatsConfig config) {
        int n = m.design().adaptive() ? Math.min(m.rounds(), m.design().maxRounds()) : m.rounds();
        if (n < 2) {
            return new double[][] {{0, 0, 0}};
        }
        Noise v = m.noise();
        double t = Distributions.tQuantile(1 - (1 - m.design().lookAt(n, config.confidence()).ciConfidence()) / 2,
                n - 1);
        double dh = Math.max(config.marginLog(), t * Math.sqrt((v.baseline() + v.human()) / n)) - m.theta();
        double da = Math.max(config.marginLog(), t * Math.sqrt((v.baseline() + v.agent()) / n));
        double b1 = likeliest(dh, 0, v);
        double b2 = likeliest(dh, da, v);
        return new double[][] {{b1, -Math.max(0, dh - b1), 0}, {b2, -Math.max(0, dh - b2), -Math.max(0, da - b2)}};
    }

    /** argmin over B ≥ 0 of B² / σ²_b + (Δ_h − B)₊² / σ²_h + (Δ_a − B)₊² / σ²_a (convex: bisection on its slope). */
    static double likeliest(double dh, double da, Noise v) {
        double lo = 0;
        double hi = Math.max(0, Math.max(dh, da));
        for (int i = 0; i < 60 && hi > 0; i++) {
            double b = (lo + hi) / 2;
            double slope = b / v.baseline() - Math.max(0, dh - b) / v.human() - Math.max(0, da - b) / v.agent();
            if (slope > 0) {
                hi = b;
            } else {
                lo = b;
            }
        }
        return (lo + hi) / 2;
    }

    /** A test's seed from its identity (task, commit, hardware, agent; nulls allowed): String hashes, mixed. */
    public static long seed(String... parts) {
        long s = 0x5EEDL;
        for (String p : parts) {
            s = mix(s ^ (p == null ? 0 : p.hashCode()));
        }
        return s;
    }

    /** SplitMix64's finaliser: a seed from a seed. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
