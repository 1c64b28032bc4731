package io.isobench.analysis;

import io.isobench.Arm;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Scores over K attempts per agent (docs/statistics.md §18): agent arms {@code agent:NAME@k} are attempt k of agent
 * NAME (a plain {@code agent:NAME} is NAME with K = 1). On replay-valid tasks only, an attempt <em>counts</em> when
 * opt_human holds for it (GSO): its verdict vs baseline is {@code better} (so the correctness gates passed) and its
 * speedup vs baseline ≥ fraction × the human's (point estimates). Per agent:
 * <ul>
 *   <li><b>Opt@K</b>: the share of valid tasks where at least one of the task's attempts counts;</li>
 *   <li><b>mean-of-K</b>: the mean over tasks of c/n (c counting attempts of n), the unbiased estimate of the
 *       single-attempt rate (Opt@1), and for k &lt; K the unbiased Opt@k, the mean over tasks of
 *       1 − C(n−c, k)/C(n, k) (a task with n &lt; k attempts: 1 when c ≥ 1);</li>
 *   <li><b>best-of-K</b>: per task the best attempt (the highest speedup vs baseline among attempts with a verdict
 *       about speed), the geometric mean of those speedups over the valid tasks that have one, and the verdict
 *       counts of the best attempts (a task with none: {@code incorrect} when an attempt was, else {@code failed}).</li>
 * </ul>
 * {@link Sensitivity} ranks the agents under each rule and names the pairs whose order flips. Pure: the inputs are
 * the per-task attempt outcomes ({@link #of(List, double)}); {@link #of(Leaderboard, AgentAttempts, StatsConfig)}
 * builds them from the leaderboard's entries.
 *
 * @param agents      one row per agent NAME, sorted by name
 * @param sensitivity the rankings under each rule
 * @param fraction    the opt_human fraction of the main rule
 * @param shown       whether reports show the scores: some agent has an arm {@code NAME@k} or a stored attempt (plain
 *                    single-arm agents alone keep the reports as they were)
 */
public record AttemptScores(List<AgentScore> agents, Sensitivity sensitivity, double fraction, boolean shown) {

    /** The rule in one line, for captions. */
    public static final String RULE = "attempt k of agent NAME is the arm NAME@k; on replay-valid tasks an attempt"
            + " counts when its verdict vs baseline is better and its speedup ≥ %s × the human's (opt_human);"
            + " Opt@K = tasks where ≥ 1 of the K attempts counts; mean-of-K = mean over tasks of c/n (unbiased Opt@1);"
            + " best-of-K = geometric mean over tasks of the best attempt's speedup vs baseline";

    public AttemptScores {
        agents = List.copyOf(agents);
    }

    /**
     * The outcome of one attempt at one task.
     *
     * @param attempt      k
     * @param verdict      its verdict vs baseline ({@code failed} when the attempt ran no measured round or was not
     *                     measured at all)
     * @param speedup      its speedup vs baseline (point estimate), or null
     * @param humanSpeedup the human's speedup vs baseline on the task, or null
     */
    public record AttemptOutcome(int attempt, Verdict verdict, Double speedup, Double humanSpeedup) {

        /** opt_human at {@code fraction}: better vs baseline and speedup ≥ fraction × the human's. */
        public boolean counts(double fraction) {
            return verdict == Verdict.BETTER && AgentOutcome.isOptHuman(speedup, humanSpeedup, fraction);
        }
    }

    /**
     * One agent's attempts at one task.
     *
     * @param agent    the agent NAME (normalised, no {@code @k})
     * @param task     the task key (task, commit, hardware)
     * @param valid    the task's replay is valid (only valid tasks are scored)
     * @param attempts its attempts
     */
    public record TaskAttempts(String agent, String task, boolean valid, List<AttemptOutcome> attempts) {
        public TaskAttempts {
            attempts = List.copyOf(attempts);
        }
    }

    /**
     * One agent.
     *
     * @param agent         NAME
     * @param k             K: the most attempts at one valid task
     * @param tasks         valid tasks scored
     * @param notValid      tasks not scored (replay not valid)
     * @param optAtK        valid tasks where ≥ 1 attempt counts
     * @param optAtKByFraction the same at the fractions of {@link #SENSITIVITY_FRACTIONS} (0.90, 1.00)
     * @param optAtSmallK   index k−1: the unbiased Opt@k estimate for k = 1..K (k = 1 is mean-of-K)
     * @param best          best-of-K
     */
    public record AgentScore(String agent, int k, int tasks, int notValid, int optAtK, List<Integer> optAtKByFraction,
                             List<Double> optAtSmallK, Best best) {

        public AgentScore {
            optAtKByFraction = List.copyOf(optAtKByFraction);
            optAtSmallK = List.copyOf(optAtSmallK);
        }

        /** mean-of-K: the unbiased single-attempt rate (NaN without valid tasks). */
        public double meanOfK() {
            return optAtSmallK.isEmpty() ? Double.NaN : optAtSmallK.get(0);
        }

        /** Opt@K as a share (NaN without valid tasks). */
        public double optAtKRate() {
            return tasks == 0 ? Double.NaN : (double) optAtK / tasks;
        }
    }

    /**
     * Best-of-K.
     *
     * @param geomeanSpeedup geometric mean over tasks of the best attempt's speedup vs baseline; null when none
     * @param speedTasks     tasks with a best speedup
     * @param verdicts       verdict counts (vs baseline) of the best attempts, one per valid task
     */
    public record Best(Double geomeanSpeedup, int speedTasks, Map<Verdict, Integer> verdicts) {
        public Best {
            verdicts = Map.copyOf(verdicts);
        }
    }

    /** The opt_human fractions the sensitivity check also ranks Opt@K under. */
    public static final List<Double> SENSITIVITY_FRACTIONS = List.of(0.90, 1.00);

    /**
     * The agents ranked under each rule.
     *
     * @param rules   rule names, the main rule (Opt@K) first
     * @param scores  per rule, per agent: its score (higher ranks higher; NaN ranks last)
     * @param tau     per rule: Kendall's τ-b between its scores and Opt@K's (null with fewer than 2 agents or no
     *                ordered pair)
     * @param flipped the pairs ordered one way by one rule and the other way by another: {@code a > b (rule) but
     *                b > a (rule)}
     */
    public record Sensitivity(List<String> rules, Map<String, Map<String, Double>> scores, Map<String, Double> tau,
                              List<String> flipped) {

        /** One line: the ranking is the same under every rule, or which pairs flip, with τ. */
        public String line() {
            int n = scores.isEmpty() ? 0 : scores.values().iterator().next().size();
            if (n < 2) {
                return "one agent: nothing to rank";
            }
            StringBuilder b = new StringBuilder();
            if (flipped.isEmpty()) {
                b.append("the ranking is the same under every rule (").append(String.join(", ", rules)).append(')');
            } else {
                b.append("the ranking depends on the rule: ").append(String.join("; ", flipped));
            }
            StringBuilder t = new StringBuilder();
            for (Map.Entry<String, Double> e : tau.entrySet()) {
                if (e.getValue() != null) {
                    t.append(t.isEmpty() ? "" : ", ").append(e.getKey())
                            .append(String.format(Locale.ROOT, " %.2f", e.getValue()));
                }
            }
            if (!t.isEmpty()) {
                b.append("; Kendall's τ-b vs Opt@K: ").append(t);
            }
            return b.toString();
        }
    }

    /** The rule names of the sensitivity check. */
    public static final String OPT_AT_K = "Opt@K";
    public static final String MEAN_OF_K = "mean-of-K";
    public static final String BEST_OF_K = "best-of-K geomean speedup";

    /** Scores from per-task attempt outcomes; {@code fraction}: opt_human's (0.95 by default). */
    public static AttemptScores of(List<TaskAttempts> tasks, double fraction) {
        Map<String, List<TaskAttempts>> byAgent = new TreeMap<>();
        for (TaskAttempts t : tasks) {
            byAgent.computeIfAbsent(t.agent(), k -> new ArrayList<>()).add(t);
        }
        List<AgentScore> rows = new ArrayList<>();
        for (Map.Entry<String, List<TaskAttempts>> e : byAgent.entrySet()) {
            rows.add(score(e.getKey(), e.getValue(), fraction));
        }
        return new AttemptScores(rows, sensitivity(rows), fraction, true);
    }

    private static AgentScore score(String agent, List<TaskAttempts> tasks, double fraction) {
        int k = 0;
        int valid = 0;
        int notValid = 0;
        int optAtK = 0;
        int[] byFraction = new int[SENSITIVITY_FRACTIONS.size()];
        List<int[]> nc = new ArrayList<>();
        List<Double> logBest = new ArrayList<>();
        Map<Verdict, Integer> bestVerdicts = new EnumMap<>(Verdict.class);
        for (TaskAttempts t : tasks) {
            if (!t.valid() || t.attempts().isEmpty()) {
                notValid += t.valid() ? 0 : 1;
                continue;
            }
            valid++;
            int n = t.attempts().size();
            k = Math.max(k, n);
            int c = 0;
            for (AttemptOutcome a : t.attempts()) {
                c += a.counts(fraction) ? 1 : 0;
            }
            nc.add(new int[] {n, c});
            optAtK += c > 0 ? 1 : 0;
            for (int i = 0; i < byFraction.length; i++) {
                double f = SENSITIVITY_FRACTIONS.get(i);
                byFraction[i] += t.attempts().stream().anyMatch(a -> a.counts(f)) ? 1 : 0;
            }
            AttemptOutcome best = best(t.attempts());
            if (best.speedup() != null && best.verdict().aboutSpeed() && best.speedup() > 0) {
                logBest.add(Math.log(best.speedup()));
            }
            bestVerdicts.merge(best.verdict(), 1, Integer::sum);
        }
        List<Double> smallK = new ArrayList<>();
        for (int j = 1; j <= k; j++) {
            double sum = 0;
            for (int[] x : nc) {
                sum += optAtK(x[0], x[1], j);
            }
            smallK.add(sum / nc.size());
        }
        Double geomean = logBest.isEmpty() ? null
                : Math.exp(logBest.stream().mapToDouble(Double::doubleValue).sum() / logBest.size());
        List<Integer> fr = new ArrayList<>();
        for (int v : byFraction) {
            fr.add(v);
        }
        return new AgentScore(agent, k, valid, notValid, optAtK, fr, smallK,
                new Best(geomean, logBest.size(), bestVerdicts));
    }

    /**
     * The best attempt: the highest speedup among attempts with a verdict about speed; without one, an incorrect
     * attempt, else a failed one.
     */
    static AttemptOutcome best(List<AttemptOutcome> attempts) {
        AttemptOutcome best = null;
        for (AttemptOutcome a : attempts) {
            if (a.verdict().aboutSpeed() && a.speedup() != null
                    && (best == null || a.speedup() > best.speedup())) {
                best = a;
            }
        }
        if (best != null) {
            return best;
        }
        for (AttemptOutcome a : attempts) {
            if (a.verdict() == Verdict.INCORRECT) {
                return a;
            }
        }
        for (AttemptOutcome a : attempts) {
            if (a.verdict().aboutSpeed()) {
                return a;
            }
        }
        return attempts.get(0);
    }

    /**
     * The unbiased estimate of Opt@k from n attempts of which c count: 1 − C(n−c, k)/C(n, k), computed as
     * 1 − ∏_{i=n−c+1..n} (1 − k/i); with n &lt; k, 1 when c ≥ 1 (every attempt is used).
     */
    public static double optAtK(int n, int c, int k) {
        if (c < 0 || c > n || k < 1) {
            throw new IllegalArgumentException("need 0 <= c <= n and k >= 1: n=" + n + " c=" + c + " k=" + k);
        }
        if (c == 0) {
            return 0;
        }
        if (n < k || n - c < k) {
            return 1;
        }
        double p = 1;
        for (int i = n - c + 1; i <= n; i++) {
            p *= 1 - (double) k / i;
        }
        return 1 - p;
    }

    static Sensitivity sensitivity(List<AgentScore> rows) {
        Map<String, Map<String, Double>> scores = new LinkedHashMap<>();
        Map<String, Double> opt = new LinkedHashMap<>();
        Map<String, Double> mean = new LinkedHashMap<>();
        Map<String, Double> best = new LinkedHashMap<>();
        List<Map<String, Double>> fr = new ArrayList<>();
        for (int i = 0; i < SENSITIVITY_FRACTIONS.size(); i++) {
            fr.add(new LinkedHashMap<>());
        }
        for (AgentScore a : rows) {
            opt.put(a.agent(), a.optAtKRate());
            mean.put(a.agent(), a.meanOfK());
            best.put(a.agent(), a.best().geomeanSpeedup() == null ? Double.NaN : a.best().geomeanSpeedup());
            for (int i = 0; i < fr.size(); i++) {
                fr.get(i).put(a.agent(), a.tasks() == 0 ? Double.NaN : (double) a.optAtKByFraction().get(i) / a.tasks());
            }
        }
        scores.put(OPT_AT_K, opt);
        scores.put(MEAN_OF_K, mean);
        scores.put(BEST_OF_K, best);
        for (int i = 0; i < fr.size(); i++) {
            scores.put(String.format(Locale.ROOT, "Opt@K at %.2f", SENSITIVITY_FRACTIONS.get(i)), fr.get(i));
        }
        Map<String, Double> tau = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Double>> e : scores.entrySet()) {
            if (!e.getKey().equals(OPT_AT_K)) {
                tau.put(e.getKey(), kendallTauB(opt, e.getValue()));
            }
        }
        List<String> agents = new ArrayList<>(opt.keySet());
        TreeSet<String> flipped = new TreeSet<>();
        for (int i = 0; i < agents.size(); i++) {
            for (int j = i + 1; j < agents.size(); j++) {
                String a = agents.get(i);
                String b = agents.get(j);
                String aAbove = null;
                String bAbove = null;
                for (Map.Entry<String, Map<String, Double>> e : scores.entrySet()) {
                    int cmp = compare(e.getValue().get(a), e.getValue().get(b));
                    if (cmp > 0 && aAbove == null) {
                        aAbove = e.getKey();
                    } else if (cmp < 0 && bAbove == null) {
                        bAbove = e.getKey();
                    }
                }
                if (aAbove != null && bAbove != null) {
                    flipped.add(a + " > " + b + " (" + aAbove + ") but " + b + " > " + a + " (" + bAbove + ")");
                }
            }
        }
        return new Sensitivity(new ArrayList<>(scores.keySet()), scores, tau, new ArrayList<>(flipped));
    }

    /** Higher ranks higher; NaN ranks below every number; two NaNs tie. */
    private static int compare(double x, double y) {
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Double.isNaN(x) == Double.isNaN(y) ? 0 : Double.isNaN(x) ? -1 : 1;
        }
        return Double.compare(x, y) == 0 ? 0 : x > y ? 1 : -1;
    }

    /** Kendall's τ-b between two score maps over the same agents; null when undefined (fewer than 2, all tied). */
    static Double kendallTauB(Map<String, Double> x, Map<String, Double> y) {
        List<String> keys = new ArrayList<>(x.keySet());
        long concordant = 0;
        long discordant = 0;
        long tiesX = 0;
        long tiesY = 0;
        for (int i = 0; i < keys.size(); i++) {
            for (int j = i + 1; j < keys.size(); j++) {
                int a = compare(x.get(keys.get(i)), x.get(keys.get(j)));
                int b = compare(y.get(keys.get(i)), y.get(keys.get(j)));
                if (a == 0 && b == 0) {
                    continue;
                }
                if (a == 0) {
                    tiesX++;
                } else if (b == 0) {
                    tiesY++;
                } else if (a == b) {
                    concordant++;
                } else {
                    discordant++;
                }
            }
        }
        double d = Math.sqrt((double) (concordant + discordant + tiesX) * (concordant + discordant + tiesY));
        return d == 0 ? null : (concordant - discordant) / d;
    }

    /**
     * The scores of the leaderboard's entries (one per task, commit and hardware: the latest session): each agent arm
     * is an attempt of its NAME; a stored attempt at the task that no arm measured (an attempt that failed, or whose
     * patch was empty) counts as a {@code failed} attempt of its agent, so failing to produce a patch never shrinks n.
     */
    public static AttemptScores of(Leaderboard board, AgentAttempts attempts, StatsConfig config) {
        List<TaskAttempts> tasks = new ArrayList<>();
        boolean any = !attempts.isEmpty();
        for (Leaderboard.Entry e : board.entries()) {
            SessionAnalysis.TaskResult t = e.task();
            TaskAnalysis ta = t.analysis();
            boolean valid = ta != null && ta.replayValidity() == ReplayValidity.VALID;
            Double human = ta == null ? null : ta.humanVsBaseline().speedup();
            Map<String, Map<Integer, AttemptOutcome>> byAgent = new TreeMap<>();
            for (Arm arm : t.agentArms()) {
                String name = arm.agentBase();
                int k = Math.max(1, arm.attempt());
                any |= arm.isAttempt();
                AgentOutcome o = ta == null ? null : ta.agent(arm.label()).orElse(null);
                AttemptOutcome out = o == null
                        ? new AttemptOutcome(k, t.incorrect().contains(arm) ? Verdict.INCORRECT : Verdict.FAILED,
                                null, human)
                        : new AttemptOutcome(k, o.vsBaseline().verdict(), o.vsBaseline().speedup(), human);
                byAgent.computeIfAbsent(name, x -> new TreeMap<>()).put(k, out);
            }
            for (AgentAttempts.Attempt a : attempts.ofTask(t.taskId())) {
                byAgent.computeIfAbsent(a.agent(), x -> new TreeMap<>()).putIfAbsent(a.attempt(),
                        new AttemptOutcome(a.attempt(), Verdict.FAILED, null, human));
            }
            String key = t.taskId() + "|" + t.commit() + "|" + t.hardware();
            for (Map.Entry<String, Map<Integer, AttemptOutcome>> a : byAgent.entrySet()) {
                tasks.add(new TaskAttempts(a.getKey(), key, valid, new ArrayList<>(a.getValue().values())));
            }
        }
        AttemptScores s = of(tasks, config.optHumanFraction());
        return any ? s : new AttemptScores(s.agents(), s.sensitivity(), s.fraction(), false);
    }
}
