package io.isobench.legacy;

import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
            case CSV -> new Csv(out);
            case MD -> new Md(out);
            case JSON -> new Json(out);
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

    /** One CSV cell, RFC 4180: quoted when it holds a comma, a quote or a line break; null is empty. */
    public static String csvCell(String s) {
        if (s == null) {
            return "";
        }
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }

    private static final class Csv implements Writer {
        private final PrintWriter out;

        Csv(PrintWriter out) {
            this.out = out;
            out.print(String.join(",", ThreeWayRow.COLUMNS));
            out.print('\n');
        }

        @Override
        public void row(ThreeWayRow row) {
            List<String> cells = cells(row);
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < cells.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(csvCell(cells.get(i)));
            }
            out.print(sb);
            out.print('\n');
        }

        @Override
        public void end() {
            out.flush();
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

    private static final class Json implements Writer {
        private final PrintWriter out;
        private boolean first = true;

        Json(PrintWriter out) {
            this.out = out;
            out.print('[');
        }

        @Override
        public void row(ThreeWayRow row) {
            List<String> cells = cells(row);
            StringBuilder sb = new StringBuilder(first ? "\n  {" : ",\n  {");
            first = false;
            for (int i = 0; i < cells.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                sb.append(string(ThreeWayRow.COLUMNS.get(i))).append(": ");
                String c = cells.get(i);
                if (c == null) {
                    sb.append("null");
                } else if (i >= FIRST_NUMBER && i <= LAST_NUMBER) {
                    sb.append(c);
                } else {
                    sb.append(string(c));
                }
            }
            sb.append('}');
            out.print(sb);
        }

        @Override
        public void end() {
            out.print(first ? "]\n" : "\n]\n");
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
}
