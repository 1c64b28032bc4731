package io.isobench.task;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.IsobenchException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Task rows from ISO-Bench data: {@code exports/full_results.jsonl} (33 keys) or the published HF table (76 columns)
 * as parquet, JSONL or CSV. One row per commit (the HF table repeats a commit once per agent: the first row wins;
 * an 8-character id and the full hash of one commit are one row).
 */
final class IsoBenchRows {

    /** One commit's task fields; {@code line} is the 1-based line (JSONL) or row number (parquet/CSV). */
    record Row(String commit, String parentCommit, String perfCommand, String model, String modeLabel,
               String gpuConfig, String agentName, int line) {

        /** GPUs from {@code gpu_config} ({@code H100:4} → 4); null when absent or unreadable. */
        Integer gpus() {
            return parseGpuConfig(gpuConfig);
        }
    }

    private static final Pattern GPU_CONFIG = Pattern.compile("(?:[A-Za-z0-9_-]+\\s*[:x×]\\s*)?(\\d+)");

    private static final Pattern GPU_CONFIG_COUNT_FIRST = Pattern.compile("(\\d+)\\s*[x×]\\s*[A-Za-z][A-Za-z0-9_-]*");

    private IsoBenchRows() {
    }

    static Integer parseGpuConfig(String gpuConfig) {
        if (gpuConfig == null || gpuConfig.isBlank()) {
            return null;
        }
        Matcher m = GPU_CONFIG.matcher(gpuConfig.trim());
        if (m.matches()) {
            return Integer.parseInt(m.group(1));
        }
        Matcher pre = GPU_CONFIG_COUNT_FIRST.matcher(gpuConfig.trim());
        return pre.matches() ? Integer.valueOf(pre.group(1)) : null;
    }

    static boolean isLfsPointer(Path file) {
        try {
            byte[] head = new byte[64];
            int n;
            try (var in = Files.newInputStream(file)) {
                n = in.readNBytes(head, 0, head.length);
            }
            return new String(head, 0, n, StandardCharsets.US_ASCII).startsWith("version https://git-lfs.github.com/spec/");
        } catch (IOException e) {
            return false;
        }
    }

    static List<Row> read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw IsobenchException.badInput("%s: no such file (fix: give an ISO-Bench full_results.jsonl or an HF"
                    + " table as parquet, jsonl or csv)", file);
        }
        if (isLfsPointer(file)) {
            throw IsobenchException.badInput("%s: LFS pointer, data not present (fix: git lfs pull, or download the"
                    + " file itself)", file);
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        List<Row> rows;
        if (name.endsWith(".parquet")) {
            rows = readDuckDb(file, "read_parquet(?)");
        } else if (name.endsWith(".csv")) {
            rows = readDuckDb(file, "read_csv(?, header = true, all_varchar = true)");
        } else {
            rows = readJsonLines(file);
        }
        return dedupe(rows);
    }

    /**
     * One row per commit, keyed by the full hash: an 8-character id and the 40-character hash of one commit (both
     * occur in the exports) are one task, known by the longer id; the first row's fields win, blanks filled from later
     * rows (a row with a perf_command replaces one without).
     */
    private static List<Row> dedupe(List<Row> rows) {
        Map<String, List<Integer>> byPrefix = new HashMap<>();
        List<Row> out = new ArrayList<>();
        for (Row r : rows) {
            if (r.commit() == null || r.commit().isBlank()) {
                out.add(r);
                continue;
            }
            String c = r.commit().strip().toLowerCase(Locale.ROOT);
            List<Integer> same = byPrefix.computeIfAbsent(c.substring(0, Math.min(8, c.length())), k -> new ArrayList<>());
            Integer at = null;
            for (int i : same) {
                String kept = out.get(i).commit().strip().toLowerCase(Locale.ROOT);
                if (kept.startsWith(c) || c.startsWith(kept)) {
                    at = i;
                    break;
                }
            }
            if (at == null) {
                same.add(out.size());
                out.add(r);
            } else {
                out.set(at, merge(out.get(at), r));
            }
        }
        return out;
    }

    private static Row merge(Row kept, Row later) {
        Row first = blank(kept.perfCommand()) && !blank(later.perfCommand()) ? later : kept;
        Row second = first == kept ? later : kept;
        String commit = kept.commit().strip().length() >= later.commit().strip().length() ? kept.commit() : later.commit();
        return new Row(commit, pick(first.parentCommit(), second.parentCommit()),
                pick(first.perfCommand(), second.perfCommand()), pick(first.model(), second.model()),
                pick(first.modeLabel(), second.modeLabel()), pick(first.gpuConfig(), second.gpuConfig()),
                pick(first.agentName(), second.agentName()), first.line());
    }

    private static String pick(String a, String b) {
        return blank(a) ? b : a;
    }

    private static List<Row> readJsonLines(Path file) {
        List<Row> rows = new ArrayList<>();
        for (InputLines.Json line : InputLines.json(file)) {
            if (line.error() != null) {
                throw IsobenchException.badInput("%s:%d: not a JSON object (%s) (fix: one JSON object per line)",
                        file, line.number(), line.error().getOriginalMessage());
            }
            JsonNode n = line.node();
            if (!n.isObject()) {
                throw IsobenchException.badInput("%s:%d: not a JSON object (fix: one JSON object per line)", file,
                        line.number());
            }
            if (!n.has("perf_command") && !n.has("commit_hash")) {
                throw IsobenchException.badInput("%s:%d: no perf_command or commit_hash key: not ISO-Bench task data",
                        file, line.number());
            }
            rows.add(new Row(text(n, "commit_hash"), text(n, "parent_commit"), text(n, "perf_command"),
                    text(n, "model"), text(n, "benchmark_mode"), text(n, "gpu_config"), text(n, "agent_name"),
                    line.number()));
        }
        return rows;
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static List<Row> readDuckDb(Path file, String fromClause) {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             PreparedStatement st = c.prepareStatement("SELECT * FROM " + fromClause)) {
            st.setString(1, file.toAbsolutePath().toString());
            List<Row> rows = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                Set<String> cols = new LinkedHashSet<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    cols.add(md.getColumnName(i));
                }
                if (!cols.contains("perf_command") && !cols.contains("commit_hash")) {
                    throw IsobenchException.badInput("%s: no perf_command or commit_hash column: not ISO-Bench task data"
                            + " (columns: %s)", file, String.join(", ", cols));
                }
                int row = 0;
                while (rs.next()) {
                    row++;
                    rows.add(new Row(col(rs, cols, "commit_hash"), col(rs, cols, "parent_commit"),
                            col(rs, cols, "perf_command"), col(rs, cols, "model"), col(rs, cols, "benchmark_mode"),
                            col(rs, cols, "gpu_config"), col(rs, cols, "agent_name"), row));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IsobenchException.BadInput(file + ": cannot read as " + (fromClause.startsWith("read_parquet")
                    ? "parquet" : "CSV") + " (" + firstLine(e.getMessage()) + ")", e);
        }
    }

    private static String col(ResultSet rs, Set<String> cols, String name) throws SQLException {
        if (!cols.contains(name)) {
            return null;
        }
        Object v = rs.getObject(name);
        return v == null ? null : v.toString();
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
