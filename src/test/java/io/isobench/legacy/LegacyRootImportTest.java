package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Golden;
import io.isobench.SharedData;
import io.isobench.cli.Main;
import io.isobench.store.RunDetailsCodec;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 point 5 and the small import items of point 8: the repository root's kinds beyond {@code archive/results/}
 * ({@code ../shared/isobench-data-wide}: a Stage A journal, a micro result with {@code metadata}) and, on trees built
 * here, the summary per reason, {@code --list-skipped}, a re-import's stored reasons, empty and NaN files, derived
 * files skipped, and full commit ids resolved across files.
 */
class LegacyRootImportTest {

    private static final String JOURNAL = "ISO-Bench/state/runs/sglan/trae/us-anthropic-claude-sonnet-4-5-20250929-v1-0/"
            + "2025-12-24_09-35-05/sglang_smoke_10189d08/journal.json";
    private static final String MICRO = "ISO-Bench/archive/analysis/eval_results_v2/sglang/codex/gpt-5/389be848/"
            + "sglang_core-0001/test_results.json";

    private static List<RunRecord> runs(Store store) {
        List<RunRecord> runs = new ArrayList<>();
        store.forEachRun(RunFilter.all(), runs::add);
        return runs;
    }

    private static JsonNode details(RunRecord r) throws Exception {
        return LenientJson.MAPPER.readTree(RunDetailsCodec.encode(r.details()));
    }

    private static List<RunRecord> from(List<RunRecord> runs, String path) throws Exception {
        List<RunRecord> out = new ArrayList<>();
        for (RunRecord r : runs) {
            if (details(r).path("path").asText("").endsWith(path)) {
                out.add(r);
            }
        }
        return out;
    }

    private static ImportSummary.FileOutcome file(ImportSummary s, String suffix) {
        return s.files().stream().filter(f -> f.path().endsWith(suffix)).findFirst()
                .orElseThrow(() -> new AssertionError("no file ending " + suffix));
    }

    @Test
    void aJournalIsOneAgentAttemptWithItsCommits(@TempDir Path dir) throws Exception {
        Path wide = SharedData.require("isobench-data-wide");
        try (Store store = TestStores.open(dir)) {
            ImportSummary s = new LegacyImporter(store, null, null).importTree(wide);
            ImportSummary.FileOutcome f = file(s, "journal.json");
            assertThat(f.formatId()).isEqualTo("journal");
            assertThat(f.outcome()).isEqualTo(ImportSummary.Outcome.IMPORTED);
            assertThat(f.runs()).isEqualTo(1);
            List<RunRecord> attempt = from(runs(store), JOURNAL);
            assertThat(attempt).hasSize(1);
            RunRecord r = attempt.get(0);
            assertThat(r.kind()).isEqualTo(RunRecord.RunKind.AGENT_ATTEMPT);
            assertThat(r.commit()).startsWith("10189d08");
            assertThat(r.commitShort()).isEqualTo("10189d08");
            assertThat(r.agent()).isEqualTo("trae");
            assertThat(r.arm().label()).isEqualTo("agent:trae");
            assertThat(r.model()).isEqualTo("us-anthropic-claude-sonnet-4-5-20250929-v1-0");
            assertThat(r.status()).isEqualTo(RunStatus.SUCCESS);
            assertThat(r.startedAt()).isEqualTo(Instant.parse("2025-12-24T09:35:05Z"));
            assertThat(r.durationMs()).isCloseTo(523_553.08, org.assertj.core.data.Offset.offset(0.01));
            assertThat(r.pipeline().label()).isEqualTo("stage_a");
            JsonNode a = details(r).path("agent_attempt");
            assertThat(a.path("task").asText()).isEqualTo("sglang_core");
            assertThat(a.path("parent_commit").asText()).isEqualTo("c4336b2b60acdc2a835842f5033c05226d211e56");
            assertThat(a.path("patch_lines").asInt()).isEqualTo(80);
            assertThat(a.path("exit_code").asInt()).isZero();
            assertThat(a.path("source_status").asText()).isEqualTo("success");
            assertThat(a.path("status").asText()).isEqualTo("OK");
            // never a 3-way source, never a run without its commit
            assertThat(runs(store)).noneMatch(x -> x.commit() == null && x.kind() == RunRecord.RunKind.AGENT_ATTEMPT);
        }
    }

