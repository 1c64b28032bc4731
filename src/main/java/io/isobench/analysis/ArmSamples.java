package io.isobench.analysis;

import io.isobench.Arm;

import java.util.Arrays;

/**
 * The valid rounds of one arm for one metric, in the order the rounds ran (the split-rounds noise floor relies on
 * it). No valid runs = empty samples ({@code failed}). Immutable: the array is copied in and out.
 *
 * @param failsCorrectness the arm's outputs failed the correctness gate: its speed is never called better
 */
public record ArmSamples(Arm arm, double[] samplesInRoundOrder, boolean failsCorrectness) {

    public ArmSamples {
        if (arm == null) {
            throw new IllegalArgumentException("arm must not be null");
        }
        Samples.requireFinite(samplesInRoundOrder, arm.label() + " samples");
        samplesInRoundOrder = samplesInRoundOrder.clone();
    }

    public static ArmSamples of(Arm arm, double... samplesInRoundOrder) {
        return new ArmSamples(arm, samplesInRoundOrder, false);
    }

    public ArmSamples markedIncorrect() {
        return new ArmSamples(arm, samplesInRoundOrder, true);
    }

    @Override
    public double[] samplesInRoundOrder() {
        return samplesInRoundOrder.clone();
    }

    /** Without copying, for the statistics in this package. */
    double[] values() {
        return samplesInRoundOrder;
    }

    public int n() {
        return samplesInRoundOrder.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArmSamples other && arm.equals(other.arm) && failsCorrectness == other.failsCorrectness
                && Arrays.equals(samplesInRoundOrder, other.samplesInRoundOrder);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * arm.hashCode() + Arrays.hashCode(samplesInRoundOrder)) + Boolean.hashCode(failsCorrectness);
    }

    @Override
    public String toString() {
        return "ArmSamples[" + arm.label() + ", " + Arrays.toString(samplesInRoundOrder)
                + (failsCorrectness ? ", fails correctness" : "") + "]";
    }
}
