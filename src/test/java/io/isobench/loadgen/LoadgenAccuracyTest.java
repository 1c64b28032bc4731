package io.isobench.loadgen;

import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Accuracy against a server that stamps its send time into every chunk (same JVM, same monotonic clock):
 * client-measured TTFT and ITL must match the server's own send times within ±1 ms at p99, at concurrency 1, 64
 * and 512 (asserted with {@code -Disobench.timing=true}, see {@link #TIMING}); counts and token totals must be exact.
 * Runs alone (timing-sensitive).
 */
@Isolated("its assertions come from measured stamps: nothing runs beside it (ItLocks)")
class LoadgenAccuracyTest {

    static final int CHUNKS = 20;

    /**
     * The ±1 ms p99 bound is a timing target, checked by a benchmark on a quiet machine
     * ({@code bench/loadgen-accuracy} sets {@code -Disobench.timing=true}), never by a timed test in the shared build:
     * there the counts, ordering and consistency checks run and the measured errors are printed.
     */
    static final boolean TIMING = Boolean.getBoolean("isobench.timing");

    @ParameterizedTest(name = "concurrency {0}")
    @CsvSource({"1, 30, 0, 5, Infinity", "64, 192, 1, 10, 640", "512, 512, 2, 50, 2000", "1000, 1000, 2, 100, 4000"})
    void measuredTimesMatchServerStampsWithin1ms(int concurrency, int requests, double jitterMs, double itlMs,
                                                 String rate) throws Exception {
        double ttftMs = 20;
        try (StreamingTestServer server = new StreamingTestServer(0, ttftMs, itlMs, jitterMs)) {
            LoadgenConfig c = LoadgenConfig.builder().keepText(true)
                    .baseUrl(server.baseUrl()).model("test").requestRate(Double.parseDouble(rate)).seed(7)
                    .dataset(DatasetSpec.random(32, CHUNKS, 0, 0))
                    .numPrompts(requests).maxConcurrency(concurrency).numWarmups(Math.min(concurrency, 64)).ignoreEos(true)
                    .requestTimeout(Duration.ofSeconds(60))
                    .build();
            System.gc(); // start from an empty young generation: a collection pauses server and client alike
            LoadgenResult r = LoadGenerator.run(c, null);

            assertThat(r.summary().completed()).isEqualTo(requests);
            assertThat(r.summary().failed()).isZero();
            assertThat(r.summary().totalOutput()).isEqualTo((long) requests * CHUNKS);
            assertThat(r.summary().outputFromUsage()).isEqualTo(requests);
            assertThat(r.summary().dists().get("itl").count()).isEqualTo(requests * (CHUNKS - 1));
            assertThat(r.summary().maxInFlight()).isLessThanOrEqualTo(concurrency);

            List<Double> ttftErr = new ArrayList<>();
            List<Double> itlErr = new ArrayList<>();
            List<Double> ttftVsProgram = new ArrayList<>();
            List<Double> itlVsProgram = new ArrayList<>();
            for (RequestResult q : r.requests()) {
                long[] stamps = Arrays.stream(q.generatedText().split(";")).mapToLong(Long::parseLong).toArray();
                assertThat(stamps).hasSize(CHUNKS);
                assertThat(q.chunkNs()).hasSize(CHUNKS);
                assertThat(q.latencyNs()).isGreaterThanOrEqualTo(q.ttftNs());
                long sendAbs = r.startNanoTime() + q.sendNs();
                // TTFT as the server saw it: its first send stamp minus our send time
                ttftErr.add((q.ttftNs() - (stamps[0] - sendAbs)) / 1e6);
                ttftVsProgram.add(q.ttftNs() / 1e6 - ttftMs);
                long[] itl = q.itlNs();
                for (int i = 0; i < itl.length; i++) {
                    itlErr.add((itl[i] - (stamps[i + 1] - stamps[i])) / 1e6);
                    itlVsProgram.add(itl[i] / 1e6 - itlMs);
                }
            }
            double ttftP99 = p99abs(ttftErr);
            double itlP99 = p99abs(itlErr);
            boolean within = ttftP99 <= 1.0 && itlP99 <= 1.0;
            // one machine-readable verdict line per concurrency; bench/loadgen-accuracy turns these into its table
            System.err.printf(Locale.ROOT, "accuracy concurrency=%d requests=%d chunks=%d ttft_err_p99_ms=%.3f "
                            + "itl_err_p99_ms=%.3f ttft_vs_programmed_p99_ms=%.3f itl_vs_programmed_p99_ms=%.3f within_1ms=%s%n",
                    concurrency, requests, r.summary().chunks(), ttftP99, itlP99, p99abs(ttftVsProgram),
                    p99abs(itlVsProgram), within ? "yes" : "no");
            if (!TIMING) {
                return; // counts and ordering above always hold; the ±1 ms bound is a benchmark (bench/loadgen-accuracy)
            }
            assertThat(ttftP99).as("p99 |TTFT error| ms").isLessThanOrEqualTo(1.0);
            assertThat(itlP99).as("p99 |ITL error| ms").isLessThanOrEqualTo(1.0);
            if (jitterMs == 0 && concurrency <= 64) {
                assertThat(p99abs(ttftVsProgram)).as("p99 |TTFT − programmed| ms").isLessThanOrEqualTo(1.0 + 1.0);
            }
        }
    }

    static double p99abs(List<Double> v) {
        double[] a = v.stream().mapToDouble(Math::abs).sorted().toArray();
        return Stats.percentile(a, 99);
    }
}
