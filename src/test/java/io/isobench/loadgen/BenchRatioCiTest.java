package io.isobench.loadgen;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule by which bench/loadgen judges the cost claim (issue 31, Deliver 5: CPU per chunk at most 1.25 x the C
 * floor's): the median of the paired per-repeat ratios, with the order-statistics interval of {@code bench/ratio_ci.py}.
 * Runs the script's own functions: exact intervals and coverages on known samples, the four verdicts, and its
 * simulation (skewed, contaminated noise around a known median), whose every row must hold its claimed coverage.
 */
class BenchRatioCiTest {

    private static final Path ROOT = Path.of("").toAbsolutePath();

    @Test
    void intervalsAreTheOrderStatisticsWithTheirBinomialCoverage() throws Exception {
        String out = python("""
                import sys
                sys.path.insert(0, 'bench')
                from ratio_ci import median_ci, verdict
                for v in ([5, 1, 4, 2, 3], [7, 1, 6, 2, 5, 3, 4], list(range(1, 10)), [1.0, float('nan'), 2.0], [2, 1, 3]):
                    print(median_ci(v))
                print(verdict(median_ci([1.0, 1.1, 1.2, 1.05, 1.15]), 1.25))
                print(verdict(median_ci([1.3, 1.4, 1.5, 1.35, 1.45]), 1.25))
                print(verdict(median_ci([0.3, 1.3, 4.3, 1.2, 1.1]), 1.25))
                print(verdict(median_ci([1.0, 1.1]), 1.25))
                """);
        assertThat(out.lines().toList()).containsExactly(
                "(3, 1, 5, 0.9375)",            // n = 5: even k = 1 falls short of 95 %, the attained coverage is said
                "(4, 1, 7, 0.984375)",          // n = 7: k = 2 would give 87.5 %
                "(5, 2, 8, 0.9609375)",         // n = 9: k = 2 is the largest with >= 95 %
                "None",                         // a NaN is dropped: two values give no interval
                "(2, 1, 3, 0.75)",
                "holds", "fails", "inconclusive", "too few repeats");
    }

    @Test
    void theSimulationHoldsEveryClaimedCoverage() throws Exception {
        String out = run(List.of("python3", "bench/ratio_ci.py", "--simulate"));
        List<String> rows = out.lines().skip(1).toList();
        assertThat(rows).hasSize(15).allSatisfy(r -> assertThat(r).endsWith("ok"));
    }

    private static String python(String code) throws Exception {
        return run(List.of("python3", "-c", code));
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(ROOT.toFile()).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + err).isZero();
        return out;
    }
}