    @Test
    void aMicroResultCarriesCommitAgentAndModelFromItsMetadata(@TempDir Path dir) throws Exception {
        Path wide = SharedData.require("isobench-data-wide");
        try (Store store = TestStores.open(dir)) {
            new LegacyImporter(store, null, null).importTree(wide);
            List<RunRecord> micro = from(runs(store), MICRO);
            assertThat(micro).isNotEmpty();
            for (RunRecord r : micro) {
                assertThat(r.kind()).isEqualTo(RunRecord.RunKind.MICRO);
                assertThat(r.commit()).isEqualTo("021f76e4f49861b2e9ea9ccff06a46d577e3c548");
                assertThat(r.agent()).isEqualTo("codex");
                assertThat(r.model()).isEqualTo("gpt-5");
                assertThat(details(r).path("task_id").asText()).isEqualTo("sglang_core");
                assertThat(details(r).path("parent_commit").asText()).isEqualTo("777688b8929c877e4e28c2eac208d776abe4c3af");
            }
            assertThat(micro.stream().filter(r -> r.arm().label().equals("agent:codex"))).hasSize(1);
            assertThat(micro.stream().filter(r -> r.arm().label().equals("baseline")).findFirst().orElseThrow().status())
                    .isEqualTo(RunStatus.FAILED);
        }
    }

    @Test
    void journalStatusesMapByRule() {
        assertThat(Journal.outcome("success", 0L).status()).isEqualTo(RunStatus.SUCCESS);
        assertThat(Journal.outcome("timeout", null).attemptStatus()).isEqualTo("AGENT_TIMEOUT");
        assertThat(Journal.outcome("no_patch", 0L).attemptStatus()).isEqualTo("EMPTY_PATCH");
        assertThat(Journal.outcome("error", 1L).attemptStatus()).isEqualTo("AGENT_CRASH");
        assertThat(Journal.outcome(null, 2L).attemptStatus()).isEqualTo("AGENT_CRASH");
        assertThat(Journal.outcome("pending_review", 0L).attemptStatus()).isEqualTo("UNKNOWN");
        assertThat(Journal.outcome("skipped", null).status()).isEqualTo(RunStatus.SKIPPED);
    }

