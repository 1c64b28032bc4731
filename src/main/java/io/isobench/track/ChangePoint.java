package io.isobench.track;

/**
 * A candidate change of a commit series, as the detector found it ({@link EDivisive}); not a claim until a paired
 * session confirms it ({@link Confirmation}).
 *
 * @param commit     index (in the series) of the first measured commit after the change
 * @param previous   index of the measured commit before it (the parent a confirming session compares with; with
 *                   {@code --every N} or unmeasured commits between them the change lies in (previous, commit])
 * @param changePct  the metric's change across it, percent: exp(mean log after − mean log before) − 1, the means over
 *                   the commits between the neighbouring change points (or the series' ends)
 * @param direction  faster or slower, by the metric's direction
 * @param pValue     two-sided Student t test of the commits' mean log values before against after
 * @param tStatistic the t statistic of that test (after − before)
 * @param qHat       the E-divisive statistic q̂ of the split (α = 1), in log units
 */
public record ChangePoint(int commit, int previous, double changePct, Direction direction, double pValue,
                          double tStatistic, double qHat) {
}
