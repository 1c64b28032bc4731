package io.isobench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static io.isobench.report.Html.esc;

/**
 * The report's table rows as data, written once and rendered twice: a {@link Table} is a header of {@link Column}s,
 * a {@link Row} a list of {@link Cell}s, a cell a list of typed {@link Span}s (text, inline code, emphasis, a link,
 * an arm label). {@link #markdown} writes a row as a Markdown table row, {@link #html} as an XHTML table row; neither
 * reads the other's output (no Markdown is parsed into HTML anywhere).
 *
 * <p>Rules of the two renderers: text is escaped for its format (Markdown: {@link Md#text}; XHTML: entities, line
 * breaks as spaces); inline code is {@link Md#code} in Markdown and {@code <code>} in XHTML, a blank one is nothing in
 * both; a link is its text in Markdown (the Markdown report is one page) and an anchor in XHTML; an arm label is the
 * arm's name in Markdown and its colour swatch and name in XHTML; a numeric cell is right-aligned in both (a {@code
 * ---:} column rule in Markdown, {@code class="num"} in XHTML).
 */
final class Rows {

    private Rows() {
    }

    /** One piece of a cell's content. */
    sealed interface Span permits Text, Code, Strong, Link, ArmLabel {
        String text();
    }

    /** Plain text (untrusted: escaped by each renderer). */
    record Text(String text) implements Span {
    }

    /** Inline code: a commit, an evidence line, a command. */
    record Code(String text) implements Span {
    }

    /** Emphasis: a verdict word. */
    record Strong(String text) implements Span {
    }

    /** A link to another page of the HTML report (its text alone in Markdown). */
    record Link(String text, String href) implements Span {
    }

    /** An arm's (or an agent's) label, with its colour in HTML; {@code href}: a link around it there, or null. */
    record ArmLabel(String text, String href) implements Span {

        ArmLabel(String text) {
            this(text, null);
        }
    }

    /** A table cell: its spans in order; {@code numeric}: a number, right-aligned. */
    record Cell(List<Span> spans, boolean numeric) {

        Cell {
            spans = List.copyOf(spans);
        }

        static Cell text(String s) {
            return new Cell(List.of(new Text(s == null ? "" : s)), false);
        }

        static Cell code(String s) {
            return new Cell(List.of(new Code(s == null ? "" : s)), false);
        }

        static Cell of(Span... spans) {
            return new Cell(List.of(spans), false);
        }

        /** A number as text (a count, a percentage); right-aligned. */
        static Cell num(Object v) {
            return new Cell(List.of(new Text(String.valueOf(v))), true);
        }

        /** A measured value as stored, or an em dash (not numeric) when there is none. */
        static Cell value(String v) {
            return v == null ? text("—") : num(v);
        }

        /** A signed delta with two decimals ({@link Md#pct}), or an em dash (not numeric) when undefined. */
        static Cell pct(Double v) {
            return v == null ? text("—") : num(Md.pct(v));
        }

        /** The cell's plain text (spans concatenated, unescaped). */
        String plain() {
            StringBuilder b = new StringBuilder();
            spans.forEach(s -> b.append(s.text()));
            return b.toString();
        }
    }

    /** Builds a cell span by span; adjacent text is kept as one span. */
    static final class CellBuilder {
        private final List<Span> spans = new ArrayList<>();
        private final StringBuilder text = new StringBuilder();

        CellBuilder text(String s) {
            text.append(s == null ? "" : s);
            return this;
        }

        CellBuilder code(String s) {
            flush();
            spans.add(new Code(s == null ? "" : s));
            return this;
        }

        CellBuilder cell(Cell c) {
            for (Span s : c.spans()) {
                if (s instanceof Text t) {
                    text(t.text());
                } else {
                    flush();
                    spans.add(s);
                }
            }
            return this;
        }

        /** The cells joined by {@code sep}. */
        CellBuilder join(List<Cell> cells, String sep) {
            for (int i = 0; i < cells.size(); i++) {
                if (i > 0) {
                    text(sep);
                }
                cell(cells.get(i));
            }
            return this;
        }

        boolean isEmpty() {
            return spans.isEmpty() && text.isEmpty();
        }

        private void flush() {
            if (!text.isEmpty()) {
                spans.add(new Text(text.toString()));
                text.setLength(0);
            }
        }

        Cell build() {
            flush();
            return new Cell(spans, false);
        }
    }

    /** A table row. */
    record Row(List<Cell> cells) {

        Row {
            cells = List.copyOf(cells);
        }

