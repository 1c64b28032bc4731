package io.isobench.plan;

import io.isobench.SharedData;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PackingSimulatorTest {

    static final String FULL_RESULTS =
            "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/exports/full_results.jsonl";

    static List<SimJob> jobs(int gpus, double... durations) {
        List<SimJob> out = new ArrayList<>();
        for (double d : durations) {
            out.add(new SimJob("g" + gpus + "-" + out.size() + "-" + d, gpus, d));
        }
        return out;
    }

    static List<SimJob> concat(List<SimJob> a, List<SimJob> b) {
        List<SimJob> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    @Test
    void perfectPackingReachesTheWorkBound() {
        // 8 GPUs: one 8-GPU job (10 s) and eight 1-GPU jobs (10 s): optimum 20 = 160 GPU-s / 8
        SimResult r = PackingSimulator.simulate(concat(jobs(8, 10), jobs(1, 10, 10, 10, 10, 10, 10, 10, 10)), 8);
        assertThat(r.lowerBoundS()).isEqualTo(20.0);
        assertThat(r.binding()).isEqualTo(SimResult.Bound.GPU_SECONDS);
        assertThat(r.makespanS()).isEqualTo(20.0);
        assertThat(r.ratio()).isEqualTo(1.0);
        assertThat(r.utilisation()).isEqualTo(1.0);
    }

    @Test
    void jobsWiderThanHalfTheNodeCannotOverlap() {
        // three 5-GPU jobs on 8 GPUs run one after another: 30 s, although GPU-s/G is only 18.75
        SimResult r = PackingSimulator.simulate(jobs(5, 10, 10, 10), 8);
        assertThat(r.workBoundS()).isEqualTo(18.75);
        assertThat(r.bigJobsBoundS()).isEqualTo(30.0);
        assertThat(r.binding()).isEqualTo(SimResult.Bound.BIG_JOBS);
        assertThat(r.makespanS()).isEqualTo(30.0);
        // 3-GPU jobs fill the gaps beside them: 3 × (5+3) = 24 GPUs… fit one 3-GPU job next to each 5-GPU job
        SimResult mixed = PackingSimulator.simulate(concat(jobs(5, 10, 10, 10), jobs(3, 10, 10, 10)), 8);
        assertThat(mixed.makespanS()).isEqualTo(30.0);
        assertThat(mixed.ratio()).isEqualTo(1.0);
    }

    @Test
    void longestJobBinds() {
        SimResult r = PackingSimulator.simulate(concat(jobs(1, 100), jobs(1, 1, 1, 1)), 4);
        assertThat(r.binding()).isEqualTo(SimResult.Bound.LONGEST_JOB);
        assertThat(r.lowerBoundS()).isEqualTo(100.0);
        assertThat(r.makespanS()).isEqualTo(100.0);
    }

    @Test
    void lptIsNotAlwaysOptimal() {
        // the classic LPT case on 2 machines: 3,3,2,2,2 — optimum 6 ({3,3} | {2,2,2}); LPT gives 7 = 7/6 × bound
        SimResult r = PackingSimulator.simulate(jobs(1, 3, 3, 2, 2, 2), 2);
        assertThat(r.lowerBoundS()).isEqualTo(6.0);
        assertThat(r.makespanS()).isEqualTo(7.0);
        assertThat(r.ratio()).isCloseTo(7.0 / 6.0, within(1e-12));
    }

    @Test
    void widerJobsThanTheNodeAreRefused() {
        SimResult r = PackingSimulator.simulate(concat(jobs(16, 50), jobs(2, 10, 10)), 8);
        assertThat(r.refused()).extracting(SimJob::gpus).containsExactly(16);
        assertThat(r.jobs()).isEqualTo(2);
        assertThat(r.lowerBoundS()).isEqualTo(10.0);
        assertThat(r.makespanS()).isEqualTo(10.0);
        assertThat(r.placements()).extracting(p -> p.gpuIds().size()).containsOnly(2);
    }

    @Test
    void emptyInput() {
        SimResult r = PackingSimulator.simulate(List.of(), 8);
        assertThat(r.makespanS()).isZero();
        assertThat(r.ratio()).isEqualTo(1.0);
        assertThat(r.utilisation()).isZero();
    }

    /** Any job mix: a valid schedule (no GPU used twice at once, every job once, right width), at or above the bound. */
    @Property(tries = 150)
    void schedulesAreValid(@ForAll @IntRange(min = 1, max = 8) int nodeGpus,
                           @ForAll @Size(min = 1, max = 40) List<@IntRange(min = 1, max = 8) Integer> widths,
                           @ForAll @Size(min = 40, max = 40) List<@IntRange(min = 1, max = 500) Integer> durations) {
        List<SimJob> js = new ArrayList<>();
        for (int i = 0; i < widths.size(); i++) {
            js.add(new SimJob("j" + i, widths.get(i), durations.get(i)));
        }
        SimResult r = PackingSimulator.simulate(js, nodeGpus);
        assertValid(r, nodeGpus);
        assertThat(r.jobs() + r.refused().size()).isEqualTo(js.size());
        assertThat(r.refused()).allMatch(j -> j.gpus() > nodeGpus);
        assertThat(r.makespanS()).isGreaterThanOrEqualTo(r.lowerBoundS() - 1e-9);
        if (r.placements().stream().allMatch(p -> 2 * p.job().gpus() <= nodeGpus)) {
            // jobs of at most G/2 GPUs: while the last job waits, more than G/2 GPUs are busy, so greedy list
            // scheduling (any order) ends within 2× the bound
            assertThat(r.makespanS()).isLessThanOrEqualTo(2 * r.lowerBoundS() + 1e-9);
        }
    }

    static void assertValid(SimResult r, int nodeGpus) {
        assertThat(r.placements()).hasSize(r.jobs());
        List<SimResult.Placement> ps = r.placements();
        for (SimResult.Placement p : ps) {
            assertThat(p.gpuIds()).hasSize(p.job().gpus()).doesNotHaveDuplicates()
                    .allMatch(id -> id >= 0 && id < nodeGpus);
            assertThat(p.endS() - p.startS()).isCloseTo(p.job().durationS(), within(1e-6));
        }
        // sweep: at each start, the GPUs of running jobs are disjoint
        for (SimResult.Placement p : ps) {
            List<Integer> busy = new ArrayList<>();
            for (SimResult.Placement q : ps) {
                if (q.startS() <= p.startS() && p.startS() < q.endS()) {
                    busy.addAll(q.gpuIds());
                }
            }
            assertThat(busy).doesNotHaveDuplicates();
        }
    }

    @Test
    void realIsoBenchSuiteOnEightGpus() {
        Path f = SharedData.require(FULL_RESULTS);
        SimInput.Jobs in = SimInput.load(f, new SimInput.Options(3, 5, null));
        assertThat(in.jobs()).hasSize(94 * 15);
        Map<Integer, Long> widths = in.jobs().stream()
                .collect(Collectors.groupingBy(SimJob::gpus, TreeMap::new, Collectors.counting()));
        System.out.println("ISO-Bench jobs by GPU count (3 arms × 5 rounds): " + widths);
        assertThat(widths).containsKeys(1, 8);
        SimResult r = PackingSimulator.simulate(in.jobs(), 8);
        report("8 GPUs, 3 arms × 5 rounds", r);
        assertValid(r, 8);
        assertThat(r.refused()).isEmpty();
        assertThat(r.ratio()).isLessThanOrEqualTo(1.05);
    }

    @Test
    void realIsoBenchOtherShapes() {
        Path f = SharedData.require(FULL_RESULTS);
        SimResult one = PackingSimulator.simulate(SimInput.load(f, new SimInput.Options(1, 1, null)).jobs(), 8);
        report("8 GPUs, 1 arm × 1 round", one);
        assertThat(one.jobs()).isEqualTo(94);
        assertThat(one.ratio()).isLessThanOrEqualTo(1.05);
        SimResult four = PackingSimulator.simulate(SimInput.load(f, new SimInput.Options(3, 5, null)).jobs(), 4);
        report("4 GPUs, 3 arms × 5 rounds", four);
        assertThat(four.refused()).isNotEmpty().allMatch(j -> j.gpus() > 4);
        assertThat(four.jobs() + four.refused().size()).isEqualTo(94 * 15);
        assertValid(four, 4);
        assertThat(four.ratio()).isLessThanOrEqualTo(1.05);
        SimResult fourOne = PackingSimulator.simulate(SimInput.load(f, new SimInput.Options(1, 1, null)).jobs(), 4);
        report("4 GPUs, 1 arm × 1 round", fourOne);
        assertThat(fourOne.ratio()).isLessThanOrEqualTo(1.05);
    }

    static void report(String label, SimResult r) {
        System.out.printf(Locale.ROOT, "%s: %d jobs, %d refused, lower bound %.0f s (%s), makespan %.0f s"
                        + " (%s), ratio %.4f, utilisation %.4f%n", label, r.jobs(), r.refused().size(), r.lowerBoundS(),
                r.binding(), r.makespanS(), r.policy(), r.ratio(), r.utilisation());
    }
}
