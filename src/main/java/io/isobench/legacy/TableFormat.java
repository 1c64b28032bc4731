package io.isobench.legacy;

import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Writers for the 3-way table (a contract): CSV (RFC 4180 quoting, header row), a Markdown table, or a JSON array
 * of objects with the same keys (numbers as numbers, null when undefined). Values are printed as the decimal strings
 * parsed, never in exponent notation; deltas with 4 decimals.
 */
public enum TableFormat {
    CSV, MD, JSON;

    /** A streaming writer: {@link Writer#row} per row, then {@link Writer#end}. */
    public interface Writer {
        void row(ThreeWayRow row);

        void end();
    }

    public Writer open(PrintWriter out) {
        return switch (this) {
            case CSV -> new CellRows(Cells.csv(out, ThreeWayRow.COLUMNS));
            case MD -> new Md(out);
            case JSON -> new CellRows(Cells.json(out, ThreeWayRow.COLUMNS, NUMBERS));
        };
    }

    /** The cells of a row in column order; null = undefined. */
    static List<String> cells(ThreeWayRow r) {
        List<String> c = new ArrayList<>();
        c.add(r.commit());
        c.add(r.status());
        c.add(r.pipeline());
        c.add(r.mode());
        c.add(r.metric());
        c.add(r.unit());
        c.add(r.better());
        c.add(plain(r.baselineValue()));
        c.add(plain(r.humanValue()));
        c.add(plain(r.agentValue()));
        c.add(delta(r.humanDeltaPct()));
        c.add(delta(r.agentDeltaPct()));
        c.add(delta(r.agentVsHumanPct()));
        c.add(r.comparability());
        c.add(r.issues());
        return c;
    }

    private static final int FIRST_NUMBER = 7;
    private static final int LAST_NUMBER = 12;
    /** The columns JSON writes as numbers. */
    private static final Set<Integer> NUMBERS = IntStream.rangeClosed(FIRST_NUMBER,
            LAST_NUMBER).boxed().collect(Collectors.toUnmodifiableSet());

    /** Deltas with 4 decimals (Locale.ROOT); null stays null. */
    static String delta(Double d) {
        if (d == null || d.isNaN() || d.isInfinite()) {
            return null;
        }
        String s = String.format(Locale.ROOT, "%.4f", d);
        return s.equals("-0.0000") ? "0.0000" : s;
    }

    /** A value as written when it is a plain decimal; otherwise its plain (non-exponent) form. */
    static String plain(String v) {
        if (v == null) {
            return null;
        }
        if (v.matches("-?[0-9]+(\\.[0-9]+)?")) {
            return v;
        }
        try {
            return new BigDecimal(v).toPlainString();
        } catch (NumberFormatException e) {
            return v;
        }
    }

    /** A plain decimal number: stays a number in a spreadsheet, sign included. */
    private static final Pattern NUMBER =
            Pattern.compile("[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?");

    /**
     * One CSV cell, the one helper of every CSV isobench writes: RFC 4180 (quoted when it holds a comma, a quote or a
     * line break; null is empty), and safe to open in a spreadsheet (OWASP's CSV injection rule): a cell that starts
     * with {@code =}, {@code +}, {@code -}, {@code @}, a tab or a carriage return gets a leading {@code '}, so it is
     * text, never a formula — except a plain number ({@code -1.5}, {@code +3}, {@code -2e-3}), which stays a number.
     */
    public static String csvCell(String s) {
        if (s == null) {
            return "";
        }
        if (!s.isEmpty() && "=+-@\t\r".indexOf(s.charAt(0)) >= 0 && !NUMBER.matcher(s).matches()) {
            s = "'" + s;
        }
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }

    /**
     * Rows of string cells under fixed columns, streamed: CSV (header row, RFC 4180, LF line ends) or a JSON array of
     * objects with the columns as keys (null cells as {@code null}, the numeric columns unquoted). Shared by the
     * machine-readable outputs that are contracts ({@code table}, {@code runs}).
     */
    public static final class Cells {
        private final PrintWriter out;
        private final List<String> columns;
        private final Set<Integer> numeric;
        private final boolean json;
        private boolean first = true;

        private Cells(PrintWriter out, List<String> columns, Set<Integer> numeric, boolean json) {
            this.out = out;
            this.columns = List.copyOf(columns);
            this.numeric = numeric;
            this.json = json;
            if (json) {
                out.print('[');
            } else {
                out.print(String.join(",", columns));
                out.print('\n');
            }
        }

        public static Cells csv(PrintWriter out, List<String> columns) {
            return new Cells(out, columns, Set.of(), false);
        }

        /** @param numeric indexes of the columns whose (plain decimal) cells are written as JSON numbers */
        public static Cells json(PrintWriter out, List<String> columns, Set<Integer> numeric) {
            return new Cells(out, columns, numeric, true);
        }

        public void row(List<String> cells) {
            StringBuilder sb = new StringBuilder();
            if (json) {
                sb.append(first ? "\n  {" : ",\n  {");
                for (int i = 0; i < cells.size(); i++) {
                    sb.append(i == 0 ? "" : ", ").append(string(columns.get(i))).append(": ");
                    String c = cells.get(i);
                    sb.append(c == null ? "null" : numeric.contains(i) ? c : string(c));
                }
                sb.append('}');
            } else {
                for (int i = 0; i < cells.size(); i++) {
                    sb.append(i == 0 ? "" : ",").append(csvCell(cells.get(i)));
                }
                sb.append('\n');
            }
            first = false;
            out.print(sb);
        }

        public void end() {
            if (json) {
                out.print(first ? "]\n" : "\n]\n");
            }
            out.flush();
        }

        private static String string(String s) {
            try {
                return LenientJson.MAPPER.writeValueAsString(s);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** CSV and JSON: the row's cells through {@link Cells}. */
    private static final class CellRows implements Writer {
        private final Cells cells;

        CellRows(Cells cells) {
            this.cells = cells;
        }

        @Override
        public void row(ThreeWayRow row) {
            cells.row(cells(row));
        }

        @Override
        public void end() {
            cells.end();
        }
    }

    private static final class Md implements Writer {
        private final PrintWriter out;

        Md(PrintWriter out) {
            this.out = out;
            out.println("| " + String.join(" | ", ThreeWayRow.COLUMNS) + " |");
            StringBuilder sep = new StringBuilder("|");
            for (int i = 0; i < ThreeWayRow.COLUMNS.size(); i++) {
                sep.append(i >= FIRST_NUMBER && i <= LAST_NUMBER ? "---:|" : "---|");
            }
            out.println(sep);
        }

        @Override
        public void row(ThreeWayRow row) {
            StringBuilder sb = new StringBuilder("|");
            for (String c : cells(row)) {
                sb.append(' ').append(c == null ? "" : c.replace("\\", "\\\\").replace("|", "\\|")
                        .replace("\n", " ")).append(" |");
            }
            out.println(sb);
        }

        @Override
        public void end() {
            out.flush();
        }
    }
}
