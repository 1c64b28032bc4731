package io.isobench.analysis;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Better;
import io.isobench.parse.Metric;
import io.isobench.report.HtmlReport;
import io.isobench.report.ReportModel;
import io.isobench.report.ReportScope;
import io.isobench.report.SessionReport;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A generic engine's primary metric is one the dictionary does not know ({@code tok_s}, declared higher is better in
 * tok/s): the analysis judges it by the unit and direction every run stored, and a session without them (an older
 * run, a hand-made row) gets no statistics instead of a crash.
 */
class GenericMetricAnalysisTest {

    @TempDir
    Path dir;

    private int job;

    private RunRecord run(String arm, int round, double tokS, boolean withDefinition) throws Exception {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("task", "topp");
        x.put("job", "topp/" + arm + "/r" + round);
        x.put("job_index", job++);
        if (withDefinition) {
            x.put("primary_definition", Map.of("name", "tok_s", "unit", "tok/s", "better", "higher"));
        }
        return RunRecord.builder("s/" + x.get("job"))
                .session("s")
                .kind(RunRecord.RunKind.MEASURED)
                .commit("d421a95", "d421a95")
                .armLabel(arm)
                .round(round)
                .status(RunRecord.RunStatus.SUCCESS)
                .modeLabel("throughput")
                .pipelineLabel("native")
                .primary("tok_s", tokS, "measured")
                .workload("{\"argv\":[\"./run\"]}")
                .startedAt(Instant.now())
                .durationMs(1000.0)
                .argvJson("[]")
                .detailsJson(new ObjectMapper().writeValueAsString(x))
                .metrics(List.of(new Metric("tok_s", tokS, "tok/s", Better.HIGHER)))
                .build();
    }

    @Test
    void aDeclaredPrimaryIsJudgedByItsStoredDirection() throws Exception {
        try (Store store = Stores.open(dir.resolve("db.duckdb").toString())) {
            double[] wiggle = {0.004, -0.003, 0.002, -0.001, 0.0};
            for (int r = 0; r < 5; r++) {
                store.putRun(run("baseline", r, 40 * (1 + wiggle[r]), true));
                store.putRun(run("baseline-aa", r, 40 * (1 - wiggle[r]), true));
                store.putRun(run("human", r, 48 * (1 + wiggle[4 - r]), true));
            }
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, "s", StatsConfig.defaults()).tasks().get(0);
            assertThat(t.unit()).isEqualTo("tok/s");
            assertThat(t.analysis().metric()).isEqualTo("tok_s");
            assertThat(t.analysis().better()).isEqualTo(Better.HIGHER);
            assertThat(t.analysis().humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
            assertThat(t.analysis().humanVsBaseline().speedup()).isCloseTo(1.2, org.assertj.core.data.Offset.offset(0.01));
            // the reports show the declared unit and direction
            StringWriter md = new StringWriter();
            try (var model = ReportModel.build(store, ReportScope.session("s"))) {
                SessionReport.write(model, md);
            }
            assertThat(md.toString()).contains("Metric `tok_s` (higher is better)");
            store.putSession(SessionRecord.builder("s").time(Instant.now(), Instant.now())
                    .machine("h", "cpu", "none", "{}").suiteJson("{}").statsConfigJson("{}").seed(42L)
                    .status("complete").build());
            try (var model = ReportModel.build(store, ReportScope.defaults())) {
                HtmlReport.write(model, dir.resolve("html"));
            }
            try (var pages = Files.list(dir.resolve("html"))) {
                String task = Files.readString(pages.filter(p -> p.getFileName().toString()
                        .startsWith("task-")).findFirst().orElseThrow());
                assertThat(task).contains("<code>tok_s</code> (tok/s, higher is better)");
            }
        }
    }

    @Test
    void withoutAStoredDirectionThereAreNoStatistics() throws Exception {
        try (Store store = Stores.open(dir.resolve("db2.duckdb").toString())) {
            for (int r = 0; r < 5; r++) {
                store.putRun(run("baseline", r, 40, false));
                store.putRun(run("human", r, 48, false));
            }
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, "s", StatsConfig.defaults()).tasks().get(0);
            assertThat(t.analysis()).isNull();
            assertThat(t.unit()).isNull();
        }
    }
}
