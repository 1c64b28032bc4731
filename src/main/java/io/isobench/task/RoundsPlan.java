package io.isobench.task;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.Locale;

/**
 * How many measured rounds a suite runs (suite key {@code run.rounds}, docs/suite-format.md; the statistics in
 * docs/statistics.md §20): a fixed number ({@code rounds: 5}), or adaptive ({@code rounds: adaptive}, the default) — a
 * look after every round from {@code min_rounds} to {@code max_rounds}, each task stopping when its gating comparisons
 * are decided.
 *
 * @param adaptive      adaptive rounds
 * @param minRounds     adaptive: the first look ({@code run.min_rounds}); fixed: the number of rounds
 * @param maxRounds     adaptive: the most rounds ({@code run.max_rounds}); fixed: the number of rounds
 * @param spending      adaptive: {@code obrien_fleming} or {@code pocock} ({@code run.spending})
 * @param futilityPower adaptive: futile below this conditional power ({@code run.futility_power}; 0: never futile)
 * @param gating        adaptive: which comparisons stop a task: {@code human}, {@code agents}, {@code agents_vs_human}
 *                      ({@code run.gating}; default human and agents)
 */
public record RoundsPlan(boolean adaptive, int minRounds, int maxRounds, String spending, double futilityPower,
                         List<String> gating) {

    public static final List<String> SPENDINGS = List.of("obrien_fleming", "pocock");
    public static final List<String> GATES = List.of("human", "agents", "agents_vs_human");
    /** The comparisons that stop a task by default: human vs baseline and every agent vs baseline. */
    public static final List<String> DEFAULT_GATES = List.of("human", "agents");
    public static final int DEFAULT_MIN = 3;
    public static final int DEFAULT_MAX = 8;
    public static final int LIMIT = 20;
    public static final double DEFAULT_FUTILITY = 0.03;

    /** Adaptive, looks after rounds 3…8, O'Brien–Fleming-type spending, futile below 3 %, human and agents gate. */
    public static final RoundsPlan DEFAULT = new RoundsPlan(true, DEFAULT_MIN, DEFAULT_MAX, "obrien_fleming",
            DEFAULT_FUTILITY, DEFAULT_GATES);

    public RoundsPlan {
        if (minRounds < 1 || maxRounds < minRounds) {
            throw new IllegalArgumentException("rounds: need 1 <= min_rounds (" + minRounds + ") <= max_rounds ("
                    + maxRounds + ")");
        }
        if (adaptive && (minRounds < 2 || maxRounds > LIMIT)) {
            throw new IllegalArgumentException("adaptive rounds: need 2 <= min_rounds (" + minRounds
                    + ") and max_rounds (" + maxRounds + ") <= " + LIMIT);
        }
        if (!SPENDINGS.contains(spending)) {
            throw new IllegalArgumentException("spending '" + spending + "' is not one of " + SPENDINGS);
        }
        if (!(futilityPower >= 0 && futilityPower < 1)) {
            throw new IllegalArgumentException("futility power (" + futilityPower + ") must be in [0, 1)");
        }
        gating = List.copyOf(gating == null || gating.isEmpty() ? DEFAULT_GATES : gating);
        for (String g : gating) {
            if (!GATES.contains(g)) {
                throw new IllegalArgumentException("gating '" + g + "' is not one of " + GATES);
            }
        }
    }

    /** A fixed number of rounds. */
    public static RoundsPlan fixed(int rounds) {
        return new RoundsPlan(false, rounds, rounds, "obrien_fleming", 0, DEFAULT_GATES);
    }

    /** The rounds the plan holds: the fixed number, or the adaptive maximum. */
    public int planned() {
        return maxRounds;
    }

    /** {@code 5 rounds (fixed)} or {@code up to 8 rounds (adaptive: first look after round 3, …)}. */
    public String describe() {
        if (!adaptive) {
            return maxRounds + " round" + (maxRounds == 1 ? "" : "s") + " (fixed)";
        }
        return String.format(Locale.ROOT, "up to %d rounds (adaptive: a look after every round from round %d, %s-type"
                + " error spending, futile below %s %% conditional power, stops when %s decided)", maxRounds,
                minRounds, spending.equals("pocock") ? "Pocock" : "O'Brien-Fleming",
                new BigDecimal(futilityPower * 100).round(new MathContext(6)).stripTrailingZeros()
                        .toPlainString(), String.join(" and ", gating.stream().map(g -> switch (g) {
                            case "human" -> "human vs baseline";
                            case "agents" -> "every agent vs baseline";
                            default -> "every agent vs human";
                        }).toList()) + (gating.size() == 1 ? " is" : " are"));
    }
}
