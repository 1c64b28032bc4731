package io.isobench.analysis;

import io.isobench.Arm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The leaderboard's counts and its false wins expected by chance (docs/statistics.md §10): the sum over counted tests
 * of each test's own chance ({@link FalseWins}), not tests × 2.5 %; only counted tests contribute; deterministic.
 */
@Isolated("it bounds a measured wall time: nothing runs beside it (ItLocks)")
class LeaderboardTest {

    private static final StatsConfig CFG = StatsConfig.defaults();
    private static final SequentialDesign D = SequentialDesign.defaultAdaptive();

    /** A simulated task of {@code s} whose replay is valid (or not, as asked), drawn from {@code rng}. */
    private static TaskAnalysis task(SimulatedSession.Scenario s, boolean valid, SplittableRandom rng) {
        while (true) {
            TaskAnalysis t = SimulatedSession.analyse(s, SimulatedSession.values(s, D.plannedRounds(), rng), D, CFG);
            if ((t.replayValidity() == ReplayValidity.VALID) == valid
                    && t.agents().get(0).vsBaseline().verdict().aboutSpeed()) {
                return t;
            }
        }
    }

    private static SessionAnalysis.TaskResult result(int i, TaskAnalysis t) {
        List<Arm> arms = SimulatedSession.arms(SimulatedSession.Scenario.of(1, 2));
        return SessionAnalysis.TaskResult.of("task-" + i, "commit-" + i, "hw-1", arms, t);
    }

    private static Leaderboard board(List<SessionAnalysis.TaskResult> tasks) {
        return Leaderboard.of(List.of(new Leaderboard.Session("s1", Instant.EPOCH, true,
                new SessionAnalysis("s1", tasks, CFG))), CFG);
    }

    @Test
    void falseWinsAreEachCountedTestsOwnChance_notTestsTimesTheNominalRate() {
        SplittableRandom rng = new SplittableRandom(26);
        List<SessionAnalysis.TaskResult> tasks = new ArrayList<>();
        // two strong replays (a 30 % speedup), two valid only by chance (no effect), one not valid
        tasks.add(result(0, task(SimulatedSession.Scenario.of(1.3, 2), true, rng)));
        tasks.add(result(1, task(SimulatedSession.Scenario.of(1.3, 2), true, rng)));
        tasks.add(result(2, task(SimulatedSession.Scenario.of(1.0, 2), true, rng)));
        tasks.add(result(3, task(SimulatedSession.Scenario.of(1.0, 2), true, rng)));
        tasks.add(result(4, task(SimulatedSession.Scenario.of(1.0, 2), false, rng)));
        Leaderboard.AgentRow row = board(tasks).agents().get(0);
        assertThat(row.tasks()).isEqualTo(5);
        assertThat(row.validTasks()).isEqualTo(4);
        assertThat(row.speedTests()).isEqualTo(4);
        double[] chance = new double[4];
        for (int i = 0; i < 4; i++) {
            SessionAnalysis.TaskResult t = tasks.get(i);
            AgentOutcome a = t.analysis().agents().get(0);
            chance[i] = FalseWins.of(t.analysis(), a, FalseWins.seed(t.taskId(), t.commit(), t.hardware(), a.agent()),
                    CFG).rate();
        }
        assertThat(row.expectedFalseWins()).isCloseTo(chance[0] + chance[1] + chance[2] + chance[3], within(1e-12));
        // a chance-valid replay's test is far likelier a false win than a single verdict's 2.5 % (on average: each
        // figure has the task's own noise); a strong one is not
        assertThat((chance[2] + chance[3]) / 2).isGreaterThan(0.05);
        assertThat(Math.max(chance[0], chance[1])).isLessThan(0.04);
        assertThat(row.expectedFalseWins()).isGreaterThan(row.speedTests() * 0.025);
        // deterministic: the same board twice, and the same tasks in another order, give the same figure
        assertThat(board(tasks).agents().get(0).expectedFalseWins()).isEqualTo(row.expectedFalseWins());
        assertThat(board(List.of(tasks.get(3), tasks.get(4), tasks.get(1), tasks.get(0), tasks.get(2))).agents()
                .get(0).expectedFalseWins()).isEqualTo(row.expectedFalseWins());
    }

    @Test
    void onlyCountedTestsContribute_andTheRuleSaysWhenItHolds() {
        SplittableRandom rng = new SplittableRandom(27);
        List<SessionAnalysis.TaskResult> notValid = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            notValid.add(result(i, task(SimulatedSession.Scenario.of(1.0, 2), false, rng)));
        }
        Leaderboard.AgentRow row = board(notValid).agents().get(0);
        assertThat(row.notValid()).isEqualTo(3);
        assertThat(row.speedTests()).isZero();
        assertThat(row.expectedFalseWins()).isZero();
        assertThat(Leaderboard.FALSE_WINS).contains("False wins expected by chance", "P(agent better | human better)",
                "share the baseline's runs", "99 % lower bound", "valid by chance counts as no effect");
    }

    @Test
    void aBoardOfFiftyTasksIsQuick() {
        SplittableRandom rng = new SplittableRandom(28);
        List<SessionAnalysis.TaskResult> tasks = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            tasks.add(result(i, task(SimulatedSession.Scenario.of(1.05, 2), true, rng)));
        }
        long t0 = System.nanoTime();
        Leaderboard.AgentRow row = board(tasks).agents().get(0);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(row.speedTests()).isEqualTo(50);
        assertThat(row.expectedFalseWins()).isBetween(0.0, 50 * 0.2);
        // about a second on two idle cores; the bound leaves room for a loaded build machine
        assertThat(seconds).as("50 counted tests took %.1f s", seconds).isLessThan(30);
        System.out.printf("LeaderboardTest: 50 counted tests, expected false wins %.2f, %.2f s%n",
                row.expectedFalseWins(), seconds);
    }
}
