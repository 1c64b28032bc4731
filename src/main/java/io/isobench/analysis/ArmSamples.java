package io.isobench.analysis;

import io.isobench.Arm;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * The valid rounds of one arm for one metric: which measured rounds (0-based) gave a valid value, and the values,
 * in round order. A round is valid when its run succeeded, did the same work as the baseline's run of that round and
 * lost no request (docs/statistics.md, "Which rounds count"); the rest are {@link RoundExclusion}s. No valid runs =
 * empty samples ({@code failed}). Immutable: the arrays are copied in and out.
 *
 * @param rounds           the round of each value, strictly increasing
 * @param valuesByRound    the values, same length as {@code rounds}
 * @param failsCorrectness the arm's outputs failed the correctness gate: its speed is never called better
 */
public record ArmSamples(Arm arm, int[] rounds, double[] valuesByRound, boolean failsCorrectness) {

    public ArmSamples {
        if (arm == null) {
            throw new IllegalArgumentException("arm must not be null");
        }
        Samples.requireFinite(valuesByRound, arm.label() + " samples");
        if (rounds == null || rounds.length != valuesByRound.length) {
            throw new IllegalArgumentException(arm.label() + ": one round per value is needed ("
                    + (rounds == null ? "no rounds" : rounds.length + " rounds") + ", " + valuesByRound.length
                    + " values)");
        }
        for (int i = 0; i < rounds.length; i++) {
            if (rounds[i] < 0 || i > 0 && rounds[i] <= rounds[i - 1]) {
                throw new IllegalArgumentException(arm.label() + ": rounds must be >= 0 and strictly increasing: "
                        + Arrays.toString(rounds));
            }
        }
        rounds = rounds.clone();
        valuesByRound = valuesByRound.clone();
    }

    /** Values of rounds 0, 1, 2… (every round valid). */
    public static ArmSamples of(Arm arm, double... valuesInRoundOrder) {
        int[] rounds = new int[valuesInRoundOrder.length];
        for (int i = 0; i < rounds.length; i++) {
            rounds[i] = i;
        }
        return new ArmSamples(arm, rounds, valuesInRoundOrder, false);
    }

    /** Values of the given rounds. */
    public static ArmSamples ofRounds(Arm arm, int[] rounds, double[] values) {
        return new ArmSamples(arm, rounds, values, false);
    }

    /**
     * An arm's values by round (ascending), marked incorrect when the arm is in {@code incorrect}: how the analysis
     * turns the valid rounds of an arm into its samples.
     */
    static ArmSamples byRound(Arm arm, SortedMap<Integer, Double> values, Set<Arm> incorrect) {
        int[] rounds = new int[values.size()];
        double[] xs = new double[values.size()];
        int i = 0;
        for (Map.Entry<Integer, Double> e : values.entrySet()) {
            rounds[i] = e.getKey();
            xs[i++] = e.getValue();
        }
        ArmSamples out = ofRounds(arm, rounds, xs);
        return incorrect.contains(arm) ? out.markedIncorrect() : out;
    }

    /** The values of the rounds before {@code rounds} only (0-based rounds 0 … rounds − 1): what a look after that
     * many rounds sees. */
    public ArmSamples before(int rounds) {
        int k = 0;
        while (k < this.rounds.length && this.rounds[k] < rounds) {
            k++;
        }
        if (k == this.rounds.length) {
            return this;
        }
        return new ArmSamples(arm, Arrays.copyOf(this.rounds, k), Arrays.copyOf(valuesByRound, k), failsCorrectness);
    }

    /** The last round with a value, plus one (0 when none). */
    int roundsSpanned() {
        return rounds.length == 0 ? 0 : rounds[rounds.length - 1] + 1;
    }

    public ArmSamples markedIncorrect() {
        return new ArmSamples(arm, rounds, valuesByRound, true);
    }

    @Override
    public int[] rounds() {
        return rounds.clone();
    }

    @Override
    public double[] valuesByRound() {
        return valuesByRound.clone();
    }

    /** Without copying, for the statistics in this package. */
    double[] values() {
        return valuesByRound;
    }

    int[] roundIndex() {
        return rounds;
    }

    /** The position of round {@code r} in the arrays, or −1 when the arm has no valid value in it. */
    int indexOfRound(int r) {
        return Arrays.binarySearch(rounds, r);
    }

    public int n() {
        return valuesByRound.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArmSamples other && arm.equals(other.arm) && failsCorrectness == other.failsCorrectness
                && Arrays.equals(rounds, other.rounds) && Arrays.equals(valuesByRound, other.valuesByRound);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * arm.hashCode() + Arrays.hashCode(rounds)) + Arrays.hashCode(valuesByRound))
                + Boolean.hashCode(failsCorrectness);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ArmSamples[").append(arm.label()).append(", {");
        for (int i = 0; i < rounds.length; i++) {
            b.append(i == 0 ? "" : ", ").append('r').append(rounds[i] + 1).append('=').append(valuesByRound[i]);
        }
        return b.append('}').append(failsCorrectness ? ", fails correctness" : "").append(']').toString();
    }
}
