package io.isobench.atif;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Arm;
import io.isobench.Fields;
import io.isobench.IsobenchException;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code isobench agents import} (docs/agents.md, "ATIF trajectories"): ATIF files made elsewhere (v1.0–v1.8, e.g.
 * by Harbor's agents) stored as attempt records, so the report shows them like isobench's own. The rules:
 * <ul>
 *   <li>every file is read and checked ({@link AtifValidator}, {@link AtifValidator.Profile#READ}, local image paths
 *       against the file's folder) before anything is stored: one that fails stops the import with a one-line error
 *       naming the file, the path of its first error and the fix, and nothing is stored;</li>
 *   <li>one session {@code agents-import-<UTC time>-<6 hex>} holds them; each file is one run of kind AGENT_ATTEMPT,
 *       arm {@code agent:NAME@k} (NAME: {@code --agent}, else the document's {@code agent.name} with characters
 *       outside {@code [A-Za-z0-9._-]} as {@code -}; k = 1, 2 … per NAME in the order given), task {@code --task} or
 *       {@value #NO_TASK}, status {@value AtifExport#IMPORTED}, no patch;</li>
 *   <li>the document is stored as the attempt's trajectory artifact as read (the store's secret redactor still runs
 *       over it: {@code source_sha256} is the file's sha256, {@code trajectory_sha256} the stored copy's; they differ
 *       only where a secret was masked); the source path, schema version, agent version and model are recorded, and
 *       tokens and cost from {@code final_metrics} (else summed over the steps' metrics), turns = agent steps.</li>
 * </ul>
 */
public final class AtifImport {

    /** The task of an import without {@code --task}. */
    public static final String NO_TASK = "imported";

    /** Session id prefix of an import. */
    public static final String SESSION_PREFIX = SessionRecord.AGENTS_PREFIX + "import-";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    private AtifImport() {
    }

    /** One imported file: its run id and the file. */
    public record Imported(String runId, Path file) {
    }

    /** What an import stored: the session and one entry per file. */
    public record Result(String sessionId, List<Imported> attempts) {
    }

    /**
     * Imports {@code files}.
     *
     * @param taskId the task they attempted, or null ({@value #NO_TASK})
     * @param agent  the agent name, or null (each document's {@code agent.name})
     * @throws IsobenchException.BadInput a file unreadable, not JSON or not valid ATIF (nothing stored)
     */
    public static Result importFiles(Store store, List<Path> files, String taskId, String agent) {
        if (files.isEmpty()) {
            throw new IsobenchException.BadInput("agents import: no file (fix: isobench agents import FILE.json ...)");
        }
        List<byte[]> bytes = new ArrayList<>();
        List<JsonNode> docs = new ArrayList<>();
        for (Path f : files) {
            byte[] b;
            try {
                b = Files.readAllBytes(f);
            } catch (IOException e) {
                throw new IsobenchException.BadInput(f + ": cannot be read (" + e.getClass().getSimpleName()
                        + ") (fix: a readable ATIF .json file)");
            }
            Path dir = f.toAbsolutePath().getParent();
            List<AtifValidator.Error> errors = AtifValidator.validate(new String(b, StandardCharsets.UTF_8),
                    AtifValidator.Profile.READ, dir);
            if (!errors.isEmpty()) {
                throw new IsobenchException.BadInput(f + ": not valid ATIF: " + errors.get(0)
                        + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "")
                        + " (fix: correct the document, e.g. with Harbor's `python -m harbor.utils.trajectory_validator"
                        + " FILE`; nothing was imported)");
            }
            bytes.add(b);
            try {
                docs.add(JSON.readTree(b));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        String task = taskId == null || taskId.isBlank() ? NO_TASK : taskId;
        Instant now = Instant.now();
        String session = SESSION_PREFIX + ID_TIME.format(now) + "-" + HexFormat.of().formatHex(
                SecureRandom.getSeed(3));
        return store.inTransaction(tx -> {
            tx.putSession(SessionRecord.builder(session).status("agents-imported").time(now, now).build());
            Map<String, Integer> attempts = new HashMap<>();
            List<Imported> out = new ArrayList<>();
            for (int i = 0; i < files.size(); i++) {
                JsonNode doc = docs.get(i);
                String name = agent != null && !agent.isBlank() ? agent
                        : doc.path("agent").path("name").asText("imported").replaceAll("[^A-Za-z0-9._-]", "-");
                int k = attempts.merge(name, 1, Integer::sum);
                RunRecord run = record(tx, session, task, name + "@" + k, new Source(files.get(i), bytes.get(i), doc),
                        now);
                tx.putRun(run);
                out.add(new Imported(run.runId(), files.get(i)));
            }
            return new Result(session, out);
        });
    }

    /** One file as read. */
    private record Source(Path file, byte[] bytes, JsonNode doc) {
    }

    /** The run of attempt {@code arm} ({@code NAME@k}). */
    private static RunRecord record(Store tx, String session, String task, String arm, Source src, Instant now) {
        Path file = src.file();
        byte[] bytes = src.bytes();
        JsonNode doc = src.doc();
        String name = arm.substring(0, arm.lastIndexOf('@'));
        int k = Integer.parseInt(arm.substring(arm.lastIndexOf('@') + 1));
        String trajSha = tx.putArtifact("trajectory", bytes);
        JsonNode fm = doc.path("final_metrics");
        Totals sum = Totals.of(doc.path("steps"));
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("task", task);
        d.put("agent", name);
        d.put("attempt", k);
        d.put("adapter", "atif-import");
        d.put("cli_version", doc.path("agent").path("version").asText(null));
        d.put("executor", null);
        d.put("model", doc.path("agent").path("model_name").asText(null));
        d.put("turns", sum.agentSteps());
        d.put("tokens_in", number(fm.get("total_prompt_tokens"), sum.promptTokens()));
        d.put("tokens_out", number(fm.get("total_completion_tokens"), sum.completionTokens()));
        d.put("cost_usd", fm.has("total_cost_usd") && !fm.get("total_cost_usd").isNull()
                ? Double.valueOf(lax(fm.get("total_cost_usd"))) : sum.costUsd());
        d.put("status", AtifExport.IMPORTED);
        d.put("detail", "imported from " + file.getFileName() + " (" + doc.path("schema_version").asText("ATIF,"
                + " version not stated") + ", " + doc.path("steps").size() + " steps)");
        d.put("patch_sha256", null);
        d.put("patch_lines", 0);
        d.put("trajectory_sha256", trajSha);
        d.put("source_path", file.toAbsolutePath().toString());
        d.put("source_sha256", sha256(bytes));
        d.put("schema_version", doc.path("schema_version").asText(null));
        d.put("source_session_id", doc.path("session_id").asText(null));
        return RunRecord.builder(session + "/" + task + "/" + arm)
                .session(session)
                .kind(RunRecord.RunKind.AGENT_ATTEMPT)
                .round(k)
                .agent(arm)
                .arm(Arm.agent(arm))
                .model(doc.path("agent").path("model_name").asText(null))
                .status(RunRecord.RunStatus.SUCCESS)
                .startedAt(now)
                .details(RunDetails.of(Fields.inOrder("agent_attempt", d)))
                .build();
    }

    /** Sums over the steps: agent steps, and the metrics they carry (null when no step carries one). */
    private record Totals(int agentSteps, Long promptTokens, Long completionTokens, Double costUsd) {
        static Totals of(JsonNode steps) {
            int agent = 0;
            Long in = null;
            Long out = null;
            Double cost = null;
            for (JsonNode s : steps) {
                agent += s.path("source").asText().equals("agent") ? 1 : 0;
                JsonNode m = s.path("metrics");
                in = add(in, m.get("prompt_tokens"));
                out = add(out, m.get("completion_tokens"));
                if (m.has("cost_usd") && !m.get("cost_usd").isNull()) {
                    cost = (cost == null ? 0 : cost) + lax(m.get("cost_usd"));
                }
            }
            return new Totals(agent, in, out, cost);
        }

        private static Long add(Long sum, JsonNode v) {
            if (v == null || v.isNull()) {
                return sum;
            }
            return (sum == null ? 0L : sum) + (long) lax(v);
        }
    }

    /** An integer field as read (lax: {@code 5}, {@code 5.0}, {@code "5"}, a boolean), else {@code fallback}. */
    private static Long number(JsonNode v, Long fallback) {
        if (v == null || v.isNull()) {
            return fallback;
        }
        return Long.valueOf((long) lax(v));
    }

    /** A number as pydantic's lax mode reads it: a JSON number, a numeric string, a boolean (1 or 0). */
    private static double lax(JsonNode v) {
        return v.isBoolean() ? (v.asBoolean() ? 1 : 0) : Double.parseDouble(v.asText().strip().replace("_", ""));
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
