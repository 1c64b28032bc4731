package io.isobench.report;

import io.isobench.SharedData;
import io.isobench.legacy.LegacyImporter;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The report over the real ISO-Bench sample: numbers come from the import, sections say what they should. */
class MarkdownReportTest {

    @TempDir
    static Path dir;

    static String report;

    @BeforeAll
    static void importSampleAndReport() throws IOException {
        Path data = SharedData.isobenchData();
        try (Store store = Stores.open(dir.resolve("r.duckdb").toString())) {
            new LegacyImporter(store, null, new PrintWriter(new StringWriter())).importTree(data);
            StringWriter out = new StringWriter();
            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0,
                    Instant.parse("2026-11-25T00:00:00Z")))) {
                MarkdownReport.write(model, out);
            }
            report = out.toString();
            // kept as a test artifact for people reading the build output
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "sample-report.md"), report);
        }
    }

    private static Optional<String> rowOf(String commit, String sectionTitle) {
        int start = report.indexOf(sectionTitle);
        assertThat(start).as("section %s", sectionTitle).isNotNegative();
        int end = report.indexOf("\n## ", start + 1);
        List<String> lines = Arrays.asList(report.substring(start, end < 0 ? report.length() : end).split("\n"));
        return lines.stream().filter(l -> l.startsWith("| `" + commit + "`")).findFirst();
    }

    @Test
    void comparableRowCarriesParsedValuesAndDeltas() {
        String row = rowOf("299ebb62", "## Agent: claude_code").orElseThrow();
        assertThat(row).contains("| serving |", "tpot_ms_mean", "| 4.76 | 4.20 | 4.30 |", "+11.76", "+9.66", "-2.38")
                .contains("| win | tie |");
    }

    @Test
    void latencyRowUsesMillisecondsNotTheBogusThroughput() {
        String row = rowOf("310aca88", "## Agent: claude_code").orElseThrow();
        assertThat(row).contains("latency_ms_avg", "-1.17", "+0.35", "+1.51");
    }

    @Test
    void notComparableRowsAreApartWithTheirReason() {
        String agent = report.substring(report.indexOf("## Agent: claude_code"), report.indexOf("## Agent: codex"));
        String comparable = agent.substring(agent.indexOf("### Comparable 3-way rows"),
                agent.indexOf("\n### ", agent.indexOf("### Comparable 3-way rows") + 5));
        // 89a84b0b has values only from separate invocations (cross-run), 6dd94dbe lacks the agent value
        assertThat(comparable).doesNotContain("`89a84b0b`").doesNotContain("`6dd94dbe`");
        String cross = rowOf("89a84b0b", "## Agent: claude_code").orElseThrow();
        assertThat(cross).contains("| incomplete |").contains("agent: ");
        String missingAgent = rowOf("6dd94dbe", "## Agent: claude_code").orElseThrow();
        assertThat(missingAgent).contains("agent: NO_METRICS");
    }

    @Test
    void summaryStatesTheBandAndCountsAgents() {
        assertThat(report).contains("## Executive summary").contains("±5.0 %")
                .contains("| claude_code |").contains("| codex |");
    }

    @Test
    void failureBreakdownHasCategoriesRetryabilityAndEvidence() {
        String failures = report.substring(report.indexOf("## Failures by category"), report.indexOf("## To-do list"));
        assertThat(failures).contains("| GPU_OOM |", "| DISK_FULL |", "| HARNESS_ERROR |", "| MODEL_UNSUPPORTED |",
                "| GIT_ERROR |", "| NO_METRICS |", "| TIMEOUT |", "| DEPENDENCY_CONFLICT |");
        String disk = failures.lines().filter(l -> l.startsWith("| DISK_FULL |")).findFirst().orElseThrow();
        assertThat(disk).contains("after_cleanup").contains("no space left on device").contains("`3476ed08`");
    }

    @Test
    void todoListSaysWhatToRerunAndWhy() {
        String todo = report.substring(report.indexOf("## To-do list"), report.indexOf("## Caveats"));
        assertThat(todo).contains("free disk space").contains("DISK_FULL");
        assertThat(todo).contains("`eefbf4a6`").contains("retry");
    }

    @Test
    void caveatsMentionRecoveryAndTruncation() {
        String caveats = report.substring(report.indexOf("## Caveats"));
        assertThat(caveats).contains("recovered").contains("f092153f").contains("bfdb1ba5");
    }
}
