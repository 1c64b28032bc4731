package io.isobench.export;

import io.isobench.AttemptSessions;
import io.isobench.Golden;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent-attempt columns of the HF export (docs/hf-export.md): filled on agent rows whose patch came from a stored
 * attempt, null elsewhere, on both export paths; the column list is golden; import reads tables with and without them
 * (and without the reading columns that follow them).
 */
class HfAttemptColumnsTest {

    static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

    @TempDir
    Path dir;

    @Test
    void the_export_schema_is_golden() throws Exception {
        String tsv = HfSchema.EXPORT.stream().map(c -> c.name() + "\t" + c.type().label())
                .collect(Collectors.joining("\n", "", "\n"));
        Golden.check(Path.of("src/test/resources/golden/hf-schema.tsv"), tsv);
        // new columns go after the existing ones: the attempt columns, then how the verdicts were read
        int end = HfSchema.ISOBENCH.size() - ReadingColumns.COLUMNS.size();
        assertThat(HfSchema.ISOBENCH.subList(end - AttemptColumns.COLUMNS.size(), end))
                .isEqualTo(AttemptColumns.COLUMNS);
        assertThat(HfSchema.ISOBENCH.subList(end, HfSchema.ISOBENCH.size())).isEqualTo(ReadingColumns.COLUMNS);
        assertThat(HfSchema.SESSION).containsAll(AttemptColumns.COLUMNS).containsAll(ReadingColumns.COLUMNS);
    }

