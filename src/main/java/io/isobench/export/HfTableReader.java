package io.isobench.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.IsobenchException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads a published HF table (schema v5, 76 columns) from parquet, JSONL or CSV into typed {@link HfRow}s.
 * Wrong schemas, unreadable files and Git-LFS pointers are refused with a one-line message naming the file.
 * Columns after the 76 that start with {@code isobench_} (an isobench export read back) are ignored: isobench
 * recomputes them. A list cell written as text that is no list isobench can read is kept as text with a warning per
 * column, never refused; any other value that does not fit its column refuses the file.
 */
public final class HfTableReader {

    /**
     * What was read: rows in file order, the format, the additive columns that were ignored, and one warning line per
     * list column whose cells could not all be read as lists (kept as text, see {@link Unreadable}).
     */
    public record HfTable(Path file, String format, List<HfRow> rows, List<String> ignoredColumns,
                          List<String> warnings) {
    }

    /**
     * The list cells that are not a list isobench can read ({@link ListCell}), per column: a list column is cosmetic
     * (files changed, models), so such a cell never refuses the table: it is kept as text (a one-element list holding
     * the cell as written) and counted; the table gets one warning line per column, in the table's column order.
     */
    private static final class Unreadable {
        private final Map<String, int[]> count = new LinkedHashMap<>();
        private final Map<String, String> first = new HashMap<>();

        void add(String column, int rowNo, String why) {
            count.computeIfAbsent(column, k -> new int[1])[0]++;
            first.putIfAbsent(column, "row " + rowNo + ": " + why);
        }

        List<String> warnings() {
            List<String> out = new ArrayList<>();
            List<Map.Entry<String, int[]>> columns = new ArrayList<>(count.entrySet());
            columns.sort(Comparator.comparingInt(e -> HfSchema.v5Index(e.getKey()))); // table order
            for (Map.Entry<String, int[]> e : columns) {
                int n = e.getValue()[0];
                out.add("column '" + e.getKey() + "': " + n + (n == 1 ? " cell is" : " cells are")
                        + " not a readable list, kept as text (first: " + first.get(e.getKey()) + ")");
            }
            return List.copyOf(out);
        }
    }

