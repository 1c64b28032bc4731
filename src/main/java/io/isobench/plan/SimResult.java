package io.isobench.plan;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link PackingSimulator#simulate} found for one node shape.
 *
 * @param nodeGpus          GPUs of the node (G)
 * @param jobs              jobs scheduled (refused ones excluded)
 * @param gpuSeconds        Σ gpus × duration over scheduled jobs
 * @param workBoundS        gpuSeconds / G
 * @param longestJobS       the longest scheduled job
 * @param bigJobsBoundS     Σ durations of jobs needing more than G/2 GPUs (no two of them overlap)
 * @param lowerBoundS       the largest of the three (DESIGN.md §11)
 * @param binding           which term is the largest
 * @param makespanS         the schedule's end
 * @param policy            the ordering that gave the best makespan
 * @param placements        the schedule: every job with start, end and concrete GPU ids, by start time
 * @param refused           jobs needing more GPUs than the node has ({@code RESOURCES_INSUFFICIENT})
 * @param policyMakespansS  the makespan each ordering tried gave, in the order tried
 */
public record SimResult(int nodeGpus, int jobs, double gpuSeconds, double workBoundS, double longestJobS,
                        double bigJobsBoundS, double lowerBoundS, Bound binding, double makespanS, String policy,
                        List<Placement> placements, List<SimJob> refused, Map<String, Double> policyMakespansS) {

    /** The lower-bound terms. */
    public enum Bound {
        /** total GPU-seconds / G */
        GPU_SECONDS,
        /** the longest job */
        LONGEST_JOB,
        /** jobs needing more than G/2 GPUs run one after another */
        BIG_JOBS
    }

    /** One job in the schedule. */
    public record Placement(SimJob job, double startS, double endS, List<Integer> gpuIds) {
        public Placement {
            gpuIds = List.copyOf(gpuIds);
        }
    }

    public SimResult {
        placements = List.copyOf(placements);
        refused = List.copyOf(refused);
        policyMakespansS = Collections.unmodifiableMap(new LinkedHashMap<>(policyMakespansS));
    }

    /** makespan / lower bound; 1.0 for an empty schedule. */
    public double ratio() {
        return lowerBoundS > 0 ? makespanS / lowerBoundS : 1.0;
    }

    /** GPU-seconds used / (G × makespan); 0 for an empty schedule. */
    public double utilisation() {
        return makespanS > 0 && nodeGpus > 0 ? gpuSeconds / (nodeGpus * makespanS) : 0.0;
    }
}
