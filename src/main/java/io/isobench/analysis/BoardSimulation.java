package io.isobench.analysis;

import io.isobench.Arm;
import io.isobench.analysis.Calibration.Cell;
import io.isobench.analysis.Calibration.Measure;
import io.isobench.analysis.Calibration.Row;
import io.isobench.analysis.Calibration.Target;
import io.isobench.analysis.SimulatedSession.Scenario;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The leaderboard rows of the calibration (docs/statistics.md §10, §12): does the leaderboard's stated figure of false
 * wins expected by chance cover the false wins it counts? Boards of {@link #TASKS} tasks, each task one simulated
 * session of the cell's scenario under the cell's design ({@link SimulatedSession}: real round order, real analysis),
 * whose agent has <b>no</b> true effect, so every agent {@code better} on a replay-valid task is a false win.
 *
 * <p>Boards are simulated until {@code sessions / 20} counted tests (at least 400; agent vs baseline with a verdict
 * about speed on a valid task) are seen: the observed rate per counted test, with its Wilson interval. The stated
 * figure is the real {@link Leaderboard}'s {@code expectedFalseWins} per counted test over the first boards, until
 * {@code sessions / 200} counted tests (at least 40) are stated: each test's figure costs a few hundred simulated
 * sessions, and a mean of per-test probabilities needs far fewer tests than a count of rare events. On those boards the
 * leaderboard's own counts must equal the direct count. The target: observed ≤ stated.
 */
final class BoardSimulation {

    /** Tasks per board. */
    static final int TASKS = 50;

    private BoardSimulation() {
    }

    /** The board cells: borderline replays, where the stated figure matters (issue 26). */
    static List<Cell> cells(SequentialDesign d) {
        Target stated = new Target(Target.Kind.STATED, Double.NaN);
        return List.of(
                new Cell("board: human +3%  CV 2%  agent no effect", Scenario.of(1.03, 2), d,
                        Measure.BOARD_FALSE_WINS, stated),
                new Cell("board: human no effect (valid by chance)  CV 2%", Scenario.of(1.0, 2), d,
                        Measure.BOARD_FALSE_WINS, stated),
                new Cell("board: human +3%  CV 2%  agent 2x noisier", Scenario.of(1.03, 2).noisierAgent(2), d,
                        Measure.BOARD_FALSE_WINS, stated));
    }

    /** Counted tests the observed rate is read from, at {@code sessions} per cell. */
    static int observedTests(int sessions) {
        return Math.max(400, sessions / 20);
    }

    /** Counted tests the stated figure is read from, at {@code sessions} per cell. */
    static int statedTests(int sessions) {
        return Math.max(40, sessions / 200);
    }

    /**
     * The row of one board cell at {@code sessions} simulated sessions per cell (what the other cells run; it sizes
     * the counts above). {@link Row#sessions()} is the number of counted tests observed; the row's bound the
     * stated figure per counted test.
     */
    static Row row(Cell c, int sessions, SplittableRandom rng, StatsConfig config) {
        int wantObserved = observedTests(sessions);
        int wantStated = statedTests(sessions);
        long maxTasks = 20L * sessions; // a scenario whose replays are almost never valid stops here
        int tests = 0;
        int wins = 0;
        int statedTests = 0;
        double stated = 0;
        long tasks = 0;
        for (int board = 0; tests < wantObserved && tasks < maxTasks; board++) {
            List<SessionAnalysis.TaskResult> results = new ArrayList<>(TASKS);
            int boardTests = 0;
            int boardWins = 0;
            for (int i = 0; i < TASKS; i++) {
                double[][] v = SimulatedSession.values(c.scenario(), c.design().plannedRounds(), rng);
                TaskAnalysis t = SimulatedSession.analyse(c.scenario(), v, c.design(), config);
                List<Arm> arms = SimulatedSession.arms(c.scenario());
                results.add(SessionAnalysis.TaskResult.of("t" + i, "c" + i, "sim", arms, t));
                AgentOutcome a = t.agents().get(0);
                if (t.replayValidity() == ReplayValidity.VALID && a.vsBaseline().verdict().aboutSpeed()) {
                    boardTests++;
                    boardWins += a.vsBaseline().verdict() == Verdict.BETTER ? 1 : 0;
                }
            }
            tasks += TASKS;
            tests += boardTests;
            wins += boardWins;
            if (statedTests < wantStated && boardTests > 0) {
                Leaderboard.AgentRow r = board(board, results, config);
                if (r.speedTests() != boardTests || r.vsBaseline().getOrDefault(Verdict.BETTER, 0) != boardWins) {
                    throw new IllegalStateException("the leaderboard counts " + r.speedTests() + " tests, "
                            + r.vsBaseline().get(Verdict.BETTER) + " wins; the board " + boardTests + ", " + boardWins);
                }
                statedTests += boardTests;
                stated += r.expectedFalseWins();
            }
        }
        double rate = tests == 0 ? 0 : (double) wins / tests;
        double[] w = tests == 0 ? new double[] {0, 1} : Calibration.wilson(wins, tests);
        double bound = statedTests == 0 ? Double.NaN : stated / statedTests;
        return new Row(c, tests, rate, w[0], w[1], bound, statedTests > 0 && rate <= bound + 1e-12);
    }

    /** The real leaderboard of one simulated board: one complete session holding its tasks; its one agent's row. */
    private static Leaderboard.AgentRow board(int index, List<SessionAnalysis.TaskResult> tasks, StatsConfig config) {
        SessionAnalysis session = new SessionAnalysis("board-" + index, tasks, config);
        Leaderboard board = Leaderboard.of(List.of(new Leaderboard.Session(session.sessionId(), Instant.EPOCH, true,
                session)), config);
        return board.agents().get(0);
    }
}
