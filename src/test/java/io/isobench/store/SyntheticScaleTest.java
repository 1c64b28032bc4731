package io.isobench.store;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The 1,000,000-run store of the performance benchmark: generation time and a full streaming read.
 * Heavy (about a minute on 2 cores), so opt-in: {@code -Disobench.scaleTasks=100000}.
 */
class SyntheticScaleTest {

    @TempDir
    Path dir;

    /** CPU time of the whole process (DuckDB works on its own threads too); wall time is noisy on a shared machine. */
    private static long cpuMs() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime() / 1_000_000;
    }

    @Test
    void millionRunsGenerateAndStream() {
        int tasks = Integer.getInteger("isobench.scaleTasks", 0);
        Assumptions.assumeTrue(tasks > 0, "opt-in: -Disobench.scaleTasks=100000 generates ~1,000,000 runs");
        try (Store store = Stores.open(dir.resolve("scale.duckdb").toString())) {
            long cpu0 = cpuMs();
            SyntheticStore.Result r = SyntheticStore.generate(store, tasks, 4, 1);
            System.err.printf(Locale.ROOT, "generated %,d tasks, %,d runs, %,d metrics in %,d ms (process CPU %,d ms)%n",
                    r.tasks(), r.runs(), r.metrics(), r.elapsedMs(), cpuMs() - cpu0);
            assertThat(store.countRuns()).isEqualTo(r.runs());
            for (boolean withMetrics : new boolean[] {false, true}) {
                long t0 = System.nanoTime();
                long c0 = cpuMs();
                long[] n = {0, 0};
                store.forEachRun(new RunFilter(null, null, null, withMetrics), run -> {
                    n[0]++;
                    n[1] += run.metrics().size();
                });
                System.err.printf(Locale.ROOT, "forEachRun(withMetrics=%s): %,d runs, %,d metrics in %,d ms (process CPU %,d ms)%n",
                        withMetrics, n[0], n[1], (System.nanoTime() - t0) / 1_000_000, cpuMs() - c0);
                assertThat(n[0]).isEqualTo(r.runs());
            }
            long t0 = System.nanoTime();
            long[] n = {0};
            store.forEachRun(new RunFilter("claude-code", null, null, false), run -> n[0]++);
            System.err.printf(Locale.ROOT, "forEachRun(agent=claude-code): %,d runs in %,d ms%n", n[0],
                    (System.nanoTime() - t0) / 1_000_000);
        }
    }
}
