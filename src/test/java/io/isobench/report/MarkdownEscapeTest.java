package io.isobench.report;

import io.isobench.parse.Metric;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunKind;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, point 9: a legacy agent name (a folder name of the imported tree) that is HTML, a link and a table break
 * reaches the Markdown report as text: entities for {@code < > &}, {@code [ ] | `} escaped, never raw HTML.
 */
class MarkdownEscapeTest {

    static final String AGENT = "x<img src=x onerror=alert(1)>[link](javascript:alert(1))|`&";

    private static RunRecord run(String id, String arm, double value) {
        return RunRecord.builder(id).kind(RunKind.LEGACY).commit("299ebb62b269ce167eb1c71b5e39a1dc1f65ce1c",
                        "299ebb62").agent(AGENT).armLabel(arm).status(RunStatus.SUCCESS).modeLabel("serving")
                .pipelineLabel("modal").primary("tpot_ms_mean", value, "raw")
                .detailsJson("{\"root_path\":\"r/x/299ebb62/benchmark_result.json\"}")
                .metrics(List.of(Metric.of("tpot_ms_mean", value))).build();
    }

    @Test
    void untrustedNamesAreTextInTheMarkdownReport(@TempDir Path dir) throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            store.putRuns(List.of(run("l-b", "baseline", 4.76), run("l-h", "human", 4.2),
                    run("l-a", "agent:" + AGENT, 4.3)));
            StringWriter out = new StringWriter();
            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0,
                    Instant.parse("2026-11-25T00:00:00Z")))) {
                MarkdownReport.write(model, out);
            }
            String md = out.toString();
            assertThat(md).contains("&lt;img src=x onerror=alert(1)&gt;\\[link\\](javascript:alert(1))\\|\\`&amp;");
            assertThat(md).doesNotContain("<img").doesNotContain("[link](");
        }
    }
}