        static Row of(Cell... cells) {
            return new Row(List.of(cells));
        }
    }

    /** A column: its header and whether it holds numbers (right-aligned). */
    record Column(String name, boolean numeric) {

        static Column text(String name) {
            return new Column(name, false);
        }

        static Column num(String name) {
            return new Column(name, true);
        }
    }

    /** A table's header. */
    record Table(List<Column> columns) {

        Table {
            columns = List.copyOf(columns);
        }

        static Table of(Column... columns) {
            return new Table(List.of(columns));
        }

        /** The Markdown header and its alignment rule, two lines without the final newline. */
        String markdownHeader() {
            StringBuilder h = new StringBuilder("|");
            StringBuilder r = new StringBuilder("|");
            for (Column c : columns) {
                h.append(' ').append(Md.text(c.name())).append(" |");
                r.append(c.numeric() ? "---:|" : "---|");
            }
            return h + "\n" + r;
        }

        /** The XHTML header row; {@code leading}: an extra first column with an empty header (the row's badge). */
        String htmlHeader(boolean leading) {
            List<String> names = new ArrayList<>();
            if (leading) {
                names.add("");
            }
            columns.forEach(c -> names.add(c.name()));
            return Html.th(names.toArray(String[]::new));
        }
    }

    // ---- Markdown ----------------------------------------------------------------------------------------------

    /** A row as a Markdown table row, without the final newline. */
    static String markdown(Row row) {
        StringBuilder b = new StringBuilder("|");
        for (Cell c : row.cells()) {
            b.append(' ').append(markdown(c)).append(" |");
        }
        return b.toString();
    }

    /** A cell's Markdown (inline: no line break, pipes escaped). */
    static String markdown(Cell c) {
        StringBuilder b = new StringBuilder();
        for (Span s : c.spans()) {
            switch (s) {
                case Text t -> b.append(Md.text(t.text()));
                case Code k -> b.append(Md.code(k.text()));
                case Strong g -> b.append("**").append(Md.text(g.text())).append("**");
                case Link l -> b.append(Md.text(l.text()));
                case ArmLabel a -> b.append(Md.text(a.text()));
            }
        }
        return b.toString();
    }

    // ---- XHTML -------------------------------------------------------------------------------------------------

    /**
     * A row as an XHTML table row.
     *
     * @param rowClass  the row's class, or null
     * @param leading   XHTML of an extra first cell (a badge), or null
     * @param armColour an arm label's colour
     */
    static String html(Row row, String rowClass, String leading, Function<String, String> armColour) {
        return htmlWith(row, rowClass == null ? "" : " class=\"" + rowClass + "\"", leading, armColour);
    }

    /** A row as an XHTML table row whose {@code <tr>} carries {@code attributes} (XHTML, each with a leading space). */
    static String htmlWith(Row row, String attributes, String leading, Function<String, String> armColour) {
        StringBuilder b = new StringBuilder("<tr").append(attributes).append('>');
        if (leading != null) {
            b.append("<td>").append(leading).append("</td>");
        }
        for (Cell c : row.cells()) {
            b.append(c.numeric() ? "<td class=\"num\">" : "<td>").append(html(c, armColour)).append("</td>");
        }
        return b.append("</tr>\n").toString();
    }

    /** A cell's XHTML content. */
    static String html(Cell c, Function<String, String> armColour) {
        StringBuilder b = new StringBuilder();
        for (Span s : c.spans()) {
            switch (s) {
                case Text t -> b.append(esc(oneLine(t.text())));
                case Code k -> {
                    if (!k.text().isBlank()) {
                        b.append("<code>").append(esc(k.text().replace("\r", " ").replace("\n", " ⏎ ")
                                .replace("`", "'"))).append("</code>");
                    }
                }
                case Strong g -> b.append("<strong>").append(esc(oneLine(g.text()))).append("</strong>");
                case Link l -> b.append("<a href=\"").append(esc(l.href())).append("\">").append(esc(oneLine(l.text())))
                        .append("</a>");
                case ArmLabel a -> {
                    if (a.href() != null) {
                        b.append("<a href=\"").append(esc(a.href())).append("\">");
                    }
                    b.append(Html.armLabel(a.text(), armColour.apply(a.text())));
                    if (a.href() != null) {
                        b.append("</a>");
                    }
                }
            }
        }
        return b.toString();
    }

    private static String oneLine(String s) {
        return s.replace('\r', ' ').replace('\n', ' ');
    }
}
