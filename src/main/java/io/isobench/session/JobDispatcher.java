package io.isobench.session;

import io.isobench.plan.Job;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Runs a session's jobs, one at a time or several at once packed into the node's GPUs (DESIGN.md §11).
 *
 * <p>With {@code parallel} above 1, jobs start in plan order whenever they fit: at most {@code parallel} at a time
 * and, on a node with GPUs, never more GPUs in use than the node has (the executor's own lease then always finds
 * them free and picks the ids). A job may start ahead of an earlier one still waiting for GPUs (backfilling), but an
 * earlier job is passed at most {@code parallel} times: then nothing else starts until it has its GPUs, so wide jobs do
 * not starve. A job that declares no GPUs on a node that has some (a CPU benchmark) runs alone. The jobs of one task
 * run one after the other in plan order: its correctness checks (the baseline's outputs are the others' reference)
 * and, unless {@code armsAtOnce}, its measured runs too, so two arms that are compared never run at the same time on
 * different GPUs or compete for the same CPUs (docs/statistics.md, "Design of a session"). Without GPUs (cluster
 * executors, CPU engines) only {@code parallel} bounds the jobs in flight.
 *
 * <p>If a job's body throws, no new job starts; the running ones finish; the first exception is rethrown.
 */
final class JobDispatcher {

    private final int parallel;
    private final int gpus;
    private final LinkedList<Job> pending;
    private final Map<Job, Integer> passed = new IdentityHashMap<>();
    private final Set<String> busyTasks = new HashSet<>();
    private final boolean armsAtOnce;
    private int running;
    private int freeGpus;
    private boolean alone;
    private RuntimeException failure;

    private JobDispatcher(List<Job> jobs, int parallel, int gpus, boolean armsAtOnce) {
        this.pending = new LinkedList<>(jobs);
        this.armsAtOnce = armsAtOnce;
        this.parallel = parallel;
        this.gpus = gpus;
        this.freeGpus = gpus;
    }

    /** {@link #run(List, int, int, boolean, Consumer)} with the measured runs of a task free to overlap. */
    static void run(List<Job> jobs, int parallel, int gpus, Consumer<Job> body) {
        run(jobs, parallel, gpus, true, body);
    }

    /**
     * @param jobs     the jobs, in plan order
     * @param parallel the most jobs in flight (1: one after the other, on this thread)
     * @param gpus     the node's GPUs the jobs are packed into; 0 when there are none or a cluster places them
     * @param armsAtOnce measured runs of one task may run at the same time ({@code --allow-cross-gpu}); checks of a
     *                 task never do
     * @param body     runs one job to its end (records it); called from up to {@code parallel} threads at once
     */
    static void run(List<Job> jobs, int parallel, int gpus, boolean armsAtOnce, Consumer<Job> body) {
        if (parallel < 1 || gpus < 0) {
            throw new IllegalArgumentException("parallel must be >= 1 and gpus >= 0: " + parallel + ", " + gpus);
        }
        if (parallel == 1) {
            jobs.forEach(body);
            return;
        }
        new JobDispatcher(jobs, parallel, gpus, armsAtOnce).loop(body);
    }

    /** GPUs the dispatcher reserves for a job: -1 for a whole-node job, 0 when not counted. */
    private int need(Job job) {
        if (gpus == 0 || job.gpus() > gpus) {
            return 0; // nothing to pack, or a job wider than the node: its executor refuses it at once
        }
        return job.gpus() == 0 ? -1 : job.gpus();
    }

    private void loop(Consumer<Job> body) {
        int[] n = {0};
        ExecutorService pool = Executors.newFixedThreadPool(parallel, r -> {
            Thread t = new Thread(r, "isobench-job-" + (++n[0]));
            t.setDaemon(true);
            return t;
        });
        try {
            synchronized (this) {
                while (running > 0 || failure == null && !pending.isEmpty()) {
                    if (failure == null) {
                        for (Job j : pick()) {
                            int reserved = need(j);
                            pool.execute(() -> {
                                try {
                                    body.accept(j);
                                } catch (RuntimeException | Error e) {
                                    synchronized (this) {
                                        if (failure == null) {
                                            failure = e instanceof RuntimeException re ? re
                                                    : new IllegalStateException(e);
                                        }
                                    }
                                } finally {
                                    finished(j, reserved);
                                }
                            });
                        }
                    }
                    if (running > 0) {
                        wait();
                    } else if (failure == null && !pending.isEmpty()) { // cannot happen: an idle node fits any job
                        throw new IllegalStateException("no job can start although none runs: " + pending.peek());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while jobs ran", e);
        } finally {
            pool.shutdown();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The jobs that can start now, in plan order; their resources are reserved. Called holding the monitor. */
    private List<Job> pick() {
        List<Job> out = new ArrayList<>();
        Set<String> tasksAhead = new HashSet<>(busyTasks);
        Job blocked = null;
        for (Iterator<Job> it = pending.iterator(); it.hasNext() && running < parallel && !alone; ) {
            Job j = it.next();
            boolean exclusive = exclusive(j);
            if (exclusive && !tasksAhead.add(j.taskId())) {
                continue; // an earlier job of its task runs or waits: the task's jobs keep their plan order
            }
            int need = need(j);
            if (need < 0 ? running > 0 : need > freeGpus) {
                if (blocked == null) {
                    blocked = j;
                }
                if (need < 0) {
                    break; // a whole-node job: nothing passes it
                }
                continue;
            }
            if (blocked != null) {
                if (passed.getOrDefault(blocked, 0) >= parallel) {
                    break; // it has waited long enough: the GPUs that come free are its
                }
                passed.merge(blocked, 1, Integer::sum);
            }
            it.remove();
            running++;
            if (need < 0) {
                alone = true;
            } else {
                freeGpus -= need;
            }
            if (exclusive) {
                busyTasks.add(j.taskId());
            }
            out.add(j);
        }
        return out;
    }

    /** Whether no other job of the task may run beside this one: checks always, measured runs unless armsAtOnce. */
    private boolean exclusive(Job j) {
        return j.kind() == Job.Kind.CHECK || !armsAtOnce;
    }

    private synchronized void finished(Job j, int reserved) {
        running--;
        if (reserved < 0) {
            alone = false;
        } else {
            freeGpus += reserved;
        }
        if (exclusive(j)) {
            busyTasks.remove(j.taskId());
        }
        passed.remove(j);
        notifyAll();
    }
}
