package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LegacyCliTest {

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), args);
        return new Result(code, o.toString(), e.toString());
    }

    static final String HEADER = "commit,status,pipeline,mode,metric,unit,better,baseline_value,human_value,agent_value,"
            + "human_delta_pct,agent_delta_pct,agent_vs_human_pct,comparability,issues";

    @Test
    void importThenTableInEveryFormat(@TempDir Path dir) throws Exception {
        Path data = SharedData.isobenchData();
        String db = dir.resolve("store.duckdb").toString();
        Result imp = run("--db", db, "import", "legacy", data.toString());
        assertThat(imp.code()).as(imp.err()).isZero();
        assertThat(imp.out()).contains("total").contains("recovered:").contains("f092153f_agent_result.json")
                .doesNotContain("Exception");
        assertThat(imp.out()).containsPattern("R1 +10 ");

        Result again = run("import", "legacy", data.toString(), "--db", db);
        assertThat(again.code()).isZero();
        assertThat(again.out()).containsPattern("total +0 +0 +0 +0 +\\d+ +0");

        Result csv = run("table", "--agent", "claude_code", "--db", db);
        assertThat(csv.code()).as(csv.err()).isZero();
        String[] lines = csv.out().split("\n");
        assertThat(lines[0]).isEqualTo(HEADER);
        List<String> commits = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            commits.add(lines[i].substring(0, 8));
        }
        assertThat(commits).isSorted().contains("299ebb62", "310aca88", "3127e975");
        assertThat(csv.out()).contains("299ebb62,complete_3way_same_run,modal,serving,tpot_ms_mean,ms,lower,4.76,4.20,"
                + "4.30,11.7647,9.6639,-2.3810,same_run,");
        assertThat(csv.out()).contains("310aca88,complete_3way_same_run,modal,latency,latency_ms_avg,ms,lower,"
                + "4261.011293366673,4311.028618633319,4245.959685633333,-1.1738,0.3532,1.5094,same_run,");
        assertThat(csv.out()).doesNotContainPattern("[0-9]E[-+]?[0-9]");

        Result md = run("--db", db, "table", "--agent", "claude-code", "--format", "md");
        assertThat(md.code()).isZero();
        assertThat(md.out()).startsWith("| commit | status |").contains("| 299ebb62 | complete_3way_same_run | modal |");

        Result json = run("--db", db, "table", "--agent", "claude_code", "--format", "json");
        assertThat(json.code()).isZero();
        JsonNode arr = new ObjectMapper().readTree(json.out());
        assertThat(arr.isArray()).isTrue();
        assertThat(arr.size()).isEqualTo(lines.length - 1);
        JsonNode first = arr.get(0);
        assertThat(first.fieldNames()).toIterable().containsExactlyElementsOf(List.of(HEADER.split(",")));
        for (JsonNode row : arr) {
            if (row.get("commit").asText().equals("299ebb62")) {
                assertThat(row.get("baseline_value").isNumber()).isTrue();
                assertThat(row.get("human_delta_pct").decimalValue().doubleValue()).isEqualTo(11.7647);
                assertThat(row.get("issues").isNull()).isTrue();
            }
            if (row.get("commit").asText().equals("3127e975")) {
                assertThat(row.get("status").asText()).isEqualTo("no_metrics");
                assertThat(row.get("baseline_value").isNull()).isTrue();
            }
        }
    }

    @Test
    void badRootsAndDatabasesExitTwoWithOneLine(@TempDir Path dir) throws Exception {
        String db = dir.resolve("s.duckdb").toString();
        Result missing = run("--db", db, "import", "legacy", dir.resolve("nope").toString());
        assertThat(missing.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(missing.err().strip()).contains("nope").doesNotContain("\n");
        assertThat(Files.exists(dir.resolve("s.duckdb"))).as("no store created for a bad root").isFalse();

        Path empty = Files.createDirectories(dir.resolve("empty"));
        Result e = run("--db", db, "import", "legacy", empty.toString());
        assertThat(e.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(e.err()).contains("empty");

        Path file = Files.writeString(dir.resolve("plain.txt"), "x");
        Result nd = run("--db", db, "import", "legacy", file.toString());
        assertThat(nd.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(nd.err()).contains("not a directory");

        Path notDb = Files.writeString(dir.resolve("not-a-db.duckdb"), "this is not a database");
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.writeString(tree.resolve("README.md"), "hello");
        Result badDb = run("--db", notDb.toString(), "import", "legacy", tree.toString());
        assertThat(badDb.code()).as(badDb.err()).isEqualTo(Main.BAD_INPUT);

        Result noStore = run("--db", dir.resolve("absent.duckdb").toString(), "table", "--agent", "x");
        assertThat(noStore.code()).isEqualTo(Main.BAD_INPUT);
        assertThat(noStore.err()).contains("absent.duckdb");

        Result badFormat = run("--db", db, "table", "--agent", "x", "--format", "xml");
        assertThat(badFormat.code()).isEqualTo(Main.BAD_INPUT);
    }

    @Test
    void agentOptionNamesTreesWithoutOne(@TempDir Path dir) throws Exception {
        Path src = SharedData.require("isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/results/modal/299ebb62/benchmark_result.json");
        Path tree = dir.resolve("copy/results/modal/299ebb62");
        Files.createDirectories(tree);
        Files.copy(src, tree.resolve("benchmark_result.json"));
        String db = dir.resolve("s.duckdb").toString();
        Result imp = run("--db", db, "import", "legacy", dir.resolve("copy").toString(), "--agent", "My-Agent");
        assertThat(imp.code()).as(imp.err()).isZero();
        Result t = run("--db", db, "table", "--agent", "my_agent");
        assertThat(t.out()).contains("299ebb62,complete_3way_same_run,modal,serving");
    }
}
