package io.isobench.report;

import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The report of a store holding native sessions only (issue 29, "blind llama2.c session"), read as a newcomer reads
 * it: the executive summary and the to-do list speak of what was measured, an output mismatch shows where the texts
 * diverge, a patch that does not apply is one failure, the correctness check is described as what it compared, and a
 * generic engine's offline command shows its declared metric, not a vLLM mode name.
 */
class NativeOnlyReportTest {

    @TempDir
    static Path dir;

    static String md;
    static Path site;

    @BeforeAll
    static void build() throws Exception {
        try (Store store = Stores.open(dir.resolve("n.duckdb").toString())) {
            NativeOnlyStore.write(store);
            md = ReportText.markdown(store);
            site = dir.resolve("site");
            try (ReportModel model = ReportModel.build(store, new ReportScope(null, 5.0, Instant.EPOCH))) {
                HtmlReport.write(model, site);
            }
        }
    }

    private static String section(String heading) {
        int start = md.indexOf(heading);
        assertThat(start).as(heading).isNotNegative();
        int end = md.indexOf("\n## ", start + heading.length());
        return md.substring(start, end < 0 ? md.length() : end);
    }

    private static String page(String name) throws Exception {
        return Files.readString(site.resolve(name), StandardCharsets.UTF_8);
    }

    @Test
    void theExecutiveSummarySummarisesTheNativeSessionsAndNeverAsksToImportFirst() {
        String summary = section("## Executive summary");
        assertThat(summary).doesNotContain("Import results first").doesNotContain("No 3-way data")
                .contains("| session | task | measured | human vs baseline | agents vs baseline |")
                .contains("| s-native | offline | offline command: command_cpu_s (s), lower is better | better | "
                        + "fast: better; wrong: incorrect; stale: failed |")
                .contains("| s-native | noisy | offline command: command_cpu_s (s), lower is better | inconclusive")
                .contains("no agent arm |");
        // the single-run method and caveat are about imported rows: not in a report that has none
        assertThat(md).doesNotContain("Imported ISO-Bench rows are single runs")
                .doesNotContain("Single runs carry no noise estimate")
                .contains("No imported legacy data in this store: its native sessions are summarised above");
    }

    @Test
    void anEmptyStoreStillSaysImportOrMeasureFirst() throws Exception {
        try (Store store = Stores.open(dir.resolve("empty.duckdb").toString())) {
            assertThat(ReportText.markdown(store)).contains("No 3-way data in this store. Import results first")
                    .contains("Nothing to rerun: every commit has a comparable 3-way row.");
        }
    }

    @Test
    void theToDoListConsidersTheNativeTasks() throws Exception {
        String todo = section("## To-do list");
        assertThat(todo).doesNotContain("every commit has a comparable 3-way row")
                .contains("| task | arm | action | why |")
                // an undecided verdict
                .contains("| noisy | human | rerun with more rounds (run.rounds) or on a quieter machine | human vs "
                        + "baseline: inconclusive")
                // a task without an agent arm
                .contains("| noisy | — | measure an agent's patch on it (`isobench agents run`, or an `agents:` entry "
                        + "of the suite) | no agent arm")
                // agent outcomes (the patch did not apply, the outputs changed) are results, not to-dos
                .doesNotContain("| offline |");
        String html = page("failures.html");
        assertThat(html).contains("<table id=\"native-todo\">")
                .contains("<td><a href=\"task-1-2.html\">noisy</a></td><td>—</td><td>measure an agent&#39;s patch on it"
                        + " (<code>isobench agents run</code>, or an <code>agents:</code> entry of the suite)</td>")
                .doesNotContain("Nothing to rerun");
    }

    @Test
    void anOutputMismatchShowsWhereTheTextsDiverge() throws Exception {
        String failures = section("## Failures by category");
        String row = failures.lines().filter(l -> l.startsWith("| OUTPUT_MISMATCH |")).findFirst().orElseThrow();
        // 30 characters before the first difference, up to 40 from it (both texts end within the window)
        String window = "…" + NativeOnlyStore.TEXT.substring(80, 110);
        assertThat(row).doesNotContain("expected \"")
                .contains("prompt 0, first difference at char 110: baseline \"" + window + "▶"
                        + NativeOnlyStore.TEXT.substring(110) + "\" vs arm \"" + window + "▶"
                        + NativeOnlyStore.WRONG.substring(110) + "\"");
        assertThat(page("task-1-1.html")).contains("<pre class=\"evidence\">prompt 0, first difference at char 110: "
                + "baseline &quot;" + window + "▶");
    }

    @Test
    void aPatchThatDoesNotApplyIsOneFailureOfItsArm() throws Exception {
        String failures = section("## Failures by category");
        assertThat(failures).contains("| PATCH_FAILED | 1 | 0 | 0 | 1 | 0 |")
                .contains("Counting: a failure to prepare an arm (")
                .contains("counts once per arm per session");
        assertThat(md).contains("| offline | agent:stale | `PATCH_FAILED` | 1 (arm not prepared: recorded on 6 jobs) |")
                .contains("PATCH_FAILED ×1 (arm not prepared: recorded on 6 jobs)");
        String html = page("failures.html");
        assertThat(html).contains("<tr data-category=\"PATCH_FAILED\"><td><code>PATCH_FAILED</code></td>"
                + "<td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">0</td><td class=\"num\">1</td>")
                .contains("id=\"counting\"");
        // an output mismatch is per run (one check): unchanged
        assertThat(failures).contains("| OUTPUT_MISMATCH | 1 | 0 | 0 | 1 | 0 |");
        assertThat(page("index.html")).contains("2 failed run(s) in 2 categories");
    }

    @Test
    void theCorrectnessCheckIsDescribedAsWhatItCompared() throws Exception {
        String offline = md.substring(md.indexOf("### Task offline"), md.indexOf("### Task noisy"));
        assertThat(offline).contains("Compared: the outputs of the task's own command (its stdout, one run per arm, "
                + "sampled as the command's own settings say: not greedy decoding).")
                .contains("100 % of the command outputs differ").doesNotContain("greedy outputs");
        assertThat(page("task-1-1.html")).contains("100 % of the command outputs differ").doesNotContain("greedy");
        // a server check decodes greedily (temperature 0): said so
        String noisy = md.substring(md.indexOf("### Task noisy"));
        assertThat(noisy).contains("Compared: greedy outputs (temperature 0) of 8 probe prompt(s), up to 32 tokens "
                + "each, through the arm's server.");
    }

    @Test
    void aGenericOfflineCommandShowsItsMetricNotAModeName() throws Exception {
        assertThat(md).contains("### Task offline (offline command: command_cpu_s (s), commit d421a95b")
                .contains("| offline | offline command | `command_cpu_s` |")
                .doesNotContain("| throughput |").doesNotContain("(throughput, ");
        assertThat(page("task-1-1.html")).contains("<dt>Mode</dt><dd>offline command</dd>")
                .doesNotContain(">throughput<");
        assertThat(page("tasks.html")).contains("<td>offline command</td>").doesNotContain(">throughput<");
        // no GPU count anywhere for a machine without one: its GPU is named as none
        assertThat(page("index.html")).contains("GPU: none").doesNotContain("gpus=");
    }
}
