package io.isobench.loadgen;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** The loop's tick lag rule and the run-queue wait it reads (docs/loadgen.md, "Client self-check"). */
@Isolated("it measures threads' waits for a core: nothing runs beside it (ItLocks)")
class LoopLagTest {

    private static final long MS = 1_000_000L;

    @Test
    void aTickDueWhileTheLoopWaitedForEventsCountsOnlyItsTurnAndTheWaitForACore() {
        // due at 10 ms, the select returned for events at 13 ms, the turn ended at 13.2 ms: the loop was idle at
        // 10 ms, so 0.2 ms is its lateness, unless it waited longer than that for a core
        assertThat(LoopLag.tickLagNs(10 * MS, 13 * MS + 200_000, 13 * MS, true, 50_000)).isEqualTo(200_000);
        assertThat(LoopLag.tickLagNs(10 * MS, 13 * MS + 200_000, 13 * MS, true, 7 * MS)).isEqualTo(7 * MS);
        // the run-queue wait unknown: the select never waited past the tick, so the whole delay is lateness
        assertThat(LoopLag.tickLagNs(10 * MS, 13 * MS + 200_000, 13 * MS, true, -1)).isEqualTo(3 * MS + 200_000);
    }

    @Test
    void aTurnThatRunsPastTheTickOrATimerThatFiresLateIsLateFromTheDueTime() {
        // the select returned before the tick, the turn ran 25 ms past it (a busy client)
        assertThat(LoopLag.tickLagNs(10 * MS, 35 * MS, 9 * MS, true, 0)).isEqualTo(25 * MS);
        // a timed-out select: late from its deadline, whatever was known of the wait for a core
        assertThat(LoopLag.tickLagNs(10 * MS, 12 * MS, 12 * MS, false, 0)).isEqualTo(2 * MS);
        assertThat(LoopLag.tickLagNs(10 * MS, 12 * MS, 12 * MS, false, -1)).isEqualTo(2 * MS);
        assertThat(LoopLag.tickLagNs(10 * MS, 9 * MS, 9 * MS, false, -1)).isZero();
    }

    @Test
    void aJvmPauseCountsAsTheTicksThatFellDueInIt() {
        long[] lags = {100_000, 200_000};
        // 12 ms: three ticks, late by 12, 7 and 2 ms; exactly 10 ms: two, late by 10 and 5; under a ms: one
        assertThat(LoopLag.withPauses(lags, new long[] {12 * MS, 10 * MS, 400_000}))
                .containsExactly(100_000, 200_000, 12 * MS, 7 * MS, 2 * MS, 10 * MS, 5 * MS, 400_000);
        // a collector's 0 ms (a sub-millisecond pause it rounds down) adds nothing; no pauses, the lags as they were
        assertThat(LoopLag.withPauses(lags, new long[] {0})).containsExactly(100_000, 200_000);
        assertThat(LoopLag.withPauses(lags, new long[0])).containsExactly(100_000, 200_000);
    }

    @Test
    void theWaitForACoreIsTheMeanPerTimeOnACoreBetweenTwoSamples() {
        assertThat(LoopLag.RunDelay.meanWaitNs(1_000, 10, 9_000, 14)).isEqualTo(2_000);
        assertThat(LoopLag.RunDelay.meanWaitNs(1_000, 10, 1_000, 10)).isZero(); // never on a CPU in between
        assertThat(LoopLag.RunDelay.meanWaitNs(5_000, 10, 1_000, 12)).isZero(); // a counter that went back
    }

    @Test
    void schedstatFieldsAreReadAsTheKernelWritesThemAndAnythingElseIsUnknown() {
        byte[] line = "310643946 65089708 1678\n".getBytes(StandardCharsets.US_ASCII);
        assertThat(LoopLag.fields(line, 0)).isEqualTo(310643946L);
        assertThat(LoopLag.fields(line, 1)).isEqualTo(65089708L);
        assertThat(LoopLag.fields(line, 2)).isEqualTo(1678L);
        assertThat(LoopLag.fields(line, 3)).isEqualTo(-1);
        assertThat(LoopLag.fields("12 x4 5\n".getBytes(StandardCharsets.US_ASCII), 1)).isEqualTo(-1);
        assertThat(LoopLag.fields(new byte[0], 0)).isEqualTo(-1);
    }

