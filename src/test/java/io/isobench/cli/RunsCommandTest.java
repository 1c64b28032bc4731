package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench runs} on a store holding both samples and the published HF rows, and what {@code import hf} feeds:
 * {@code table}, {@code report} (with the corrections to published numbers) and {@code runs}.
 */
class RunsCommandTest {

    @TempDir
    static Path tmp;
    static String db;

    @BeforeAll
    static void importEverything() {
        db = tmp.resolve("s.duckdb").toString();
        for (String sample : List.of("isobench-data", "isobench-data-more", "isobench-data-wide")) {
            MainTest.Result r = MainTest.run("--db", db, "import", "legacy", SharedData.require(sample).toString());
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
        }
        Path csv = SharedData.require("isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/"
                + "hf_export/updated_rows_only.csv");
        MainTest.Result hf = MainTest.run("--db", db, "import", "hf", csv.toString());
        assertThat(hf.code()).as(hf.err()).isZero();
    }

    @Test
    void everyFailedRunHasACategoryAndOneLineOfEvidence() {
        MainTest.Result r = MainTest.run("--db", db, "runs", "--status", "failed", "--format", "csv");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("run_id,source,commit,agent,arm,pipeline,mode,status,category,evidence,"
                + "metric,value,unit,superseded,attempt_at");
        assertThat(lines).hasSizeGreaterThan(20);
        for (String l : lines.subList(1, lines.size())) {
            assertThat(l).contains(",failed,").doesNotContain(",failed,,");
        }
    }

