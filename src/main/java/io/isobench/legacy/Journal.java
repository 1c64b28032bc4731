package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Arm;
import io.isobench.parse.FailureCategory;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.isobench.legacy.LegacyJson.obj;
import static io.isobench.legacy.LegacyJson.text;

/**
 * A Stage A agent-run journal ({@code state/runs/**}{@code /journal.json}, docs/legacy-import-usage.md "Agent-run
 * journals"): one attempt of one agent at one task. It holds no benchmark result, so it becomes ONE run of kind
 * {@link RunRecord.RunKind#AGENT_ATTEMPT} (the kind of {@code isobench agents run}'s attempts, docs/agents.md), never a
 * 3-way source: the human commit as the run's commit (8 or 40 hex, as written), the pre commit as its parent, the agent
 * (normalised) as the agent arm, the model, the status mapped to a run status with the source's word kept, the patch
 * size, the agent's wall time and exit code, the run timestamp as the start. Pure: no store, no I/O.
 */
final class Journal {

    /** The details section of an agent attempt (the same name and keys as {@code agent.AttemptRecords}). */
    static final String SECTION = "agent_attempt";
    /** The pipeline label of journal runs. */
    static final String PIPELINE = "stage_a";

    private static final Pattern HEX = Pattern.compile("[0-9a-f]{7,40}");
    private static final Pattern BRANCH_COMMIT = Pattern.compile("/([0-9a-fA-F]{7,40})$");

    private Journal() {
    }

    /**
     * What a journal gives: its run and the task facts (commit, parent, repo) for the task table.
     *
     * @param run  the attempt, kind AGENT_ATTEMPT
     * @param task the task facts
     */
    record Read(RunRecord run, Extractor.TaskInfo task) {
    }

    /**
     * Where the journal sits.
     *
     * @param path     its canonical path
     * @param rootPath its path relative to the imported root
     * @param sourceId the id of its source row
     */
    record Origin(String path, String rootPath, String sourceId) {
    }

    /**
     * The attempt a journal records.
     *
     * @throws Extractor.WrongShape when it names no human commit (neither {@code commits.human} nor the commit at the
     *                              end of {@code agent_branch}): an attempt must have the commit it worked on
     */
    static Read read(JsonNode root, Origin origin) throws Extractor.WrongShape {
        JsonNode commits = obj(root, "commits");
        String human = hex(text(commits, "human"));
        String branch = text(root, "agent_branch");
        if (human == null && branch != null) {
            Matcher m = BRANCH_COMMIT.matcher(branch.strip());
            human = m.find() ? m.group(1).toLowerCase(Locale.ROOT) : null;
        }
        if (human == null) {
            throw new Extractor.WrongShape("agent-run journal that names no human commit (commits.human, agent_branch)");
        }
        String parent = hex(text(commits, "pre"));
        JsonNode meta = obj(root, "run_metadata");
        String agentName = text(meta, "agent");
        JsonNode agentSection = agentSection(root, agentName);
        if (agentName == null && agentSection != null) {
            agentName = agentKey(root, agentSection);
        }
        String agent = agentName == null ? "unknown" : Arm.normalizeAgent(agentName);
        String model = text(meta, "model");
        String sourceStatus = text(root, "status");
        JsonNode metrics = obj(root, "metrics");
        Long patchLines = whole(metrics, "patch_size_loc");
        Long exitCode = whole(agentSection, "returncode");
        BigDecimal wallS = decimal(agentSection, "duration_s");
        Outcome outcome = outcome(sourceStatus, exitCode);

        ObjectNode extra = LenientJson.MAPPER.createObjectNode();
        extra.put("format", LegacyFormat.JOURNAL.id());
        extra.put("path", origin.path());
        extra.put("root_path", origin.rootPath());
        extra.put("invocation_group", origin.sourceId());
        putText(extra, "source_status", sourceStatus);
        ObjectNode a = extra.putObject(SECTION);
        putText(a, "task", text(root, "task_id"));
        a.put("agent", agent);
        a.putNull("attempt");
        putText(a, "model", model);
        a.put("status", outcome.attemptStatus());
        putText(a, "source_status", sourceStatus);
        a.set("wall_s", wallS == null ? a.nullNode() : a.numberNode(wallS));
        a.set("exit_code", exitCode == null ? a.nullNode() : a.numberNode(exitCode));
        a.set("patch_lines", patchLines == null ? a.nullNode() : a.numberNode(patchLines));
        Long files = whole(metrics, "changed_files_count");
        a.set("changed_files", files == null ? a.nullNode() : a.numberNode(files));
        BigDecimal firstEdit = decimal(metrics, "time_to_first_edit_s");
        a.set("time_to_first_edit_s", firstEdit == null ? a.nullNode() : a.numberNode(firstEdit));
        putText(a, "parent_commit", parent);
        putText(a, "agent_branch", branch);
        putText(a, "run_timestamp", text(meta, "run_timestamp"));
        putText(a, "run_path", text(meta, "run_path"));
        putText(a, "cli", text(agentSection, "cli"));
        Long budget = whole(agentSection, "time_budget_minutes");
        a.set("time_budget_minutes", budget == null ? a.nullNode() : a.numberNode(budget));
        JsonNode hints = obj(root, "experiment") == null ? null : obj(root, "experiment").get("hints_enabled");
        if (hints != null && hints.isBoolean()) {
            a.put("hints", hints.asBoolean());
        }
        BigDecimal written = decimal(obj(root, "timestamps"), "written");
        if (written != null) {
            a.put("written_at", Instant.ofEpochMilli(written.movePointRight(3).longValue()).toString());
        }

        RunRecord.Builder b = RunRecord.builder("legacy-" + LegacyImporter.sha256(
                        (origin.path() + "#journal").getBytes(StandardCharsets.UTF_8)).substring(0, 32))
                .kind(RunRecord.RunKind.AGENT_ATTEMPT)
                .source(origin.sourceId())
                .commit(human, human.substring(0, Math.min(8, human.length())))
                .agent(agent)
                .arm(Arm.agent(agent))
                .model(model)
                .pipelineLabel(PIPELINE)
                .status(outcome.status())
                .startedAt(Timestamps.parse(text(meta, "run_timestamp")))
                .durationMs(wallS == null ? null : wallS.doubleValue() * 1000)
                .notes("Stage A agent-run journal: an agent attempt (status '" + sourceStatus + "'), no benchmark"
                        + " result")
                .details(RunDetails.of(extra));
        if (outcome.category() != null) {
            String why = "journal status '" + sourceStatus + "'" + (exitCode == null ? "" : ", agent exit code "
                    + exitCode);
            b.failure(new RunRecord.FailureInfo(outcome.category().name(), why, why,
                    outcome.category().retry() != FailureCategory.Retry.NO));
        }
        String repo = text(meta, "repo");
        String engine = repo == null ? null : repo.toLowerCase(Locale.ROOT).startsWith("sgl") ? "sglang"
                : repo.toLowerCase(Locale.ROOT).startsWith("vllm") ? "vllm" : repo;
        return new Read(b.build(), Extractor.TaskInfo.commits(human, parent, engine));
    }

