package io.isobench.track;

import io.isobench.parse.Better;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class EDivisiveTest {

    /** 30 commits × 3 runs at 100 × the commit's level, with a fixed ±1 % pattern of run-to-run spread. */
    private static List<double[]> series(double[] level) {
        List<double[]> out = new ArrayList<>();
        for (int i = 0; i < level.length; i++) {
            double[] runs = new double[3];
            for (int r = 0; r < 3; r++) {
                runs[r] = 100 * level[i] * (1 + 0.01 * Math.sin(1.7 * i + 2.3 * r));
            }
            out.add(runs);
        }
        return out;
    }

    private static double[] levels(int n, int[] at, double[] factor) {
        double[] l = new double[n];
        for (int i = 0; i < n; i++) {
            l[i] = 1;
            for (int k = 0; k < at.length; k++) {
                if (i >= at[k]) {
                    l[i] *= factor[k];
                }
            }
        }
        return l;
    }

    @Test
    void aPlantedStepIsOneCandidateAtItsFirstCommit() {
        List<ChangePoint> cps = EDivisive.detect(series(levels(30, new int[] {17}, new double[] {1.10})), Better.LOWER);
        assertThat(cps).hasSize(1);
        ChangePoint c = cps.get(0);
        assertThat(c.commit()).isEqualTo(17);
        assertThat(c.previous()).isEqualTo(16);
        assertThat(c.direction()).isEqualTo(Direction.SLOWER);
        assertThat(c.changePct()).isCloseTo(10, within(1.0));
        assertThat(c.pValue()).isLessThan(1e-6);
        assertThat(c.tStatistic()).isPositive();
        assertThat(c.qHat()).isPositive();
    }

    @Test
    void aConstantSeriesAndAFlatNoisySeriesHaveNone() {
        List<double[]> constant = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            constant.add(new double[] {100, 100, 100});
        }
        assertThat(EDivisive.detect(constant, Better.LOWER)).isEmpty();
        assertThat(EDivisive.detect(series(levels(30, new int[0], new double[0])), Better.LOWER)).isEmpty();
    }

    @Test
    void twoStepsOfMinus15AndPlus10PercentAreBothFound() {
        List<ChangePoint> cps = EDivisive.detect(series(levels(30, new int[] {9, 21}, new double[] {0.85, 1.10})),
                Better.LOWER);
        assertThat(cps).extracting(ChangePoint::commit).containsExactly(9, 21);
        assertThat(cps).extracting(ChangePoint::direction).containsExactly(Direction.FASTER, Direction.SLOWER);
        assertThat(cps.get(0).changePct()).isCloseTo(-15, within(1.0));
        assertThat(cps.get(1).changePct()).isCloseTo(10, within(1.0));
    }

    @Test
    void unmeasuredCommitsAreSkippedAndTheGapIsReported() {
        List<double[]> s = series(levels(30, new int[] {12}, new double[] {1.10}));
        for (int i : new int[] {10, 11, 12}) {
            s.set(i, new double[0]);
        }
        s.set(20, null);
        List<ChangePoint> cps = EDivisive.detect(s, Better.LOWER);
        assertThat(cps).hasSize(1);
        assertThat(cps.get(0).commit()).isEqualTo(13);
        assertThat(cps.get(0).previous()).isEqualTo(9);
    }

    @Test
    void aHigherIsBetterMetricThatRisesIsFaster() {
        List<ChangePoint> cps = EDivisive.detect(series(levels(30, new int[] {5}, new double[] {1.2})),
                Better.HIGHER);
        assertThat(cps).extracting(ChangePoint::direction).containsExactly(Direction.FASTER);
    }

    @Test
    void aStepAtTheLastCommitIsFound() {
        List<ChangePoint> cps = EDivisive.detect(series(levels(30, new int[] {29}, new double[] {1.10})),
                Better.LOWER);
        assertThat(cps).extracting(ChangePoint::commit).containsExactly(29);
    }

    @Test
    void aChangeBelowTheMinimumMagnitudeIsMergedAway() {
        List<ChangePoint> cps = EDivisive.detect(series(levels(30, new int[] {15}, new double[] {1.005})),
                Better.LOWER, new EDivisive.Settings(0.01, 0.05, 1.0));
        assertThat(cps).isEmpty();
        List<double[]> exact = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            exact.add(new double[] {i < 15 ? 100 : 100.5});
        }
        assertThat(EDivisive.detect(exact, Better.LOWER, new EDivisive.Settings(0.01, 0.05, 0)))
                .extracting(ChangePoint::commit).containsExactly(15);
    }

    @Test
    void aPassesCommonDriftIsRemovedBeforeTheTest() {
        // no change, but pass 1 ran 20 % slower for every commit and pass 2 8 % faster: drift, not a change
        double[] flat = levels(30, new int[0], new double[0]);
        List<double[]> drifted = new ArrayList<>();
        for (double[] runs : series(flat)) {
            drifted.add(new double[] {runs[0], runs[1] * 1.20, runs[2] * 0.92});
        }
        assertThat(EDivisive.detect(drifted, Better.LOWER)).isEmpty();
        // with the drift, a 10 % step is still one candidate at its commit, its change read from the centred runs
        List<double[]> step = new ArrayList<>();
        for (double[] runs : series(levels(30, new int[] {12}, new double[] {1.10}))) {
            step.add(new double[] {runs[0], runs[1] * 1.20, runs[2] * 0.92});
        }
        List<ChangePoint> cps = EDivisive.detect(step, Better.LOWER);
        assertThat(cps).extracting(ChangePoint::commit).containsExactly(12);
        assertThat(cps.get(0).changePct()).isCloseTo(10, within(1.0));
    }

    @Test
    void aMissingRunIsNaNAndKeepsThePassesAligned() {
        List<double[]> s = series(levels(30, new int[] {9}, new double[] {0.85}));
        List<double[]> holes = new ArrayList<>();
        for (int i = 0; i < s.size(); i++) {
            double[] r = s.get(i).clone();
            r[1] *= 1.30; // pass 1 drifted for everyone
            if (i % 4 == 0) {
                r[i % 3] = Double.NaN; // that commit's run of some pass failed
            }
            holes.add(r);
        }
        holes.set(20, new double[] {Double.NaN, Double.NaN, Double.NaN}); // never measured
        List<ChangePoint> cps = EDivisive.detect(holes, Better.LOWER);
        assertThat(cps).extracting(ChangePoint::commit).containsExactly(9);
        assertThat(cps.get(0).direction()).isEqualTo(Direction.FASTER);
        assertThatThrownBy(() -> EDivisive.detect(List.of(new double[] {1, -1}, new double[] {1, 1}), Better.LOWER))
                .hasMessageContaining("is not > 0");
    }
}
