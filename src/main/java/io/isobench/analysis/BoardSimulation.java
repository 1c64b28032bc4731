package io.isobench.analysis;

import java.util.List;
import java.util.SplittableRandom;

/** Leaderboard rows of the calibration (work in progress). */
final class BoardSimulation {
    static final int TASKS = 50;

    private BoardSimulation() {
    }

    static List<Calibration.Cell> cells(SequentialDesign d) {
        return List.of();
    }

    static Calibration.Row row(Calibration.Cell c, int boards, SplittableRandom rng, StatsConfig config) {
        throw new UnsupportedOperationException();
    }
}
