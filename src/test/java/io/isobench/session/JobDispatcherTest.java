package io.isobench.session;

import io.isobench.plan.Job;
import io.isobench.plan.JobSpec;
import io.isobench.plan.Command;
import io.isobench.Mode;
import io.isobench.Arm;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The session's job dispatcher with real threads: jobs whose body sleeps a few milliseconds and records what ran at
 * the same time (no executor involved: what is under test is only who may start when).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobDispatcherTest {

    private static Job job(int index, String task, String arm, Job.Kind kind, int gpus) {
        return new Job(new Job.Place(index, task + "/" + arm + "/" + index, task, kind == Job.Kind.CHECK ? -1 : 0),
                Arm.fromLabel(arm), Mode.SERVING,
                kind == Job.Kind.CHECK ? new JobSpec.Check(Command.template(List.of("true")), JobSpec.Probes.OWN_COMMAND, null) : new JobSpec.Measure(Command.template(List.of("true")), ClientConfig.NONE, 0, null),
                new Job.Where(Path.of("."), Map.of(), gpus), Job.Limits.ofSeconds(10, 10));
    }

    /** What a dispatch did: GPUs and jobs in use over time, start order, and which jobs overlapped. */
    private static final class Trace {
        final AtomicInteger gpusInUse = new AtomicInteger();
        final AtomicInteger jobsInFlight = new AtomicInteger();
        final AtomicInteger maxGpus = new AtomicInteger();
        final AtomicInteger maxJobs = new AtomicInteger();
        final List<Job> started = Collections.synchronizedList(new ArrayList<>());
        final List<String> events = Collections.synchronizedList(new ArrayList<>());
        final List<Job> overlappedAlone = Collections.synchronizedList(new ArrayList<>());

        void body(Job j, long sleepMs) {
            int g = gpusInUse.addAndGet(j.gpus());
            int n = jobsInFlight.incrementAndGet();
            maxGpus.accumulateAndGet(g, Math::max);
            maxJobs.accumulateAndGet(n, Math::max);
            if (j.gpus() == 0 && n > 1) {
                overlappedAlone.add(j);
            }
            started.add(j);
            events.add("start " + j.jobId());
            try {
                Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            events.add("end " + j.jobId());
            jobsInFlight.decrementAndGet();
            gpusInUse.addAndGet(-j.gpus());
        }
    }

    @RepeatedTest(5)
    void packsJobsIntoTheNodesGpusWithoutOversubscribing() {
        Random rnd = new Random(7);
        List<Job> jobs = new ArrayList<>();
        int[] widths = {1, 2, 4, 1, 1, 2, 8, 1, 4, 2};
        for (int i = 0; i < 60; i++) {
            jobs.add(job(i, "t" + (i % 10), "baseline", Job.Kind.MEASURE, widths[i % widths.length]));
        }
        Trace t = new Trace();
        JobDispatcher.run(jobs, 8, 8, j -> t.body(j, 2 + rnd.nextInt(6)));
        assertThat(t.started).hasSize(60);
        assertThat(t.maxGpus.get()).as("GPUs in use at once").isLessThanOrEqualTo(8);
        assertThat(t.maxJobs.get()).as("jobs in flight at once: packing happened").isGreaterThan(1)
                .isLessThanOrEqualTo(8);
    }

    @Test
    void aWideJobIsPassedAtMostParallelTimes() {
        // four 1-GPU jobs hold the node; the 4-GPU job comes next, then many 1-GPU jobs that would always fit
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jobs.add(job(i, "narrow" + i, "baseline", Job.Kind.MEASURE, 1));
        }
        jobs.add(job(3, "wide", "baseline", Job.Kind.MEASURE, 4));
        for (int i = 4; i < 40; i++) {
            jobs.add(job(i, "narrow" + i, "baseline", Job.Kind.MEASURE, 1));
        }
        Trace t = new Trace();
        JobDispatcher.run(jobs, 4, 4, j -> t.body(j, 5));
        int wideAt = t.started.indexOf(jobs.get(3));
        assertThat(wideAt).as("start position of the wide job (plan position 3, may be passed at most 4 times)")
                .isBetween(3, 3 + 4);
        assertThat(t.maxGpus.get()).isLessThanOrEqualTo(4);
    }

    @Test
    void aJobWithoutGpusOnAGpuNodeRunsAlone() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            jobs.add(job(i, "t" + i, "human", Job.Kind.MEASURE, i % 4 == 2 ? 0 : 1));
        }
        Trace t = new Trace();
        JobDispatcher.run(jobs, 4, 4, j -> t.body(j, 5));
        assertThat(t.overlappedAlone).isEmpty();
        assertThat(t.maxJobs.get()).isGreaterThan(1);
    }

    @Test
    void checksOfATaskRunOneAfterTheOtherInPlanOrder() {
        List<Job> jobs = new ArrayList<>();
        int i = 0;
        for (String task : List.of("a", "b", "c")) {
            for (String arm : List.of("baseline", "human", "agent:x")) {
                jobs.add(job(i++, task, arm, Job.Kind.CHECK, 1));
            }
        }
        Trace t = new Trace();
        JobDispatcher.run(jobs, 8, 8, j -> t.body(j, 5));
        for (String task : List.of("a", "b", "c")) {
            List<String> mine = t.events.stream().filter(e -> e.split(" ")[1].startsWith(task + "/")).toList();
            assertThat(mine).containsExactly("start " + task + "/baseline/" + jobs.stream().filter(j -> j.taskId()
                            .equals(task) && j.arm().equals(Arm.BASELINE)).findFirst().orElseThrow().index(),
                    mine.get(1), mine.get(2), mine.get(3), mine.get(4), mine.get(5));
            for (int k = 0; k < 6; k += 2) {
                assertThat(mine.get(k)).startsWith("start ");
                assertThat(mine.get(k + 1)).startsWith("end ").endsWith(mine.get(k).substring("start ".length()));
            }
        }
        assertThat(t.maxJobs.get()).as("checks of different tasks overlap").isGreaterThan(1);
    }

    @Test
    void withoutGpusOnlyParallelBoundsTheJobsInFlight() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            jobs.add(job(i, "t" + i, "baseline", Job.Kind.MEASURE, i % 3)); // a cluster places them
        }
        Trace t = new Trace();
        JobDispatcher.run(jobs, 3, 0, j -> t.body(j, 5));
        assertThat(t.maxJobs.get()).isEqualTo(3);
        assertThat(t.started).hasSize(20);
    }

    @Test
    void oneAtATimeRunsInPlanOrderOnTheCallersThread() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobs.add(job(i, "t" + i, "baseline", Job.Kind.MEASURE, 2));
        }
        List<String> threads = new ArrayList<>();
        List<Job> order = new ArrayList<>();
        JobDispatcher.run(jobs, 1, 8, j -> {
            threads.add(Thread.currentThread().getName());
            order.add(j);
        });
        assertThat(order).containsExactlyElementsOf(jobs);
        assertThat(threads).containsOnly(Thread.currentThread().getName());
    }

    @Test
    void aThrowingJobStopsNewStartsAndIsRethrownAfterTheRunningOnesEnd() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            jobs.add(job(i, "t" + i, "baseline", Job.Kind.MEASURE, 1));
        }
        Trace t = new Trace();
        assertThatThrownBy(() -> JobDispatcher.run(jobs, 2, 2, j -> {
            if (j.index() == 4) {
                throw new IllegalStateException("store is gone");
            }
            t.body(j, 5);
        })).isInstanceOf(IllegalStateException.class).hasMessage("store is gone");
        assertThat(t.jobsInFlight.get()).as("nothing left running").isZero();
        assertThat(t.started.size()).as("no job started after the failure was seen").isLessThan(8);
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> JobDispatcher.run(List.of(), 0, 1, j -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theArmsOfOneTaskRunOneAfterTheOtherInPlanOrder_otherTasksAlongside() {
        List<Job> jobs = new ArrayList<>();
        String[] arms = {"human", "baseline", "agent:a", "baseline-aa"};
        int i = 0;
        for (int r = 0; r < 3; r++) {
            for (String task : new String[] {"t1", "t2", "t3"}) {
                for (String arm : arms) {
                    jobs.add(job(i++, task, arm, Job.Kind.MEASURE, 1));
                }
            }
        }
        Trace t = new Trace();
        Map<String, AtomicInteger> perTask = new ConcurrentHashMap<>();
        List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
        JobDispatcher.run(jobs, 4, 4, false, j -> {
            if (perTask.computeIfAbsent(j.taskId(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.add(j.jobId());
            }
            t.body(j, 3);
            perTask.get(j.taskId()).decrementAndGet();
        });
        assertThat(overlaps).as("two arms of one task at once").isEmpty();
        assertThat(t.maxJobs.get()).as("tasks still run side by side").isGreaterThan(1);
        for (String task : new String[] {"t1", "t2", "t3"}) {
            assertThat(t.started.stream().filter(j -> j.taskId().equals(task)).map(Job::index).toList())
                    .as("plan order within " + task).isSorted();
        }
        // --allow-cross-gpu: the measured runs of one task may overlap
        Trace free = new Trace();
        List<String> freeOverlaps = Collections.synchronizedList(new ArrayList<>());
        Map<String, AtomicInteger> perTask2 = new ConcurrentHashMap<>();
        List<Job> one = jobs.stream().filter(j -> j.taskId().equals("t1")).toList();
        JobDispatcher.run(one, 4, 4, true, j -> {
            if (perTask2.computeIfAbsent(j.taskId(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                freeOverlaps.add(j.jobId());
            }
            free.body(j, 20);
            perTask2.get(j.taskId()).decrementAndGet();
        });
        assertThat(freeOverlaps).isNotEmpty();
    }
}