    /** A tree of the small cases, each a file of its kind (written here: the rules, not the samples, decide). */
    private static Path smallTree(Path dir) throws Exception {
        Path t = Files.createDirectories(dir.resolve("root"));
        Path res = Files.createDirectories(t.resolve("archive/results/2026-01/omniperf_results_3way_codex/results"));
        // an 8-hex commit in one file, its full hash in another read later
        Files.writeString(res.resolve("aaaa1111_human_result.json"), "{\"human_commit\": \"aaaa1111\", \"status\":"
                + " \"error\", \"error\": \"Server crashed\", \"raw_output\": \"\"}");
        Files.writeString(res.resolve("bbbb2222_human_result.json"), "{\"human_commit\": \"bbbb2222\", \"status\": \"error\", \"error\":"
                + " \"Server crashed\", \"raw_output\": \"\"}");
        Path later = Files.createDirectories(t.resolve("zlater/results"));
        Files.writeString(later.resolve("aaaa1111_baseline_result.json"), "{\"human_commit\": \"aaaa1111\","
                + " \"human_commit_full\": \"aaaa1111" + "0".repeat(32) + "\", \"status\": \"error\", \"error\":"
                + " \"Server crashed\", \"raw_output\": \"\"}");
        Files.writeString(t.resolve("README.md"), "notes");
        Files.writeString(t.resolve("empty.json"), "");
        Files.writeString(t.resolve("blank.json"), "  \n");
        Files.writeString(res.resolve("cccc3333_human_result.json"), "{\"human_commit\": \"cccc3333\", \"status\":"
                + " \"success\", \"metrics\": {\"throughput_tok_s\": NaN, \"latency_avg_ms\": 12.5}, \"raw_output\":"
                + " \"the text NaN stays\"}");
        Files.writeString(t.resolve("run_summary.json"), "{\"schema_version\": \"1.0\", \"commits\": {\"human\":"
                + " \"dddd4444\"}, \"_sources\": {\"journal\": \"/x/journal.json\", \"patch\": \"/x/p.diff\"}}");
        Files.writeString(t.resolve("evaluation_report.json"), "{\"generated_at\": \"2025-12-22\", \"total_runs\": 7,"
                + " \"runs\": {}}");
        Files.writeString(t.resolve("rows.json"), "[{\"commit\": \"a\"}, {\"commit\": \"b\"}]");
        Files.writeString(t.resolve("config.json"), "{\"name\": \"x\", \"version\": 3}");
        Files.writeString(t.resolve("broken.json"), "{\"a\": [1, 2");
        Files.writeString(t.resolve("prediction.jsonl"), "{\"instance_id\": \"x\", \"model_patch\": \"\"}\n");
        return t;
    }

    @Test
    void smallItemsEachHaveTheirReason(@TempDir Path dir) throws Exception {
        Path t = smallTree(dir);
        try (Store store = TestStores.open(dir)) {
            ImportSummary s = new LegacyImporter(store, null, null).importTree(t);
            assertThat(file(s, "empty.json").outcome()).isEqualTo(ImportSummary.Outcome.REFUSED);
            assertThat(file(s, "empty.json").reason()).isEqualTo("empty file");
            assertThat(file(s, "blank.json").reason()).isEqualTo("empty file (white space only)");
            ImportSummary.FileOutcome nan = file(s, "cccc3333_human_result.json");
            assertThat(nan.outcome()).as(nan.reason()).isEqualTo(ImportSummary.Outcome.IMPORTED);
            RunRecord nanRun = from(runs(store), "cccc3333_human_result.json").get(0);
            assertThat(nanRun.notes()).contains("NaN for \"throughput_tok_s\" read as a missing value (null)");
            assertThat(nanRun.notes()).doesNotContain("ALLOW_NON_NUMERIC_NUMBERS");
            for (String derived : List.of("run_summary.json", "evaluation_report.json", "rows.json")) {
                assertThat(file(s, derived).outcome()).as(derived).isEqualTo(ImportSummary.Outcome.SKIPPED);
            }
            assertThat(file(s, "run_summary.json").reason()).contains("derived data").contains("journal, patch");
            assertThat(file(s, "evaluation_report.json").reason()).isEqualTo("aggregate report (derived data)");
            assertThat(file(s, "rows.json").reason()).contains("a JSON list of 2 records");
            assertThat(file(s, "config.json").outcome()).isEqualTo(ImportSummary.Outcome.REFUSED);
            // a JSON file of no result schema: path, hash and reason stored, not its content
            assertThat(store.sources()).filteredOn(x -> x.path().equals("config.json")).singleElement()
                    .satisfies(x -> assertThat(x.contentArtifact()).isNull());
            assertThat(store.sources()).filteredOn(x -> x.path().equals("broken.json")).singleElement()
                    .satisfies(x -> assertThat(x.contentArtifact()).isNotNull());
            // JSON lines without the export's commit column: not the published table
            assertThat(file(s, "prediction.jsonl").reason()).isEqualTo("not a result file");
            // the 8-hex commit of a file read before the one that names it in full: stored in full
            for (RunRecord r : from(runs(store), "aaaa1111_human_result.json")) {
                assertThat(r.commit()).isEqualTo("aaaa1111" + "0".repeat(32));
                assertThat(details(r).path("commit_as_written").asText()).isEqualTo("aaaa1111");
            }
            // a commit no file names in full keeps its 8 characters
            assertThat(from(runs(store), "bbbb2222_human_result.json").get(0).commit()).isEqualTo("bbbb2222");
        }
    }

