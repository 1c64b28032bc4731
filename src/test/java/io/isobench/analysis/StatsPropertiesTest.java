package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.parse.Better;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StatsPropertiesTest {

    private static double[] toArray(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    @Property(tries = 200)
    void mannWhitneyIsSymmetric(@ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1, max = 20) Integer> xs,
                                @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1, max = 20) Integer> ys) {
        double[] x = xs.stream().mapToDouble(Integer::doubleValue).toArray();
        double[] y = ys.stream().mapToDouble(Integer::doubleValue).toArray();
        MannWhitney.Result a = MannWhitney.test(x, y, 8);
        MannWhitney.Result b = MannWhitney.test(y, x, 8);
        assertThat(a.u() + b.u()).isEqualTo(x.length * (double) y.length);
        assertThat(a.method()).isEqualTo(b.method());
        if (a.pValue() != null) {
            assertThat(a.pValue()).isBetween(0.0, 1.0).isCloseTo(b.pValue(), org.assertj.core.data.Offset.offset(1e-12));
        }
    }

    /** Scaling every sample by a power of two is exact in floating point: nothing may change. */
    @Property(tries = 40)
    void comparisonIsScaleInvariant(
            @ForAll @Size(min = 3, max = 7) List<@DoubleRange(min = 90, max = 110) Double> b,
            @ForAll @Size(min = 3, max = 7) List<@DoubleRange(min = 80, max = 105) Double> x,
            @ForAll @IntRange(min = -6, max = 6) int exponent) {
        StatsConfig cfg = StatsConfig.defaults().withBootstrap(500, 42);
        double scale = Math.scalb(1.0, exponent);
        double[] bs = toArray(b);
        double[] xsArr = toArray(x);
        double[] bScaled = bs.clone();
        double[] xScaled = xsArr.clone();
        for (int i = 0; i < bScaled.length; i++) {
            bScaled[i] *= scale;
        }
        for (int i = 0; i < xScaled.length; i++) {
            xScaled[i] *= scale;
        }
        NoiseFloor floor = NoiseFloor.fromSplitRounds(bs);
        Comparison c1 = Comparison.compute(ArmSamples.of(Arm.HUMAN, xsArr), ArmSamples.of(Arm.BASELINE, bs),
                Better.HIGHER, floor, cfg);
        Comparison c2 = Comparison.compute(ArmSamples.of(Arm.HUMAN, xScaled), ArmSamples.of(Arm.BASELINE, bScaled),
                Better.HIGHER, NoiseFloor.fromSplitRounds(bScaled), cfg);
        assertThat(c2.speedup()).isEqualTo(c1.speedup());
        assertThat(c2.ciLowSpeedup()).isEqualTo(c1.ciLowSpeedup());
        assertThat(c2.ciHighSpeedup()).isEqualTo(c1.ciHighSpeedup());
        assertThat(c2.pValue()).isEqualTo(c1.pValue());
        assertThat(c2.verdict()).isEqualTo(c1.verdict());
        assertThat(c1.ciLowSpeedup()).isLessThanOrEqualTo(c1.ciHighSpeedup());
    }
}
