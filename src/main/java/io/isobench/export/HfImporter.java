package io.isobench.export;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.Mode;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
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
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code isobench import hf}: stores each row of a published HF table as three runs of kind
 * {@link RunRecord.RunKind#HF_IMPORT} (baseline, human, agent:NAME) with canonical metrics, the raw texts as
 * artifacts, and the whole row kept verbatim (a JSON artifact named in each run's extraJson under {@code hf_row}),
 * so that {@link HfExporter} writes the 76 columns back unchanged. All of a file goes in one transaction.
 *
 * <p>A row is identified by commit (8 hex), normalised agent name and agent model: importing a file again changes
 * nothing, and a later table holding the same row (e.g. {@code updated_rows_only.csv}) replaces it.
 */
public final class HfImporter {

    /** Format id of HF tables in the {@code source} table. */
    public static final String FORMAT_ID = "hf";
    /** Pipeline id of runs imported from an HF table. */
    public static final String PIPELINE = "hf_import";

    /**
     * What an import did.
     *
     * @param alreadyImported true when this file (same path and content) was imported before: nothing changed
     * @param rows            rows in the file
     * @param runs            runs stored (three per row)
     * @param redactedRows    rows in which a secret was redacted before storing
     */
    public record Summary(Path file, String format, boolean alreadyImported, int rows, int runs, int redactedRows,
                          List<String> ignoredColumns) {

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
            return new Summary(file, table.format(), true, table.rows().size(), 0, 0, table.ignoredColumns());
        }
        int[] counts = store.inTransaction(tx -> {
            String content = tx.putArtifact("hf_table", bytes);
            String sourceId = sha256((path + "\n" + sha).getBytes(StandardCharsets.UTF_8));
            Map<String, Integer> seen = new HashMap<>();
            int runs = 0;
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
                runs += storeRow(tx, row, key, sourceId, path, original != row);
            }
            tx.putSource(new SourceRecord(sourceId, FORMAT_ID, path, sha, PIPELINE, null, null, "imported",
                    null, content));
            return new int[] {runs, redacted};
        });
        return new Summary(file, table.format(), false, table.rows().size(), counts[0], counts[1], table.ignoredColumns());
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

    private static int storeRow(Store tx, HfRow row, String key, String sourceId, String path, boolean redacted) {
        String rowSha = tx.putArtifact("hf_row", HfMapping.toJson(row));
        String commitShort = commitShort(row);
        String commit = row.string("commit_hash") == null ? commitShort : row.string("commit_hash").trim();
        String agentName = Arm.normalizeAgent(row.string("agent_name"));
        Mode mode = HfMapping.modeOf(row);
        String primary = mode == null ? null : MetricDictionary.primaryMetric(mode);
        String keyId = sha256(key.getBytes(StandardCharsets.UTF_8)).substring(0, 24);
        String model = row.string("model");

        if (tx.task(commitShort).isEmpty()) {
            tx.putTask(new TaskRecord(commitShort, row.string("repo"), commit, row.string("parent_commit"),
                    row.string("commit_subject"), row.string("perf_command"), model, row.string("gpu_config"),
                    gpuCount(row.string("gpu_config"))));
        }
        int stored = 0;
        for (String prefix : List.of("baseline", "human", "agent")) {
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
            String logSha = raw == null ? null : tx.putArtifact("raw", raw.getBytes(StandardCharsets.UTF_8));

            ObjectNode extra = HfMapping.JSON.createObjectNode();
            extra.put("hf_row", rowSha);
            extra.put("hf_key", key);
            extra.put("hf_source", sourceId);
            extra.put("agent_name", row.string("agent_name"));
            extra.put("agent_model", row.string("agent_model"));
            extra.put("benchmark_mode", row.string("benchmark_mode"));
            extra.put("data_source", row.string("data_source"));
            extra.put("subject", row.string("commit_subject"));
            extra.put("perf_command", row.string("perf_command"));
            List<String> notes = new ArrayList<>();
            notes.add("imported from HF table " + path);
            if (redacted) {
                notes.add("secrets redacted");
            }
            if (status == RunRecord.RunStatus.FAILED) {
                notes.add("no metric values in the table; raw text kept");
            }
            tx.putRun(new RunRecord(
                    "hf:" + keyId + ":" + prefix,
                    null,
                    RunRecord.RunKind.HF_IMPORT,
                    commit,
                    commitShort,
                    agentName,
                    arm.label(),
                    0,
                    status,
                    null,
                    mode == null ? null : mode.label(),
                    model,
                    PIPELINE,
                    sourceId,
                    primary,
                    primaryValue,
                    primaryValue == null ? null : "json",
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    logSha,
                    String.join("; ", notes),
                    extra.toString(),
                    metrics));
            stored++;
        }
        return stored;
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
                String r = io.isobench.guard.Secrets.redact(s);
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