    @Test
    void theRunQueueWaitOfAThreadThatCompetesForOneCoreGrows() throws Exception {
        assumeThat(Files.isReadable(Path.of("/proc/thread-self/schedstat")))
                .as("Linux /proc/thread-self/schedstat").isTrue();
        AtomicReference<long[]> seen = new AtomicReference<>();
        AtomicReference<String> reader = new AtomicReference<>();
        AtomicLong sink = new AtomicLong();
        int cores = Runtime.getRuntime().availableProcessors();
        // more busy threads than cores: the measured one must wait for a core, and its reading shows it
        Thread[] hogs = new Thread[cores * 2];
        long end = System.nanoTime() + 400 * MS;
        for (int i = 0; i < hogs.length; i++) {
            hogs[i] = Thread.ofPlatform().start(() -> {
                long x = 0;
                while (System.nanoTime() - end < 0) {
                    x++;
                }
                sink.addAndGet(x);
            });
        }
        Thread t = Thread.ofPlatform().start(() -> {
            try (LoopLag.RunDelay rd = LoopLag.RunDelay.open()) {
                assertThat(rd).as("a reader where the kernel keeps schedstat").isNotNull();
                long before = rd.waitNs;
                long x = 0;
                while (System.nanoTime() - end < 0) {
                    x++;
                }
                sink.addAndGet(x);
                assertThat(rd.sample()).isTrue();
                reader.set(rd.reader());
                seen.set(new long[] {before, rd.waitNs});
            }
        });
        t.join();
        for (Thread h : hogs) {
            h.join();
        }
        long[] v = seen.get();
        assertThat(v).as("the measuring thread finished").isNotNull();
        System.out.printf("LoopLagTest: run-queue wait %d -> %d ns over 0.4 s with %d busy threads on %d cores%n",
                v[0], v[1], hogs.length + 1, cores);
        assertThat(v[0]).isGreaterThanOrEqualTo(0);
        // libc's pread where the ffm bindings exist (a JDK >= 22 on Linux), else the channel; both must see the wait
        assertThat(reader.get()).isEqualTo(Libc.UNAVAILABLE == null ? "libc" : "channel");
        assertThat(v[1] - v[0]).as("waited for a core among %d busy threads", hogs.length).isGreaterThan(10 * MS);
    }

    @Test
    void libcsReaderAndTheChannelsReadTheSameFigures() throws Exception {
        assumeThat(Libc.UNAVAILABLE).as("libc bindings (a JDK >= 22 on Linux)").isNull();
        AtomicReference<long[]> seen = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try (LoopLag.RunDelay viaLibc = LoopLag.RunDelay.open(true);
                    LoopLag.RunDelay viaChannel = LoopLag.RunDelay.open(false)) {
                assertThat(viaLibc.reader()).isEqualTo("libc");
                assertThat(viaChannel.reader()).isEqualTo("channel");
                long[] v = new long[6];
                for (int i = 0; i < 3; i++) {
                    Thread.sleep(5); // a time off the CPU and back: the count of times on a CPU moves
                    assertThat(viaLibc.sample()).isTrue();
                    long s1 = viaLibc.slices;
                    assertThat(viaChannel.sample()).isTrue();
                    v[2 * i] = s1;
                    v[2 * i + 1] = viaChannel.slices;
                }
                seen.set(v);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.join();
        long[] v = seen.get();
        assertThat(v).as("the reading thread finished").isNotNull();
        for (int i = 0; i < 3; i++) {
            // the same thread's counter, read by one then the other: never behind, and at most a few wake-ups ahead
            assertThat(v[2 * i + 1] - v[2 * i]).isBetween(0L, 5L);
            if (i > 0) {
                assertThat(v[2 * i]).as("slept in between").isGreaterThan(v[2 * i - 2]);
            }
        }
    }
}