    /**
     * A journal status as a run status.
     *
     * @param attemptStatus the status word of an attempt ({@code agent.AttemptStatus} names, or UNKNOWN)
     * @param category      the failure category, null for a success or a skip
     */
    record Outcome(RunRecord.RunStatus status, String attemptStatus, FailureCategory category) {
    }

    /**
     * The rule: {@code success}/{@code succeeded}/{@code ok}/{@code completed}/{@code done} is a success; {@code
     * skipped} a skip; a word naming a timeout is {@code AGENT_TIMEOUT}, one naming no patch or no change {@code
     * EMPTY_PATCH}, a budget {@code BUDGET_EXCEEDED}, an error, failure, crash or exception {@code AGENT_CRASH} (so is
     * a missing status with a non-zero exit code); anything else {@code UNKNOWN}, the word kept.
     */
    static Outcome outcome(String sourceStatus, Long exitCode) {
        String s = sourceStatus == null ? "" : sourceStatus.strip().toLowerCase(Locale.ROOT);
        if (s.equals("success") || s.equals("succeeded") || s.equals("ok") || s.equals("completed")
                || s.equals("done")) {
            return new Outcome(RunRecord.RunStatus.SUCCESS, "OK", null);
        }
        if (s.equals("skipped")) {
            return new Outcome(RunRecord.RunStatus.SKIPPED, "SKIPPED", null);
        }
        FailureCategory c;
        if (s.contains("timeout") || s.contains("timed_out") || s.contains("timed out")) {
            c = FailureCategory.AGENT_TIMEOUT;
        } else if (s.contains("no_patch") || s.contains("empty") || s.contains("no_change") || s.contains("no patch")) {
            c = FailureCategory.EMPTY_PATCH;
        } else if (s.contains("budget")) {
            c = FailureCategory.BUDGET_EXCEEDED;
        } else if (s.contains("error") || s.contains("fail") || s.contains("crash") || s.contains("exception")
                || s.isEmpty() && exitCode != null && exitCode != 0) {
            c = FailureCategory.AGENT_CRASH;
        } else {
            c = FailureCategory.UNKNOWN;
        }
        return new Outcome(RunRecord.RunStatus.FAILED, c.name(), c);
    }

    /** The agent's own section: {@code <agent>: {returncode, duration_s, …}}, by the agent's name or by its keys. */
    private static JsonNode agentSection(JsonNode root, String agentName) {
        if (agentName != null && root.get(agentName) != null && root.get(agentName).isObject()) {
            return root.get(agentName);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            JsonNode v = it.next().getValue();
            if (v.isObject() && (v.has("returncode") || v.has("duration_s")) && v.has("cli")) {
                return v;
            }
        }
        return null;
    }

    private static String agentKey(JsonNode root, JsonNode section) {
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue() == section) {
                return e.getKey();
            }
        }
        return null;
    }

    private static String hex(String s) {
        if (s == null) {
            return null;
        }
        String t = s.strip().toLowerCase(Locale.ROOT);
        return HEX.matcher(t).matches() ? t : null;
    }

    private static Long whole(JsonNode node, String key) {
        JsonNode n = node == null ? null : node.get(key);
        return n != null && n.isNumber() ? Long.valueOf(n.asLong()) : null;
    }

    private static BigDecimal decimal(JsonNode node, String key) {
        JsonNode n = node == null ? null : node.get(key);
        return n != null && n.isNumber() ? n.decimalValue() : null;
    }

    private static void putText(ObjectNode o, String key, String value) {
        if (value != null) {
            o.put(key, value);
        }
    }
}