    @Test
    void filtersByCommitAgentStatusAndCategory() throws Exception {
        MainTest.Result r = MainTest.run("--db", db, "runs", "--commit", "0d243f2a54fbd1c56da8a571f0899c30b6aba5d9",
                "--status", "not_run", "--format", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode runs = new ObjectMapper().readTree(r.out());
        assertThat(runs).hasSize(2).allSatisfy(n -> {
            assertThat(n.get("status").asText()).isEqualTo("not_run");
            assertThat(n.get("evidence").asText()).contains("the human arm failed first");
            assertThat(n.get("source").asText()).startsWith("archive/results/omniperf_results_full/vllm/0d243f2a/");
        });
        MainTest.Result cat = MainTest.run("--db", db, "runs", "--agent", "claude-code", "--category", "env_missing",
                "--format", "csv");
        assertThat(cat.out().lines().skip(1)).isNotEmpty().allMatch(l -> l.contains(",ENV_MISSING,"));
    }

    @Test
    void badFiltersAreBadInputWithTheFix() {
        MainTest.Result cat = MainTest.run("--db", db, "runs", "--category", "OOM");
        assertThat(cat.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(cat.err()).contains("--category OOM").contains("GPU_OOM");
        MainTest.Result commit = MainTest.run("--db", db, "runs", "--commit", "xyz");
        assertThat(commit.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(commit.err()).contains("--commit xyz").contains("hex");
        MainTest.Result status = MainTest.run("--db", db, "runs", "--status", "broken");
        assertThat(status.code()).isEqualTo(Main.BAD_INPUT);
    }

    /**
     * Issue 28 point 1: {@code runs} lists final attempts; {@code --all-attempts} adds the superseded ones (marked, with
     * their time); the report counts what {@code runs} lists.
     */
    @Test
    void finalAttemptsByDefaultEveryAttemptOnRequestAndTheReportCountsTheSame() {
        List<String> finals = csvRows(MainTest.run("--db", db, "runs", "--format", "csv"));
        MainTest.Result every = MainTest.run("--db", db, "runs", "--format", "csv", "--all-attempts");
        List<String> all = csvRows(every);
        List<String> superseded = all.stream().filter(l -> l.contains(",true,")).toList();
        assertThat(superseded).isNotEmpty().allMatch(l -> l.contains("/logs/modal/hero_3way_")
                && l.matches(".*,true,20\\d\\d-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$"));
        assertThat(finals).hasSize(all.size() - superseded.size()).noneMatch(l -> l.contains(",true,"));
        assertThat(every.err()).contains("every attempt (" + superseded.size() + " of superseded attempts)");
        // 6dd94dbe has a result file in the 42-file sample: the harness's last write, so every logged attempt is
        // superseded; b690e348 has none: its latest logged attempt is final
        assertThat(csvRows(MainTest.run("--db", db, "runs", "--format", "csv", "--commit", "6dd94dbe",
                "--pipeline", "modal"))).isNotEmpty().noneMatch(l -> l.contains("/logs/modal/"));
        assertThat(csvRows(MainTest.run("--db", db, "runs", "--format", "csv", "--commit", "b690e348")))
                .hasSize(3).allMatch(l -> l.contains("hero_3way_20251231_133756_progress.json"));
        // the report's failure table counts the failed runs `runs` lists
        long failedRuns = csvRows(MainTest.run("--db", db, "runs", "--format", "csv", "--status", "failed")).size();
        MainTest.Result report = MainTest.run("--db", db, "report");
        long counted = report.out().lines().dropWhile(l -> !l.equals("## Failures by category"))
                .filter(l -> l.matches("\\| [A-Z_]+ \\| \\d+ \\|.*"))
                .mapToLong(l -> Long.parseLong(l.split("\\|")[2].strip())).sum();
        assertThat(counted).isEqualTo(failedRuns);
        assertThat(report.out()).contains("Final attempts only, as `isobench runs` lists them: ");
    }

    @Test
    void pipelineArmSourceAndUnnamedAgentFilters() {
        String tree = "archive/results/2026-01/omniperf_results_3way_claude_code/";
        List<String> modal = csvRows(MainTest.run("--db", db, "runs", "--format", "csv", "--pipeline", "modal"));
        assertThat(modal).isNotEmpty().allMatch(l -> l.contains(",modal,"));
        List<String> humans = csvRows(MainTest.run("--db", db, "runs", "--format", "csv", "--arm", "human",
                "--source", tree + "results/separate_agent/"));
        assertThat(humans).isNotEmpty().allMatch(l -> l.contains(",human,")
                && l.contains("," + tree + "results/separate_agent/"));
        assertThat(csvRows(MainTest.run("--db", db, "runs", "--format", "csv", "--arm", "agent")))
                .isNotEmpty().allMatch(l -> l.contains(",agent:"));
        // runs whose source names no agent (an SGLang engine run, a runner's log without its result): the agent cell
        // is empty (an agent arm among them reads agent:unknown)
        List<String> unnamed = csvRows(MainTest.run("--db", db, "runs", "--format", "csv", "--agent", "unknown"));
        assertThat(unnamed).isNotEmpty().allMatch(l -> l.split(",", -1)[3].isEmpty());
        MainTest.Result arm = MainTest.run("--db", db, "runs", "--arm", "patched");
        assertThat(arm.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(arm.err()).contains("--arm patched").contains("baseline, human, agent");
    }

    private static List<String> csvRows(MainTest.Result r) {
        assertThat(r.code()).as(r.err()).isZero();
        // one run per line: evidence is put on one line (RunListing.oneLine)
        return r.out().lines().skip(1).toList();
    }

    @Test
    void hfRowsFeedTableReportAndRuns() {
        MainTest.Result table = MainTest.run("--db", db, "table", "--agent", "claude_code");
        assertThat(table.code()).as(table.err()).isZero();
        // a commit known only from the published table
        assertThat(table.out()).contains("99abb8b6,incomplete,hf_import,latency,latency_ms_avg,ms,lower,"
                + "2174.039090000345,2179.971499000385,,-0.2729");
        MainTest.Result runs = MainTest.run("--db", db, "runs", "--commit", "99abb8b6", "--format", "csv");
        assertThat(runs.out().lines().skip(1)).hasSize(3).allMatch(l -> l.contains(",updated_rows_only.csv#row 11,"));
        MainTest.Result report = MainTest.run("--db", db, "report");
        assertThat(report.code()).as(report.err()).isZero();
        assertThat(report.out()).doesNotContain("No 3-way data").contains("`99abb8b6` | incomplete | hf_import");
        // what the old system published and isobench does not reproduce, with both numbers and the reason
        assertThat(report.out()).contains("## Corrections to published numbers")
                .contains("| `99abb8b6` | claude_code | agent | latency_avg | -0.58 | latency_ms_avg | — | not"
                        + " comparable: isobench has no agent value (incomplete) | the published HF row |");
        // a published figure on the row's own metric is compared first (issue 28): 310aca88's result file published
        // latency_avg (−1.17 %, as isobench) beside an engine-log throughput (+99.80 %), so nothing is corrected;
        // one row per comparison, not one per published metric
        assertThat(report.out()).doesNotContain("| `310aca88` | claude_code |")
                .doesNotContain("| `99abb8b6` | claude_code | agent | throughput |");
    }
}
