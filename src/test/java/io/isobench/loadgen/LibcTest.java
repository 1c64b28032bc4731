package io.isobench.loadgen;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** libc through java.lang.foreign: the process's CPU clock the client's cost is measured with. */
@Isolated("it compares this process's CPU clocks over a measured spin: nothing runs beside it (ItLocks)")
class LibcTest {

    private static final long MS = 1_000_000L;

    @Test
    void theProcessCpuClockCountsNanosecondsWhereTheJdksFigureCountsTicks() {
        assumeThat(Libc.UNAVAILABLE).as("libc bindings (a JDK >= 22 on Linux)").isNull();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long libc0 = Libc.processCpuNs();
        long jdk0 = os.getProcessCpuTime();
        long thread0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        long x = 0;
        while (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - thread0 < 200 * MS) {
            x++; // 200 ms of this thread's CPU
        }
        long libc1 = Libc.processCpuNs();
        long jdk1 = os.getProcessCpuTime();
        System.out.printf("LibcTest: %d spins; process CPU %.3f ms (libc) against %.3f ms (JDK)%n", x,
                (libc1 - libc0) / 1e6, (jdk1 - jdk0) / 1e6);
        assertThat(libc1 - libc0).as("this thread's 200 ms, and what the JVM's other threads did meanwhile")
                .isBetween(200 * MS, 2_000 * MS);
        // the same clock read two ways: the JDK's is ticks (10 ms) of the same total, so the two differ by under two
        assertThat(Math.abs((libc1 - libc0) - (jdk1 - jdk0))).isLessThan(25 * MS);
        // nanoseconds, not ticks: readings in a row never go back, the closest two differ by less than a tick (the
        // JVM's other threads may run between any two), and not every reading is a whole number of ticks
        long closest = Long.MAX_VALUE;
        boolean offTick = libc0 % (10 * MS) != 0 || libc1 % (10 * MS) != 0;
        for (int i = 0; i < 5; i++) {
            long a = Libc.processCpuNs();
            long b = Libc.processCpuNs();
            assertThat(b - a).isNotNegative();
            closest = Math.min(closest, b - a);
            offTick |= a % (10 * MS) != 0;
        }
        assertThat(closest).isLessThan(10 * MS);
        assertThat(offTick).isTrue();
    }
}
