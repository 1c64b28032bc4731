package io.isobench.harbor;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An exported llama2c task (topp-filter) verified the way Harbor runs it, without Docker: the agent's tree is the
 * sealed tar extracted (no .git), changed by the task's own solution/solve.sh diff (Harbor's oracle), and
 * tests/test.sh runs with the verifier's paths pointed into a temporary folder. The human commit makes the command
 * about 3× faster, far beyond any noise, so the reward is 1 with a replay-valid task; an unchanged tree gives the
 * empty-patch reward without a session.
 */
class HarborVerifierIT {

    @TempDir
    Path tmp;

    @Test
    void theOracleGetsRewardOneAndAnUnchangedTreeAnEmptyPatch() throws Exception {
        SharedData.require("engines/llama2.c.bundle");
        Path jar = Path.of("target/isobench.jar").toAbsolutePath();
        assumeTrue(Files.isRegularFile(jar), "skipped: target/isobench.jar is built by mvn package (verify builds it)");
        assumeTrue(ToyRepo.toolsPresent(), "skipped: python3, git, setsid or bwrap missing");
        HarborExport.Exported e = HarborExport.export(SuiteLoader.load(Path.of("examples/llama2c/suite.yaml")),
                tmp.resolve("out"), new HarborExport.Options(List.of("topp-filter"), "isobench/python:bookworm",
                        "isobench/python:bookworm", null, jar, "it")).getFirst();
        Path task = e.dir();

        Path unchanged = Files.createDirectories(tmp.resolve("unchanged"));
        ToyRepo.run(unchanged, "tar", "-xf", task.resolve("environment/sealed.tar").toString());
        Map<String, Object> empty = verify(task, unchanged, tmp.resolve("logs-empty"));
        assertThat(empty).containsEntry("reward", 0).containsEntry("patch_empty", 1);

        Path oracle = Files.createDirectories(tmp.resolve("oracle"));
        ToyRepo.run(oracle, "tar", "-xf", task.resolve("environment/sealed.tar").toString());
        ToyRepo.run(oracle, "git", "apply", "--binary", task.resolve("solution/human.diff").toString());
        Path logs = tmp.resolve("logs-oracle");
        Map<String, Object> reward = verify(task, oracle, logs);
        assertThat(reward).containsEntry("reward", 1).containsEntry("applied", 1).containsEntry("correct", 1)
                .containsEntry("replay_valid", 1);
        assertThat(((Number) reward.get("speedup_vs_baseline")).doubleValue()).isGreaterThan(1.5);
        String verdict = Files.readString(logs.resolve("isobench-verdict.json"));
        assertThat(verdict).contains("\"agent\" : \"agent:harbor\"").contains("\"replay_validity\" : \"valid\"");
        assertThat(logs.resolve("isobench.duckdb")).exists();
    }

    /** Runs test.sh as Harbor would (paths overridden); its reward.json, checked to hold numbers only. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> verify(Path task, Path repo, Path logs) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", task.resolve("tests/test.sh").toString())
                .redirectErrorStream(true);
        pb.environment().put("ISOBENCH_HARBOR_LOGS", logs.toString());
        pb.environment().put("ISOBENCH_HARBOR_HOME", task.resolve("tests/isobench").toString());
        pb.environment().put("ISOBENCH_HARBOR_REPO", repo.toString());
        pb.environment().put("ISOBENCH_HARBOR_JAVA", Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        String json = Files.readString(logs.resolve("reward.json"));
        assertThat(HarborTaskChecker.checkRewardJson(json)).as(json).isEmpty();
        return new ObjectMapper().readValue(json, Map.class);
    }
}
