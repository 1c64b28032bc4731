package io.isobench.plan;

import io.isobench.parse.FailureCategory;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GpuSlotsTest {

    @Test
    void leasesGiveCudaAndDockerStrings() {
        GpuSlots slots = GpuSlots.of(8);
        GpuLease four = slots.tryAcquire(4).orElseThrow();
        GpuLease two = slots.tryAcquire(2).orElseThrow();
        GpuLease one = slots.tryAcquire(1).orElseThrow();
        assertThat(four.cudaVisibleDevices()).isEqualTo("0,1,2,3");
        assertThat(two.cudaVisibleDevices()).isEqualTo("4,5");
        assertThat(one.cudaVisibleDevices()).isEqualTo("6");
        assertThat(four.dockerGpus()).isEqualTo("\"device=0,1,2,3\"");
        assertThat(one.dockerArgs()).containsExactly("--gpus", "\"device=6\"");
        assertThat(slots.free()).isEqualTo(1);
        assertThat(slots.tryAcquire(2)).isEmpty();
        slots.release(two);
        assertThat(slots.tryAcquire(2).orElseThrow().ids()).containsExactly(4, 5);
        GpuLease none = slots.tryAcquire(0).orElseThrow();
        assertThat(none.cudaVisibleDevices()).isEmpty();
        assertThat(none.dockerArgs()).isEmpty();
    }

    @Test
    void prefersAlignedBlocks() {
        GpuSlots slots = GpuSlots.of(8);
        GpuLease a = slots.tryAcquire(1).orElseThrow(); // 0
        GpuLease b = slots.tryAcquire(2).orElseThrow(); // aligned pair 2,3 (0,1 is broken)
        assertThat(a.ids()).containsExactly(0);
        assertThat(b.ids()).containsExactly(2, 3);
        assertThat(slots.tryAcquire(4).orElseThrow().ids()).containsExactly(4, 5, 6, 7);
        assertThat(slots.tryAcquire(1).orElseThrow().ids()).containsExactly(1);
    }

    @Test
    void discoveredIdsAreUsedAsGiven() {
        GpuSlots slots = new GpuSlots(List.of(5, 2, 7));
        assertThat(slots.ids()).containsExactly(2, 5, 7);
        assertThat(slots.tryAcquire(3).orElseThrow().cudaVisibleDevices()).isEqualTo("2,5,7");
    }

    @Test
    void refusesMoreThanTheNodeHas() {
        GpuSlots slots = GpuSlots.of(4);
        assertThatThrownBy(() -> slots.tryAcquire(8))
                .isInstanceOfSatisfying(GpuSlots.Insufficient.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.RESOURCES_INSUFFICIENT);
                    assertThat(e.requested()).isEqualTo(8);
                    assertThat(e.available()).isEqualTo(4);
                })
                .hasMessageContaining("RESOURCES_INSUFFICIENT").hasMessageContaining("needs 8 GPU(s), the node has 4");
        assertThatThrownBy(() -> slots.acquire(5)).isInstanceOf(GpuSlots.Insufficient.class);
        assertThat(slots.free()).isEqualTo(4);
    }

    @Test
    void doubleOrForeignReleaseIsAnError() {
        GpuSlots slots = GpuSlots.of(2);
        GpuLease l = slots.tryAcquire(1).orElseThrow();
        slots.release(l);
        assertThatThrownBy(() -> slots.release(l)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> slots.release(List.of(9))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void blockingAcquireWaitsForRelease() throws Exception {
        GpuSlots slots = GpuSlots.of(2);
        GpuLease held = slots.acquire(2);
        assertThat(slots.acquire(1, Duration.ofMillis(50))).isEmpty();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<GpuLease> waiting = pool.submit(() -> slots.acquire(2));
            Thread.sleep(50);
            assertThat(waiting.isDone()).isFalse();
            slots.release(held);
            assertThat(waiting.get(5, TimeUnit.SECONDS).ids()).containsExactly(0, 1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void waitersAreGrantedInArrivalOrderWithBackfill() throws Exception {
        GpuSlots slots = GpuSlots.of(2);
        GpuLease a = slots.tryAcquire(1).orElseThrow();
        GpuLease b = slots.tryAcquire(1).orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Future<GpuLease> wide = pool.submit(() -> slots.acquire(2));
            awaitWaiting(slots, 1);
            Future<GpuLease> first = pool.submit(() -> slots.acquire(1));
            awaitWaiting(slots, 2);
            Future<GpuLease> second = pool.submit(() -> slots.acquire(1));
            awaitWaiting(slots, 3);
            slots.release(a); // one GPU back: the wide request cannot use it, the earlier narrow one gets it
            GpuLease got = first.get(5, TimeUnit.SECONDS);
            assertThat(got.ids()).containsExactly(0);
            assertThat(second.isDone()).isFalse();
            assertThat(wide.isDone()).isFalse();
            slots.release(b);
            assertThat(second.get(5, TimeUnit.SECONDS).ids()).containsExactly(1);
            slots.release(got);
            assertThat(wide.isDone()).isFalse();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void timedOutAndInterruptedWaitersLeaveTheQueue() throws Exception {
        GpuSlots slots = GpuSlots.of(1);
        GpuLease held = slots.acquire(1);
        assertThat(slots.acquire(1, Duration.ofMillis(20))).isEmpty();
        assertThat(slots.waiting()).isZero();
        Thread t = new Thread(() -> {
            try {
                slots.acquire(1);
            } catch (InterruptedException expected) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        awaitWaiting(slots, 1);
        t.interrupt();
        t.join(5000);
        assertThat(slots.waiting()).isZero();
        slots.release(held);
        assertThat(slots.free()).isEqualTo(1);
    }

    static void awaitWaiting(GpuSlots slots, int n) throws InterruptedException {
        for (int i = 0; i < 500 && slots.waiting() < n; i++) {
            Thread.sleep(10);
        }
        assertThat(slots.waiting()).isEqualTo(n);
    }

    /** Random job streams, several threads: no GPU is ever held by two jobs; every GPU comes back. */
    @Property(tries = 30)
    void neverOversubscribes(@ForAll @IntRange(min = 1, max = 8) int nodeGpus,
                             @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 0, max = 8) Integer> requests,
                             @ForAll @IntRange(min = 1, max = 6) int threads) throws Exception {
        GpuSlots slots = GpuSlots.of(nodeGpus);
        AtomicIntegerArray holders = new AtomicIntegerArray(nodeGpus);
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int offset = t;
                fs.add(pool.submit(() -> {
                    for (int i = offset; i < requests.size(); i += threads) {
                        int n = requests.get(i);
                        GpuLease lease;
                        try {
                            if (i % 2 == 0) {
                                lease = slots.acquire(n);
                            } else {
                                Optional<GpuLease> o = slots.tryAcquire(n);
                                if (o.isEmpty()) {
                                    continue;
                                }
                                lease = o.get();
                            }
                        } catch (GpuSlots.Insufficient e) {
                            assertThat(n).isGreaterThan(nodeGpus);
                            refused.incrementAndGet();
                            continue;
                        }
                        if (lease.count() != n) {
                            violations.incrementAndGet();
                        }
                        for (int id : lease.ids()) {
                            if (holders.incrementAndGet(id) != 1) {
                                violations.incrementAndGet();
                            }
                        }
                        Thread.onSpinWait();
                        for (int id : lease.ids()) {
                            holders.decrementAndGet(id);
                        }
                        slots.release(lease);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations.get()).isZero();
        assertThat(refused.get()).isEqualTo((int) requests.stream().filter(n -> n > nodeGpus).count());
        assertThat(slots.free()).isEqualTo(nodeGpus);
    }
}
