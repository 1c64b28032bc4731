package io.isobench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench agents import} and {@code agents export --format atif} from the command line: Harbor's fixture in
 * and back out byte for byte (exit 0); an invalid file is exit 2 with one line naming it, and stores nothing; an
 * unknown format is exit 2.
 */
class AgentsTrajectoryCommandsTest {

    static final Path FIXTURE = Path.of("src/test/resources/atif/harbor/hello-world-invalid-json.trajectory.json");

    @TempDir
    Path dir;

    @Test
    void importThenExportRoundTrips() throws Exception {
        String db = dir.resolve("s.duckdb").toString();
        MainTest.Result in = MainTest.run("--db", db, "agents", "import", FIXTURE.toString(), "--task", "tpot");
        assertThat(in.code()).as(in.err()).isZero();
        assertThat(in.out()).startsWith("session agents-import-").contains("/tpot/terminus-2@1");
        MainTest.Result out = MainTest.run("--db", db, "agents", "export", "--format", "atif", "--out",
                dir.resolve("out").toString());
        assertThat(out.code()).as(out.err()).isZero();
        assertThat(out.out()).contains("1 ATIF trajectories written");
        try (var files = Files.list(dir.resolve("out"))) {
            Path f = files.findFirst().orElseThrow();
            assertThat(f.getFileName().toString()).endsWith("_tpot_terminus-2_1.trajectory.json");
            assertThat(Files.readAllBytes(f)).isEqualTo(Files.readAllBytes(FIXTURE));
        }
    }

    @Test
    void badInputIsExitTwoWithOneLine() throws Exception {
        String db = dir.resolve("b.duckdb").toString();
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"agent\": {\"name\": \"x\", \"version\": \"1\"}, \"steps\": [{\"step_id\": 1,"
                + " \"source\": \"user\", \"message\": \"hi\", \"metrics\": {\"prompt_tokens\": 1}}]}");
        MainTest.Result r = MainTest.run("--db", db, "agents", "import", bad.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains(bad + ": not valid ATIF: trajectory.steps.0:"
                + " Value error, Field 'metrics' is only applicable when source is 'agent'");
        MainTest.Result none = MainTest.run("--db", db, "agents", "export", "--format", "atif", "--out",
                dir.resolve("o").toString());
        assertThat(none.code()).as("nothing was stored").isEqualTo(2);
        assertThat(none.err()).contains("no agent attempt");
        assertThat(MainTest.run("--db", db, "agents", "export", "--format", "csv", "--out",
                dir.resolve("o").toString()).code()).isEqualTo(2);
    }
}
