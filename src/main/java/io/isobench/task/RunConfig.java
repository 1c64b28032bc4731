package io.isobench.task;


/**
 * How a suite runs (DESIGN.md §4): measured rounds of interleaved arms, warm-up requests discarded before each
 * measurement, timeouts, the executor, the seed for the per-round order, an optional first port, and whether every
 * round also measures the A/A arm ({@code baseline-aa}: the baseline's code started again, docs/statistics.md).
 *
 * @param rounds   how many measured rounds: fixed, or adaptive (the default; {@code run.rounds},
 *                 {@code run.min_rounds}, {@code run.max_rounds}, {@code run.spending}, {@code run.futility_power},
 *                 {@code run.gating})
 * @param portBase first server port to use; null lets isobench pick free ports
 * @param aa       plan the A/A arm in every round (default true; {@code run.aa: false} or {@code --no-aa} turns it
 *                 off, and verdicts then use the minimum effect alone as their margin)
 * @param serverMetricsIntervalMs how often a measured serving run scrapes the server's {@code /metrics}
 *                 ({@code run.server_metrics_interval_ms}, default {@value #DEFAULT_SERVER_METRICS_INTERVAL_MS};
 *                 0: not scraped; docs/server-metrics.md)
 * @param clockMismatch the GPU clock rule of the analysis ({@code run.exclude_on_clock_mismatch},
 *                 {@code run.clock_mismatch_sm_pct}, {@code run.clock_mismatch_throttle_share}; docs/statistics.md
 *                 section 3), stored with the session so every later report analyses it alike
 * @param confine  which measured processes run in the sandbox and what they get ({@code run.confine})
 */
public record RunConfig(RoundsPlan rounds, int warmupRequests, Timeouts timeouts, String executor, long seed,
                        Integer portBase, boolean aa, int serverMetricsIntervalMs, ClockMismatch clockMismatch,
                        Confine confine) {

    /**
     * When a run's GPU clocks differ from the baseline's run of its round (docs/gpu-telemetry.md).
     *
     * @param exclude       keep a flagged run out of the comparison (default false: flagged, still counted)
     * @param smClockPct    largest allowed difference of the mean SM clock, percent of the baseline's (default 3)
     * @param throttleShare largest allowed difference of the share of samples with a throttle reason (default 0.25)
     */
    public record ClockMismatch(boolean exclude, double smClockPct, double throttleShare) {
        public static final ClockMismatch DEFAULT = new ClockMismatch(false, 3.0, 0.25);

        public ClockMismatch {
            if (!(smClockPct > 0) || Double.isInfinite(smClockPct)) {
                throw new IllegalArgumentException("smClockPct (" + smClockPct + ") must be a positive number");
            }
            if (!(throttleShare > 0 && throttleShare <= 1)) {
                throw new IllegalArgumentException("throttleShare (" + throttleShare + ") must be in (0, 1]");
            }
        }

        /** The same rule excluding flagged runs or not. */
        public ClockMismatch excluding(boolean on) {
            return new ClockMismatch(on, smClockPct, throttleShare);
        }
    }

    /** The executor a suite without {@code run.executor} runs on; the known names: {@link ExecutorNames#known()}. */
    public static final String DEFAULT_EXECUTOR = "local";
    public static final int DEFAULT_WARMUP_REQUESTS = 10;
    public static final long DEFAULT_SEED = 42;
    public static final int DEFAULT_SERVER_METRICS_INTERVAL_MS = 1000;

    /** Limits in seconds: server readiness, one benchmark run, one environment build. */
    public record Timeouts(int serverStartS, int runS, int buildS) {
        public static final Timeouts DEFAULT = new Timeouts(900, 1800, 3600);

        public Timeouts {
            if (serverStartS < 1 || runS < 1 || buildS < 1) {
                throw new IllegalArgumentException("timeouts (" + serverStartS + ", " + runS + ", " + buildS
                        + ") must be >= 1 s");
            }
        }
    }

    public static final RunConfig DEFAULT = new RunConfig(RoundsPlan.DEFAULT, DEFAULT_WARMUP_REQUESTS, Timeouts.DEFAULT,
            DEFAULT_EXECUTOR, DEFAULT_SEED, null, true, DEFAULT_SERVER_METRICS_INTERVAL_MS, ClockMismatch.DEFAULT,
            Confine.DEFAULT);

    /** A/A on, scraping at the default interval, the default clock rule and confinement (the {@code with…} methods). */
    public RunConfig(RoundsPlan rounds, int warmupRequests, Timeouts timeouts, String executor, long seed,
                     Integer portBase) {
        this(rounds, warmupRequests, timeouts, executor, seed, portBase, true, DEFAULT_SERVER_METRICS_INTERVAL_MS,
                ClockMismatch.DEFAULT, Confine.DEFAULT);
    }

    /** This configuration with other confinement settings ({@code run.confine}, {@code demo} without bwrap). */
    public RunConfig withConfine(Confine c) {
        return new RunConfig(rounds, warmupRequests, timeouts, executor, seed, portBase, aa, serverMetricsIntervalMs,
                clockMismatch, c);
    }

    /** This configuration with another rounds plan ({@code run --rounds N|adaptive}). */
    public RunConfig withRounds(RoundsPlan plan) {
        return new RunConfig(plan, warmupRequests, timeouts, executor, seed, portBase, aa, serverMetricsIntervalMs,
                clockMismatch, confine);
    }

    public RunConfig withAa(boolean on) {
        return new RunConfig(rounds, warmupRequests, timeouts, executor, seed, portBase, on, serverMetricsIntervalMs,
                clockMismatch, confine);
    }

    /** This configuration scraping {@code /metrics} every {@code ms} (0: not at all). */
    public RunConfig withServerMetricsIntervalMs(int ms) {
        return new RunConfig(rounds, warmupRequests, timeouts, executor, seed, portBase, aa, ms, clockMismatch,
                confine);
    }

    /** This configuration with another GPU clock rule ({@code run --exclude-on-clock-mismatch} sets its flag). */
    public RunConfig withClockMismatch(ClockMismatch rule) {
        return new RunConfig(rounds, warmupRequests, timeouts, executor, seed, portBase, aa, serverMetricsIntervalMs,
                rule, confine);
    }

    public RunConfig {
        if (rounds == null) {
            rounds = RoundsPlan.DEFAULT;
        }
        if (warmupRequests < 0) {
            throw new IllegalArgumentException("warmupRequests (" + warmupRequests + ") must be >= 0");
        }
        if (!ExecutorNames.known().contains(executor)) {
            throw new IllegalArgumentException("executor (" + executor + ") must be one of " + ExecutorNames.known());
        }
        if (portBase != null && (portBase < 1024 || portBase > 65000)) {
            throw new IllegalArgumentException("portBase (" + portBase + ") must be in 1024..65000");
        }
        if (serverMetricsIntervalMs < 0) {
            throw new IllegalArgumentException("serverMetricsIntervalMs (" + serverMetricsIntervalMs
                    + ") must be >= 0");
        }
        if (timeouts == null) {
            timeouts = Timeouts.DEFAULT;
        }
        if (clockMismatch == null) {
            clockMismatch = ClockMismatch.DEFAULT;
        }
        if (confine == null) {
            confine = Confine.DEFAULT;
        }
    }
}