    private static final String LFS_MAGIC = "version https://git-lfs.github.com/spec/v1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private HfTableReader() {
    }

    public static HfTable read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IsobenchException.BadInput(file + ": no such file (expected an HF table: .parquet, .jsonl or .csv)");
        }
        byte[] head = head(file, 200);
        String headText = new String(head, StandardCharsets.UTF_8);
        if (headText.startsWith(LFS_MAGIC)) {
            throw new IsobenchException.BadInput(file + ": Git LFS pointer, data not present (fetch it with"
                    + " 'git lfs pull', then import again)");
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".parquet")) {
            return readParquet(file, head);
        }
        if (name.endsWith(".jsonl") || name.endsWith(".json") || name.endsWith(".ndjson")) {
            return readJsonl(file);
        }
        if (name.endsWith(".csv")) {
            return readCsv(file);
        }
        throw new IsobenchException.BadInput(file + ": unknown HF table format (expected .parquet, .jsonl or .csv)");
    }

    private static byte[] head(Path file, int n) {
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(n);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": unreadable (" + e.getMessage() + ")", e);
        }
    }

    /** Maps header names to v5 indexes; refuses missing or unknown columns. Returns index per header position (-1 = ignored). */
    static int[] bindHeader(Path file, List<String> header, List<String> ignored) {
        int[] map = new int[header.size()];
        Set<String> seen = new HashSet<>();
        String firstUnknown = null;
        for (int i = 0; i < header.size(); i++) {
            String h = header.get(i);
            int idx = HfSchema.v5Index(h);
            map[i] = idx;
            if (idx >= 0) {
                if (!seen.add(h)) {
                    throw new IsobenchException.BadInput(file + ": column '" + h + "' appears twice");
                }
            } else if (h.startsWith("isobench_")) {
                ignored.add(h);
            } else if (firstUnknown == null) {
                firstUnknown = h;
            }
        }
        for (HfSchema.Column c : HfSchema.V5) {
            if (!seen.contains(c.name())) {
                String older = (header.size() == 33 || header.size() == 48)
                        ? " (this is an older " + header.size() + "-column export; isobench import hf reads the"
                                + " 76-column schema v5 table, e.g. hf_export/*.csv or the published parquet)"
                        : " (expected the 76 columns of HF schema v5";
                if (older.startsWith(" (expected")) {
                    older += firstUnknown != null ? "; found unknown column '" + firstUnknown + "')" : ")";
                }
                throw new IsobenchException.BadInput(file + ": not an HF schema v5 table: column '" + c.name()
                        + "' missing, " + header.size() + " columns found" + older);
            }
        }
        if (firstUnknown != null) {
            throw new IsobenchException.BadInput(file + ": not an HF schema v5 table: unexpected column '"
                    + firstUnknown + "' (only the 76 v5 columns and isobench_* columns are allowed)");
        }
        return map;
    }

    private static HfRow toRow(Path file, int rowNo, List<?> cells, int[] map, boolean csv, Unreadable unreadable) {
        Object[] values = new Object[HfSchema.V5.size()];
        for (int i = 0; i < map.length && i < cells.size(); i++) {
            int idx = map[i];
            if (idx < 0) {
                continue;
            }
            Object cell = cells.get(i);
            if (csv && cell instanceof String s && s.isEmpty()) {
                cell = null;
            }
            HfSchema.Column col = HfSchema.V5.get(idx);
            try {
                values[idx] = HfValues.convert(cell, col.type());
            } catch (HfValues.BadValue e) {
                if (col.type() == HfSchema.Type.LIST_STRING && cell instanceof String text) {
                    values[idx] = List.of(text);
                    unreadable.add(col.name(), rowNo, e.getMessage());
                    continue;
                }
                throw new IsobenchException.BadInput(file + ": row " + rowNo + ", column '" + col.name() + "' ("
                        + col.type().label() + "): " + e.getMessage());
            }
        }
        return HfRow.of(values);
    }

    // ---------------------------------------------------------------- CSV (RFC 4180, quoted newlines)

    private static HfTable readCsv(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": unreadable CSV (" + e.getMessage() + ")", e);
        }
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        List<List<String>> records;
        try {
            records = Csv.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IsobenchException.BadInput(file + ": malformed CSV: " + e.getMessage());
        }
        if (records.isEmpty()) {
            throw new IsobenchException.BadInput(file + ": empty CSV (expected a header with the 76 HF schema v5 columns)");
        }
        List<String> header = records.get(0);
        List<String> ignored = new ArrayList<>();
        int[] map = bindHeader(file, header, ignored);
        List<HfRow> rows = new ArrayList<>();
        Unreadable unreadable = new Unreadable();
        for (int r = 1; r < records.size(); r++) {
            List<String> rec = records.get(r);
            if (rec.size() == 1 && rec.get(0).isEmpty()) {
                continue;
            }
            if (rec.size() != header.size()) {
                throw new IsobenchException.BadInput(file + ": row " + r + " has " + rec.size()
                        + " fields, the header has " + header.size());
            }
            rows.add(toRow(file, r, rec, map, true, unreadable));
        }
        return new HfTable(file, "csv", List.copyOf(rows), List.copyOf(ignored), unreadable.warnings());
    }

    /** Minimal RFC 4180 reader: comma separator, double-quote quoting ("" escapes), CRLF or LF, newlines in quotes. */
    static final class Csv {
        private Csv() {
        }

        static List<List<String>> parse(String s) {
            List<List<String>> out = new ArrayList<>();
            List<String> rec = new ArrayList<>();
            StringBuilder f = new StringBuilder();
            int i = 0;
            int n = s.length();
            boolean any = false;
            while (i < n) {
                char c = s.charAt(i);
                if (c == '"' && f.isEmpty()) {
                    int start = i;
                    i++;
                    while (true) {
                        if (i >= n) {
                            throw new IllegalArgumentException("unterminated quoted field starting at character " + start);
                        }
                        char d = s.charAt(i);
                        if (d == '"') {
                            if (i + 1 < n && s.charAt(i + 1) == '"') {
                                f.append('"');
                                i += 2;
                                continue;
                            }
                            i++;
                            break;
                        }
                        f.append(d);
                        i++;
                    }
                    if (i < n && s.charAt(i) != ',' && s.charAt(i) != '\n' && s.charAt(i) != '\r') {
                        throw new IllegalArgumentException("text after a closing quote at character " + i);
                    }
                    any = true;
                    continue;
                }
                if (c == ',') {
                    rec.add(f.toString());
                    f.setLength(0);
                    any = true;
                    i++;
                } else if (c == '\r' || c == '\n') {
                    rec.add(f.toString());
                    f.setLength(0);
                    out.add(rec);
                    rec = new ArrayList<>();
                    any = false;
                    i += (c == '\r' && i + 1 < n && s.charAt(i + 1) == '\n') ? 2 : 1;
                } else {
                    f.append(c);
                    any = true;
                    i++;
                }
            }
            if (any || !f.isEmpty() || !rec.isEmpty()) {
                rec.add(f.toString());
                out.add(rec);
            }
            return out;
        }
    }

    // ---------------------------------------------------------------- JSONL

    private static HfTable readJsonl(Path file) {
        List<HfRow> rows = new ArrayList<>();
        List<String> ignored = new ArrayList<>();
        Unreadable unreadable = new Unreadable();
        int[] map = null;
        List<String> header = null;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (IOException e) {
                    throw new IsobenchException.BadInput(file + ": line " + lineNo + " is not valid JSON ("
                            + HfValues.abbreviate(String.valueOf(e.getMessage()).lines().findFirst().orElse("")) + ")");
                }
                if (node == null || !node.isObject()) {
                    throw new IsobenchException.BadInput(file + ": line " + lineNo + " is not a JSON object");
                }
                if (header == null) {
                    header = new ArrayList<>();
                    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                        header.add(it.next());
                    }
                    map = bindHeader(file, header, ignored);
                }
                List<Object> cells = new ArrayList<>(header.size());
                for (String h : header) {
                    cells.add(jsonValue(node.get(h)));
                }
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    String k = it.next().getKey();
                    if (!header.contains(k)) {
                        throw new IsobenchException.BadInput(file + ": line " + lineNo + " has column '" + k
                                + "' that the first line lacks");
                    }
                }
                rows.add(toRow(file, lineNo, cells, map, false, unreadable));
            }
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": unreadable JSONL (" + e.getMessage() + ")", e);
        }
        if (header == null) {
            throw new IsobenchException.BadInput(file + ": empty JSONL (expected one JSON object per line with the 76 HF schema v5 columns)");
        }
        return new HfTable(file, "jsonl", List.copyOf(rows), List.copyOf(ignored), unreadable.warnings());
    }

    private static Object jsonValue(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (n.isArray()) {
            List<Object> l = new ArrayList<>();
            for (JsonNode e : n) {
                l.add(e == null || e.isNull() ? null : e.isValueNode() ? e.asText() : e.toString());
            }
            return l;
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        if (n.isTextual()) {
            return n.textValue();
        }
        return n.toString();
    }

    // ---------------------------------------------------------------- parquet (DuckDB in-memory)

    private static HfTable readParquet(Path file, byte[] head) {
        if (head.length < 4 || head[0] != 'P' || head[1] != 'A' || head[2] != 'R' || head[3] != '1') {
            throw new IsobenchException.BadInput(file + ": not a parquet file (no PAR1 magic at the start)");
        }
        String lit = "'" + file.toAbsolutePath().toString().replace("'", "''") + "'";
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement()) {
            List<String> header = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("DESCRIBE SELECT * FROM read_parquet(" + lit + ")")) {
                while (rs.next()) {
                    header.add(rs.getString(1));
                }
            }
            List<String> ignored = new ArrayList<>();
            int[] map = bindHeader(file, header, ignored);
            List<HfRow> rows = new ArrayList<>();
            Unreadable unreadable = new Unreadable();
            try (ResultSet rs = st.executeQuery("SELECT * FROM read_parquet(" + lit + ")")) {
                int r = 0;
                while (rs.next()) {
                    r++;
                    List<Object> cells = new ArrayList<>(header.size());
                    for (int i = 0; i < header.size(); i++) {
                        cells.add(map[i] < 0 ? null : rs.getObject(i + 1));
                    }
                    rows.add(toRow(file, r, cells, map, false, unreadable));
                }
            }
            return new HfTable(file, "parquet", List.copyOf(rows), List.copyOf(ignored), unreadable.warnings());
        } catch (SQLException e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            throw new IsobenchException.BadInput(file + ": unreadable parquet (" + msg + ")", e);
        }
    }
}
