package io.isobench.analysis;

import io.isobench.Arm;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

/**
 * The agent leaderboard of native sessions (docs/statistics.md, "Leaderboards"), the one model behind the Markdown
 * report, the HTML overview and the dataset card:
 * <ul>
 *   <li>one entry per task per hardware: the latest complete session that measured the task on that hardware
 *       (unfinished sessions only when no complete one exists); sessions are never pooled, so a task rerun three times
 *       counts once;</li>
 *   <li>only replay-valid tasks (human better than baseline) count; the others are counted apart;</li>
 *   <li>verdicts vs baseline and vs human are kept apart: better / equivalent / worse / inconclusive / failed /
 *       incorrect;</li>
 *   <li>speedup statistics use only arms with a verdict about speed: failed and incorrect arms are outcomes, never
 *       numbers in a median;</li>
 *   <li>next to the wins, the false wins expected by chance ({@link #FALSE_WINS}): the sum over the agent's counted
 *       tests — its comparisons vs baseline with a verdict about speed on replay-valid tasks — of the chance that an
 *       agent with no true effect is {@code better} given that the task's human is ({@link FalseWins}, simulated
 *       per task with the task's design, measured noise and a 99 % lower bound on the human's effect given that it
 *       was better; calibrated in docs/statistics.md §10). Not
 *       tests × (1 − confidence) / 2: both comparisons read the baseline's runs, so the condition that makes a task
 *       count (human better) raises the agent's chance of a false win, most when the replay is valid only by chance.
 *       The figure holds when every human's true speedup is at least its lower bound (a replay valid by chance is
 *       modelled as no effect) and the noise is as measured.</li>
 * </ul>
 *
 * @param entries the deduplicated (task, hardware) entries the rows are built from
 * @param agents  one row per agent arm label, sorted by label
 * @param dropped entries not counted because a later complete session measured the same task on the same hardware
 */
public record Leaderboard(List<Entry> entries, List<AgentRow> agents, int dropped) {

    /** What the rule says, for captions. */
    public static final String RULE = "one entry per task per hardware fingerprint: the latest complete session "
            + "(sessions are not pooled); only replay-valid tasks (human better than baseline) count; failed and "
            + "incorrect arms are outcomes, never in a speedup median";

    /** How the false wins expected by chance are computed, and when the figure holds: one line for captions. */
    public static final String FALSE_WINS = "False wins expected by chance = the sum over counted tests of "
            + "P(agent better | human better) for an agent with no effect, simulated per task through its own design "
            + "and analysis with its measured noise (both comparisons share the baseline's runs); holds when each "
            + "human's true speedup is at least its 99 % lower bound given that it was better (a replay valid by "
            + "chance counts as no effect)";

    /** A session with its analysis. */
    public record Session(String sessionId, Instant startedAt, boolean complete, SessionAnalysis analysis) {
    }

    /** One (task, hardware) as counted. */
    public record Entry(String sessionId, String hardware, SessionAnalysis.TaskResult task) {
    }

    /**
     * One agent.
     *
     * @param agent            arm label {@code agent:<name>}
     * @param tasks            entries where the agent has an arm
     * @param notValid         of those, tasks whose replay is not valid (not counted below)
     * @param vsBaseline       verdict counts vs baseline over valid tasks
     * @param vsHuman          verdict counts vs human over valid tasks
     * @param optBase          valid tasks where opt_base holds
     * @param optHuman         valid tasks where opt_human holds
     * @param speedupVsBaseline median over valid tasks of the speed-verdict speedups vs baseline, with a bootstrap CI
     *                         over tasks; null when there is none
     * @param speedupVsHuman   the same vs human
     * @param speedTests       comparisons vs baseline with a verdict about speed (the tests a false win can come from)
     * @param expectedFalseWins the sum over those tests on valid tasks of P(agent better | human better) for an agent
     *                         with no effect ({@link FalseWins}; rule: {@link #FALSE_WINS})
     */
    public record AgentRow(String agent, int tasks, int notValid, Map<Verdict, Integer> vsBaseline,
                           Map<Verdict, Integer> vsHuman, int optBase, int optHuman, MedianCi speedupVsBaseline,
                           MedianCi speedupVsHuman, int speedTests, double expectedFalseWins) {

        /** The agent's name as its arm is labelled ({@code NAME} of {@code agent:NAME}, read by {@link Arm#ofStored}). */
        public String agentName() {
            return Arm.ofStored(agent).agentName();
        }

        /** Valid tasks counted. */
        public int validTasks() {
            return tasks - notValid;
        }

        /** better / equivalent / worse / inconclusive / failed / incorrect, as {@code 2 / 1 / 0 / 0 / 0 / 1}. */
        public static String counts(Map<Verdict, Integer> m) {
            StringBuilder b = new StringBuilder();
            for (Verdict v : ORDER) {
                b.append(b.isEmpty() ? "" : " / ").append(m.getOrDefault(v, 0));
            }
            return b.toString();
        }
    }

    /** The column order of verdict counts. */
    public static final List<Verdict> ORDER = List.of(Verdict.BETTER, Verdict.EQUIVALENT, Verdict.WORSE,
            Verdict.INCONCLUSIVE, Verdict.FAILED, Verdict.INCORRECT);

    public Leaderboard {
        entries = List.copyOf(entries);
        agents = List.copyOf(agents);
    }

