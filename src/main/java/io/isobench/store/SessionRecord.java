package io.isobench.store;

import java.time.Instant;

/**
 * A native measurement session (DESIGN.md §8 {@code session}): the machine it ran on and the settings it used.
 * Build one with {@link #builder(String)}.
 *
 * @param sessionId       stable id
 * @param startedAt       start time, or null
 * @param endedAt         end time, or null while running / when interrupted
 * @param host            host name, or null
 * @param cpu             CPU model, or null
 * @param gpu             GPU model/driver/CUDA, or null
 * @param machineJson     full machine fingerprint as JSON, or null
 * @param suiteJson       the suite that ran, as JSON, or null
 * @param statsConfigJson statistical settings (rounds, rule, noise floor), as JSON, or null
 * @param seed            seed of the session's randomisation, or null
 * @param status          free-form state (running, done, interrupted…), or null
 */
public record SessionRecord(
        String sessionId,
        Instant startedAt,
        Instant endedAt,
        String host,
        String cpu,
        String gpu,
        String machineJson,
        String suiteJson,
        String statsConfigJson,
        Long seed,
        String status) {

    public SessionRecord {
        if (sessionId == null || sessionId.isBlank()) {
            throw new IllegalArgumentException("sessionId must not be blank");
        }
    }

    /** Id prefix of an {@code isobench agents run} session: it holds agent attempts, never measured runs. */
    public static final String AGENTS_PREFIX = "agents-";

    /** Whether this is an {@code isobench agents run} session (no measurement: left out of analyses and exports). */
    public boolean isAgentsRun() {
        return sessionId.startsWith(AGENTS_PREFIX);
    }

    /** A builder for session {@code sessionId}; everything not set is null. */
    public static Builder builder(String sessionId) {
        return new Builder(sessionId);
    }

    /** Builds a {@link SessionRecord} field by field. */
    public static final class Builder {
        private final String sessionId;
        private Instant startedAt;
        private Instant endedAt;
        private String host;
        private String cpu;
        private String gpu;
        private String machineJson;
        private String suiteJson;
        private String statsConfigJson;
        private Long seed;
        private String status;

        private Builder(String sessionId) {
            this.sessionId = sessionId;
        }

        /** Start and end time, each null when unknown. */
        public Builder time(Instant started, Instant ended) {
            startedAt = started;
            endedAt = ended;
            return this;
        }

        /** The machine: host name, CPU and GPU models, the full fingerprint as JSON. */
        public Builder machine(String hostName, String cpuModel, String gpuModel, String fingerprintJson) {
            host = hostName;
            cpu = cpuModel;
            gpu = gpuModel;
            machineJson = fingerprintJson;
            return this;
        }

        public Builder suiteJson(String v) {
            suiteJson = v;
            return this;
        }

        public Builder statsConfigJson(String v) {
            statsConfigJson = v;
            return this;
        }

        public Builder seed(Long v) {
            seed = v;
            return this;
        }

        public Builder status(String v) {
            status = v;
            return this;
        }

        public SessionRecord build() {
            return new SessionRecord(sessionId, startedAt, endedAt, host, cpu, gpu, machineJson, suiteJson,
                    statsConfigJson, seed, status);
        }
    }
}
