package io.isobench.export;

import io.isobench.Golden;
import io.isobench.TrackHistoryStore;
import io.isobench.store.Store;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HF export's {@code changes} config (issue 30 item 5): the confirmed changes of the store's tracks, the columns of
 * {@code isobench changes}' CSV then track and session, on both export paths; described in the card; nothing of it for
 * a store without tracks (whose export is what it was).
 */
class HfChangesTest {

    static final Path JSONL = Path.of("src/test/resources/golden/hf-changes.jsonl");

    @TempDir
    Path tmp;

    @Test
    void confirmedChangesAreTheChangesConfigOnBothPaths() throws Exception {
        try (Store store = TestStores.open(tmp, "track")) {
            HfSessionRowsTest.session(store, Instant.parse("2026-11-28T10:00:00Z"));
            TrackHistoryStore.write(store);
            for (boolean sql : new boolean[] {true, false}) {
                Path out = tmp.resolve(sql ? "sql" : "java");
                HfExporter.export(store, out, sql);
                String jsonl = Files.readString(out.resolve(HfChanges.JSONL), StandardCharsets.UTF_8);
                Golden.check(JSONL, jsonl);
                assertThat(jsonl).doesNotContain(TrackHistoryStore.SECRET);
                try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT * FROM read_parquet('" + out.resolve(HfChanges.PARQUET)
                             + "')")) {
                    ResultSetMetaData md = rs.getMetaData();
                    List<String> columns = new ArrayList<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        columns.add(md.getColumnName(i));
                    }
                    assertThat(columns).containsExactly("task", "commit", "parent", "metric", "direction", "change_pct",
                            "ci_low_pct", "ci_high_pct", "status", "first_commit", "evidence", "track_id",
                            "session_id");
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString("commit")).isEqualTo(TrackHistoryStore.commit(4));
                    assertThat(rs.getString("first_commit")).isEqualTo(TrackHistoryStore.commit(3));
                    assertThat(rs.getDouble("change_pct")).isEqualTo(-15.2345);
                    assertThat(rs.getString("status")).isEqualTo("confirmed");
                    assertThat(rs.next()).as("only the confirmed row").isFalse();
                }
                String card = Files.readString(out.resolve(HfExporter.CARD), StandardCharsets.UTF_8);
                assertThat(card).contains("- config_name: changes\n  data_files:\n  - split: train\n"
                                + "    path: data/changes-*.parquet\n", "## Changes (config `changes`)",
                        "1 row(s), one per confirmed change", "| `first_commit` | string |");
            }
        }
    }

    @Test
    void aStoreWithoutTracksExportsNoChangesAndRemovesOldOnes() throws Exception {
        Path out = tmp.resolve("out");
        try (Store store = TestStores.open(tmp, "tracked")) {
            TrackHistoryStore.write(store);
            HfExporter.export(store, out, true);
        }
        assertThat(out.resolve(HfChanges.PARQUET)).exists();
        try (Store store = TestStores.open(tmp, "plain")) {
            HfSessionRowsTest.session(store, Instant.parse("2026-11-28T10:00:00Z"));
            HfExporter.export(store, out, true);
        }
        assertThat(out.resolve(HfChanges.PARQUET)).doesNotExist();
        assertThat(out.resolve(HfChanges.JSONL)).doesNotExist();
        assertThat(Files.readString(out.resolve(HfExporter.CARD))).doesNotContain("config_name: changes", "## Changes");
    }
}
