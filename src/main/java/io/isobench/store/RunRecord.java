package io.isobench.store;

import io.isobench.Arm;
import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricResolution;

import java.time.Instant;
import java.util.List;

/**
 * One run of one arm of one task, as stored (DESIGN.md §8). Raw samples are the metrics; anything derived
 * (statistics, verdicts, 3-way rows) is computed from these and never stored instead of them. Build one with
 * {@link #builder(String)}; the flat accessors ({@link #arm()}, {@link #status()}, …) read the groups.
 *
 * <p>Arm, mode and pipeline are typed ({@link Arm}, {@link Mode}, {@link Pipeline}); the store keeps their labels,
 * byte-identical to before. Reading a label back ({@link Builder#armLabel}, {@link Builder#modeLabel},
 * {@link Builder#pipelineLabel}) never changes it: pipeline text no {@link Pipeline.Id} names is kept verbatim as an
 * unknown pipeline (the pipeline column has always held open-ended legacy ids); an agent arm keeps its name as
 * stored. Arm and mode are closed vocabularies — every writer stores {@link Arm#label()} and {@link Mode#label()} —
 * so text outside them cannot be represented without guessing, and is refused with the run's id rather than mapped.
 *
 * @param key        which run: ids, kind, round, source
 * @param subject    what ran: commit, agent, arm, mode, model, pipeline
 * @param outcome    status, classified failure, notes
 * @param primary    the primary metric, its value and origin
 * @param provenance workload, timing, environment, argv, log
 * @param details    everything else worth keeping (the job, the correctness gate, source facts): {@link RunDetails}
 * @param metrics    every metric the run produced
 */