    @Test
    void summaryCountsPerReasonAndAReimportStillListsTheRefused(@TempDir Path dir) throws Exception {
        Path t = smallTree(dir);
        // many files of one kind: one summary line, not one line per file
        for (int i = 0; i < 50; i++) {
            Files.writeString(t.resolve("note" + i + ".txt"), "n");
            Files.writeString(t.resolve("cfg" + i + ".json"), "{\"key" + i + "\": " + i + ", \"" + "k".repeat(300)
                    + "\": 1}");
        }
        try (Store store = TestStores.open(dir)) {
            String first = print(new LegacyImporter(store, null, null).importTree(t));
            assertThat(first.lines()).allMatch(l -> l.length() <= ImportSummary.MAX_LINE);
            assertThat(first).containsPattern("skipped: \\d+ files")
                    .containsPattern("\\n +52 +other +not a result file\\n")
                    .containsPattern("\\n +51 +other +no known result schema \\(keys: --list-skipped\\)\\n")
                    .contains("every path with its reason: --list-skipped");
            assertThat(first.lines().count()).isLessThan(40);
            ImportSummary again = new LegacyImporter(store, null, null).importTree(t);
            assertThat(again.count(ImportSummary.Outcome.UNCHANGED)).isEqualTo(again.files().size());
            String second = print(again);
            assertThat(second).contains("refused: 54 files (54 unchanged since an earlier import)")
                    .containsPattern("\\n +1 +other +empty file\\n")
                    .containsPattern("\\n +51 +other +no known result schema \\(keys: --list-skipped\\)\\n");
            assertThat(again.files()).filteredOn(f -> f.path().endsWith("empty.json")).singleElement()
                    .satisfies(f -> assertThat(f.reason()).isEqualTo("empty file"));
        }
    }

    private static String print(ImportSummary s) {
        StringWriter w = new StringWriter();
        s.print(new PrintWriter(w));
        return w.toString();
    }

