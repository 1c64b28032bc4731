package io.isobench.plan;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Readout;
import io.isobench.task.ClientConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One job of a plan: one arm of one task in one measured round, the arm's correctness check or its accuracy run.
 * The plan is data; a job says what would run, not how.
 *
 * @param place  where the job is in the plan
 * @param arm    the arm
 * @param mode   the task's benchmark mode
 * @param spec   what the job does, with its typed settings
 * @param where  the arm's environment the command runs in
 * @param limits its time limits
 */
public record Job(Place place, Arm arm, Mode mode, JobSpec spec, Where where, Limits limits) {

    /**
     * The job's place in the plan.
     *
     * @param index  position in the plan (0-based); jobs run in this order
     * @param jobId  stable within the session: {@code <task>/<arm>/r<round>} (a sweep point's:
     *               {@code <task>/<arm>/r<round>/request_rate=4}), {@code <task>/<arm>/check},
     *               {@code <task>/baseline/check-repeat} or {@code <task>/<arm>/accuracy}
     * @param taskId the task
     * @param round  measured round (0-based); -1 for a correctness check or an accuracy run
     */
    public record Place(int index, String jobId, String taskId, int round) {
        public Place {
            Objects.requireNonNull(jobId, "jobId");
        }
    }

    /**
     * Where the command runs.
     *
     * @param cwd  the arm's environment (worktree)
     * @param env  environment variables the command gets beyond the inherited ones
     * @param gpus GPUs the job needs (estimate of the task package)
     */
    public record Where(Path cwd, Map<String, String> env, int gpus) {
        public Where {
            env = Map.copyOf(env);
        }
    }

    /**
     * Time limits.
     *
     * @param serverStart readiness limit of a server
     * @param run         limit of the benchmark (check, accuracy command) itself
     */
    public record Limits(Duration serverStart, Duration run) {

        public static Limits ofSeconds(int serverStartS, int runS) {
            return new Limits(Duration.ofSeconds(serverStartS), Duration.ofSeconds(runS));
        }

        public int serverStartS() {
            return (int) serverStart.toSeconds();
        }

        public int runS() {
            return (int) run.toSeconds();
        }
    }

    /** What a job does, by its spec. */
    public enum Kind {
        /** Greedy outputs of the arm, compared with the baseline's (correctness gate). */
        CHECK,
        /** One measured round. */
        MEASURE,
        /** The task's accuracy command. */
        ACCURACY
    }

    public Job {
        Objects.requireNonNull(place, "place");
        Objects.requireNonNull(arm, "arm");
        Objects.requireNonNull(spec, "spec");
    }

    public Kind kind() {
        return switch (spec) {
            case JobSpec.Measure m -> Kind.MEASURE;
            case JobSpec.Check c -> Kind.CHECK;
            case JobSpec.Accuracy a -> Kind.ACCURACY;
        };
    }

    /** What the job is for in its session (stored with its run). */
    public JobRole role() {
        return JobRole.of(this);
    }

    public int index() {
        return place.index();
    }

    public String jobId() {
        return place.jobId();
    }

    public String taskId() {
        return place.taskId();
    }

    public int round() {
        return place.round();
    }

    public Path cwd() {
        return where.cwd();
    }

    public Map<String, String> env() {
        return where.env();
    }

    public int gpus() {
        return where.gpus();
    }

    /** The command as planned and shown ({@link Command#planned}: a server's port still open). */
    public List<String> argv() {
        return spec.command().planned();
    }

    /** The command with the server's port filled in. */
    public List<String> argvFor(int port) {
        return spec.command().argvFor(port);
    }

    public Readout readout() {
        return spec.readout();
    }

    /** Serving: the measured round's client settings; {@link ClientConfig#NONE} for other jobs. */
    public ClientConfig client() {
        return spec instanceof JobSpec.Measure m ? m.client() : ClientConfig.NONE;
    }

    /**
     * The model the job's requests name, typed from the task when it was planned, never read from the server's
     * command: a check's probe model; a serving round's client {@code --model} (the perf_command's, else the task's
     * {@code model}; a generic task's {@code serving.model}); null for a job that sends none (an offline round, an
     * accuracy run).
     */
    public String model() {
        return switch (spec) {
            case JobSpec.Check c -> c.probes().model();
            case JobSpec.Measure m -> m.client().get("--model").orElse(null);
            case JobSpec.Accuracy a -> null;
        };
    }

    /** Serving: the measured round's warm-up requests; 0 for other jobs. */
    public int warmupRequests() {
        return spec instanceof JobSpec.Measure m ? m.warmupRequests() : 0;
    }

    /** Serving rounds: how often the server's {@code /metrics} is scraped (ms; 0: not); 0 for every other job. */
    public int serverMetricsIntervalMs() {
        return spec instanceof JobSpec.Measure m ? m.serverMetricsIntervalMs() : 0;
    }

    /** A sweep task's measured round: its load point; null for every other job. */
    public JobSpec.Point sweepPoint() {
        return spec instanceof JobSpec.Measure m ? m.point() : null;
    }

    /** The check's probe settings; null for other jobs. */
    public JobSpec.Probes probes() {
        return spec instanceof JobSpec.Check c ? c.probes() : null;
    }

    /** This job with other environment variables. */
    public Job withEnv(Map<String, String> newEnv) {
        return new Job(place, arm, mode, spec, new Where(where.cwd(), newEnv, where.gpus()), limits);
    }

    /** This job run in another folder (the arm's prepared environment). */
    public Job in(Path cwd) {
        return new Job(place, arm, mode, spec, new Where(cwd, where.env(), where.gpus()), limits);
    }

    /** This job doing something else (another command, read another way). */
    public Job withSpec(JobSpec newSpec) {
        return new Job(place, arm, mode, newSpec, where, limits);
    }

    /** This job at another place of the plan. */
    public Job at(int newIndex, String newJobId, int newRound) {
        return new Job(new Place(newIndex, newJobId, place.taskId(), newRound), arm, mode, spec, where, limits);
    }

    /** A generic engine's offline job: its output is read by the declared rules (not a server, not vLLM's format). */
    public boolean generic() {
        return readout() != null && !serving();
    }

    /**
     * A serving task's measured round or check: its command is the server, measured by the client or probed by the
     * check (an accuracy run's command is a plain command, whatever the task's mode).
     */
    public boolean serving() {
        return mode == Mode.SERVING && !(spec instanceof JobSpec.Accuracy);
    }

    /** The baseline's second correctness check: the same probes in a server of its own (tolerance calibration). */
    public boolean repeatCheck() {
        return spec instanceof JobSpec.Check c && c.probes().repeat();
    }
}
