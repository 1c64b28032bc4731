package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Golden;
import io.isobench.TrackHistoryStore;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench changes} (issue 30 item 4) on a store holding one track's rows ({@link TrackHistoryStore}): the CSV
 * columns are a contract (golden), JSON has the same keys and more, the table says which rows are changes; bad
 * options and stores without tracks get one clear line.
 */
class ChangesCommandTest {

    static final Path CSV = Path.of("src/test/resources/golden/changes.csv");
    static final Path JSON = Path.of("src/test/resources/golden/changes.json");

    @TempDir
    static Path tmp;
    static String db;

    @BeforeAll
    static void store() {
        db = tmp.resolve("t.duckdb").toString();
        try (Store store = Stores.open(db)) {
            TrackHistoryStore.write(store);
        }
    }

    @Test
    void csvIsTheContract() throws Exception {
        MainTest.Result r = MainTest.run("--db", db, "changes", "--format", "csv");
        assertThat(r.code()).as(r.err()).isZero();
        Golden.check(CSV, r.out());
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("task,commit,parent,metric,direction,change_pct,ci_low_pct,ci_high_pct,"
                + "status,first_commit,evidence");
        assertThat(lines).hasSize(4);
        assertThat(lines.get(2)).isEqualTo("decode," + TrackHistoryStore.commit(4) + "," + TrackHistoryStore.commit(2)
                + ",command_cpu_s,faster,-15.23,-16.01,-14.50,confirmed," + TrackHistoryStore.commit(3)
                + ",\"better: speedup 1.180× [1.172, 1.189] (95 % CI), A/A band 0.4 %, 6 rounds (all decided)\"");
        // empty cells for unknown numbers and no first commit; secrets redacted
        assertThat(lines.get(1)).contains(",faster,-0.30,,,candidate,,");
        assertThat(r.out()).doesNotContain(TrackHistoryStore.SECRET).contains("token hf_***");
    }

    @Test
    void jsonHasTheSameKeysThenTrackSessionAndSubjects() throws Exception {
        MainTest.Result r = MainTest.run("--db", db, "changes", "--format", "json", "--status", "confirmed");
        assertThat(r.code()).as(r.err()).isZero();
        Golden.check(JSON, r.out());
        JsonNode rows = new ObjectMapper().readTree(r.out());
        assertThat(rows).hasSize(1);
        JsonNode c = rows.get(0);
        List<String> keys = new ArrayList<>();
        c.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactly("task", "commit", "parent", "metric", "direction", "change_pct", "ci_low_pct",
                "ci_high_pct", "status", "first_commit", "evidence", "track_id", "session_id", "commit_subject",
                "parent_subject", "first_commit_subject");
        assertThat(c.get("change_pct").isNumber()).isTrue();
        assertThat(c.get("change_pct").asDouble()).isEqualTo(-15.23);
        assertThat(c.get("session_id").asText()).isEqualTo(TrackHistoryStore.CONFIRMING);
        assertThat(c.get("first_commit_subject").asText()).startsWith("Unroll <script>").contains("hf_***")
                .doesNotContain(TrackHistoryStore.SECRET);
    }

    @Test
    void theTableSaysWhichRowsAreChanges() {
        MainTest.Result r = MainTest.run("--db", db, "changes");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.get(0)).isEqualTo("1 confirmed change(s): only confirmed rows are changes; 1 rejected and 1"
                + " candidate row(s) are listed with their numbers");
        assertThat(lines.get(1)).startsWith("status").contains("first_commit", "subject");
        assertThat(lines).hasSize(5);
        // short commits; the bisected first commit's subject for a confirmed change
        assertThat(lines.get(3)).startsWith("confirmed").contains("eeeeeeee", "cccccccc", "dddddddd",
                "[-16.01, -14.50]", "Unroll <script>");
        MainTest.Result only = MainTest.run("--db", db, "changes", "--task", "decode", "--status", "rejected");
        assertThat(only.out().lines().toList()).hasSize(3);
        assertThat(only.out()).contains("rejected").doesNotContain("confirmed  ");
    }

    @Test
    void badOptionsAreOneLine() {
        MainTest.Result status = MainTest.run("--db", db, "changes", "--status", "maybe");
        assertThat(status.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(status.err().strip()).isEqualTo("isobench: --status maybe is not a change status; use confirmed,"
                + " rejected, candidate");
        MainTest.Result format = MainTest.run("--db", db, "changes", "--format", "xml");
        assertThat(format.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(format.err().strip()).isEqualTo("isobench: --format xml is not supported; use table, csv or json");
        MainTest.Result missing = MainTest.run("--db", tmp.resolve("none.duckdb").toString(), "changes");
        assertThat(missing.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(missing.err().lines().count()).isEqualTo(1);
    }

    @Test
    void aStoreWithoutTracksSaysSo() {
        String empty = tmp.resolve("empty.duckdb").toString();
        Stores.open(empty).close();
        MainTest.Result r = MainTest.run("--db", empty, "changes", "--format", "csv");
        assertThat(r.code()).isZero();
        assertThat(r.out()).isEqualTo("task,commit,parent,metric,direction,change_pct,ci_low_pct,ci_high_pct,status,"
                + "first_commit,evidence\n");
        assertThat(r.err()).startsWith("isobench: no tracks in ").contains("isobench track SUITE --range");
        MainTest.Result other = MainTest.run("--db", db, "changes", "--task", "prefill");
        assertThat(other.err()).startsWith("isobench: no tracks of task prefill in ");
    }
}
