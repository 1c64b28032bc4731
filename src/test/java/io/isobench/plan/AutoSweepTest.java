package io.isobench.plan;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;

import static org.assertj.core.api.Assertions.assertThat;

/** The stop rule of {@code sweep: auto} on simulated servers: doubling, bisection, the bound, the points. */
class AutoSweepTest {

    private static final AutoSweep.Settings S = AutoSweep.Settings.DEFAULTS;

    /** Runs the rule against a server model (rate → pilot) until it stops; the pilots it ran and the last step. */
    private static List<AutoSweep.Pilot> drive(DoubleFunction<AutoSweep.Pilot> server, AutoSweep.Step[] last) {
        List<AutoSweep.Pilot> pilots = new ArrayList<>();
        AutoSweep.Step step = AutoSweep.next(pilots, 0.9, S);
        while (!step.done()) {
            pilots.add(server.apply(step.nextRps()));
            step = AutoSweep.next(pilots, 0.9, S);
        }
        last[0] = step;
        return pilots;
    }

    /** A server that serves up to {@code cap} req/s, meeting the SLO up to {@code sloCap}. */
    private static DoubleFunction<AutoSweep.Pilot> server(double cap, double sloCap) {
        return r -> new AutoSweep.Pilot(r, Math.min(r, cap), r <= sloCap ? 1.0 : 0.4);
    }

    @Test
    void doublesUntilTheSloBreaksThenBisectsAndFixesThePoints() {
        AutoSweep.Step[] last = new AutoSweep.Step[1];
        List<AutoSweep.Pilot> pilots = drive(server(100, 5), last);
        // 1, 2, 4 meet; 8 breaks; bisect √(4·8) = 5.66 (breaks), √(4·5.66) = 4.76 (meets)
        assertThat(pilots).extracting(AutoSweep.Pilot::rateRps).containsExactly(1.0, 2.0, 4.0, 8.0, 5.66, 4.76);
        assertThat(last[0].saturationRps()).isEqualTo(4.76);
        assertThat(last[0].points()).containsExactly(2.38, 4.76, 9.52, 19.0);
        assertThat(last[0].why()).contains("bisected between 4.76 and 5.66");
    }

    @Test
    void aThroughputThatStopsGrowingIsSaturation() {
        AutoSweep.Step[] last = new AutoSweep.Step[1];
        // serves at most 3 req/s, the SLO always met: 4 req/s achieves 3 (behind the offered rate), broken; bisect
        // √(2·4) = 2.83 keeps up (met), √(2.83·4) = 3.36 achieves 3 (behind), broken
        List<AutoSweep.Pilot> pilots = drive(server(3, 1000), last);
        assertThat(pilots).extracting(AutoSweep.Pilot::rateRps).containsExactly(1.0, 2.0, 4.0, 2.83, 3.36);
        assertThat(last[0].saturationRps()).isEqualTo(2.83);
        // a doubling whose throughput grows by less than 10 % saturated, even while it keeps up within 10 %
        List<AutoSweep.Pilot> flat = List.of(new AutoSweep.Pilot(1, 1, 1.0), new AutoSweep.Pilot(2, 1.05, 1.0));
        assertThat(AutoSweep.next(flat, 0.9, S).nextRps()).isEqualTo(1.41);
    }

    @Test
    void theFirstPilotBreakingStopsAtTheStartRate() {
        AutoSweep.Step[] last = new AutoSweep.Step[1];
        List<AutoSweep.Pilot> pilots = drive(server(100, 0.5), last);
        assertThat(pilots).hasSize(1);
        assertThat(last[0].saturationRps()).isEqualTo(1.0);
        assertThat(last[0].points()).containsExactly(0.5, 1.0, 2.0, 4.0);
    }

    @Test
    void aServerThatNeverBreaksStopsAtThePilotLimit() {
        AutoSweep.Step[] last = new AutoSweep.Step[1];
        List<AutoSweep.Pilot> pilots = drive(server(1e9, 1e9), last);
        assertThat(pilots).hasSize(S.maxPilots());
        assertThat(last[0].saturationRps()).isEqualTo(128.0);
        assertThat(last[0].why()).contains("pilot limit 8");
    }

    @Test
    void theSameMeasurementsGiveTheSameSteps() {
        List<AutoSweep.Pilot> p = List.of(new AutoSweep.Pilot(1, 1, 1.0), new AutoSweep.Pilot(2, 2, 1.0),
                new AutoSweep.Pilot(4, 3.9, 0.5));
        assertThat(AutoSweep.next(p, 0.9, S)).isEqualTo(AutoSweep.next(List.copyOf(p), 0.9, S));
        assertThat(AutoSweep.next(p, 0.9, S).nextRps()).isEqualTo(2.83);
        // an unknown good fraction (no goodput) breaks a pilot
        assertThat(AutoSweep.next(List.of(new AutoSweep.Pilot(1, 1, null)), 0.9, S).done()).isTrue();
    }
}
