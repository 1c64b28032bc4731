package io.isobench.harbor;

import io.isobench.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Harbor task checker: the exported golden and the handmade tasks pass; each rule of Harbor's format broken once
 * fails with one line naming the file and the key.
 */
class HarborTaskCheckerTest {

    static final Path GOLDEN = HarborExportTest.GOLDEN;

    @TempDir
    Path tmp;

    @Test
    void theExportedGoldenAndTheHandmadeTasksPass() {
        for (Path d : List.of(GOLDEN, Path.of("src/test/resources/harbor/sum-speedup"),
                Path.of("src/test/resources/harbor/hello-passfail"))) {
            HarborTaskChecker.Report r = HarborTaskChecker.check(d);
            assertThat(r.errors()).as(d.toString()).isEmpty();
            assertThat(r.warnings()).as(d.toString()).isEmpty();
        }
    }

    /** The golden task copied with task.toml's text replaced ({@code from} → {@code to}); its one error. */
    private String errorWith(String from, String to) throws IOException {
        Path d = copyGolden();
        String toml = Files.readString(d.resolve("task.toml"));
        assertThat(toml).contains(from);
        Files.writeString(d.resolve("task.toml"), toml.replace(from, to));
        HarborTaskChecker.Report r = HarborTaskChecker.check(d);
        assertThat(r.errors()).hasSize(1);
        return r.errors().getFirst();
    }

    @Test
    void eachBrokenRuleIsOneLineNamingFileAndKey() throws IOException {
        assertThat(errorWith("name = \"isobench/", "name = \"isobench/../")).startsWith("task.toml: [task].name: ");
        assertThat(errorWith("name = \"isobench/llama2c-real-history__topp-filter\"", "name = \"no-org\""))
                .startsWith("task.toml: [task].name: 'no-org' is not org/name");
        assertThat(errorWith("network_mode = \"no-network\"", "network_mode = \"offline\""))
                .startsWith("task.toml: [verifier.environment].network_mode: 'offline' (one of");
        assertThat(errorWith("network_mode = \"no-network\"", "network_mode = \"no-network\"\nallowed_hosts ="
                + " [\"example.com\"]")).isEqualTo("task.toml: [verifier.environment].allowed_hosts: set without"
                + " network_mode = \"allowlist\" (Harbor refuses it)");
        assertThat(errorWith("environment_mode = \"separate\"", "environment_mode = \"shared\""))
                .startsWith("task.toml: [verifier].environment_mode: 'shared' with [verifier.environment]");
        assertThat(errorWith("cpus = 2\nmemory_mb = 4096\ngpus = 0\n\n[verifier]", "cpus = \"two\"\nmemory_mb = 4096"
                + "\ngpus = 0\n\n[verifier]")).isEqualTo("task.toml: [environment].cpus: not an integer");
        assertThat(errorWith("timeout_sec = 3600.0", "timeout_sec = \"1h\""))
                .isEqualTo("task.toml: [agent].timeout_sec: not a number");
        assertThat(errorWith("source = \"/app/repo\"", "source = \"/app/../etc\""))
                .isEqualTo("task.toml: artifacts[].source: '/app/../etc' contains '..'");
        assertThat(errorWith("schema_version = \"1.4\"", "schema_version = \"1.4\"\nmulti_step_reward_strategy ="
                + " \"max\"")).startsWith("task.toml: multi_step_reward_strategy: 'max' (one of [final, mean])");
        assertThat(errorWith("[task]\n", "[task]\nname = \"a/b\"\n"))
                .isEqualTo("task.toml: line 9: duplicate key [task].name");
    }

    @Test
    void missingFilesAreErrors() throws IOException {
        Path d = copyGolden();
        Files.delete(d.resolve("instruction.md"));
        assertThat(HarborTaskChecker.check(d).errors()).containsExactly("instruction.md: missing (the agent's"
                + " instruction)");
        d = copyGolden();
        Files.writeString(d.resolve("tests/Dockerfile"), "FROM x\n");
        assertThat(HarborTaskChecker.check(d).errors()).containsExactly("tests/Dockerfile: does not put the test at"
                + " /tests/test.sh (Harbor runs it there and does not upload tests/ in separate mode)");
        d = copyGolden();
        Files.delete(d.resolve("environment/Dockerfile"));
        Files.delete(d.resolve("environment/sealed.tar.txt"));
        Files.delete(d.resolve("environment"));
        assertThat(HarborTaskChecker.check(d).errors()).containsExactly("environment/: missing (Harbor requires the"
                + " folder)");
        Path shared = Path.of("src/test/resources/harbor/hello-passfail");
        Path copy = tmp.resolve("shared");
        copyTree(shared, copy);
        Files.delete(copy.resolve("tests/test.sh"));
        assertThat(HarborTaskChecker.check(copy).errors()).containsExactly("tests/test.sh: missing (the verifier runs"
                + " it; shared verifier mode)");
    }

    @Test
    void unknownAndDeprecatedKeysAreWarnings() throws IOException {
        Path d = copyGolden();
        String toml = Files.readString(d.resolve("task.toml"));
        Files.writeString(d.resolve("task.toml"), toml.replace("gpus = 0\n\n[verifier]", "gpus = 0\ngpu = 1\n"
                + "memory = \"4G\"\n\n[verifier]"));
        HarborTaskChecker.Report r = HarborTaskChecker.check(d);
        assertThat(r.errors()).isEmpty();
        assertThat(r.warnings()).containsExactly(
                "task.toml: [environment].gpu: unknown key (Harbor ignores it: a typo?)",
                "task.toml: [environment].memory: deprecated (Harbor migrates it: use memory_mb)");
    }

    @Test
    void checkHarborExitsTwoOnAnErrorAndNamesIt() throws IOException {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        assertThat(Main.run(new PrintWriter(o), new PrintWriter(e), "tasks", "check-harbor", GOLDEN.toString()))
                .isZero();
        assertThat(o.toString()).isEqualTo(GOLDEN + ": ok\n");
        Path d = copyGolden();
        Files.delete(d.resolve("instruction.md"));
        StringWriter o2 = new StringWriter();
        assertThat(Main.run(new PrintWriter(o2), new PrintWriter(e), "tasks", "check-harbor", d.toString()))
                .isEqualTo(Main.BAD_INPUT);
        assertThat(o2.toString()).isEqualTo(d + ": error: instruction.md: missing (the agent's instruction)\n");
    }

    @Test
    void rewardJsonIsNumbersOnly() {
        assertThat(HarborTaskChecker.checkRewardJson("{\"reward\": 1, \"speedup\": 1.2}")).isEmpty();
        assertThat(HarborTaskChecker.checkRewardJson("{\"reward\": 1, \"verdict\": \"better\", \"x\": null}"))
                .containsExactly("reward.json: verdict: string (Harbor takes numbers only)",
                        "reward.json: x: null (Harbor takes numbers only)");
        assertThat(HarborTaskChecker.checkRewardJson("[1]")).containsExactly("reward.json: not a JSON object");
    }

    /** The golden task folder (text files; the binaries as placeholders: the checker reads none of them). */
    private Path copyGolden() throws IOException {
        Path d = Files.createTempDirectory(tmp, "task");
        copyTree(GOLDEN, d);
        Files.writeString(d.resolve("environment/sealed.tar.txt"), "placeholder");
        return d;
    }

    private static void copyTree(Path src, Path dst) throws IOException {
        try (var walk = Files.walk(src)) {
            for (Path p : walk.sorted().toList()) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }
}
