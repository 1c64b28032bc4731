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
            @ForAll @Size(value = 5) List<@DoubleRange(min = 90, max = 110) Double> b,
            @ForAll @Size(value = 5) List<@DoubleRange(min = 90, max = 110) Double> aa,
            @ForAll @Size(value = 5) List<@DoubleRange(min = 80, max = 105) Double> x,
            @ForAll @IntRange(min = -6, max = 6) int exponent) {
        double scale = Math.scalb(1.0, exponent);
        TaskAnalysis t1 = analyse(toArray(b), toArray(aa), toArray(x), 1.0);
        TaskAnalysis t2 = analyse(toArray(b), toArray(aa), toArray(x), scale);
        Comparison c1 = t1.humanVsBaseline();
        Comparison c2 = t2.humanVsBaseline();
        assertThat(c2.speedup()).isCloseTo(c1.speedup(), org.assertj.core.data.Offset.offset(1e-12));
        assertThat(c2.ciLowSpeedup()).isCloseTo(c1.ciLowSpeedup(), org.assertj.core.data.Offset.offset(1e-12));
        assertThat(c2.pValue()).isEqualTo(c1.pValue());
        assertThat(c2.verdict()).isEqualTo(c1.verdict());
        assertThat(c1.ciLowSpeedup()).isLessThanOrEqualTo(c1.speedup());
        assertThat(c1.speedup()).isLessThanOrEqualTo(c1.ciHighSpeedup());
        assertThat(c1.equivLowSpeedup()).isGreaterThanOrEqualTo(c1.ciLowSpeedup());
    }

    /** Swapping the roles of two arms inverts the speedup and mirrors better/worse. */
    @Property(tries = 40)
    void swappingArmsMirrorsTheVerdict(
            @ForAll @Size(value = 6) List<@DoubleRange(min = 90, max = 110) Double> b,
            @ForAll @Size(value = 6) List<@DoubleRange(min = 70, max = 120) Double> x) {
        Comparison xb = Comparison.compute(ArmSamples.of(Arm.HUMAN, toArray(x)), ArmSamples.of(Arm.BASELINE,
                toArray(b)), null, Better.LOWER, 0, StatsConfig.defaults());
        Comparison bx = Comparison.compute(ArmSamples.of(Arm.HUMAN, toArray(b)), ArmSamples.of(Arm.BASELINE,
                toArray(x)), null, Better.LOWER, 0, StatsConfig.defaults());
        assertThat(bx.speedup()).isCloseTo(1 / xb.speedup(), org.assertj.core.data.Offset.offset(1e-12));
        Verdict mirrored = switch (xb.verdict()) {
            case BETTER -> Verdict.WORSE;
            case WORSE -> Verdict.BETTER;
            default -> xb.verdict();
        };
        assertThat(bx.verdict()).isEqualTo(mirrored);
    }

    private static TaskAnalysis analyse(double[] b, double[] aa, double[] x, double scale) {
        return TaskAnalysis.analyse(new TaskAnalysis.Input("total_throughput_tok_s", Better.HIGHER,
                ArmSamples.of(Arm.BASELINE, scaled(b, scale)), ArmSamples.of(Arm.BASELINE_AA, scaled(aa, scale)),
                ArmSamples.of(Arm.HUMAN, scaled(x, scale)), List.of(), List.of()), StatsConfig.defaults());
    }

    private static double[] scaled(double[] v, double scale) {
        double[] out = v.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] *= scale;
        }
        return out;
    }
}
