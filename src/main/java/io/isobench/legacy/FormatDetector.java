package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Arm;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Detects a legacy file's format from its <em>content</em>: the schema comes from the keys of the JSON, never from
 * the folder it sits in (legacy-import.md "Formats", docs/legacy-import-usage.md "How a file's format is found"). The
 * path only adds what the contract keys on it: the arm of a one-arm file ({@code <c8>_<arm>_result.json}), the agent of
 * a tree ({@code omniperf_results_3way_<agent>}), the commit id of a file or folder, and the 3-way pipeline of a schema
 * that several pipelines share (per-version files in {@code separate_*} folders; the runner schema in a tree's
 * {@code results/modal/} folder, where the old harness wrote it for tasks it could not run).
 */
final class FormatDetector {

    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{7,40}");
    private static final Pattern ARM_FILE =
            Pattern.compile("^([0-9a-fA-F]{7,40})_(baseline|human|agent)_result\\.json$", Pattern.CASE_INSENSITIVE);
    private static final Pattern HEX_FILE = Pattern.compile("^([0-9a-fA-F]{7,40})(?:_[^/]*)?\\.json$");
    private static final Pattern TREE = Pattern.compile("(?:^|/)omniperf_results_3way_([^/]+)/");

    /** What kind of file a name says it is, before any content is read. */
    enum FileKind {
        /** {@code *.json}: its keys decide. */
        JSON,
        /** {@code stdout.txt} / {@code stderr.txt}: the console of the result beside it. */
        SIDECAR,
        /** {@code *.parquet}, {@code *.jsonl}, {@code *.ndjson}, {@code *.csv}: maybe a published table. */
        TABLE,
        /** Anything else (README, notes, scripts). */
        OTHER
    }

    /** The schemas of the old system, each recognised by its keys. */
    enum Schema {
        /** {@code result.{status, *_metrics, *_raw, *_improvement, …}}: the modal 3-way runner. */
        MODAL,
        /** The modal schema without the {@code result} wrapper (the SGLang engine runs). */
        MODAL_FLAT,
        /** {@code {total_commits, completed, results:[<modal result>…]}}: a progress log. */
        PROGRESS,
        /** One arm of one commit: {@code status} and {@code raw_output}/{@code metrics}/flat metric keys. */
        PER_VERSION,
        /** {@code {commit, results:{baseline, human, agent}}}. */
        NESTED_3WAY,
        /** {@code {commit_short, benchmark_type, baseline, human, agent, analysis}}: a rerun. */
        RERUN,
        /** {@code result.{baseline_ms, patched_ms, speedup, baseline_output, …}}: a micro-benchmark (test script). */
        MICRO,
        /** {@code result.{baseline_metrics, patched_metrics, error_message}}: the two-arm native runner. */
        RUNNER,
        /**
         * Derived data: {@code {summary|performance, results:[…]}} (an aggregate report), a document that names the
         * files it was built from ({@code _sources}: a run summary), or counters over many runs ({@code total_*},
         * {@code aggregate}, {@code generated_at}…) with no result schema.
         */
        REPORT,
        /**
         * {@code {task_id, commits:{pre, human}, run_metadata|agent_branch, status}}: a Stage A agent-run journal (one
         * agent attempt at a task; no benchmark result).
         */
        JOURNAL
    }

    /**
     * What the path says.
     *
     * @param commit   commit id from the file name or its folder, or null
     * @param arm      arm from the file name (baseline|human|agent), or null
     * @param agent    agent named by the tree folder (normalized), or null
     * @param engine   vllm or sglang (an {@code sglang} folder or the SGLang tree)
     * @param modal    the file sits in a {@code results/modal/} folder
     * @param separate the file sits in a {@code separate_agent/} or {@code separate_baseline/} folder
     * @param kind     what the file name says
     */
    record PathInfo(String commit, String arm, String agent, String engine, boolean modal, boolean separate,
                    FileKind kind) {
    }

    /**
     * The format of a file and what the reader needs to know.
     *
     * @param format  R1…R13, export, other
     * @param schema  the schema its keys show, or null (sidecars, tables)
     * @param commit  commit id from the path, or null
     * @param arm     arm of a one-arm file, or null
     * @param agent   agent of the tree, or null
     * @param engine  vllm or sglang
     * @param sidecar a stdout.txt/stderr.txt
     */
    record Detection(LegacyFormat format, Schema schema, String commit, String arm, String agent, String engine,
                     boolean sidecar) {

        Detection withFormat(LegacyFormat f) {
            return new Detection(f, schema, commit, arm, agent, engine, sidecar);
        }
    }

    private FormatDetector() {
    }

