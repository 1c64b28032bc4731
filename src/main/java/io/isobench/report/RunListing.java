package io.isobench.report;

import io.isobench.store.Pipeline;
import io.isobench.legacy.TableFormat;
import io.isobench.parse.MetricDictionary;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;

import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code isobench runs}: one line per stored run, for people who want to know what happened to each run without SQL.
 * The columns are a contract ({@link #COLUMNS}, golden-tested): {@code source} is the file path relative to the
 * imported root for legacy runs, {@code session/job} for native ones, {@code FILE#row N} for rows of an HF table;
 * {@code evidence} is the failure's evidence (or why an arm never ran) on one line; {@code metric, value, unit} are the
 * run's primary metric. Streams the store (ordered by commit, pipeline, arm, round, then time: the attempts of one
 * arm in the order they ran): memory stays flat.
 */
public final class RunListing {

    /** The columns, in order (a contract). */
    public static final List<String> COLUMNS = List.of("run_id", "source", "commit", "agent", "arm", "pipeline", "mode",
            "status", "category", "evidence", "metric", "value", "unit", "superseded", "attempt_at");

    /** Separator of evidence lines when they are put on one line. */
    static final String LINE_BREAK = " ⏎ ";
    private static final int VALUE_COLUMN = COLUMNS.indexOf("value");
    /** Rows read before the table's column widths are fixed (later rows stream with those widths). */
    private static final int TABLE_SIZING_ROWS = 2_000;
    /** The table (for a terminal) shows this much of the evidence; csv and json keep it whole. */
    private static final int TABLE_EVIDENCE_CHARS = 120;

    /** Output formats. */
    public enum Format {
        TABLE, CSV, JSON
    }

    private RunListing() {
    }

    /**
     * Writes the runs {@code runs} gives (e.g. {@code sink -> store.forEachRun(filter, sink)}); returns how many.
     */
    public static long write(Consumer<Consumer<RunRecord>> runs, Format format, PrintWriter out) {
        Sink sink = switch (format) {
            case CSV -> cells(TableFormat.Cells.csv(out, COLUMNS));
            case JSON -> cells(TableFormat.Cells.json(out, COLUMNS, Set.of(VALUE_COLUMN)));
            case TABLE -> new Table(out);
        };
        long[] n = {0};
        runs.accept(r -> {
            sink.row(cells(r));
            n[0]++;
        });
        sink.end();
        out.flush();
        return n[0];
    }

    /** The cells of one run, in {@link #COLUMNS} order; null = empty. */
    static List<String> cells(RunRecord r) {
        RunDetails extra = r.details();
        List<String> c = new ArrayList<>(COLUMNS.size());
        c.add(r.runId());
        c.add(source(r, extra));
        c.add(r.commit());
        c.add(r.agent());
        c.add(r.arm().label());
        c.add(Pipeline.labelOf(r.pipeline()));
        c.add(r.mode() == null ? null : r.mode().label());
        c.add(r.status().name().toLowerCase(Locale.ROOT));
        c.add(r.failure() == null ? null : r.failure().category());
        c.add(oneLine(evidence(r, extra)));
        String metric = r.primaryValue() == null ? null : r.primaryMetric();
        c.add(metric);
        c.add(r.primaryValue() == null || !Double.isFinite(r.primaryValue()) ? null
                : BigDecimal.valueOf(r.primaryValue()).toPlainString());
        MetricDictionary.Definition def = metric == null ? null : MetricDictionary.lookup(metric);
        c.add(def == null ? null : def.unit());
        c.add(Boolean.toString(r.kind() == RunRecord.RunKind.LEGACY_SUPERSEDED));
        c.add(r.startedAt() == null ? null : r.startedAt().toString());
        return c;
    }

    private static String source(RunRecord r, RunDetails extra) {
        if (r.kind() == RunRecord.RunKind.MEASURED) {
            String job = extra.string("job");
            return r.sessionId() == null ? r.runId() : r.sessionId() + "/" + (job == null ? r.runId() : job);
        }
        if (r.kind() == RunRecord.RunKind.AGENT_ATTEMPT && (r.sessionId() != null || extra.string("root_path") == null)) {
            // an attempt of isobench agents run: its session, task and attempt (docs/agents.md); an imported Stage A
            // journal has no session: its file path, as every legacy run
            String task = extra.section("agent_attempt").path("task").asText(null);
            return (r.sessionId() == null ? "agents" : r.sessionId()) + "/" + (task == null ? "?" : task) + "/attempt "
                    + r.round();
        }
        if (r.kind() == RunRecord.RunKind.HF_IMPORT) {
            String file = extra.string("hf_file");
            String row = extra.string("hf_row_number");
            return file == null ? null : row == null ? file : file + "#row " + row;
        }
        String rel = extra.string("root_path");
        return rel != null ? rel : extra.string("path");
    }

    private static String evidence(RunRecord r, RunDetails extra) {
        return switch (r.status()) {
            case FAILED -> r.failure() == null ? null
                    : r.failure().evidence() == null || r.failure().evidence().isBlank() ? r.failure().detail()
                    : r.failure().evidence();
            case NOT_RUN, SKIPPED -> {
                String why = extra.string("not_run_reason");
                if (why == null) {
                    why = extra.string("skip_reason");
                }
                yield why != null ? why : r.notes();
            }
            case SUCCESS -> null;
        };
    }

    /** Line breaks become {@link #LINE_BREAK}, other control characters a space: one line whatever the source. */
    static String oneLine(String s) {
        if (s == null || s.isBlank()) {
            return null;
        }
        String t = s.strip().replace("\r\n", "\n");
        StringBuilder sb = new StringBuilder(t.length());
        for (int i = 0; i < t.length(); i++) {
            char ch = t.charAt(i);
            if (ch == '\n') {
                sb.append(LINE_BREAK);
            } else if (ch < 0x20 || ch == 0x7F || ch >= 0x80 && ch < 0xA0) {
                sb.append(' ');
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }

    private interface Sink {
        void row(List<String> cells);

        void end();
    }

    private static Sink cells(TableFormat.Cells w) {
        return new Sink() {
            @Override
            public void row(List<String> cells) {
                w.row(cells);
            }

            @Override
            public void end() {
                w.end();
            }
        };
    }

    /** Aligned columns for a terminal; the first rows size the columns, later rows stream with those widths. */
    private static final class Table implements Sink {
        private final PrintWriter out;
        private final List<List<String>> pending = new ArrayList<>();
        private int[] widths;

        Table(PrintWriter out) {
            this.out = out;
        }

        @Override
        public void row(List<String> cells) {
            List<String> shown = new ArrayList<>(cells);
            int ev = COLUMNS.indexOf("evidence");
            String e = shown.get(ev);
            if (e != null && e.length() > TABLE_EVIDENCE_CHARS) {
                shown.set(ev, e.substring(0, TABLE_EVIDENCE_CHARS - 1) + "…");
            }
            if (widths != null) {
                print(shown);
                return;
            }
            pending.add(shown);
            if (pending.size() == TABLE_SIZING_ROWS) {
                flushPending();
            }
        }

        private void flushPending() {
            widths = new int[COLUMNS.size()];
            for (int i = 0; i < widths.length; i++) {
                widths[i] = COLUMNS.get(i).length();
            }
            for (List<String> r : pending) {
                for (int i = 0; i < widths.length; i++) {
                    widths[i] = Math.max(widths[i], r.get(i) == null ? 1 : r.get(i).length());
                }
            }
            print(COLUMNS);
            for (List<String> r : pending) {
                print(r);
            }
            pending.clear();
        }

        private void print(List<String> cells) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < cells.size(); i++) {
                String c = cells.get(i) == null ? "-" : cells.get(i);
                sb.append(c);
                if (i < cells.size() - 1) {
                    sb.append(" ".repeat(Math.max(1, widths[i] - c.length() + 2)));
                }
            }
            out.print(sb.toString().stripTrailing() + "\n");
        }

        @Override
        public void end() {
            if (widths == null) {
                flushPending();
            }
        }
    }
}
