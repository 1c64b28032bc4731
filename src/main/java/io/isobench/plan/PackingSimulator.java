package io.isobench.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Offline GPU-aware list scheduling on one node of G GPUs ({@code isobench plan simulate}, DESIGN.md §11).
 *
 * <p>Policy: jobs are put in a priority order; whenever GPUs free up, the pending list is scanned in that order and
 * every job that fits the free GPUs starts (smaller jobs may pass a wider one that does not fit yet). Concrete GPU
 * ids come from {@link GpuSlots}, the same packer the executors use, so the schedule never oversubscribes. A few
 * orders are tried and the shortest makespan kept: longest-processing-time first (LPT), widest first, most
 * GPU-seconds first, and jobs needing more than G/2 GPUs first (they cannot overlap one another) then LPT.
 *
 * <p>The lower bound is the largest of total GPU-seconds / G, the longest job, and the summed durations of the jobs
 * needing more than G/2 GPUs. Jobs needing more than G GPUs are refused ({@code RESOURCES_INSUFFICIENT}) and left
 * out of both.
 */
public final class PackingSimulator {

    private static final Comparator<SimJob> BY_ID = Comparator.comparing(SimJob::id);
    private static final Comparator<SimJob> LPT = Comparator.comparingDouble(SimJob::durationS).reversed()
            .thenComparing(Comparator.comparingInt(SimJob::gpus).reversed()).thenComparing(BY_ID);
    private static final Comparator<SimJob> WIDEST = Comparator.comparingInt(SimJob::gpus).reversed()
            .thenComparing(Comparator.comparingDouble(SimJob::durationS).reversed()).thenComparing(BY_ID);
    private static final Comparator<SimJob> GPU_SECONDS = Comparator.comparingDouble(SimJob::gpuSeconds).reversed()
            .thenComparing(LPT);

    private PackingSimulator() {
    }

    public static SimResult simulate(List<SimJob> jobs, int nodeGpus) {
        if (nodeGpus < 0) {
            throw new IllegalArgumentException("nodeGpus must be >= 0: " + nodeGpus);
        }
        List<SimJob> ok = new ArrayList<>();
        List<SimJob> refused = new ArrayList<>();
        for (SimJob j : jobs) {
            (j.gpus() > nodeGpus ? refused : ok).add(j);
        }
        double gpuSeconds = 0;
        double longest = 0;
        double big = 0;
        for (SimJob j : ok) {
            gpuSeconds += j.gpuSeconds();
            longest = Math.max(longest, j.durationS());
            if (2 * j.gpus() > nodeGpus) {
                big += j.durationS();
            }
        }
        double work = nodeGpus > 0 ? gpuSeconds / nodeGpus : 0;
        double lower = Math.max(work, Math.max(longest, big));
        SimResult.Bound binding;
        if (work >= longest && work >= big) {
            binding = SimResult.Bound.GPU_SECONDS;
        } else if (big > longest) {
            binding = SimResult.Bound.BIG_JOBS;
        } else {
            binding = SimResult.Bound.LONGEST_JOB;
        }

        Comparator<SimJob> bigFirst = Comparator.<SimJob>comparingInt(j -> 2 * j.gpus() > nodeGpus ? 0 : 1)
                .thenComparing(LPT);
        Map<String, Comparator<SimJob>> orders = new LinkedHashMap<>();
        orders.put("lpt", LPT);
        orders.put("big-first+lpt", bigFirst);
        orders.put("widest-first", WIDEST);
        orders.put("gpu-seconds-first", GPU_SECONDS);

        List<SimResult.Placement> best = null;
        double bestMakespan = Double.POSITIVE_INFINITY;
        String bestPolicy = "";
        Map<String, Double> tried = new LinkedHashMap<>();
        for (Map.Entry<String, Comparator<SimJob>> e : orders.entrySet()) {
            List<SimJob> ordered = new ArrayList<>(ok);
            ordered.sort(e.getValue());
            List<SimResult.Placement> schedule = listSchedule(ordered, nodeGpus);
            double makespan = schedule.stream().mapToDouble(SimResult.Placement::endS).max().orElse(0);
            tried.put(e.getKey(), makespan);
            if (makespan < bestMakespan) {
                bestMakespan = makespan;
                best = schedule;
                bestPolicy = e.getKey();
            }
        }
        return new SimResult(nodeGpus, ok.size(), gpuSeconds, work, longest, big, lower, binding, bestMakespan,
                bestPolicy, best, refused, tried);
    }

    private record Running(double endS, SimJob job, GpuLease lease) {
    }

    /** Greedy list scheduling with backfill in the given priority order. */
    static List<SimResult.Placement> listSchedule(List<SimJob> ordered, int nodeGpus) {
        GpuSlots slots = GpuSlots.of(nodeGpus);
        LinkedList<SimJob> pending = new LinkedList<>(ordered);
        PriorityQueue<Running> running = new PriorityQueue<>(Comparator.comparingDouble(Running::endS)
                .thenComparing(r -> r.job().id()));
        List<SimResult.Placement> out = new ArrayList<>(ordered.size());
        double now = 0;
        while (!pending.isEmpty() || !running.isEmpty()) {
            int free = slots.free();
            for (ListIterator<SimJob> it = pending.listIterator(); it.hasNext(); ) {
                SimJob j = it.next();
                if (j.gpus() > free) {
                    continue;
                }
                GpuLease lease = slots.tryAcquire(j.gpus()).orElseThrow();
                free -= j.gpus();
                it.remove();
                double end = now + j.durationS();
                running.add(new Running(end, j, lease));
                out.add(new SimResult.Placement(j, now, end, lease.ids()));
            }
            if (running.isEmpty()) {
                break; // nothing pending fits an empty node: cannot happen for jobs with gpus <= nodeGpus
            }
            now = running.peek().endS();
            while (!running.isEmpty() && running.peek().endS() <= now) {
                slots.release(running.poll().lease());
            }
        }
        if (!pending.isEmpty()) {
            throw new IllegalStateException("jobs left unscheduled: " + pending);
        }
        return out;
    }
}