    /** The leaderboard of every native session in a store. */
    public static Leaderboard of(Store store, StatsConfig config) {
        List<Session> sessions = new ArrayList<>();
        for (SessionRecord s : store.sessions()) {
            if (s.isAgentsRun()) {
                continue;
            }
            SessionAnalysis a = SessionAnalysis.of(store, s.sessionId(), config);
            if (!a.tasks().isEmpty()) {
                sessions.add(new Session(s.sessionId(), s.startedAt(), "complete".equals(s.status()), a));
            }
        }
        return of(sessions, config);
    }

    public static Leaderboard of(List<Session> sessions, StatsConfig config) {
        // latest first: complete sessions before unfinished ones, then by start time, newest first
        List<Session> ordered = new ArrayList<>(sessions);
        ordered.sort(Comparator.comparing((Session s) -> !s.complete())
                .thenComparing(s -> s.startedAt() == null ? Instant.EPOCH : s.startedAt(), Comparator.reverseOrder()));
        Map<String, Entry> chosen = new LinkedHashMap<>();
        int dropped = 0;
        for (Session s : ordered) {
            for (SessionAnalysis.TaskResult t : s.analysis().tasks()) {
                String key = t.taskId() + "|" + t.commit() + "|" + t.hardware();
                if (chosen.containsKey(key)) {
                    dropped++;
                } else {
                    chosen.put(key, new Entry(s.sessionId(), t.hardware(), t));
                }
            }
        }
        Map<String, Acc> acc = new TreeMap<>();
        for (Entry e : chosen.values()) {
            SessionAnalysis.TaskResult t = e.task();
            for (Arm arm : t.agentArms()) {
                acc.computeIfAbsent(arm.label(), k -> new Acc(arm)).add(t); // in label order
            }
        }
        List<AgentRow> rows = new ArrayList<>();
        for (Acc a : acc.values()) {
            rows.add(a.row(config));
        }
        return new Leaderboard(new ArrayList<>(chosen.values()), rows, dropped);
    }

    /** A counted test: an agent vs baseline comparison with a verdict about speed on a replay-valid task. */
    private record Test(SessionAnalysis.TaskResult task, AgentOutcome agent) {
        double falseWin(StatsConfig config) {
            return FalseWins.of(task.analysis(), agent, FalseWins.seed(task.taskId(), task.commit(), task.hardware(),
                    agent.agent()), config).rate();
        }
    }

    /** Counters of one agent. */
    private static final class Acc {
        final Arm arm;
        int tasks;
        int notValid;
        final Map<Verdict, Integer> vsBaseline = new EnumMap<>(Verdict.class);
        final Map<Verdict, Integer> vsHuman = new EnumMap<>(Verdict.class);
        int optBase;
        int optHuman;
        final List<Double> speedupsBase = new ArrayList<>();
        final List<Double> speedupsHuman = new ArrayList<>();
        final List<Test> tests = new ArrayList<>();

        Acc(Arm arm) {
            this.arm = arm;
        }

        void add(SessionAnalysis.TaskResult t) {
            tasks++;
            TaskAnalysis ta = t.analysis();
            if (ta == null || ta.replayValidity() != ReplayValidity.VALID) {
                notValid++;
                return;
            }
            AgentOutcome o = ta.agent(arm.label()).orElse(null);
            if (o == null) {
                // the arm ran no measured round at all (its environment failed before): a failed arm
                vsBaseline.merge(t.incorrect().contains(arm) ? Verdict.INCORRECT : Verdict.FAILED, 1, Integer::sum);
                vsHuman.merge(t.incorrect().contains(arm) ? Verdict.INCORRECT : Verdict.FAILED, 1, Integer::sum);
                return;
            }
            vsBaseline.merge(o.vsBaseline().verdict(), 1, Integer::sum);
            vsHuman.merge(o.vsHuman().verdict(), 1, Integer::sum);
            optBase += Boolean.TRUE.equals(o.optBase()) ? 1 : 0;
            optHuman += Boolean.TRUE.equals(o.optHuman()) ? 1 : 0;
            if (o.vsBaseline().verdict().aboutSpeed()) {
                tests.add(new Test(t, o));
                if (o.vsBaseline().speedup() != null) {
                    speedupsBase.add(o.vsBaseline().speedup());
                }
            }
            if (o.vsHuman().verdict().aboutSpeed() && o.vsHuman().speedup() != null) {
                speedupsHuman.add(o.vsHuman().speedup());
            }
        }

        AgentRow row(StatsConfig config) {
            return new AgentRow(arm.label(), tasks, notValid, Map.copyOf(vsBaseline), Map.copyOf(vsHuman), optBase,
                    optHuman, median(speedupsBase, config), median(speedupsHuman, config), tests.size(),
                    falseWins(config));
        }

        /**
         * Σ over the counted tests of their false-win chance. Each test is seeded by itself and the chances are summed
         * in ascending order, so neither threads nor the order of the tasks change a bit of it.
         */
        double falseWins(StatsConfig config) {
            double[] rate = new double[tests.size()];
            IntStream.range(0, rate.length).parallel().forEach(i -> rate[i] = tests.get(i).falseWin(config));
            Arrays.sort(rate);
            double sum = 0;
            for (double r : rate) {
                sum += r;
            }
            return sum;
        }

        private static MedianCi median(List<Double> v, StatsConfig config) {
            return v.isEmpty() ? null : MedianCi.of(v.stream().mapToDouble(Double::doubleValue).toArray(), config);
        }
    }
}
