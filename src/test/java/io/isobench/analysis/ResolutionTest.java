package io.isobench.analysis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** A metric's resolution against the margin (docs/statistics.md §3b): coarse above a tenth of the margin. */
class ResolutionTest {

    private static final StatsConfig CFG = StatsConfig.defaults();

    @Test
    void tenMillisecondTicksOnAHalfSecondRunAreCoarse_microsecondsAreFine() {
        // the blind llama2.c session: 0.55 s runs timed in 10 ms ticks, one tick = 1.8 % of the value
        Resolution ticks = Resolution.of("command_cpu_s", 0.01, "sh_times_clock_ticks", 0.55, CFG);
        assertThat(ticks.relativePct()).isCloseTo(1.818, within(0.001));
        assertThat(ticks.coarse()).isTrue();
        assertThat(ticks.describe(CFG)).isEqualTo("command_cpu_s measured in steps of 0.01 (sh_times_clock_ticks) ="
                + " 1.82 % of the baseline's median: coarse against the ±2 % margin (a few steps reach it; read"
                + " verdicts near the margin with care)");
        Resolution micro = Resolution.of("command_cpu_s", 1e-6, "cgroup_v2_cpu_stat", 0.15, CFG);
        assertThat(micro.coarse()).isFalse();
        assertThat(micro.describe(CFG)).contains("fine against the ±2 % margin");
        // the boundary: a tenth of the 2 % margin is 0.2 % of the value
        assertThat(Resolution.of("m", 0.0021, "s", 1.0, CFG).coarse()).isTrue();
        assertThat(Resolution.of("m", 0.0019, "s", 1.0, CFG).coarse()).isFalse();
        assertThat(Resolution.of("m", 0.01, "s", null, CFG).describe(CFG)).isEqualTo("m measured in steps of 0.01 (s)");
    }
}
