package io.isobench;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.agent.AttemptResult;
import io.isobench.agent.Trajectory;
import io.isobench.atif.AtifValidator;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * "Every trajectory the tests store validates against the ATIF schema" (issue 32): the checks every test that stores
 * agent attempts calls. A trajectory isobench wrote is checked in {@link AtifValidator.Profile#WRITE} (v1.7 stated,
 * canonical types, v1.8's rules); an imported one ({@code agent_attempt.status} {@code imported}) in
 * {@link AtifValidator.Profile#READ}, as it was accepted.
 */
public final class AtifStores {

    private AtifStores() {
    }

    /** Fails naming every error unless {@code json} is a valid ATIF document as isobench writes them. */
    public static void assertValid(String json) {
        List<AtifValidator.Error> errors = AtifValidator.validate(json, AtifValidator.Profile.WRITE);
        if (!errors.isEmpty()) {
            fail("not valid ATIF:\n" + AtifValidator.lines(errors, 50));
        }
    }

    /** {@code r}, after checking that its trajectory, written the way the store writes it, is valid ATIF. */
    public static AttemptResult valid(AttemptResult r) {
        assertValid(r.trajectory().toJson(new Trajectory.Header("agents-test", "test-adapter", r.cliVersion(), null,
                Map.of("status", r.status().name())), r.usage()));
        return r;
    }

    /**
     * Checks the trajectory of every agent attempt stored in {@code store} (each must have one); returns how many it
     * checked.
     */
    public static int assertEveryTrajectoryValid(Store store) {
        List<RunRecord> runs = new ArrayList<>();
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.AGENT_ATTEMPT)), runs::add);
        List<String> bad = new ArrayList<>();
        for (RunRecord r : runs) {
            JsonNode d = r.details().section("agent_attempt");
            String sha = d.path("trajectory_sha256").asText(null);
            Optional<byte[]> bytes = sha == null ? Optional.empty() : store.artifact(sha);
            if (bytes.isEmpty()) {
                bad.add(r.runId() + ": no trajectory stored");
                continue;
            }
            AtifValidator.Profile p = "imported".equals(d.path("status").asText()) ? AtifValidator.Profile.READ
                    : AtifValidator.Profile.WRITE;
            List<AtifValidator.Error> errors = AtifValidator.validate(new String(bytes.get(), StandardCharsets.UTF_8),
                    p);
            if (!errors.isEmpty()) {
                bad.add(r.runId() + ":\n" + AtifValidator.lines(errors, 20));
            }
        }
        assertTrue(bad.isEmpty(), "stored trajectories that are not valid ATIF:\n" + String.join("\n", bad));
        return runs.size();
    }
}
