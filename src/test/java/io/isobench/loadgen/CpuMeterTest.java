package io.isobench.loadgen;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait before a measured phase's meter starts ({@link LoadGenerator.CpuMeter#awaitQuiet}): it ends after three
 * quiet polls of the process's CPU clock in a row, and never later than its limit. The clock here is a counter, so the
 * number of polls is exact whatever the machine's load.
 */
class CpuMeterTest {

    private static final long S = 1_000_000_000L;

    /** A CPU clock that counts its reads and gains a second of CPU at each of the first {@code busyReads}. */
    private record Clock(AtomicInteger reads, int busyReads) implements LongSupplier {
        @Override
        public long getAsLong() {
            int n = reads.incrementAndGet();
            return Math.min(n, busyReads) * S;
        }
    }

    @Test
    void theWaitEndsAtTheThirdQuietPollInARowAfterTheBusyOnes() {
        Clock clock = new Clock(new AtomicInteger(), 5);
        LoadGenerator.CpuMeter.awaitQuiet(clock, 10_000);
        // read 1 is the start; reads 2-5 each gained a second (busy); reads 6, 7 and 8 gained nothing
        assertThat(clock.reads()).hasValue(8);
    }

    @Test
    void aBusyAgainPollStartsTheCountOfQuietOnesAfresh() {
        AtomicInteger reads = new AtomicInteger();
        // quiet, quiet, busy (read 4), then quiet from read 5: the wait ends at read 7
        LongSupplier clock = () -> reads.incrementAndGet() >= 4 ? S : 0;
        LoadGenerator.CpuMeter.awaitQuiet(clock, 10_000);
        assertThat(reads).hasValue(7);
    }

    @Test
    void aProcessThatStaysBusyIsWaitedForOnlyUpToTheLimit() {
        Clock clock = new Clock(new AtomicInteger(), Integer.MAX_VALUE);
        long waitedMs = LoadGenerator.CpuMeter.awaitQuiet(clock, 100);
        assertThat(waitedMs).isGreaterThanOrEqualTo(100);
        assertThat(clock.reads().get()).isGreaterThan(1);
    }

    @Test
    void withoutACpuClockThereIsNoWait() {
        AtomicInteger reads = new AtomicInteger();
        assertThat(LoadGenerator.CpuMeter.awaitQuiet(() -> {
            reads.incrementAndGet();
            return -1;
        }, 10_000)).isZero();
        assertThat(reads).hasValue(1);
    }
}
