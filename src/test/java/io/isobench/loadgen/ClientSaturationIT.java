package io.isobench.loadgen;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.assertj.core.data.Percentage.withPercentage;

/**
 * The client's self-check against real runs on a loopback {@link StreamingTestServer}: an unthrottled run at a modest
 * rate keeps its schedule and is not saturated; waiting for a {@code --max-concurrency} slot is not lag; the stall knob
 * ({@code isobench.loadgen.loopStallUs}) saturates it; and a real {@code isobench loadgen} process pinned with
 * {@code taskset} to one core, at nice 19, with a CPU hog at nice 0 on the same core while it measures, is saturated
 * with its reasons printed, while the same process without the hog is not. Its assertions come from measured times:
 * isolated (ItLocks); a "not saturated" run the host or the test JVM disturbed (steal, GC pauses, a CPU held from a
 * waking thread longer than the lag bound) is repeated, up to 5 times, each repeat after a wait of up to 30 s for a
 * quiet second, and the least disturbed run is judged ({@link #quietRun}).
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class ClientSaturationIT {

    private static LoadgenConfig.Builder config(StreamingTestServer server, int n, double rate) {
        return LoadgenConfig.builder().baseUrl(server.baseUrl()).model("m").numPrompts(n).requestRate(rate)
                .dataset(DatasetSpec.random(16, 8, 0.0, 0)).ignoreEos(true).numWarmups(10);
    }

    @Test
    @Timeout(120)
    void anUnthrottledRunAtAModestRateKeepsItsScheduleAndIsNotSaturated() throws Exception {
        try (StreamingTestServer server = new StreamingTestServer(0, 5, 2, 0)) {
            double idle = idleCores();
            LoadgenResult r = quietRun("unthrottled", true, LAG_BOUND_MS,
                    () -> LoadGenerator.run(config(server, 200, 100).build(), null));
            LoadFidelity f = r.fidelity();
            System.out.println("ClientSaturationIT unthrottled: " + f);
            assertThat(r.summary().completed()).isEqualTo(200);
            assertThat(f.schedule()).isNotNull();
            assertThat(f.schedule().requests()).isEqualTo(200);
            assertThat(f.schedule().configuredRateRps()).isCloseTo(100.0, withPercentage(0.01));
            assertThat(f.schedule().deliveredRateRps()).isCloseTo(100.0, withPercentage(5));
            assumeCoresToSpare(idle);
            assertThat(f.client().saturated()).as(f.client().reasons().toString()).isFalse();
            assertThat(f.schedule().lagMsP99()).isLessThan(LAG_BOUND_MS);
            assertThat(f.client().loopLagMsP99()).isLessThan(10.0);
            assertThat(f.client().cpuBusyPct()).isBetween(0.0, 90.0);
        }
    }

    @Test
    @Timeout(120)
    void waitingForAConcurrencySlotIsQueueTimeNotLag() throws Exception {
        // 20 requests due within 0.1 s, one at a time, each 30+ ms: the last waits about half a second for its slot
        try (StreamingTestServer server = new StreamingTestServer(0, 30, 1, 0)) {
            double idle = idleCores();
            LoadgenResult r = quietRun("capped", true, LAG_BOUND_MS,
                    () -> LoadGenerator.run(config(server, 20, 200).maxConcurrency(1).build(), null));
            LoadFidelity.Schedule s = r.fidelity().schedule();
            System.out.println("ClientSaturationIT capped: " + s + " queue max "
                    + r.summary().dists().get("client_queue").max() + " ms");
            double queueMax = r.summary().dists().get("client_queue").max();
            assertThat(queueMax).isGreaterThan(300.0);
            // the wait for a slot is queue time: the lag is a small part of it (counted as lag, it would equal it)
            assertThat(s.lagMsMax()).isLessThan(queueMax / 10);
            assertThat(s.configuredMaxConcurrency()).isEqualTo(1);
            assertThat(s.deliveredConcurrencyMean()).isBetween(0.9, 1.0);
            assumeCoresToSpare(idle);
            assertThat(s.lagMsP99()).isLessThan(LAG_BOUND_MS);
            assertThat(r.fidelity().client().saturated()).as(r.fidelity().client().reasons().toString()).isFalse();
        }
    }

    @Test
    @Timeout(120)
    void theStallKnobSaturatesTheClientWithItsReasons() throws IOException {
        try (StreamingTestServer server = new StreamingTestServer(0, 5, 2, 0)) {
            System.setProperty(LoopLag.STALL_PROPERTY, "20000"); // 20 ms of busy loop in every turn
            LoadgenResult r;
            try {
                r = LoadGenerator.run(config(server, 40, 50).build(), null);
            } finally {
                System.clearProperty(LoopLag.STALL_PROPERTY);
            }
            LoadFidelity f = r.fidelity();
            System.out.println("ClientSaturationIT stalled: " + f);
            assertThat(f.client().saturated()).isTrue();
            assertThat(f.client().reasons())
                    .anyMatch(s -> s.matches("event-loop lag p99 \\d+\\.\\d\\d ms > 10 ms \\(\\d+ of \\d+ ticks over\\)"))
                    .anyMatch(s -> s.matches("schedule lag p99 \\d+\\.\\d\\d ms > 10 ms \\(\\d+ of \\d+ requests over\\)"));
            assertThat(f.client().loopLagMsP99()).isGreaterThan(10.0);
            assertThat(r.consoleBlock()).contains("Client saturated (0/1):                  1");
        }
    }

    @Test
    @Timeout(120)
    void aGcPauseWhileTheLoopWaitsForEventsIsEventLoopLag() throws Exception {
        // one request every 100 ms, each ~20 ms long: the loop waits in its select most of the time, where its own
        // ticks cannot see a pause (it stamps its wake-up once the pause is over); a full collection (System.gc():
        // stop-the-world with G1, this JVM's collector) pauses it there
        try (StreamingTestServer server = new StreamingTestServer(0, 5, 2, 0)) {
            CountDownLatch measuring = new CountDownLatch(1);
            CompletableFuture<LoadgenResult> run = CompletableFuture.supplyAsync(
                    () -> LoadGenerator.run(config(server, 30, 10).build(), null, measuring::countDown));
            assertThat(measuring.await(60, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(500);
            // two million small live objects to mark and move, and 400 MB of arrays: a full collection of 77 ms in
            // a fresh JVM on the 2-core development machine (41 ms for the objects alone)
            Object[] objects = new Object[2_000_000];
            for (int i = 0; i < objects.length; i++) {
                objects[i] = new int[4];
            }
            List<byte[]> arrays = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                arrays.add(new byte[1 << 20]);
            }
            long gc0 = gcPauseMs();
            System.gc();
            long pauseMs = gcPauseMs() - gc0;
            Arrays.fill(objects, null);
            arrays.clear();
            LoadgenResult r = run.get(60, TimeUnit.SECONDS);
            LoadFidelity f = r.fidelity();
            System.out.println("ClientSaturationIT GC pause of " + pauseMs + " ms: " + f);
            assertThat(pauseMs).as("the full collection's pause (ms)").isGreaterThanOrEqualTo(20);
            // the pause's first tick is late by the whole pause (the collector reports whole ms)
            assertThat(f.client().loopLagMsMax()).isGreaterThanOrEqualTo(pauseMs - 1.0);
        }
    }

    @Test
    @Timeout(300)
    void aClientPinnedToACoreWithACpuHogIsSaturatedAndWithoutItIsNot() throws Exception {
        assumeThat(Files.isExecutable(Path.of("/usr/bin/taskset"))).as("taskset").isTrue();
        String core = Integer.toString(Runtime.getRuntime().availableProcessors() - 1);
        try (StreamingTestServer server = new StreamingTestServer(0, 5, 2, 0)) {
            Run hogged = loadgen(server, core, true);
            System.out.println("ClientSaturationIT with hog:\n" + hogged.out + hogged.err);
            assertThat(hogged.exit).isZero();
            assertThat(hogged.out).contains("Client saturated (0/1):                  1");
            assertThat(hogged.err).contains("loadgen: warning: the client was saturated")
                    .containsPattern("event-loop lag p99 \\d+\\.\\d\\d ms > 10 ms");

            assumeCoresToSpare(idleCores());
            Run alone = quietRun("alone", false, PRODUCT_BOUND_MS, () -> loadgen(server, core, false));
            System.out.println("ClientSaturationIT alone:\n" + alone.out + alone.err);
            assertThat(alone.exit).isZero();
            assertThat(alone.out).contains("Client saturated (0/1):                  0");
            assertThat(alone.err).doesNotContain("the client was saturated");
        }
    }

    private record Run(int exit, String out, String err) {
    }

    /** The schedule-lag p99 the in-JVM "not saturated" halves must keep (ms). */
    private static final double LAG_BOUND_MS = 5.0;
    /** The subprocess half is judged by the client's own check: its loop- and schedule-lag limits (ms). */
    private static final double PRODUCT_BOUND_MS = Math.min(LoadFidelity.Limits.DEFAULT.loopLagMs(),
            LoadFidelity.Limits.DEFAULT.scheduleLagMs());

    /**
     * Runs a "not saturated" half until one run was undisturbed, at most 5 times, and returns the least disturbed run.
     * Disturbed means what the client cannot control and its check rightly reports, each measured over the run:
     * <ul>
     * <li>more than 2 % of the machine's time stolen by the hypervisor (/proc/stat's steal: on this project's virtual
     * machines it came in episodes of 3-34 %, and a stolen vCPU is a late loop);
     * <li>for a run inside this JVM ({@code inJvm}), more than 5 ms of garbage-collection pauses (the shared test JVM,
     * with the heap of every test before it; a real loadgen has its own);
     * <li>a CPU held from a thread that wanted it for longer than the bound the half is judged by ({@code boundMs}: the
     * test's {@link #LAG_BOUND_MS}, or the client's own limits for the subprocess half), as
     * {@link CpuCanaries} pinned to each CPU see it. User-space work cannot hold a waking thread off a CPU that
     * long, so this is the kernel's or the host's: on this project's virtual machines DAMON's reclaim
     * ({@code kdamond}, not preemptible) held a vCPU 3-6 ms about every half second and 12-27 ms now and then, and
     * a dispatcher thread held off that long sends its requests that much late (perf sched, 2026-11-30). In the
     * subprocess half one canary shares the pinned client's core: at nice 0 it wakes 500 times a second, a few µs
     * each, beside a client at nice 19; it can only make that "not saturated" half harder to pass.
     * </ul>
     * Runs are chosen by these measures alone, never by their outcome: the assertions then apply to the chosen run,
     * which on a machine disturbed all along is the least disturbed one. Each disturbed attempt is printed with its
     * figures. The saturated halves never repeat. A run inside this JVM is preceded by one run that is not judged:
     * the test JVM compiles the client during its first run (measured: schedule-lag p99 34-46 ms in a fresh test JVM
     * with no GC at all, 0.3-2.4 ms in the runs after it), while a real {@code isobench loadgen} has a JVM of its own
     * and its warm-up requests, and the subprocess half covers that start.
     */
    private static <T> T quietRun(String name, boolean inJvm, double boundMs, ThrowingSupplier<T> run)
            throws Exception {
        if (inJvm) {
            attempt(run);
        }
        T best = null;
        double bestScore = Double.MAX_VALUE;
        for (int attempt = 1; attempt <= 5; attempt++) {
            if (attempt > 1) {
                awaitQuietSecond(name);
            }
            long[] stat0 = stealAndTotal();
            long gc0 = gcPauseMs();
            T result;
            double heldMs;
            try (CpuCanaries canaries = CpuCanaries.start()) {
                result = attempt(run);
                heldMs = canaries.maxLateMs();
            }
            long[] stat1 = stealAndTotal();
            double stealPct = stat1[1] == stat0[1] ? 0 : 100.0 * (stat1[0] - stat0[0]) / (stat1[1] - stat0[1]);
            long gcMs = inJvm ? gcPauseMs() - gc0 : 0;
            // steal over 2 %, GC pauses over 5 ms and a CPU held beyond the bound are each one unit of disturbance
            // per 2 %, 5 ms and one bound over; at or under all three, none
            double score = Math.max(0, stealPct - 2.0) / 2.0 + Math.max(0, gcMs - 5) / 5.0
                    + Math.max(0, heldMs - boundMs) / boundMs;
            if (score < bestScore) {
                best = result;
                bestScore = score;
            }
            if (score == 0) {
                return result;
            }
            System.out.println(String.format(Locale.ROOT, "ClientSaturationIT %s: attempt %d disturbed (%.1f %% steal,"
                    + " %d ms of GC pauses in the test JVM, a CPU held %.1f ms from a waking thread)%s", name, attempt,
                    stealPct, gcMs, heldMs, attempt < 5 ? ", repeated" : ": the least disturbed of 5 is kept"));
        }
        return best;
    }

    private static <T> T attempt(ThrowingSupplier<T> run) throws Exception {
        try {
            return run.get();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Waits up to {@value #QUIET_WAIT_S} s for a one-second window in which the hypervisor took at most 2 % of the
     * machine (bench/loadgen's rule): the host's steal comes in episodes, and an attempt started in one is repeated
     * anyway. Returns at once in a quiet window; after the wait the attempt runs regardless (its steal is judged).
     */
    private static void awaitQuietSecond(String name) throws IOException, InterruptedException {
        double st = 0;
        for (int s = 0; s < QUIET_WAIT_S; s++) {
            long[] a = stealAndTotal();
            Thread.sleep(1000);
            long[] b = stealAndTotal();
            st = b[1] == a[1] ? 0 : 100.0 * (b[0] - a[0]) / (b[1] - a[1]);
            if (st <= 2.0) {
                return;
            }
        }
        System.out.println(String.format(Locale.ROOT, "ClientSaturationIT %s: steal still %.1f %% after %d s of"
                + " waiting for a quiet second", name, st, QUIET_WAIT_S));
    }

    private static final int QUIET_WAIT_S = 30;

    /** Steal and total jiffies of all CPUs, from /proc/stat's first line (guest time is inside user time). */
    private static long[] stealAndTotal() throws IOException {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long total = 0;
        for (int k = 1; k <= 8 && k < f.length; k++) {
            total += Long.parseLong(f[k]);
        }
        return new long[] {f.length > 8 ? Long.parseLong(f[8]) : 0, total};
    }

    /**
     * Pause time of this JVM's collectors so far, by the client's rule ({@link JvmPauses}): every collector but the
     * concurrent {@code … Cycles} of ZGC and Shenandoah ("G1 Concurrent GC" counts G1's Remark and Cleanup pauses).
     */
    private static long gcPauseMs() {
        long ms = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (!b.getName().endsWith("Cycles") && b.getCollectionTime() > 0) {
                ms += b.getCollectionTime();
            }
        }
        return ms;
    }

    /**
     * A run is only expected to keep its schedule on a machine with a core to spare: with the cores busy with others'
     * work (builds on a shared machine) the client really is starved, and it says so (measured: with 16 runnable
     * processes on 2 cores an unthrottled loop-lag p99 of 10-12 ms). So the "not saturated" halves run only when the
     * machine's CPUs were idle at least one core's worth over the second before (/proc/stat), and are skipped with
     * the figure otherwise; the saturated halves always run.
     */
    private static double idleCores() throws IOException, InterruptedException {
        long[] a = cpuIdleAndTotal();
        Thread.sleep(1000);
        long[] b = cpuIdleAndTotal();
        int cores = Runtime.getRuntime().availableProcessors();
        return b[1] == a[1] ? 0 : cores * (double) (b[0] - a[0]) / (b[1] - a[1]);
    }

    private static void assumeCoresToSpare(double idleCores) {
        int cores = Runtime.getRuntime().availableProcessors();
        // in CI (services required) the class runs alone (@Isolated) on a machine of its own: a busy machine there is
        // a failure, never a skip
        SharedData.requireService(idleCores >= 1.0, String.format(Locale.ROOT,
                "a core to spare (%.2f of %d cores idle: the machine is busy with others' work)", idleCores, cores));
    }

    /** Idle (idle + iowait) and total jiffies of all CPUs, from /proc/stat's first line. */
    private static long[] cpuIdleAndTotal() throws IOException {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long total = 0;
        for (int k = 1; k < f.length; k++) {
            total += Long.parseLong(f[k]);
        }
        return new long[] {Long.parseLong(f[4]) + Long.parseLong(f[5]), total};
    }

    /**
     * {@code isobench loadgen} at nice 19 on one core; with {@code hog}, a busy loop at nice 0 on the same core from
     * the moment the measured phase starts ({@code loadgen: sending}) until it ends ({@code loadgen: done}), so the
     * JVM's start-up and report are not slowed.
     */
    private static Run loadgen(StreamingTestServer server, String core, boolean hog) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("taskset", "-c", core, "nice", "-n", "19",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC"));
        String jar = System.getProperty("isobench.jar");
        if (jar != null && Files.isRegularFile(Path.of(jar))) {
            cmd.addAll(List.of("-jar", jar));
        } else {
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.isobench.cli.Main"));
        }
        cmd.addAll(List.of("loadgen", "--base-url", server.baseUrl(), "--model", "m", "--dataset-name", "random",
                "--random-input-len", "16", "--random-output-len", "8", "--ignore-eos", "--num-prompts", "100",
                "--request-rate", "20", "--num-warmups", "10"));
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        StringBuilder err = new StringBuilder();
        Process busy = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                err.append(line).append('\n');
                if (hog && busy == null && line.startsWith("loadgen: sending")) {
                    busy = new ProcessBuilder("taskset", "-c", core, "sh", "-c", "while :; do :; done").start();
                }
                if (busy != null && line.startsWith("loadgen: done")) {
                    busy.destroyForcibly().waitFor();
                }
            }
        } finally {
            if (busy != null) {
                busy.destroyForcibly().waitFor();
            }
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(hog ? busy : "no hog").as("the hog started with the measured phase").isNotNull();
        return new Run(p.exitValue(), out.get(), err.toString());
    }
}
