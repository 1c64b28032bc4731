package io.isobench.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread pinned to each CPU (with {@code taskset -p}, by its thread id) that sleeps {@value #PERIOD_MS} ms at a
 * time and keeps how much later than asked it woke: how long a thread that wanted a CPU was held off it. User-space
 * work cannot hold a CPU that long from a waking thread (the scheduler preempts it within a slice, ~1.4 ms on the
 * project's 2-CPU machines), so a long oversleep is work the client cannot control: the kernel's own threads (on the
 * project's virtual machines DAMON's reclaim, {@code kdamond}, ran 5-27 ms at a stretch without being preempted), the
 * hypervisor taking the vCPU, or a safepoint of this JVM (a GC pause). A thread that cannot be pinned (no
 * {@code taskset}) runs unpinned and still sees safepoints.
 */
final class CpuCanaries implements AutoCloseable {

    static final long PERIOD_MS = 2;

    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong maxLateNs = new AtomicLong();
    private volatile boolean running = true;

    private CpuCanaries() {
    }

    /** Starts one canary per CPU and returns once each is pinned (or found unpinnable). */
    static CpuCanaries start() throws InterruptedException {
        CpuCanaries c = new CpuCanaries();
        int cpus = Runtime.getRuntime().availableProcessors();
        CountDownLatch pinned = new CountDownLatch(cpus);
        for (int cpu = 0; cpu < cpus; cpu++) {
            int k = cpu;
            c.threads.add(Thread.ofPlatform().daemon().name("cpu-canary-" + k).start(() -> {
                pin(k);
                pinned.countDown();
                c.watch();
            }));
        }
        pinned.await(10, TimeUnit.SECONDS);
        return c;
    }

    private void watch() {
        long periodNs = PERIOD_MS * 1_000_000L;
        while (running) {
            long t = System.nanoTime();
            LockSupport.parkNanos(periodNs);
            long late = System.nanoTime() - t - periodNs;
            maxLateNs.accumulateAndGet(late, Math::max);
        }
    }

    /** The longest oversleep of any canary so far, in ms. */
    double maxLateMs() {
        return maxLateNs.get() / 1e6;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(1000);
        }
    }

    private static void pin(int cpu) {
        try {
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self")); // "<pid>/task/<tid>"
            String tid = self.getFileName().toString();
            Process p = new ProcessBuilder("taskset", "-p", "-c", Integer.toString(cpu), tid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException | UnsupportedOperationException e) {
            // unpinned: it still sees this JVM's safepoints
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