public record RunRecord(Key key, Subject subject, Outcome outcome, Primary primary, Provenance provenance,
                        RunDetails details, List<Metric> metrics) {

    public RunRecord {
        if (key == null || key.runId() == null || key.runId().isBlank()) {
            throw new IllegalArgumentException("runId must not be blank");
        }
        if (key.kind() == null || outcome == null || outcome.status() == null || subject == null
                || subject.arm() == null) {
            throw new IllegalArgumentException("run " + key.runId() + ": kind, status and arm are required");
        }
        if (key.round() < 0) {
            throw new IllegalArgumentException("run " + key.runId() + ": round (" + key.round() + ") must be >= 0");
        }
        primary = primary == null ? Primary.NONE : primary;
        provenance = provenance == null ? Provenance.NONE : provenance;
        details = details == null ? RunDetails.NONE : details;
        metrics = metrics == null ? List.of() : List.copyOf(metrics);
    }

    /**
     * @param runId     stable id; legacy imports derive it from source path + arm so re-import is idempotent
     * @param sessionId native session id, or null for imported data
     * @param kind      what the run is (measured, legacy 3-way source, superseded attempt, single-version, micro)
     * @param round     measured round (0-based); 0 for single-run legacy data
     * @param sourceId  the imported file this run came from, or null
     */
    public record Key(String runId, String sessionId, RunKind kind, int round, String sourceId) {
    }

    /**
     * @param commit      commit id as known (8, 12 or 40 hex)
     * @param commitShort first 8 hex characters of {@code commit}
     * @param agent       the agent whose suite/tree the run belongs to (legacy: the tree's agent, even for
     *                    baseline/human arms); null when not tied to one agent
     * @param arm         the arm (stored as its {@link Arm#label() label})
     * @param mode        the mode (stored as its {@link Mode#label() label}), or null when unknown
     * @param model       model the arm actually used, or null
     * @param pipeline    legacy pipeline (modal, docker_3way, …) or native, native-check, native-accuracy; an
     *                    unknown stored label is kept verbatim ({@link Pipeline}); null when none was recorded
     */
    public record Subject(String commit, String commitShort, String agent, Arm arm, Mode mode, String model,
                          Pipeline pipeline) {
    }

    /**
     * @param status  outcome of the run
     * @param failure classified failure, or null
     * @param notes   free text, {@code "; "}-separated (recovered file, corrected status, …), or null
     */
    public record Outcome(RunStatus status, FailureInfo failure, String notes) {
    }

    /**
     * @param metric canonical name of the primary metric, or null
     * @param value  primary metric value, or null when none could be parsed
     * @param origin where the primary value came from: raw | json | measured
     */
    public record Primary(String metric, Double value, String origin) {
        /** No primary metric. */
        public static final Primary NONE = new Primary(null, null, null);
    }

    /**
     * @param workload      workload fingerprint (requests/input tokens/output tokens/seed/dataset), JSON text or null
     * @param startedAt     start time, or null when unknown
     * @param durationMs    wall time in ms, or null
     * @param engineVersion engine version string reported by the environment, or null
     * @param envRef        environment reference (commit verified in the env, image, wheel), or null
     * @param argvJson      argv that ran, as a JSON array, or null
     * @param logArtifact   sha256 of the full log in the artifact table, or null
     */
    public record Provenance(String workload, Instant startedAt, Double durationMs, String engineVersion,
                             String envRef, String argvJson, String logArtifact) {
        /** Nothing known. */
        public static final Provenance NONE = new Provenance(null, null, null, null, null, null, null);
    }

    public String runId() {
        return key.runId();
    }

    public String sessionId() {
        return key.sessionId();
    }

    public RunKind kind() {
        return key.kind();
    }

    public int round() {
        return key.round();
    }

    public String sourceId() {
        return key.sourceId();
    }

    public String commit() {
        return subject.commit();
    }

    public String commitShort() {
        return subject.commitShort();
    }

    public String agent() {
        return subject.agent();
    }

    public Arm arm() {
        return subject.arm();
    }

    /** The mode, or null when unknown. */
    public Mode mode() {
        return subject.mode();
    }

    /** The pipeline, or null when none was recorded. */
    public Pipeline pipeline() {
        return subject.pipeline();
    }

    public String model() {
        return subject.model();
    }

    public RunStatus status() {
        return outcome.status();
    }

    public FailureInfo failure() {
        return outcome.failure();
    }

    public String notes() {
        return outcome.notes();
    }

    public String primaryMetric() {
        return primary.metric();
    }

    /**
     * How finely the primary metric was measured and by what, when isobench measured it itself (a generic engine's
     * {@code command_cpu_s} or {@code command_wall_s}); null when the run does not say.
     */
    public MetricResolution primaryResolution() {
        return primary.metric() == null ? null : details.metricResolution(primary.metric());
    }

    public Double primaryValue() {
        return primary.value();
    }

    public String primaryOrigin() {
        return primary.origin();
    }

    public String workload() {
        return provenance.workload();
    }

    public Instant startedAt() {
        return provenance.startedAt();
    }

    public Double durationMs() {
        return provenance.durationMs();
    }

    public String engineVersion() {
        return provenance.engineVersion();
    }

    public String envRef() {
        return provenance.envRef();
    }

    public String argvJson() {
        return provenance.argvJson();
    }

    public String logArtifact() {
        return provenance.logArtifact();
    }

    /** This run with other details. */
    public RunRecord withDetails(RunDetails other) {
        return new RunRecord(key, subject, outcome, primary, provenance, other, metrics);
    }

    /** This run with other metrics. */
    public RunRecord withMetrics(List<Metric> other) {
        return new RunRecord(key, subject, outcome, primary, provenance, details, other);
    }

    /** A builder for run {@code runId}; kind, arm and status are required before {@link Builder#build()}. */
    public static Builder builder(String runId) {
        return new Builder(runId);
    }

    /** Builds a {@link RunRecord} field by field; everything not set is null (round 0, no metrics). */
    public static final class Builder {
        private final String runId;
        private String sessionId;
        private RunKind kind;
        private int round;
        private String sourceId;
        private String commit;
        private String commitShort;
        private String agent;
        private Arm arm;
        private Mode mode;
        private String model;
        private Pipeline pipeline;
        private RunStatus status;
        private FailureInfo failure;
        private String notes;
        private Primary primary = Primary.NONE;
        private String workload;
        private Instant startedAt;
        private Double durationMs;
        private String engineVersion;
        private String envRef;
        private String argvJson;
        private String logArtifact;
        private RunDetails details = RunDetails.NONE;
        private List<Metric> metrics = List.of();

        private Builder(String runId) {
            this.runId = runId;
        }

        public Builder session(String v) {
            sessionId = v;
            return this;
        }

        public Builder kind(RunKind v) {
            kind = v;
            return this;
        }

        public Builder round(int v) {
            round = v;
            return this;
        }

        public Builder source(String v) {
            sourceId = v;
            return this;
        }

        /** The commit and its short form. */
        public Builder commit(String full, String shortForm) {
            commit = full;
            commitShort = shortForm;
            return this;
        }

        public Builder agent(String v) {
            agent = v;
            return this;
        }

        public Builder arm(Arm v) {
            arm = v;
            return this;
        }

        /**
         * The arm from its stored label, as written: {@code agent:NAME} keeps NAME unnormalised, so the label reads
         * back byte-identical; text that is no suite arm's label (an ad-hoc loadgen run's {@code --arm adhoc}, a
         * foreign row) is {@link Arm#other}: kept verbatim, compared by nothing.
         */
        public Builder armLabel(String label) {
            arm = Arm.ofStored(label);
            return this;
        }

        public Builder mode(Mode v) {
            mode = v;
            return this;
        }

        /**
         * The mode from its stored label: exactly a {@link Mode#label()}, or null for none. Any other text is refused
         * rather than changed (the mode column only ever holds mode labels).
         */
        public Builder modeLabel(String label) {
            mode = label == null ? null : Mode.fromLabel(label).filter(m -> m.label().equals(label))
                    .orElseThrow(() -> new IllegalArgumentException("run " + runId + ": unknown mode label '" + label
                            + "' (the mode column holds only Mode labels)"));
            return this;
        }

        public Builder model(String v) {
            model = v;
            return this;
        }

        public Builder pipeline(Pipeline v) {
            pipeline = v;
            return this;
        }

        /** The pipeline from its stored label, losslessly ({@link Pipeline#of(String)}); null for none. */
        public Builder pipelineLabel(String label) {
            pipeline = Pipeline.of(label);
            return this;
        }

        public Builder status(RunStatus v) {
            status = v;
            return this;
        }

        public Builder failure(FailureInfo v) {
            failure = v;
            return this;
        }

        public Builder notes(String v) {
            notes = v;
            return this;
        }

        /** The primary metric's name, value and origin. */
        public Builder primary(String metric, Double value, String origin) {
            primary = new Primary(metric, value, origin);
            return this;
        }

        public Builder workload(String v) {
            workload = v;
            return this;
        }

        public Builder startedAt(Instant v) {
            startedAt = v;
            return this;
        }

        public Builder durationMs(Double v) {
            durationMs = v;
            return this;
        }

        public Builder engineVersion(String v) {
            engineVersion = v;
            return this;
        }

        public Builder envRef(String v) {
            envRef = v;
            return this;
        }

        public Builder argvJson(String v) {
            argvJson = v;
            return this;
        }

        public Builder logArtifact(String v) {
            logArtifact = v;
            return this;
        }

        public Builder details(RunDetails v) {
            details = v;
            return this;
        }

        /** Details as column text (tests, stores): read through {@link RunDetailsCodec}. */
        public Builder detailsJson(String text) {
            details = RunDetailsCodec.decode(text);
            return this;
        }

        public Builder metrics(List<Metric> v) {
            metrics = v;
            return this;
        }

        public RunRecord build() {
            return new RunRecord(new Key(runId, sessionId, kind, round, sourceId),
                    new Subject(commit, commitShort, agent, arm, mode, model, pipeline),
                    new Outcome(status, failure, notes), primary,
                    new Provenance(workload, startedAt, durationMs, engineVersion, envRef, argvJson, logArtifact),
                    details, metrics);
        }
    }

    /** What kind of record a run is. */
    public enum RunKind {
        /** Measured by isobench in a native session. */
        MEASURED,
        /** Imported from a legacy 3-way source (R1, R3, R4, R5, R7, R8). */
        LEGACY,
        /**
         * Imported from an R2 progress log: the final attempt of its commit (no later attempt and no result file of the
         * same commit in the same tree; docs/legacy-import-usage.md "Attempts"). Listed by default, never a 3-way source.
         */
        LEGACY_ATTEMPT,
        /**
         * Imported from an R2 progress log: an attempt a later attempt of the same commit superseded (or the tree's result
         * file, which holds the last attempt). Kept, listed on request ({@code runs --all-attempts}), never counted.
         */
        LEGACY_SUPERSEDED,
        /** Imported from an R6 single-version file (often substitute models). */
        LEGACY_SINGLE_VERSION,
        /** Micro-benchmark (test-script) result: a different result kind. */
        MICRO,
        /** Imported from a published HF table row. */
        HF_IMPORT,
        /**
         * One attempt of an agent at a task ({@code isobench agents run}; docs/agents.md): the agent arm's patch came
         * from it. Its details' {@code agent_attempt} section holds usage, versions, hashes and artifact ids; it has
         * no metrics and is never a measured sample.
         */
        AGENT_ATTEMPT
    }

    /** Outcome of a run. */
    public enum RunStatus {
        SUCCESS, FAILED, SKIPPED, NOT_RUN
    }

    /** Failure as stored: category name, detail, evidence lines joined by newlines, retryability. */
    public record FailureInfo(String category, String detail, String evidence, boolean retryable) {
    }
}