    @Test
    void agent_rows_carry_their_attempt_on_both_export_paths() throws Exception {
        try (Store store = TestStores.open(dir, "s")) {
            AttemptSessions.session(store, T0);
            AttemptSessions.attempts(store, T0.minusSeconds(3600));
            for (boolean sql : new boolean[] {true, false}) {
                Path out = dir.resolve("out-" + sql);
                HfExporter.export(store, out, sql);
                List<Map<String, Object>> rows = HfSessionRowsTest.read(out.resolve(HfExporter.PARQUET));
                assertThat(rows).as("sql=%s", sql).extracting(r -> r.get("isobench_agent"))
                        .containsExactly("a@1", "a@2", "b@1");
                Map<String, Object> a2 = rows.get(1);
                assertThat(a2).containsEntry("isobench_agent_attempt", 2).containsEntry("isobench_agent_adapter", "claude-code")
                        .containsEntry("isobench_agent_cli_version", "2.1.332").containsEntry("isobench_agent_executor", "docker")
                        .containsEntry("isobench_agent_status", "OK").containsEntry("isobench_agent_turns", 4)
                        .containsEntry("isobench_agent_tokens_in", 2400).containsEntry("isobench_agent_tokens_out", 160)
                        .containsEntry("isobench_agent_cost_usd", 0.0246).containsEntry("isobench_agent_wall_s", 61.0)
                        .containsEntry("isobench_agent_prompt_sha256",
                                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
                        .containsEntry("isobench_agent_trajectory", AttemptSessions.trajectory("a", 2));
                assertThat((String) a2.get("isobench_agent_patch_sha256")).hasSize(64);
                // b's cost was not reported: null, never 0
                assertThat(rows.get(2)).containsEntry("isobench_agent_attempt", 1).containsEntry("isobench_agent_cost_usd", null);
                // the attempt is not a row, and the measured statistics are the session's
                assertThat(rows).allMatch(r -> "s-attempts".equals(r.get("isobench_session_id")));
            }
        }
    }

    /**
     * Two agents runs whose attempts left byte-identical patches (a deterministic agent run twice; the second, later,
     * with another CLI version): the same arm label, task and patch sha256, so the text join cannot tell them apart
     * and takes the later. A session planned from the first run ({@code run --attempts-of}) names the first run's
     * attempts in its runs: its rows carry the first run's attempts. A session recorded before that key falls back to
     * the old join (docs/agents.md): the later run's.
     */
    @Test
    void an_agent_row_carries_the_attempt_it_measured_by_identity_not_by_patch_text() throws Exception {
        AttemptSessions.AgentsRun first = new AttemptSessions.AgentsRun("agents-run-1", "2.1.332");
        AttemptSessions.AgentsRun again = new AttemptSessions.AgentsRun("agents-run-2", "2.2.0");
        for (boolean keyed : new boolean[] {true, false}) {
            try (Store store = TestStores.open(dir, "twice-" + keyed)) {
                AttemptSessions.session(store, T0, keyed ? first.session() : null);
                AttemptSessions.attempts(store, T0.minusSeconds(7200), first);
                AttemptSessions.attempts(store, T0.minusSeconds(3600), again);
                for (boolean sql : new boolean[] {true, false}) {
                    Path out = dir.resolve("twice-" + keyed + "-" + sql);
                    HfExporter.export(store, out, sql);
                    List<Map<String, Object>> rows = HfSessionRowsTest.read(out.resolve(HfExporter.PARQUET));
                    assertThat(rows).extracting(r -> r.get("isobench_agent")).containsExactly("a@1", "a@2", "b@1");
                    assertThat(rows).as("keyed=%s sql=%s", keyed, sql)
                            .extracting(r -> r.get("isobench_agent_cli_version"))
                            .containsOnly(keyed ? first.cliVersion() : again.cliVersion());
                    assertThat(rows).extracting(r -> r.get("isobench_agent_attempt")).containsExactly(1, 2, 1);
                }
            }
        }
    }

    @Test
    void rows_without_an_attempt_have_null_attempt_columns() throws Exception {
        try (Store store = TestStores.open(dir, "plain")) {
            HfSessionRowsTest.session(store, T0);
            HfExporter.export(store, dir.resolve("o"), true);
            List<Map<String, Object>> rows = HfSessionRowsTest.read(dir.resolve("o").resolve(HfExporter.PARQUET));
            assertThat(rows).isNotEmpty();
            for (HfSchema.Column c : AttemptColumns.COLUMNS) {
                assertThat(rows).as(c.name()).allMatch(r -> r.containsKey(c.name()) && r.get(c.name()) == null);
            }
        }
    }

    /**
     * A table of this version, one of the previous (attempt columns, no reading columns: {@link ReadingColumns}) and
     * one without either all import the same rows.
     */
    @Test
    void import_reads_tables_with_and_without_the_attempt_columns() throws Exception {
        try (Store store = TestStores.open(dir, "src")) {
            AttemptSessions.session(store, T0);
            AttemptSessions.attempts(store, T0.minusSeconds(3600));
            HfExporter.export(store, dir.resolve("with"), true);
        }
        Path with = dir.resolve("with").resolve(HfExporter.PARQUET);
        Path previous = dir.resolve("previous.parquet");
        Path without = dir.resolve("without.parquet");
        String reading = ReadingColumns.COLUMNS.stream().map(c -> c.name()).collect(Collectors.joining(", "));
        String drop = reading + ", " + AttemptColumns.COLUMNS.stream().map(c -> c.name())
                .collect(Collectors.joining(", "));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
            st.execute("COPY (SELECT * EXCLUDE (" + reading + ") FROM read_parquet('" + with + "')) TO '" + previous
                    + "' (FORMAT parquet)");
            st.execute("COPY (SELECT * EXCLUDE (" + drop + ") FROM read_parquet('" + with + "')) TO '" + without
                    + "' (FORMAT parquet)");
        }
        assertThat(HfSessionRowsTest.read(with).get(0)).containsEntry("isobench_stop_reason", "fixed")
                .containsEntry("isobench_ci_method", ReadingColumns.PAIRED_T);
        assertThat(HfSessionRowsTest.read(previous).get(0)).containsKey("isobench_agent_trajectory")
                .doesNotContainKey("isobench_stop_reason");
        assertThat(HfSessionRowsTest.read(without).get(0)).doesNotContainKey("isobench_agent_trajectory");
        for (Path file : List.of(with, previous, without)) {
            try (Store target = TestStores.open(dir, "t-" + file.getFileName().toString().replace('.', '-')
                    + Files.size(file))) {
                HfImporter.Summary s = HfImporter.importFile(target, file);
                assertThat(s.rows()).as(file.toString()).isEqualTo(3);
                assertThat(s.runs()).isEqualTo(9);
                assertThat(s.ignoredColumns()).allMatch(x -> x.startsWith("isobench_"));
                assertThat(s.ignoredColumns().contains("isobench_agent_trajectory")).isEqualTo(!file.equals(without));
                assertThat(s.ignoredColumns().contains("isobench_ci_level")).isEqualTo(file.equals(with));
            }
        }
    }
}
