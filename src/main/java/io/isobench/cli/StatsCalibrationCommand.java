package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.analysis.Calibration;
import io.isobench.analysis.StatsConfig;
import io.isobench.track.TrackCalibration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The verdicts' calibration table (docs/statistics.md, "Calibration"): simulated sessions through the real planner
 * order and the real analysis; then the track rows (docs/statistics.md §21: ranges of commits through the real
 * change-point detector, confirming sessions and bisect). Exit 1 when a target is missed. Run by
 * {@code bench/stats-calibration}.
 */
@Command(name = "stats-calibration", hidden = true, mixinStandardHelpOptions = true,
        description = "Simulate sessions through the planner and the analysis; print the rate of each verdict per cell"
                + " against its target; exit 1 when a target is missed.")
final class StatsCalibrationCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Option(names = "--sessions", paramLabel = "N", defaultValue = "10000",
            description = "Simulated sessions per cell (default ${DEFAULT-VALUE}; the issue asks for 2,000 or more).")
    int sessions;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "20261126", description = "Seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--track-cv", paramLabel = "PCT", defaultValue = "4",
            description = "The suite's measured per-run CV (percent) for the track rows besides CV 2 % (default "
                    + "${DEFAULT-VALUE}: llama2.c's CPU time on a shared machine spreads 2-5 %).")
    double trackCvPct;

    /**
     * Track rows simulate sessions / 5 ranges per cell (a range costs about ten sessions' time: its detector and up to
     * three paired sessions): 2,000 at the default.
     */
    static final int TRACK_RANGES_DIVISOR = 5;

    @Override
    public Integer call() {
        if (sessions < 100) {
            throw new IsobenchException.BadInput("--sessions (" + sessions + ") must be >= 100");
        }
        if (!(trackCvPct > 0 && trackCvPct <= 50)) {
            throw new IsobenchException.BadInput("--track-cv (" + trackCvPct + ") must be in (0, 50]");
        }
        long t0 = System.nanoTime();
        List<Calibration.Row> rows = Calibration.run(Calibration.standardCells(), sessions, seed,
                StatsConfig.defaults());
        main.out.print(Calibration.table(rows, sessions, seed));
        long t1 = System.nanoTime();
        int ranges = Math.max(100, sessions / TRACK_RANGES_DIVISOR);
        List<TrackCalibration.Row> track = TrackCalibration.run(ranges, seed, trackCvPct, StatsConfig.defaults());
        main.out.print(TrackCalibration.table(track, ranges, seed));
        main.out.printf(Locale.ROOT, "%.1f s (track rows %.1f s)%n", (System.nanoTime() - t0) / 1e9,
                (System.nanoTime() - t1) / 1e9);
        main.out.flush();
        return rows.stream().allMatch(Calibration.Row::met) && track.stream().allMatch(TrackCalibration.Row::met)
                ? Main.OK : 1;
    }
}
