package io.isobench.atif;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.IsobenchException;
import io.isobench.guard.AtomicFile;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code isobench agents export --format atif} (docs/agents.md, "ATIF trajectories"): the trajectory of every stored
 * agent attempt (kind AGENT_ATTEMPT; of one session and one task when asked) written as
 * {@code <run id, sanitized>.trajectory.json}, one file per attempt. The rule per document: one isobench wrote as
 * ATIF is written byte for byte as stored; a pre-ATIF one ({@link LegacyTrajectory}) is converted, its session the
 * attempt's; an imported one is written byte for byte as stored. Each is checked by {@link AtifValidator} before any
 * file is written (isobench's own in the WRITE profile, imported ones in READ, as they were accepted): one that fails
 * stops the export with its run id and first error, and nothing is written. The file name: the run id with every
 * character outside {@code [A-Za-z0-9._-]} replaced by {@code _}.
 */
public final class AtifExport {

    /** Status of an imported attempt ({@code agent_attempt.status}). */
    public static final String IMPORTED = "imported";

    private static final ObjectMapper JSON = new ObjectMapper();

    private AtifExport() {
    }

    /** One file written: the attempt's run id, the file, whether it was converted from the pre-ATIF shape. */
    public record Written(String runId, Path file, boolean converted) {
    }

    /**
     * Writes the trajectories of the attempts of {@code sessionId} (null: all) at {@code taskId} (null: all) into
     * {@code outDir}.
     *
     * @throws IsobenchException.BadInput no attempt matched, an attempt without its trajectory, or one that is not
     *                                    valid ATIF
     */
    public static List<Written> export(Store store, String sessionId, String taskId, Path outDir) throws IOException {
        List<RunRecord> runs = new ArrayList<>();
        RunFilter f = RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.AGENT_ATTEMPT));
        store.forEachRun(sessionId == null ? f : f.inSession(sessionId), runs::add);
        runs.removeIf(r -> taskId != null && !taskId.equals(r.details().section("agent_attempt").path("task")
                .asText(null)));
        runs.sort(Comparator.comparing(RunRecord::runId));
        if (runs.isEmpty()) {
            throw new IsobenchException.BadInput("no agent attempt" + (sessionId == null ? "" : " in session "
                    + sessionId) + (taskId == null ? "" : " at task " + taskId) + " (fix: the session id `isobench"
                    + " agents run` or `agents import` printed; `isobench sessions` lists them)");
        }
        List<byte[]> docs = new ArrayList<>();
        List<Boolean> converted = new ArrayList<>();
        for (RunRecord r : runs) {
            JsonNode d = r.details().section("agent_attempt");
            String sha = d.path("trajectory_sha256").asText(null);
            Optional<byte[]> bytes = sha == null ? Optional.empty() : store.artifact(sha);
            if (bytes.isEmpty()) {
                throw new IsobenchException.BadInput(r.runId() + ": no trajectory stored (fix: export the other"
                        + " attempts with --session/--task)");
            }
            JsonNode doc = parse(bytes.get(), r.runId());
            boolean legacy = LegacyTrajectory.isLegacy(doc);
            byte[] out = legacy ? pretty(LegacyTrajectory.toAtif(doc, r.sessionId())) : bytes.get();
            AtifValidator.Profile p = IMPORTED.equals(d.path("status").asText()) ? AtifValidator.Profile.READ
                    : AtifValidator.Profile.WRITE;
            List<AtifValidator.Error> errors = AtifValidator.validate(new String(out, StandardCharsets.UTF_8), p);
            if (!errors.isEmpty()) {
                throw new IsobenchException.BadInput(r.runId() + ": the stored trajectory is not valid ATIF: "
                        + errors.get(0) + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "")
                        + " (fix: report it; export the other attempts with --session/--task)");
            }
            docs.add(out);
            converted.add(legacy);
        }
        Files.createDirectories(outDir);
        List<Written> written = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            Path file = outDir.resolve(fileName(runs.get(i).runId()));
            AtomicFile.writeBytes(file, docs.get(i));
            written.add(new Written(runs.get(i).runId(), file, converted.get(i)));
        }
        return written;
    }

    /** {@code <run id>.trajectory.json} with every character outside {@code [A-Za-z0-9._-]} as {@code _}. */
    public static String fileName(String runId) {
        return runId.replaceAll("[^A-Za-z0-9._-]", "_") + ".trajectory.json";
    }

    private static JsonNode parse(byte[] bytes, String runId) {
        try {
            return JSON.readTree(bytes);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(runId + ": the stored trajectory is not JSON (fix: export the other"
                    + " attempts with --session/--task)");
        }
    }

    private static byte[] pretty(JsonNode n) {
        try {
            return (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n)).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
