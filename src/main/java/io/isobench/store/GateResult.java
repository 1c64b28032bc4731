package io.isobench.store;

import java.util.Map;

/**
 * The correctness gate a check run recorded ({@code correctness} in its details): the outcome the verdicts depend
 * on (REFERENCE, MATCH, OUTPUT_MISMATCH, CALIBRATION, NO_REFERENCE, CHECK_FAILED, a probe failure, …), the rule and
 * reason, the exact-match rates against the baseline and the human, and the tolerance calibration of a baseline's
 * repeat check.
 *
 * @param recorded    true when the gate is a JSON object (false: an old scalar form)
 * @param outcome     the outcome, or null when none was recorded
 * @param why         rule and reason
 * @param rates       exact-match rates and first divergence
 * @param calibration the calibration (numbers as Double, texts as String, anything else as JSON text), or null
 */
public record GateResult(boolean recorded, String outcome, Why why, Rates rates, Map<String, Object> calibration) {

    /** The rule that decided (null when none) and the reason in words. */
    public record Why(String rule, String reason) {
    }

    /** Exact-match rate vs the baseline and vs the human, first divergence (chars) vs the baseline; null = absent. */
    public record Rates(Double exactMatchVsBaseline, Double exactMatchVsHuman, Double firstDivergenceVsBaseline) {
    }
}