    @Test
    void listSkippedPrintsEveryPathWithItsWholeReason(@TempDir Path dir) throws Exception {
        Path t = smallTree(dir);
        String db = dir.resolve("cli.duckdb").toString();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db, "import", "legacy",
                t.toString(), "--list-skipped");
        assertThat(code).as(err.toString()).isZero();
        String text = out.toString();
        String list = text.substring(text.indexOf("outcome\tformat\tpath\treason\n"));
        // the paths follow: no hint pointing at the option just given
        assertThat(text).doesNotContain("every path with its reason");
        Golden.check(Path.of("src/test/resources/golden/legacy-list-skipped.tsv"), list);
        StringWriter again = new StringWriter();
        Main.run(new PrintWriter(again, true), new PrintWriter(new StringWriter(), true), "--db", db, "import",
                "legacy", t.toString(), "--list-skipped");
        assertThat(again.toString()).contains("refused (unchanged)\tother\tempty.json\tempty file");
    }

    @Test
    void nonNumbersOutsideStringsAreMissingValues() throws Exception {
        StringBuilder keys = new StringBuilder();
        String out = LenientJson.nonFiniteAsNull("{\"a\": NaN, \"s\": \"NaN and \\\"Infinity\\\"\", \"l\": [1, -Infinity,"
                + " Infinity], \"NaNx\": 1}", keys);
        assertThat(out).isEqualTo("{\"a\": null, \"s\": \"NaN and \\\"Infinity\\\"\", \"l\": [1, null, null],"
                + " \"NaNx\": 1}");
        assertThat(keys.toString()).isEqualTo("NaN for \"a\", -Infinity in a list, Infinity in a list");
        assertThat(LenientJson.nonFiniteAsNull("{\"a\": \"NaN\"}", new StringBuilder())).isNull();
        LenientJson.Parsed p = LenientJson.parse("{\"t\": NaN}");
        assertThat(p.root().get("t").isNull()).isTrue();
        assertThat(p.recovered()).isFalse();
        assertThat(p.note()).contains("NaN for \"t\" read as a missing value (null)");
    }

    @Test
    void derivedAndJournalSchemasByKeys() throws Exception {
        assertThat(FormatDetector.schema(LenientJson.MAPPER.readTree("{\"task_id\": \"t\", \"commits\": {\"pre\": \"a\","
                + " \"human\": \"b\"}, \"status\": \"error\", \"metrics\": {}}"))).isEqualTo(FormatDetector.Schema.JOURNAL);
        assertThat(FormatDetector.schema(LenientJson.MAPPER.readTree("{\"commits\": {\"human\": \"b\"}, \"task_id\": \"t\","
                + " \"_sources\": {}}"))).isEqualTo(FormatDetector.Schema.REPORT);
        assertThat(FormatDetector.schema(LenientJson.MAPPER.readTree("{\"total_unique_commits\": 3, \"top\": []}")))
                .isEqualTo(FormatDetector.Schema.REPORT);
        assertThat(FormatDetector.schema(LenientJson.MAPPER.readTree("{\"name\": \"x\"}"))).isNull();
        assertThat(FormatDetector.schema(LenientJson.MAPPER.readTree("{\"status\": \"ok\", \"metrics\": {},"
                + " \"total_x\": 1}"))).as("a result with a total_ key stays a result").isEqualTo(FormatDetector.Schema.PER_VERSION);
    }

    @Test
    void progressLinesArePureFunctions() {
        assertThat(ImportProgress.line(52_000, 106_000, 120)).isEqualTo(
                "isobench: import legacy: 52,000/106,000 files (49 %), 433 files/s, about 2 min 5 s left");
        assertThat(ImportProgress.line(3, 2000, 1.5)).isEqualTo(
                "isobench: import legacy: 3/2,000 files (0 %), 2.0 files/s, about 16 min 39 s left");
        assertThat(ImportProgress.duration(4000)).isEqualTo("1 h 6 min");
        long s = 1_000_000_000L;
        assertThat(ImportProgress.due(s / 2, -1, 100_000, true)).as("never in the first second").isFalse();
        assertThat(ImportProgress.due(s + 1, -1, 100_000, false)).as("a big tree: from the first second").isTrue();
        assertThat(ImportProgress.due(s + 1, -1, 500, true)).as("a small tree that is quick: no progress").isFalse();
        assertThat(ImportProgress.due(3 * s, -1, 500, true)).as("a small tree that is slow").isTrue();
        assertThat(ImportProgress.due(20 * s, s / 2, 100_000, true)).as("a terminal: once a second").isFalse();
        assertThat(ImportProgress.due(20 * s, s, 100_000, true)).isTrue();
        assertThat(ImportProgress.due(20 * s, 5 * s, 100_000, false)).as("plain lines: every 10 s").isFalse();
        assertThat(ImportProgress.due(20 * s, 10 * s, 100_000, false)).isTrue();
    }

    @Test
    void progressIsShownOnLongImportsOnly(@TempDir Path dir) throws Exception {
        Path t = smallTree(dir);
        long[] now = {0};
        StringWriter err = new StringWriter();
        ImportProgress meter = new ImportProgress(new PrintWriter(err), false, () -> now[0] += 400_000_000L);
        try (Store store = TestStores.open(dir)) {
            new LegacyImporter(store, null, null, meter).importTree(t);
        }
        // 0.4 s a file (the fake clock): past 2 s the import is long, and a plain line is printed every 10 s
        assertThat(err.toString()).startsWith("isobench: import legacy: ").contains("files/s");
        assertThat(err.toString().lines().count()).isEqualTo(1);
    }
}