    static PathInfo path(String path) {
        String agent = null;
        String engine = "vllm";
        Matcher t = TREE.matcher(path);
        if (t.find()) {
            String a = Arm.normalizeAgent(t.group(1));
            if (a.equals("sglang")) {
                engine = "sglang";
            } else {
                agent = a;
            }
        }
        String[] segs = path.split("/");
        String name = segs[segs.length - 1];
        String folder = segs.length > 1 ? segs[segs.length - 2] : "";
        boolean modal = false;
        boolean separate = false;
        for (int i = 0; i < segs.length - 1; i++) {
            String s = segs[i].toLowerCase(Locale.ROOT);
            if (s.equals("sglang")) {
                engine = "sglang";
            }
            if (s.equals("modal") && i > 0 && segs[i - 1].equals("results")) {
                modal = true;
            }
            if (s.equals("separate_agent") || s.equals("separate_baseline")) {
                separate = true;
            }
        }
        String lower = name.toLowerCase(Locale.ROOT);
        FileKind kind;
        if (lower.equals("stdout.txt") || lower.equals("stderr.txt")) {
            kind = FileKind.SIDECAR;
        } else if (lower.endsWith(".json")) {
            kind = FileKind.JSON;
        } else if (lower.endsWith(".parquet") || lower.endsWith(".jsonl") || lower.endsWith(".ndjson")
                || lower.endsWith(".csv")) {
            kind = FileKind.TABLE;
        } else {
            kind = FileKind.OTHER;
        }
        String commit = null;
        String arm = null;
        Matcher m = ARM_FILE.matcher(name);
        if (m.matches()) {
            commit = m.group(1);
            arm = m.group(2).toLowerCase(Locale.ROOT);
        } else if ((m = HEX_FILE.matcher(name)).matches()) {
            commit = m.group(1);
        } else if (HEX.matcher(folder).matches()) {
            commit = folder;
        }
        return new PathInfo(commit == null ? null : commit.toLowerCase(Locale.ROOT), arm, agent, engine, modal,
                separate, kind);
    }

    /** The schema of a parsed JSON document, or null when its keys match none. */
    static Schema schema(JsonNode root) {
        if (root == null || !root.isObject()) {
            return null;
        }
        if (root.has("_sources")) {
            return Schema.REPORT; // it names the files it summarises: those files are the record
        }
        JsonNode commits = root.get("commits");
        if (commits != null && commits.isObject() && hasAny(commits, "human", "pre")
                && hasAny(root, "run_metadata", "agent_branch", "task_id")) {
            return Schema.JOURNAL;
        }
        JsonNode result = root.get("result");
        if (result != null && result.isObject()) {
            if (hasAny(result, "baseline_ms", "patched_ms", "speedup", "baseline_output", "patched_output")) {
                return Schema.MICRO;
            }
            if (modalKeys(result)) {
                return Schema.MODAL;
            }
            if (hasAny(result, "baseline_metrics", "patched_metrics")
                    || result.has("status") && hasAny(result, "error_message", "commit_hash")) {
                return Schema.RUNNER;
            }
            return null;
        }
        JsonNode results = root.get("results");
        if (results != null && results.isArray()) {
            if (hasAny(root, "summary", "performance", "execution", "total_instances")) {
                return Schema.REPORT;
            }
            if (hasAny(root, "total_commits", "completed") || allModal(results)) {
                return Schema.PROGRESS;
            }
            // any other list of results under a document is an aggregate of result files: derived data
            return results.isEmpty() || results.get(0).isObject() ? Schema.REPORT : null;
        }
        if (results != null && results.isObject() && hasAny(results, "baseline", "human", "agent")) {
            return Schema.NESTED_3WAY;
        }
        if (modalKeys(root)) {
            return Schema.MODAL_FLAT;
        }
        if ((objectOrNull(root, "baseline") || objectOrNull(root, "human") || objectOrNull(root, "agent"))
                && hasAny(root, "commit_short", "commit_full", "commit", "benchmark_type", "analysis")) {
            return Schema.RERUN;
        }
        if (hasAny(root, "raw_output", "metrics") || root.has("status")
                && hasAny(root, "human_commit", "human_commit_full", "commit_hash", "commit_short", "commit",
                "commit_full")) {
            return Schema.PER_VERSION;
        }
        return aggregateKeys(root) ? Schema.REPORT : null;
    }

