package io.isobench.plan;

import io.isobench.parse.FailureCategory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The GPUs of one node, handed to jobs without ever oversubscribing (DESIGN.md §11): each GPU is held by at most one
 * job at a time. Thread-safe. A request for more GPUs than the node has is refused with
 * {@link FailureCategory#RESOURCES_INSUFFICIENT} ({@link Insufficient}); it would otherwise wait forever.
 *
 * <p>Placement: a request for {@code n} GPUs gets an aligned contiguous block (ids {@code k·n … k·n+n-1}, the
 * NVLink/PCIe-switch neighbours on common 8-GPU boards) when one is free, else the lowest free contiguous run, else
 * the lowest free ids. Blocking {@link #acquire(int)} grants waiting requests in arrival order, each that fits, so a
 * smaller request may pass a waiting larger one (no head-of-line blocking); callers that must not starve wide jobs
 * submit them first (the {@link PackingSimulator} order does).
 */
public final class GpuSlots {

    /** A request that no amount of waiting can satisfy on this node. */
    public static final class Insufficient extends RuntimeException {
        private final int requested;
        private final int available;

        Insufficient(int requested, int available) {
            super(String.format(Locale.ROOT,
                    "%s: the job needs %d GPU(s), the node has %d (fix: run it on a node with at least %d GPUs,"
                            + " or lower its tensor parallelism)",
                    FailureCategory.RESOURCES_INSUFFICIENT, requested, available, requested));
            this.requested = requested;
            this.available = available;
        }

        public FailureCategory category() {
            return FailureCategory.RESOURCES_INSUFFICIENT;
        }

        public int requested() {
            return requested;
        }

        public int available() {
            return available;
        }
    }

    private final List<Integer> all;
    private final TreeSet<Integer> free;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedList<Waiter> waiters = new LinkedList<>();
    /** The host-wide lease every job also takes (null: this process only; tests and plan-time checks). */
    private volatile HostGpuLocks hostLocks;

    /** A node with the given GPU ids (e.g. from {@link GpuDiscovery}); distinct, non-negative. */
    public GpuSlots(List<Integer> ids) {
        TreeSet<Integer> set = new TreeSet<>();
        for (Integer id : ids) {
            if (id == null || id < 0) {
                throw new IllegalArgumentException("GPU id must be >= 0: " + id);
            }
            if (!set.add(id)) {
                throw new IllegalArgumentException("duplicate GPU id " + id);
            }
        }
        this.all = List.copyOf(set);
        this.free = new TreeSet<>(set);
    }

    /** A node with GPUs {@code 0 … count-1}. */
    public static GpuSlots of(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("GPU count must be >= 0: " + count);
        }
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(i);
        }
        return new GpuSlots(ids);
    }

    /**
     * Makes every executor lease of these GPUs also take the host-wide lock of its GPUs ({@link HostGpuLocks}), so
     * no other isobench process on the host uses them at the same time; returns this.
     */
    public GpuSlots withHostLocks(HostGpuLocks locks) {
        this.hostLocks = locks;
        return this;
    }

    /** The host-wide locks jobs take besides this process's lease; null when none. */
    public HostGpuLocks hostLocks() {
        return hostLocks;
    }

    public int total() {
        return all.size();
    }

    public List<Integer> ids() {
        return all;
    }

    public int free() {
        lock.lock();
        try {
            return free.size();
        } finally {
            lock.unlock();
        }
    }

    /** Throws {@link Insufficient} when {@code n} exceeds the node; for plan-time checks. */
    public void check(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("GPU count must be >= 0: " + n);
        }
        if (n > all.size()) {
            throw new Insufficient(n, all.size());
        }
    }

    /** {@code n} GPUs now, or empty when not enough are free. */
    public Optional<GpuLease> tryAcquire(int n) {
        check(n);
        lock.lock();
        try {
            return Optional.ofNullable(take(n));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code n} GPUs are free and takes them. Waiting requests are granted in arrival order whenever GPUs
     * come back, each one that fits (a narrower later request may start while a wider earlier one still waits): the
     * list scheduling {@link PackingSimulator} models, so submitting jobs in its order reproduces its schedule.
     */
    public GpuLease acquire(int n) throws InterruptedException {
        check(n);
        lock.lockInterruptibly();
        try {
            GpuLease now = take(n);
            if (now != null) {
                return now;
            }
            Waiter w = new Waiter(n, lock.newCondition());
            waiters.add(w);
            try {
                while (w.lease == null) {
                    w.granted.await();
                }
                return w.lease;
            } catch (InterruptedException e) {
                abandon(w);
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Waits at most {@code timeout}; empty when the GPUs did not become free in time. */
    public Optional<GpuLease> acquire(int n, Duration timeout) throws InterruptedException {
        check(n);
        long nanos = timeout.toNanos();
        lock.lockInterruptibly();
        try {
            GpuLease now = take(n);
            if (now != null) {
                return Optional.of(now);
            }
            Waiter w = new Waiter(n, lock.newCondition());
            waiters.add(w);
            try {
                while (w.lease == null) {
                    if (nanos <= 0) {
                        waiters.remove(w);
                        return Optional.empty();
                    }
                    nanos = w.granted.awaitNanos(nanos);
                }
                return Optional.of(w.lease);
            } catch (InterruptedException e) {
                abandon(w);
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: an interrupted waiter leaves; GPUs granted to it meanwhile go to the others. */
    private void abandon(Waiter w) {
        if (!waiters.remove(w) && w.lease != null) {
            free.addAll(w.lease.ids());
            grant();
        }
    }

    /** Gives the lease's GPUs back. Releasing a GPU that is not held (twice, or foreign) is an error. */
    public void release(GpuLease lease) {
        release(lease.ids());
    }

    public void release(List<Integer> ids) {
        lock.lock();
        try {
            if (new TreeSet<>(ids).size() != ids.size()) {
                throw new IllegalArgumentException("GPU ids repeated in " + ids);
            }
            for (Integer id : ids) {
                if (!all.contains(id)) {
                    throw new IllegalArgumentException("GPU " + id + " is not on this node " + all);
                }
                if (free.contains(id)) {
                    throw new IllegalStateException("GPU " + id + " released twice (it is not held)");
                }
            }
            free.addAll(ids);
            grant();
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting in {@link #acquire}; for diagnostics. */
    public int waiting() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: grants waiting requests in arrival order, each that fits. */
    private void grant() {
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext() && !free.isEmpty(); ) {
            Waiter w = it.next();
            GpuLease l = take(w.n);
            if (l != null) {
                w.lease = l;
                it.remove();
                w.granted.signal();
            }
        }
    }

    private static final class Waiter {
        final int n;
        final Condition granted;
        GpuLease lease;

        Waiter(int n, Condition granted) {
            this.n = n;
            this.granted = granted;
        }
    }

    /** Under the lock: picks and removes n free ids, or null. */
    private GpuLease take(int n) {
        if (n == 0) {
            return new GpuLease(List.of());
        }
        if (free.size() < n) {
            return null;
        }
        List<Integer> pick = alignedBlock(n);
        if (pick == null) {
            pick = contiguousRun(n);
        }
        if (pick == null) {
            pick = new ArrayList<>(free).subList(0, n);
        }
        pick = List.copyOf(pick);
        free.removeAll(pick);
        return new GpuLease(pick);
    }

    private List<Integer> alignedBlock(int n) {
        for (int start = 0; start + n <= all.size(); start += n) {
            List<Integer> block = all.subList(start, start + n);
            if (consecutive(block) && free.containsAll(block)) {
                return block;
            }
        }
        return null;
    }

    private List<Integer> contiguousRun(int n) {
        for (int start = 0; start + n <= all.size(); start++) {
            List<Integer> block = all.subList(start, start + n);
            if (consecutive(block) && free.containsAll(block)) {
                return block;
            }
        }
        return null;
    }

    private static boolean consecutive(List<Integer> block) {
        return block.get(block.size() - 1) - block.get(0) == block.size() - 1;
    }

    @Override
    public String toString() {
        return "GpuSlots" + all + " free=" + free();
    }
}
