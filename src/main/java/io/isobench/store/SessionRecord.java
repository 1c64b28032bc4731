package io.isobench.store;

import java.time.Instant;

/**
 * A native measurement session (DESIGN.md §8 {@code session}): the machine it ran on and the settings it used.
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
}
