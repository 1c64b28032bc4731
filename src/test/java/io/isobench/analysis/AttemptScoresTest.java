package io.isobench.analysis;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class AttemptScoresTest {

    static AttemptScores.AttemptOutcome att(int k, Verdict v, Double speedup, double human) {
        return new AttemptScores.AttemptOutcome(k, v, speedup, human);
    }

    static AttemptScores.TaskAttempts task(String agent, String task, boolean valid,
                                           AttemptScores.AttemptOutcome... attempts) {
        return new AttemptScores.TaskAttempts(agent, task, valid, List.of(attempts));
    }

    /**
     * Agent a: 3 valid tasks, K = 2. t1: attempt 2 counts (1.30 ≥ 0.95 × 1.30); t2: attempt 1 is better but below the
     * human (1.10 < 0.95 × 1.30), attempt 2 failed; t3: both count. Agent b: K = 1, t1 counts, t2 incorrect, t3
     * equivalent. A task whose replay is not valid is not scored.
     */
    static List<AttemptScores.TaskAttempts> example() {
        return List.of(
                task("a", "t1", true, att(1, Verdict.EQUIVALENT, 1.01, 1.3), att(2, Verdict.BETTER, 1.30, 1.3)),
                task("a", "t2", true, att(1, Verdict.BETTER, 1.10, 1.3), att(2, Verdict.FAILED, null, 1.3)),
                task("a", "t3", true, att(1, Verdict.BETTER, 1.50, 1.3), att(2, Verdict.BETTER, 1.40, 1.3)),
                task("a", "t4", false, att(1, Verdict.BETTER, 2.0, 0.9), att(2, Verdict.BETTER, 2.0, 0.9)),
                task("b", "t1", true, att(1, Verdict.BETTER, 1.24, 1.3)),
                task("b", "t2", true, att(1, Verdict.INCORRECT, 1.9, 1.3)),
                task("b", "t3", true, att(1, Verdict.EQUIVALENT, 0.99, 1.3)));
    }

    @Test
    void opt_at_k_mean_of_k_and_best_of_k_follow_the_stated_rules() {
        AttemptScores s = AttemptScores.of(example(), 0.95);
        AttemptScores.AgentScore a = s.agents().get(0);
        assertThat(a.agent()).isEqualTo("a");
        assertThat(a.k()).isEqualTo(2);
        assertThat(a.tasks()).isEqualTo(3);
        assertThat(a.notValid()).isEqualTo(1);
        assertThat(a.optAtK()).isEqualTo(2);
        // c/n: t1 1/2, t2 0/2, t3 2/2 → mean 0.5
        assertThat(a.meanOfK()).isCloseTo(0.5, within(1e-12));
        // Opt@2 from n = 2 is the plain indicator: 2/3
        assertThat(a.optAtSmallK().get(1)).isCloseTo(2.0 / 3, within(1e-12));
        // best attempts: 1.30 (t1), 1.10 (t2), 1.50 (t3)
        assertThat(a.best().geomeanSpeedup()).isCloseTo(Math.cbrt(1.30 * 1.10 * 1.50), within(1e-12));
        assertThat(a.best().speedTasks()).isEqualTo(3);
        assertThat(a.best().verdicts()).isEqualTo(Map.of(Verdict.BETTER, 3));
        // at 0.90: t2's 1.10 < 1.17 still; at 1.00: t1's 1.30 ≥ 1.30 holds
        assertThat(a.optAtKByFraction()).containsExactly(2, 2);

        AttemptScores.AgentScore b = s.agents().get(1);
        assertThat(b.k()).isEqualTo(1);
        assertThat(b.tasks()).isEqualTo(3);
    }

    @Test
    void the_fraction_decides_borderline_attempts_and_the_sensitivity_names_the_flip() {
        // b's 1.24 vs the human's 1.3: counts at 0.95 (≥ 1.235) and 0.90, not at 1.00
        AttemptScores s = AttemptScores.of(example(), 0.95);
        AttemptScores.AgentScore b = s.agents().get(1);
        assertThat(b.optAtK()).isEqualTo(1);
        assertThat(b.optAtKByFraction()).containsExactly(1, 0);
        // best-of-K: the incorrect attempt's 1.9 is never a number
        assertThat(b.best().geomeanSpeedup()).isCloseTo(Math.sqrt(1.24 * 0.99), within(1e-12));
        assertThat(b.best().verdicts()).isEqualTo(Map.of(Verdict.BETTER, 1, Verdict.INCORRECT, 1,
                Verdict.EQUIVALENT, 1));
        // a beats b under every rule
        assertThat(s.sensitivity().flipped()).isEmpty();
        assertThat(s.sensitivity().line()).startsWith("the ranking is the same under every rule");
        assertThat(s.sensitivity().tau().get(AttemptScores.MEAN_OF_K)).isEqualTo(1.0);
    }

    @Test
    void a_pair_ordered_differently_by_two_rules_is_named() {
        // x: one lucky attempt of 4 on each task (Opt@K 2/2, mean-of-K 0.25); y: K = 1, counts on 1 of 2 (0.5, 0.5)
        List<AttemptScores.TaskAttempts> t = new ArrayList<>();
        for (String task : List.of("t1", "t2")) {
            t.add(task("x", task, true, att(1, Verdict.BETTER, 1.5, 1.2), att(2, Verdict.FAILED, null, 1.2),
                    att(3, Verdict.FAILED, null, 1.2), att(4, Verdict.FAILED, null, 1.2)));
        }
        t.add(task("y", "t1", true, att(1, Verdict.BETTER, 1.6, 1.2)));
        t.add(task("y", "t2", true, att(1, Verdict.WORSE, 0.8, 1.2)));
        AttemptScores s = AttemptScores.of(t, 0.95);
        assertThat(s.agents().get(0).optAtKRate()).isEqualTo(1.0);
        assertThat(s.agents().get(0).meanOfK()).isEqualTo(0.25);
        assertThat(s.agents().get(1).meanOfK()).isEqualTo(0.5);
        assertThat(s.sensitivity().flipped()).containsExactly("x > y (Opt@K) but y > x (mean-of-K)");
        assertThat(s.sensitivity().tau().get(AttemptScores.MEAN_OF_K)).isEqualTo(-1.0);
        assertThat(s.sensitivity().line()).startsWith("the ranking depends on the rule: x > y (Opt@K) but y > x");
    }

    @Test
    void the_unbiased_estimator_matches_the_binomial_formula() {
        // 1 − C(n−c,k)/C(n,k) for n = 10, c = 3, k = 2: 1 − 21/45
        assertThat(AttemptScores.optAtK(10, 3, 2)).isCloseTo(1 - 21.0 / 45, within(1e-12));
        assertThat(AttemptScores.optAtK(10, 3, 1)).isCloseTo(0.3, within(1e-12));
        assertThat(AttemptScores.optAtK(5, 0, 3)).isZero();
        assertThat(AttemptScores.optAtK(5, 3, 3)).isEqualTo(1.0); // n − c < k: every draw of 3 holds a success
        assertThat(AttemptScores.optAtK(1, 1, 3)).isEqualTo(1.0); // fewer attempts than k: the indicator
    }

    /**
     * Simulation with the real estimator: tasks with a true single-attempt rate p each, n attempts drawn; the mean over
     * 10,000 tasks of the estimate for k must equal the true Opt@k, the mean of 1 − (1 − p)^k, within 4 standard errors
     * of the simulated mean (the estimate lies in [0, 1], so its standard error is ≤ 0.5/√10000 = 0.005).
     */
    @Property(tries = 12)
    void the_estimate_of_opt_at_k_is_unbiased(@ForAll @IntRange(min = 2, max = 8) int n,
                                              @ForAll @IntRange(min = 1, max = 8) int kRaw,
                                              @ForAll @DoubleRange(min = 0.02, max = 0.9) double pMax,
                                              @ForAll @IntRange(min = 1, max = 1_000_000) int seed) {
        int k = Math.min(kRaw, n);
        SplittableRandom rnd = new SplittableRandom(seed);
        int tasks = 10_000;
        double est = 0;
        double est2 = 0;
        double truth = 0;
        for (int t = 0; t < tasks; t++) {
            double p = rnd.nextDouble() * pMax;
            int c = 0;
            for (int i = 0; i < n; i++) {
                c += rnd.nextDouble() < p ? 1 : 0;
            }
            double e = AttemptScores.optAtK(n, c, k);
            est += e;
            est2 += e * e;
            truth += 1 - Math.pow(1 - p, k);
        }
        double mean = est / tasks;
        double sd = Math.sqrt(Math.max(0, est2 / tasks - mean * mean));
        double se = sd / Math.sqrt(tasks);
        assertThat(mean).isCloseTo(truth / tasks, within(4 * se + 1e-3));
    }

    /** The plug-in estimate (1 − (1 − c/n)^k) is biased: the simulation tells the two apart. */
    @Test
    void the_plug_in_estimate_is_biased_where_the_unbiased_one_is_not() {
        SplittableRandom rnd = new SplittableRandom(42);
        int n = 3;
        int k = 2;
        double p = 0.3;
        int tasks = 100_000;
        double unbiased = 0;
        double plugIn = 0;
        for (int t = 0; t < tasks; t++) {
            int c = 0;
            for (int i = 0; i < n; i++) {
                c += rnd.nextDouble() < p ? 1 : 0;
            }
            unbiased += AttemptScores.optAtK(n, c, k);
            plugIn += 1 - Math.pow(1 - (double) c / n, k);
        }
        double truth = 1 - Math.pow(1 - p, k); // 0.51
        assertThat(unbiased / tasks).isCloseTo(truth, within(0.005));
        assertThat(truth - plugIn / tasks).isGreaterThan(0.03); // E[(1-c/n)^2] > (1-p)^2 by the variance
    }
}
