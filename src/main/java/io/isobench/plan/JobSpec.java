package io.isobench.plan;

import io.isobench.parse.Readout;
import io.isobench.task.ClientConfig;
import io.isobench.task.Sweep;
import io.isobench.task.TaskSpec;

import java.util.Locale;
import java.util.Objects;

/**
 * What a job does, with its typed settings: a measured round ({@link Measure}), a correctness check
 * ({@link Check}) or an accuracy run ({@link Accuracy}). Nothing is encoded as command-line flags to be parsed back.
 */
public sealed interface JobSpec permits JobSpec.Measure, JobSpec.Check, JobSpec.Accuracy {
    // room for more: an agent's run (Agent) joins the permits clause when it exists (a sweep's load point is a
    // Measure with its Point: the same job at another client flag)

    /** The command the job runs: an offline benchmark, probe or accuracy command, or a server (port open). */
    Command command();

    /**
     * Generic engine adapter: how the job's metrics (and a check's generated text) are read, and its primary metric;
     * null for the vllm and toy adapters (their output formats are known) and for accuracy runs.
     */
    default Readout readout() {
        return null;
    }

    /**
     * One measured round.
     *
     * @param client         serving: the client's settings, parsed once from the task ({@code vllm bench serve}
     *                       names, as the task writes them); {@link ClientConfig#NONE} otherwise
     * @param warmupRequests serving: requests sent and discarded before measuring
     * @param serverMetricsIntervalMs serving: how often the server's {@code /metrics} is scraped during the run
     *                       (0: not scraped; docs/server-metrics.md)
     * @param point          serving: the load point of a sweep task's round (its flag already set in {@code client});
     *                       null for a task without a sweep
     */
    record Measure(Command command, ClientConfig client, int warmupRequests, Readout readout,
                   int serverMetricsIntervalMs, Point point) implements JobSpec {
        /** Scraped every second, the default. */
        public static final int DEFAULT_SERVER_METRICS_INTERVAL_MS = 1000;

        public Measure {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(client, "client");
            if (serverMetricsIntervalMs < 0) {
                throw new IllegalArgumentException("serverMetricsIntervalMs must be >= 0");
            }
        }

        /** A round scraping the server's {@code /metrics} every second. */
        public Measure(Command command, ClientConfig client, int warmupRequests, Readout readout) {
            this(command, client, warmupRequests, readout, DEFAULT_SERVER_METRICS_INTERVAL_MS);
        }

        /** A round at the command's own load (no sweep). */
        public Measure(Command command, ClientConfig client, int warmupRequests, Readout readout,
                       int serverMetricsIntervalMs) {
            this(command, client, warmupRequests, readout, serverMetricsIntervalMs, null);
        }

        /** This round read another way. */
        public Measure withReadout(Readout newReadout) {
            return new Measure(command, client, warmupRequests, newReadout, serverMetricsIntervalMs, point);
        }

        /** This round at a sweep's load point: the point's client flag replaces the command's (on the typed flags). */
        public Measure at(Point p) {
            return new Measure(command, p.sweep().clientAt(client, p.value()), warmupRequests, readout,
                    serverMetricsIntervalMs, p);
        }
    }

    /**
     * One load point of a task's sweep (docs/loadgen.md, "Load sweeps").
     *
     * @param sweep the task's sweep
     * @param index the point's position in the sweep's ascending points (0-based)
     * @param value the load: a request rate (req/s) or a concurrency limit
     */
    record Point(Sweep sweep, int index, double value) {
        public Point {
            Objects.requireNonNull(sweep, "sweep");
        }

        /** {@code request_rate=4}: the point in job ids, the plan's order and reports. */
        public String name() {
            return sweep.pointName(value);
        }
    }

    /**
     * The arm's greedy outputs, compared with the baseline's (the correctness gate): through the arm's server, or
     * the task's offline probe command.
     */
    record Check(Command command, Probes probes, Readout readout) implements JobSpec {
        public Check {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(probes, "probes");
        }
    }

    /**
     * The settings of a correctness check.
     *
     * @param model      the model the probes ask for
     * @param numPrompts probe prompts
     * @param maxTokens  tokens generated per prompt
     * @param tolerance  largest fraction of probes allowed to differ from the baseline's
     * @param logprobs   the probes ask for logprobs
     * @param via        what answers the probes
     * @param repeat     the baseline's second check, in a server of its own (tolerance calibration)
     */
    record Probes(String model, int numPrompts, int maxTokens, double tolerance, boolean logprobs, Via via,
                  boolean repeat) {

        /** A generic offline task's check: its own command's output, read by its output rule (no probe prompts). */
        public static final Probes OWN_COMMAND = new Probes(null, 8, 32, 0.0, false, Via.COMMAND, false);

        public Probes {
            Objects.requireNonNull(via, "via");
        }

        /** The same probes as the baseline's second check. */
        public Probes asRepeat() {
            return new Probes(model, numPrompts, maxTokens, tolerance, logprobs, via, true);
        }

        /** The task's offline probe command answers the probe prompts (no server). */
        public boolean offline() {
            return via == Via.OFFLINE;
        }
    }

    /** What answers a check's probes. */
    enum Via {
        /** Greedy requests to the arm's server. */
        SERVER,
        /** The task's offline probe command, given the prompts in a file. */
        OFFLINE,
        /** A generic offline task's own command: its output is the generated text. */
        COMMAND;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The task's accuracy command in the arm's environment, once per arm after the measured rounds; its score is
     * compared with the baseline's.
     *
     * @param command  the accuracy command ({@code {model}}, {@code {suite_dir}} filled in)
     * @param settings how the score is read and compared (score regex or JSON path, direction, tolerances)
     * @param suiteDir the suite's folder ({@code {suite_dir}}), where the command's own files are: an executor that
     *                 isolates the job (a container) makes it visible, read-only
     */
    record Accuracy(Command command, TaskSpec.Accuracy settings, String suiteDir) implements JobSpec {
        public Accuracy {
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(settings, "settings");
            Objects.requireNonNull(suiteDir, "suiteDir");
        }
    }
}
