package io.isobench.history;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class TrackProgressTest {

    @Test
    void oneLinePerRunWithTheEtaFromTheMeanTimePerRunOfThisAttempt() {
        long[] now = {0};
        StringWriter out = new StringWriter();
        TrackProgress p = new TrackProgress(new PrintWriter(out), false, "gen", 155, 31, () -> now[0]);
        for (int i = 0; i < 30; i++) {
            p.already(); // stored by an earlier attempt: done, not timed
        }
        now[0] = 2_000_000_000L; // 2 s per run
        p.ran(11, "abc1234def");
        assertThat(out.toString()).isEqualTo("track gen: 31/155 runs · commit 12/31 abc1234 · ETA 4 min\n");
        now[0] = 4_000_000_000L;
        p.ran(12, "0123456789");
        assertThat(out.toString().lines().toList().get(1))
                .isEqualTo("track gen: 32/155 runs · commit 13/31 0123456 · ETA 4 min");
    }

    @Test
    void aTerminalGetsOneLineRewritten() {
        StringWriter out = new StringWriter();
        TrackProgress p = new TrackProgress(new PrintWriter(out), true, "gen", 2, 3, () -> 0L);
        p.ran(0, "abcdef1");
        p.ran(2, "abcdef2");
        String one = "track gen: 1/2 runs · commit 1/3 abcdef1 · ETA 0 s";
        String two = "track gen: 2/2 runs · commit 3/3 abcdef2 · ETA 0 s";
        assertThat(out.toString()).isEqualTo("\r" + one + " ".repeat(80 - one.length()) + "\r" + two
                + " ".repeat(80 - two.length()) + "\n");
    }

    @Test
    void theEtaIsSecondsBelowTwoMinutesElseMinutes() {
        assertThat(TrackProgress.eta(45)).isEqualTo("45 s");
        assertThat(TrackProgress.eta(119)).isEqualTo("119 s");
        assertThat(TrackProgress.eta(180)).isEqualTo("3 min");
    }
}
