package io.isobench.export;

import io.isobench.guard.Secrets;
import io.isobench.store.Pipeline;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.Mode;
import io.isobench.parse.FailureCategory;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code isobench import hf}: stores each row of a published HF table as three runs of kind
 * {@link RunRecord.RunKind#HF_IMPORT} (baseline, human, agent:NAME) with canonical metrics, the raw texts as
 * artifacts, and the whole row kept verbatim (a JSON artifact named in each run's details under {@code hf_row}),
 * so that {@link HfExporter} writes the 76 columns back unchanged. All of a file goes in one transaction.
 *
 * <p>A row is identified by commit (8 hex), normalised agent name and agent model: importing a file again changes
 * nothing, and a later table holding the same row (e.g. {@code updated_rows_only.csv}) replaces it.
 */
public final class HfImporter {

    /** Format id of HF tables in the {@code source} table. */
    public static final String FORMAT_ID = "hf";
    /** Pipeline id of runs imported from an HF table. */
    public static final String PIPELINE = Pipeline.Id.HF_IMPORT.label();

    /**
     * What an import did.
     *
     * @param alreadyImported true when this file (same path and content) was imported before: nothing changed
     * @param rows            rows in the file
     * @param runs            runs stored (three per row)
     * @param redactedRows    rows in which a secret was redacted before storing
     * @param warnings        what was read but not understood, one line each (list cells kept as text, per column;
     *                        agents without an alias for their model, per agent and model); never a reason to refuse
     */
    public record Summary(Path file, String format, boolean alreadyImported, int rows, int runs, int redactedRows,
                          List<String> ignoredColumns, List<String> warnings) {

        /** One line for stderr/stdout. */
        public String describe() {
            if (alreadyImported) {
                return file + ": already imported (same path and content), nothing changed";
            }
            String s = String.format(Locale.ROOT, "%s: imported %d rows (%s, schema v5) as %d runs", file, rows, format, runs);
            if (redactedRows > 0) {
                s += String.format(Locale.ROOT, "; secrets redacted in %d rows", redactedRows);
            }
            if (!ignoredColumns.isEmpty()) {
                s += "; ignored " + ignoredColumns.size() + " isobench_* columns (recomputed on export)";
            }
            return s;
        }
    }

    private static final Pattern GPU_COUNT = Pattern.compile(":(\\d+)\\s*$");

    private HfImporter() {
    }

    public static Summary importFile(Store store, Path file) {
        HfTableReader.HfTable table = HfTableReader.read(file);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": unreadable (" + e.getMessage() + ")", e);
        }
        String sha = sha256(bytes);
        String path = file.toAbsolutePath().normalize().toString();
        if (store.findSource(path, sha).isPresent()) {
            return new Summary(file, table.format(), true, table.rows().size(), 0, 0, table.ignoredColumns(),
                    table.warnings());
        }
        // Everything is built first and written in one transaction of a few multi-row statements (as import legacy
        // does): a statement per run, artifact and task cost DuckDB milliseconds each.
        String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
        Batch batch = new Batch(store.tasks(), file.getFileName().toString());
        batch.artifacts.add(new Store.ArtifactInput("hf_table", bytes));
        Map<String, Integer> seen = new HashMap<>();
        int redacted = 0;
        int rowNo = 0;
        for (HfRow original : table.rows()) {
            rowNo++;
            HfRow row = redact(original);
            if (row != original) {
                redacted++;
            }
            String key = rowKey(file, rowNo, row);
            int n = seen.merge(key, 1, Integer::sum);
            if (n > 1) {
                key = key + "#" + n; // duplicate identity in one file: keep both rows
            }
            batch.row(row, rowNo, key, sourceId, path, original != row);
        }
        String content = sha;
        store.inTransaction(tx -> {
            tx.putArtifacts(batch.artifacts);
            tx.putRuns(batch.runs);
            tx.putTasks(List.copyOf(batch.tasks.values()));
            tx.putSources(List.of(SourceRecord.builder(sourceId).format(FORMAT_ID).file(path, sha).pipeline(PIPELINE)
                    .outcome("imported", null).contentArtifact(content).build()));
            return null;
        });
        List<String> warnings = new ArrayList<>(table.warnings());
        batch.unaliased.forEach((agentModel, n) -> warnings.add("agent '" + agentModel.get(0) + "' with model '"
                + agentModel.get(1) + "' (" + n + (n == 1 ? " row" : " rows") + "): no alias in the agent table, name kept"
                + " (docs/hf-export.md, agent names)"));
        return new Summary(file, table.format(), false, table.rows().size(), batch.runs.size(), redacted,
                table.ignoredColumns(), List.copyOf(warnings));
    }

    /**
     * Where a table row sits: its number in the file, its identity key (and the id made of it), its stored copy, and
     * the file it came from (source id, path, whether secrets were redacted).
     */
    private record RowOrigin(int rowNo, String key, String keyId, String rowSha, String sourceId, String path,
                             boolean redacted) {
    }

    /** The task and agent a table row shows, shared by its three arms ({@code primary}: the mode's primary metric). */
    private record RowTask(String commit, String commitShort, String agentName, Mode mode, String primary,
                           String model) {
    }

    /** The records of one file, built before its transaction. */
    private static final class Batch {
        final List<Store.ArtifactInput> artifacts = new ArrayList<>();
        final List<RunRecord> runs = new ArrayList<>();
        final Map<String, TaskRecord> tasks = new LinkedHashMap<>();
        private final Set<String> known = new HashSet<>();
        /** Agents the alias table lists whose model it does not: {agent, model} → rows. */
        final Map<List<String>, Integer> unaliased = new LinkedHashMap<>();
        private final String fileName;

        Batch(List<TaskRecord> stored, String fileName) {
            stored.forEach(t -> known.add(t.taskId()));
            this.fileName = fileName;
        }

        /** Queues an artifact; returns the sha256 the store gives it (content-addressed). */
        String artifact(String kind, byte[] bytes) {
            artifacts.add(new Store.ArtifactInput(kind, bytes));
            return sha256(bytes);
        }

        void row(HfRow row, int rowNo, String key, String sourceId, String path, boolean redacted) {
            String rowSha = artifact("hf_row", HfMapping.toJson(row));
            String commitShort = commitShort(row);
            String commit = row.string("commit_hash") == null ? commitShort : row.string("commit_hash").trim();
            AgentAliases.Resolved agent = AgentAliases.resolve(row.string("agent_name"), row.string("agent_model"));
            if (!agent.known()) {
                unaliased.merge(Arrays.asList(agent.name(), String.valueOf(row.string("agent_model"))), 1, Integer::sum);
            }
            String agentName = agent.name();
            Mode mode = HfMapping.modeOf(row);
            String primary = mode == null ? null : MetricDictionary.primaryMetric(mode);
            String keyId = sha256(key.getBytes(StandardCharsets.UTF_8)).substring(0, 24);
            String model = row.string("model");
            if (known.add(commitShort)) {
                tasks.put(commitShort, TaskRecord.builder(commitShort).repo(row.string("repo"))
                        .commit(commit, row.string("parent_commit")).subject(row.string("commit_subject"))
                        .perfCommand(row.string("perf_command")).model(model)
                        .gpus(row.string("gpu_config"), gpuCount(row.string("gpu_config"))).build());
            }
            RowOrigin origin = new RowOrigin(rowNo, key, keyId, rowSha, sourceId, path, redacted);
            RowTask task = new RowTask(commit, commitShort, agentName, mode, primary, model);
            for (String prefix : List.of("baseline", "human", "agent")) {
                runs.add(run(row, prefix, origin, task));
            }
        }

        private RunRecord run(HfRow row, String prefix, RowOrigin origin, RowTask task) {
            String commit = task.commit();
            String commitShort = task.commitShort();
            String agentName = task.agentName();
            Mode mode = task.mode();
            String primary = task.primary();
            String model = task.model();
            Arm arm = switch (prefix) {
                case "baseline" -> Arm.BASELINE;
                case "human" -> Arm.HUMAN;
                default -> agentName == null ? Arm.agent("unknown") : Arm.agent(agentName);
            };
            List<Metric> metrics = new ArrayList<>();
            for (Map.Entry<String, String> e : HfMapping.FIXED_METRICS.entrySet()) {
                addMetric(metrics, e.getValue(), row.number(prefix + "_" + e.getKey()));
            }
            String tputMetric = HfMapping.throughputMetric(mode);
            if (tputMetric != null) {
                addMetric(metrics, tputMetric, row.number(prefix + "_throughput"));
            }
            Double primaryValue = null;
            for (Metric m : metrics) {
                if (m.name().equals(primary)) {
                    primaryValue = m.value();
                }
            }
            String raw = row.string(prefix + "_raw");
            boolean anyValue = false;
            for (String suffix : HfSchema.ARM_METRICS) {
                anyValue |= row.number(prefix + "_" + suffix) != null;
            }
            RunRecord.RunStatus status = anyValue ? RunRecord.RunStatus.SUCCESS
                    : raw != null && !raw.isBlank() ? RunRecord.RunStatus.FAILED : RunRecord.RunStatus.NOT_RUN;
            String logSha = raw == null ? null : artifact("raw", raw.getBytes(StandardCharsets.UTF_8));

            ObjectNode extra = HfMapping.JSON.createObjectNode();
            extra.put("hf_row", origin.rowSha());
            extra.put("hf_key", origin.key());
            extra.put("hf_source", origin.sourceId());
            extra.put("hf_file", fileName);
            extra.put("hf_row_number", origin.rowNo());
            extra.put("agent_name", row.string("agent_name"));
            extra.put("agent_model", row.string("agent_model"));
            extra.put("benchmark_mode", row.string("benchmark_mode"));
            extra.put("data_source", row.string("data_source"));
            extra.put("subject", row.string("commit_subject"));
            extra.put("perf_command", row.string("perf_command"));
            ObjectNode published = published(row);
            if (published != null) {
                extra.set("published", published);
            }
            List<String> notes = new ArrayList<>();
            notes.add("imported from HF table " + origin.path());
            if (origin.redacted()) {
                notes.add("secrets redacted");
            }
            RunRecord.FailureInfo failure = null;
            if (status == RunRecord.RunStatus.FAILED) {
                notes.add("no metric values in the table; raw text kept");
                failure = failure(raw, mode);
            } else if (status == RunRecord.RunStatus.NOT_RUN) {
                String why = "not run: the published row has neither a value nor raw text for the " + prefix + " arm";
                extra.put("not_run_reason", why);
                notes.add(why);
            }
            return RunRecord.builder("hf:" + origin.keyId() + ":" + prefix)
                    .kind(RunRecord.RunKind.HF_IMPORT)
                    .commit(commit, commitShort)
                    .agent(agentName)
                    .arm(arm)
                    .status(status)
                    .failure(failure)
                    .mode(mode)
                    .model(model)
                    .pipeline(Pipeline.HF_IMPORT)
                    .source(origin.sourceId())
                    .primary(primary, primaryValue, primaryValue == null ? null : "json")
                    .logArtifact(logSha)
                    .notes(String.join("; ", notes))
                    .details(RunDetails.of(extra))
                    .metrics(metrics)
                    .build();
        }
    }

    /**
     * The improvements the row publishes (percent, by the table's metric names: tpot_mean, latency_avg, throughput…)
     * and its values per arm, for the report's list of corrections; null when it publishes none.
     */
    private static ObjectNode published(HfRow row) {
        ObjectNode p = HfMapping.JSON.createObjectNode();
        for (String[] c : new String[][] {{"human", "human_improvement_"}, {"agent", "agent_improvement_"},
                {"agent_vs_human", "agent_vs_human_"}}) {
            for (HfSchema.Column col : HfSchema.V5) {
                if (col.name().startsWith(c[1]) && row.number(col.name()) != null) {
                    ObjectNode o = p.has(c[0]) ? (ObjectNode) p.get(c[0]) : p.putObject(c[0]);
                    o.put(col.name().substring(c[1].length()), row.number(col.name()));
                }
            }
        }
        if (p.isEmpty()) {
            return null;
        }
        ObjectNode values = p.putObject("values");
        for (String arm : List.of("baseline", "human", "agent")) {
            for (String m : HfSchema.ARM_METRICS) {
                Double v = row.number(arm + "_" + m);
                if (v != null) {
                    (values.has(arm) ? (ObjectNode) values.get(arm) : values.putObject(arm)).put(m, v);
                }
            }
        }
        p.put("source", "the published HF row");
        return p;
    }

    /** The failure of an arm with raw text but no value: classified from the raw; ran without a metric otherwise. */
    private static RunRecord.FailureInfo failure(String raw, Mode mode) {
        return FailureClassifier.classify(null, null, raw)
                .map(f -> new RunRecord.FailureInfo(f.category().name(), f.detail(), String.join("\n", f.evidence()),
                        f.retryable()))
                .orElseGet(() -> new RunRecord.FailureInfo(FailureCategory.NO_METRICS.name(),
                        "ran without a result: the published row has no value"
                                + (mode == null ? "" : " for mode " + mode.label()),
                        "the raw text parsed, but the published row has no value", FailureCategory.NO_METRICS.retryable()));
    }

    /** Identity of a row: commit (8 hex) | normalised agent | agent model. */
    static String rowKey(Path file, int rowNo, HfRow row) {
        String commit = commitShort(row);
        if (commit == null) {
            throw new IsobenchException.BadInput(file + ": row " + rowNo + " has neither commit_hash nor commit_short");
        }
        String agent = Arm.normalizeAgent(row.string("agent_name"));
        String model = row.string("agent_model");
        return commit + "|" + (agent == null ? "" : agent) + "|" + (model == null ? "" : model);
    }

    static String commitShort(HfRow row) {
        String s = row.string("commit_short");
        if (s == null || s.isBlank()) {
            s = row.string("commit_hash");
        }
        if (s == null || s.isBlank()) {
            return null;
        }
        s = s.trim().toLowerCase(Locale.ROOT);
        return s.length() > 8 ? s.substring(0, 8) : s;
    }

    private static void addMetric(List<Metric> metrics, String name, Double value) {
        if (value != null && Double.isFinite(value)) {
            metrics.add(Metric.of(name, value));
        }
    }

    private static Integer gpuCount(String gpuConfig) {
        if (gpuConfig == null) {
            return null;
        }
        Matcher m = GPU_COUNT.matcher(gpuConfig);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    private static HfRow redact(HfRow row) {
        Object[] values = row.values().toArray();
        boolean changed = false;
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof String s) {
                String r = Secrets.redact(s);
                if (r != s) {
                    values[i] = r;
                    changed = true;
                }
            }
        }
        return changed ? HfRow.of(values) : row;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
