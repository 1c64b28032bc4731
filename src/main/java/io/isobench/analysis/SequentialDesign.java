package io.isobench.analysis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many rounds a session runs, and at which levels its verdicts are read (docs/statistics.md §19): a fixed number
 * of rounds (one look, at the method's confidence), or a group-sequential design — a look after every round from
 * {@code minRounds} to {@code maxRounds}, the error spent over the looks by a Lan–DeMets spending function, verdicts
 * read from repeated confidence intervals (Jennison &amp; Turnbull) so that they hold at whatever look a task stops,
 * and a non-binding futility stop. A task stops at the first look where every gating comparison is decided.
 *
 * <p>The nominal level of each look is <b>calibrated by simulation</b>: under "no effect" the sequence of paired
 * t statistics of one comparison does not depend on the noise level or the round drift (pairs remove the drift, the t
 * statistic the scale), so {@link #PATHS} simulated sequences of standard normal pairs fix, look by look, the critical
 * value that spends exactly the spending function's share of the error among the sequences not yet stopped. The
 * result is stored with every session ({@link #toMap()}), so a report or a resumed session reads the same levels.
 *
 * @param kind          fixed or adaptive
 * @param minRounds     adaptive: the first look (rounds); fixed: the number of rounds
 * @param maxRounds     adaptive: the last look; fixed: the number of rounds
 * @param spending      how the error is spent over the looks (adaptive only)
 * @param futilityPower adaptive: an open comparison whose conditional power (of any verdict by the last look, under
 *                      the current estimate) is below this is {@code futile}; 0 turns futility off
 * @param gating        the comparisons whose decision stops a task (adaptive only)
 * @param stored        the looks as a session stored them (they win over a recomputation); null: computed
 */
public record SequentialDesign(Kind kind, int minRounds, int maxRounds, Spending spending, double futilityPower,
                               Set<Gate> gating, List<Look> stored) {

    /** Fixed or adaptive. */
    public enum Kind {
        FIXED, ADAPTIVE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The Lan–DeMets spending function: the share of the error spent by information fraction t = rounds / max. */
    public enum Spending {
        /** α(t) = 2 − 2 Φ(z(1 − α/2) / √t): spends little early, most at the last look. */
        OBRIEN_FLEMING("obrien_fleming"),
        /** α(t) = α ln(1 + (e − 1) t): spends evenly, much of it at the first look. */
        POCOCK("pocock");

        private final String label;

        Spending(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** The error spent by information fraction {@code t} ∈ (0, 1] of a two-sided {@code alpha}. */
        public double spent(double t, double alpha) {
            if (t >= 1) {
                return alpha;
            }
            return switch (this) {
                case OBRIEN_FLEMING -> 2 * Normal.upperTail(Normal.quantile(1 - alpha / 2) / Math.sqrt(t));
                case POCOCK -> alpha * Math.log(1 + (Math.E - 1) * t);
            };
        }

        public static Spending fromLabel(String s) {
            for (Spending v : values()) {
                if (v.label.equals(s) || v.name().equalsIgnoreCase(s)) {
                    return v;
                }
            }
            throw new IllegalArgumentException("spending '" + s + "' is not one of obrien_fleming, pocock");
        }
    }

    /** Comparisons that can gate a task's stop. */
    public enum Gate {
        /** human vs baseline. */
        HUMAN,
        /** every agent arm vs baseline. */
        AGENTS,
        /** every agent arm vs human (not gating by default: a task then runs until agent-vs-human is decided too). */
        AGENTS_VS_HUMAN;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Gate fromLabel(String s) {
            for (Gate g : values()) {
                if (g.label().equals(s)) {
                    return g;
                }
            }
            throw new IllegalArgumentException("gating '" + s + "' is not one of human, agents, agents_vs_human");
        }
    }

    /**
     * One look's nominal levels.
     *
     * @param rounds          the look comes after this many rounds
     * @param efficacyLevel   two-sided nominal level of the repeated CI that better / worse read (1 − its coverage)
     * @param equivalenceLevel two-sided nominal level of the repeated CI that equivalence reads (TOST at half of it
     *                        per side)
     */
    public record Look(int rounds, double efficacyLevel, double equivalenceLevel) {
        /** Coverage of the better/worse interval, e.g. 0.979. */
        public double ciConfidence() {
            return 1 - efficacyLevel;
        }

        /** Coverage of the equivalence interval, e.g. 0.95. */
        public double equivalenceConfidence() {
            return 1 - equivalenceLevel;
        }
    }

    /** Simulated sequences per schedule. */
    public static final int PATHS = 400_000;
    /** Seed of the calibrating simulation. */
    public static final long SEED = 20261128L;
    /** The largest adaptive maximum (the schedule's simulation holds PATHS × maxRounds values). */
    public static final int MAX_ROUNDS_LIMIT = 20;
    /** Futility threshold by default: conditional power below 3 % (docs/statistics.md §20 says why). */
    public static final double DEFAULT_FUTILITY_POWER = 0.03;

    private static final Map<String, double[]> LEVELS = new ConcurrentHashMap<>();

    public SequentialDesign {
        if (kind == null || spending == null) {
            throw new IllegalArgumentException("design kind and spending must not be null");
        }
        if (minRounds < 1 || maxRounds < minRounds) {
            throw new IllegalArgumentException("rounds: need 1 <= min_rounds (" + minRounds + ") <= max_rounds ("
                    + maxRounds + ")");
        }
        if (kind == Kind.ADAPTIVE && (minRounds < 2 || maxRounds > MAX_ROUNDS_LIMIT)) {
            throw new IllegalArgumentException("adaptive rounds: need 2 <= min_rounds (" + minRounds + ") and max_rounds ("
                    + maxRounds + ") <= " + MAX_ROUNDS_LIMIT);
        }
        if (!(futilityPower >= 0 && futilityPower < 1)) {
            throw new IllegalArgumentException("futility conditional power (" + futilityPower + ") must be in [0, 1)");
        }
        gating = gating == null || gating.isEmpty() ? Collections.unmodifiableSet(EnumSet.of(Gate.HUMAN, Gate.AGENTS))
                : Collections.unmodifiableSet(EnumSet.copyOf(gating));
        stored = stored == null ? null : List.copyOf(stored);
    }

    /** A fixed number of rounds: one look, at the method's confidence. */
    public static SequentialDesign fixed(int rounds) {
        return new SequentialDesign(Kind.FIXED, rounds, rounds, Spending.OBRIEN_FLEMING, 0, null, null);
    }

    /** The default adaptive design: looks after rounds 3…8, O'Brien–Fleming-type spending, futility below 3 %. */
    public static SequentialDesign defaultAdaptive() {
        return adaptive(3, 8, Spending.OBRIEN_FLEMING);
    }

    public static SequentialDesign adaptive(int minRounds, int maxRounds, Spending spending) {
        return new SequentialDesign(Kind.ADAPTIVE, minRounds, maxRounds, spending, DEFAULT_FUTILITY_POWER, null, null);
    }

    public SequentialDesign withFutility(double power) {
        return new SequentialDesign(kind, minRounds, maxRounds, spending, power, gating, null);
    }

    public SequentialDesign withGating(Set<Gate> gates) {
        return new SequentialDesign(kind, minRounds, maxRounds, spending, futilityPower, gates, null);
    }

    public boolean adaptive() {
        return kind == Kind.ADAPTIVE;
    }

    /** Rounds the plan holds: the fixed number, or the adaptive maximum ("up to N"). */
    public int plannedRounds() {
        return maxRounds;
    }

    /** Every look of the design at {@code confidence} (fixed: one). */
    public List<Look> looks(double confidence) {
        double alpha = 1 - confidence;
        if (kind == Kind.FIXED) {
            return List.of(new Look(maxRounds, alpha, 2 * alpha));
        }
        if (stored != null) {
            return stored;
        }
        double[] eff = levels(alpha);
        double[] eq = levels(2 * alpha);
        List<Look> out = new ArrayList<>();
        for (int n = minRounds; n <= maxRounds; n++) {
            out.add(new Look(n, eff[n - minRounds], eq[n - minRounds]));
        }
        return List.copyOf(out);
    }

    /**
     * The look whose levels apply after {@code rounds} rounds: the fixed design's one look; adaptive, the look of that
     * round (the first look before it, the last after it).
     */
    public Look lookAt(int rounds, double confidence) {
        List<Look> looks = looks(confidence);
        if (kind == Kind.FIXED) {
            return new Look(rounds, looks.get(0).efficacyLevel(), looks.get(0).equivalenceLevel());
        }
        int i = Math.max(0, Math.min(looks.size() - 1, rounds - minRounds));
        return looks.get(i);
    }

    /** The nominal two-sided levels per look that spend {@code alpha} (two-sided) by the spending function. */
    private double[] levels(double alpha) {
        String key = minRounds + "|" + maxRounds + "|" + spending + "|" + alpha;
        return LEVELS.computeIfAbsent(key, k -> simulateLevels(minRounds, maxRounds, spending, alpha, PATHS, SEED))
                .clone();
    }

    /**
     * The calibrating simulation: {@code paths} sequences of {@code max} standard normal pairs; at look n (rounds
     * min…max) the paired t statistic |mean| / (sd / √n) with n − 1 degrees of freedom; the critical value of the look
     * is the one that stops exactly round(α(n/max) · paths) − (already stopped) of the sequences still running; its
     * nominal two-sided level 2 · (1 − F_t(c; n − 1)).
     */
    static double[] simulateLevels(int min, int max, Spending spending, double alpha, int paths, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        double[] sum = new double[paths];
        double[] sumSq = new double[paths];
        boolean[] stopped = new boolean[paths];
        double[] out = new double[max - min + 1];
        long rejected = 0;
        int filled = 0;
        for (int n = min; n <= max; n++) {
            for (int p = 0; p < paths; p++) {
                for (int i = filled; i < n; i++) {
                    double z = rng.nextGaussian();
                    sum[p] += z;
                    sumSq[p] += z * z;
                }
            }
            filled = n;
            double[] t = new double[paths];
            int alive = 0;
            for (int p = 0; p < paths; p++) {
                if (stopped[p]) {
                    continue;
                }
                double mean = sum[p] / n;
                double var = (sumSq[p] - n * mean * mean) / (n - 1);
                t[alive++] = var > 0 ? Math.abs(mean) / Math.sqrt(var / n) : Double.POSITIVE_INFINITY;
            }
            long target = Math.round(spending.spent((double) n / max, alpha) * paths);
            long stopNow = Math.max(0, target - rejected);
            double critical;
            if (stopNow == 0 || alive == 0) {
                critical = Double.POSITIVE_INFINITY;
            } else {
                double[] a = Arrays.copyOf(t, alive);
                Arrays.sort(a);
                critical = a[(int) Math.max(0, alive - Math.min(stopNow, alive))];
            }
            for (int p = 0; p < paths; p++) {
                if (stopped[p]) {
                    continue;
                }
                double mean = sum[p] / n;
                double var = (sumSq[p] - n * mean * mean) / (n - 1);
                double tp = var > 0 ? Math.abs(mean) / Math.sqrt(var / n) : Double.POSITIVE_INFINITY;
                if (tp >= critical) {
                    stopped[p] = true;
                    rejected++;
                }
            }
            out[n - min] = Double.isInfinite(critical) ? MIN_LEVEL
                    : Math.max(MIN_LEVEL, 2 * (1 - Distributions.tCdf(critical, n - 1)));
        }
        return out;
    }

    /** The smallest nominal level a look gets (a look that spends nothing rejects nothing). */
    static final double MIN_LEVEL = 1e-9;

    /** One line: {@code adaptive: looks after rounds 3–8, O'Brien–Fleming-type spending, futility < 10 %}. */
    public String describe() {
        if (kind == Kind.FIXED) {
            return maxRounds + " rounds (fixed)";
        }
        return String.format(Locale.ROOT, "adaptive: a look after every round from %d to %d, %s-type error spending,"
                + " repeated confidence intervals, %s; stops when %s decided", minRounds, maxRounds,
                spending == Spending.POCOCK ? "Pocock" : "O'Brien-Fleming",
                futilityPower > 0 ? "non-binding futility below " + StatsConfig.fmt(futilityPower * 100)
                        + " % conditional power" : "no futility stop", gatingText());
    }

    private String gatingText() {
        List<String> g = new ArrayList<>();
        if (gating.contains(Gate.HUMAN)) {
            g.add("human vs baseline");
        }
        if (gating.contains(Gate.AGENTS)) {
            g.add("every agent vs baseline");
        }
        if (gating.contains(Gate.AGENTS_VS_HUMAN)) {
            g.add("every agent vs human");
        }
        return String.join(" and ", g) + (g.size() == 1 ? " is" : " are");
    }

    /** Machine form, stored with the session: the design and every look's nominal levels. */
    public Map<String, Object> toMap(double confidence) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rounds", kind == Kind.FIXED ? (Object) maxRounds : "adaptive");
        m.put("min_rounds", minRounds);
        m.put("max_rounds", maxRounds);
        if (kind == Kind.ADAPTIVE) {
            m.put("spending", spending.label());
            m.put("futility_conditional_power", futilityPower);
            m.put("gating", gating.stream().map(Gate::label).toList());
            m.put("levels_method", "monte_carlo_paired_t_sequence");
            m.put("levels_paths", PATHS);
            m.put("levels_seed", SEED);
        }
        List<Object> looks = new ArrayList<>();
        for (Look l : looks(confidence)) {
            Map<String, Object> lm = new LinkedHashMap<>();
            lm.put("rounds", l.rounds());
            lm.put("efficacy_level", l.efficacyLevel());
            lm.put("equivalence_level", l.equivalenceLevel());
            looks.add(lm);
        }
        m.put("looks", looks);
        return m;
    }

    /** The key of the design in a session's stats settings ({@code stats_config_json}). */
    public static final String KEY = "design";

    /**
     * The design a session stored in its stats settings (key {@value #KEY}); null when it stored none (a session of
     * fixed rounds stored before designs were recorded).
     */
    @SuppressWarnings("unchecked")
    public static SequentialDesign ofSettings(String statsConfigJson) {
        if (statsConfigJson == null || statsConfigJson.isBlank()) {
            return null;
        }
        Map<String, Object> m;
        try {
            m = new com.fasterxml.jackson.databind.ObjectMapper().readValue(statsConfigJson, Map.class);
        } catch (IOException e) {
            throw new IllegalArgumentException("the session's stats_config_json is not JSON: " + e.getMessage(), e);
        }
        Object d = m.get(KEY);
        if (d == null) {
            return null;
        }
        if (!(d instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("the session's rounds design is unreadable: " + d);
        }
        try {
            return fromMap((Map<String, Object>) d);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the session's rounds design is unreadable: " + d + " ("
                    + e.getMessage() + ")", e);
        }
    }

    /**
     * The design stored with a session ({@link #toMap}); its stored looks are the ones used (a resumed session and
     * every later report read the same levels). Null when the map holds none (a session stored before designs were
     * recorded: fixed rounds).
     */
    public static SequentialDesign fromMap(Map<String, Object> m) {
        if (m == null || !m.containsKey("rounds")) {
            return null;
        }
        Object rounds = m.get("rounds");
        if (!"adaptive".equals(rounds)) {
            return fixed(((Number) rounds).intValue());
        }
        Set<Gate> gates = EnumSet.noneOf(Gate.class);
        if (m.get("gating") instanceof List<?> l) {
            for (Object o : l) {
                gates.add(Gate.fromLabel(String.valueOf(o)));
            }
        }
        List<Look> stored = new ArrayList<>();
        if (m.get("looks") instanceof List<?> looks) {
            for (Object o : looks) {
                if (o instanceof Map<?, ?> lm) {
                    stored.add(new Look(((Number) lm.get("rounds")).intValue(),
                            ((Number) lm.get("efficacy_level")).doubleValue(),
                            ((Number) lm.get("equivalence_level")).doubleValue()));
                }
            }
        }
        int min = ((Number) m.get("min_rounds")).intValue();
        int max = ((Number) m.get("max_rounds")).intValue();
        boolean complete = stored.size() == max - min + 1 && stored.stream().allMatch(l -> l.efficacyLevel() > 0
                && l.equivalenceLevel() > 0);
        return new SequentialDesign(Kind.ADAPTIVE, min, max, Spending.fromLabel(String.valueOf(m.get("spending"))),
                ((Number) m.get("futility_conditional_power")).doubleValue(), gates, complete ? stored : null);
    }
}
