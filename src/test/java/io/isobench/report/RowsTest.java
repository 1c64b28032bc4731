package io.isobench.report;

import io.isobench.report.Rows.Cell;
import io.isobench.report.Rows.CellBuilder;
import io.isobench.report.Rows.Column;
import io.isobench.report.Rows.Row;
import io.isobench.report.Rows.Table;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The row model both reports render: each span kind in Markdown and in XHTML, text that looks like Markdown staying
 * text in the HTML (nothing is parsed back), numeric cells right-aligned in both, and the spool returning the rows it
 * was given.
 */
class RowsTest {

    private static final Row ROW = Row.of(
            Cell.code("abc|1`2"),
            Cell.text("a **b** `c` [d](e) & <f> | g\nh"),
            Cell.value("12.5"),
            Cell.value(null),
            Cell.pct(-3.456),
            new CellBuilder().text("agent: GPU_OOM ").code("CUDA out\nof memory").build(),
            Cell.of(new Rows.Link("task-x", "task-1-1.html"), new Rows.Text(" ("), new Rows.ArmLabel("agent:a"),
                    new Rows.Text(")")),
            Cell.of(new Rows.Strong("better"), new Rows.Code(" ")));

    @Test
    void markdownEscapesTextAndWritesCodeAndEmphasis() {
        assertThat(Rows.markdown(ROW)).isEqualTo("| `abc\\|1'2` | a **b** \\`c\\` \\[d\\](e) &amp; &lt;f&gt; \\| g h"
                + " | 12.5 | — | -3.46 | agent: GPU_OOM `CUDA out ⏎ of memory` | task-x (agent:a) | **better** |");
    }

    @Test
    void htmlRendersTheSameCellsAsElementsAndNeverParsesMarkdown() {
        String html = Rows.html(ROW, "single-run", "<span class=\"badge\">b</span>", arm -> "#123456");
        assertThat(html).isEqualTo("<tr class=\"single-run\"><td><span class=\"badge\">b</span></td>"
                + "<td><code>abc|1&#39;2</code></td>"
                // the text stays text: no <strong>, no <code>, one level of entities
                + "<td>a **b** `c` [d](e) &amp; &lt;f&gt; | g h</td>"
                + "<td class=\"num\">12.5</td><td>—</td><td class=\"num\">-3.46</td>"
                + "<td>agent: GPU_OOM <code>CUDA out ⏎ of memory</code></td>"
                + "<td><a href=\"task-1-1.html\">task-x</a> (<span class=\"swatch\" style=\"background:#123456\"></span>"
                + "agent:a)</td><td><strong>better</strong></td></tr>\n");
    }

    @Test
    void aTableHeaderHasItsAlignmentInMarkdownAndAnOptionalBadgeColumnInHtml() {
        Table t = Table.of(Column.text("commit"), Column.num("agent Δ %"), Column.text("a|b"));
        assertThat(t.markdownHeader()).isEqualTo("| commit | agent Δ % | a\\|b |\n|---|---:|---|");
        assertThat(t.htmlHeader(true)).isEqualTo("<tr><th scope=\"col\"></th><th scope=\"col\">commit</th>"
                + "<th scope=\"col\">agent Δ %</th><th scope=\"col\">a|b</th></tr>\n");
    }

    @Test
    void theSpoolReturnsTheTypedRowsInOrder() throws Exception {
        List<Row> back = new ArrayList<>();
        try (Spool s = new Spool()) {
            s.add(ROW);
            s.add(Row.of(Cell.text(""), Cell.text("é ✓ 𝄞")));
            assertThat(s.lines()).isEqualTo(2);
            s.forEach(back::add);
            s.add(Row.of(Cell.num(3)));
            s.forEach(back::add);
        }
        assertThat(back).hasSize(5);
        assertThat(back.get(0)).isEqualTo(ROW);
        assertThat(back.get(1).cells().get(1).plain()).isEqualTo("é ✓ 𝄞");
        assertThat(back.get(4).cells().get(0).numeric()).isTrue();
    }
}