    /** Keys of counters over many runs: {@code total_*}, {@code aggregate}, {@code summary}, {@code generated_at}. */
    private static boolean aggregateKeys(JsonNode root) {
        Iterator<String> it = root.fieldNames();
        while (it.hasNext()) {
            String k = it.next().toLowerCase(Locale.ROOT);
            if (k.startsWith("total_") || k.equals("aggregate") || k.equals("aggregates") || k.equals("summary")
                    || k.equals("statistics") || k.equals("generated_at")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why a derived document is skipped: a summary built from other files (it names them in {@code _sources}), or an
     * aggregate report.
     */
    static String derivedReason(JsonNode root) {
        JsonNode sources = root == null ? null : root.get("_sources");
        if (sources != null) {
            return "derived data: a summary of other files" + (sources.isObject() && sources.size() > 0
                    ? " (" + keyList(sources) + ")" : "");
        }
        return "aggregate report (derived data)";
    }

    /**
     * Why a JSON document that is no result is skipped rather than refused, or null when it is not derived: a list of
     * records (a table exported or derived from many results; published tables are read by {@code isobench import
     * hf}).
     */
    static String tableReason(JsonNode root) {
        if (root != null && root.isArray() && root.size() > 0 && root.get(0).isObject()) {
            return "a JSON list of " + root.size() + " records, not one result (a derived or exported table;"
                    + " published tables: `isobench import hf`)";
        }
        return null;
    }

    /** Format, pipeline context and identity of a JSON file from its content and path. */
    static Detection detect(PathInfo p, Schema schema) {
        LegacyFormat f = switch (schema) {
            case MODAL -> LegacyFormat.R1;
            case PROGRESS -> LegacyFormat.R2;
            case PER_VERSION -> p.arm() == null ? LegacyFormat.R6
                    : !p.separate() ? LegacyFormat.R3 : p.arm().equals("baseline") ? LegacyFormat.R5 : LegacyFormat.R4;
            case NESTED_3WAY -> LegacyFormat.R7;
            case RERUN -> LegacyFormat.R8;
            case MODAL_FLAT -> p.engine().equals("sglang") ? LegacyFormat.R9 : LegacyFormat.R1;
            case MICRO -> LegacyFormat.R11;
            // the old modal harness wrote the runner's record for tasks it could not run (legacy-import.md R1,
            // "older sub-schema"): in a 3-way tree's modal folder it is a modal source
            case RUNNER -> p.modal() ? LegacyFormat.R1 : LegacyFormat.R12;
            case REPORT -> LegacyFormat.R13;
            case JOURNAL -> LegacyFormat.JOURNAL;
        };
        return new Detection(f, schema, p.commit(), p.arm(), f == LegacyFormat.R9 ? null : p.agent(),
                f == LegacyFormat.R9 ? "sglang" : p.engine(), false);
    }

    /** A file whose content decides nothing (sidecar, table, other) or could not be read. */
    static Detection byName(PathInfo p, LegacyFormat format) {
        return new Detection(format, null, p.commit(), p.arm(), p.agent(), p.engine(), p.kind() == FileKind.SIDECAR);
    }

    /**
     * True when a table file holds a published export (parquet, JSON lines whose first record has a {@code commit_hash}
     * or {@code commit_short}, or a CSV whose header names the export's columns); a CSV or JSON lines of anything else
     * (expected values, notes, an agent's predictions) is not a result file.
     *
     * @param head the first bytes of the file
     */
    static boolean publishedTable(String name, byte[] head) {
        String lower = name.toLowerCase(Locale.ROOT);
        String text = new String(head, StandardCharsets.UTF_8);
        if (lower.endsWith(".parquet")) {
            return true;
        }
        int nl = text.indexOf('\n');
        String header = (nl < 0 ? text : text.substring(0, nl)).toLowerCase(Locale.ROOT);
        if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) {
            // JSON lines are the export when their first record has its commit column (an agent's prediction.jsonl
            // of {instance_id, model_patch} is not)
            return header.contains("\"commit_hash\"") || header.contains("\"commit_short\"");
        }
        return (header.contains("commit_hash") || header.contains("commit_short"))
                && (header.contains("agent_name") || header.contains("human_throughput")
                || header.contains("baseline_ttft_mean") || header.contains("agent_tpot_mean"));
    }

    /** The keys a file has, for the reason of a refusal ("no known result schema; keys: …"). */
    static String keys(JsonNode root) {
        if (root == null) {
            return "none";
        }
        if (root.isArray()) {
            JsonNode first = root.size() == 0 ? null : root.get(0);
            return "a JSON array of " + root.size() + (first != null && first.isObject()
                    ? " (keys of its first element: " + keyList(first) + ")" : "");
        }
        if (!root.isObject()) {
            return "a JSON " + root.getNodeType().name().toLowerCase(Locale.ROOT);
        }
        String k = keyList(root);
        JsonNode result = root.get("result");
        if (result != null && result.isObject()) {
            k += "; result: " + keyList(result);
        }
        return k;
    }

    private static String keyList(JsonNode node) {
        List<String> keys = new ArrayList<>();
        Iterator<String> it = node.fieldNames();
        while (it.hasNext() && keys.size() < 24) {
            keys.add(it.next());
        }
        if (it.hasNext()) {
            keys.add("…");
        }
        return keys.isEmpty() ? "(none)" : String.join(", ", keys);
    }

    private static boolean modalKeys(JsonNode o) {
        return hasAny(o, "human_metrics", "agent_metrics", "baseline_raw", "human_raw", "agent_raw",
                "human_improvement", "agent_improvement", "agent_vs_human", "has_agent_patch", "gpu_config",
                "full_commit");
    }

    private static boolean allModal(JsonNode array) {
        if (array.isEmpty()) {
            return false;
        }
        for (JsonNode e : array) {
            if (!e.isObject() || !modalKeys(e)) {
                return false;
            }
        }
        return true;
    }

    private static boolean objectOrNull(JsonNode o, String key) {
        return o.has(key) && (o.get(key).isObject() || o.get(key).isNull());
    }

    private static boolean hasAny(JsonNode o, String... keys) {
        for (String k : keys) {
            if (o.has(k)) {
                return true;
            }
        }
        return false;
    }
}
