package io.isobench.harbor;

import io.isobench.Golden;
import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code isobench tasks export harbor} on examples/llama2c (task topp-filter): the text files are goldens, the large
 * ones a manifest of sha256; the folder passes the checker; the sealed tree rebuilds the sealed commit as the
 * Dockerfiles do; the human diff applies to it; test.sh writes a numeric reward.json even when isobench fails; the
 * verifier's suite loads.
 */
class HarborExportTest {

    static final Path GOLDEN = Path.of("src/test/resources/golden/harbor/topp-filter");
    /** The generated text files, kept as goldens. */
    static final List<String> TEXT = List.of("task.toml", "instruction.md", "environment/Dockerfile",
            "tests/Dockerfile", "tests/test.sh", "solution/solve.sh", "tests/isobench/suite/isobench-harbor.yaml");

    @TempDir
    static Path tmp;
    static Path task;
    static HarborExport.Exported exported;

    @BeforeAll
    static void export() throws IOException {
        SharedData.require("engines/llama2.c.bundle");
        Suite suite = SuiteLoader.load(Path.of("examples/llama2c/suite.yaml"));
        Path jar = tmp.resolve("isobench.jar");
        Files.writeString(jar, "not a jar: the export copies whatever isobench runs from");
        exported = HarborExport.export(suite, tmp.resolve("out"), new HarborExport.Options(List.of("topp-filter"),
                "isobench/python:bookworm", "isobench/python:bookworm", null, jar, "test")).getFirst();
        task = exported.dir();
    }

    @Test
    void textFilesMatchTheirGoldensAndBinariesTheManifest() throws IOException {
        for (String f : TEXT) {
            Golden.check(GOLDEN.resolve(f), Files.readString(task.resolve(f)));
        }
        StringBuilder m = new StringBuilder("# sha256 and bytes of the exported files that are not text goldens"
                + " (HarborExportTest)\n");
        try (var walk = Files.walk(task)) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                String rel = task.relativize(p).toString();
                if (TEXT.contains(rel)) {
                    continue;
                }
                m.append(rel.equals("tests/isobench/isobench.jar") ? "(the isobench jar that exported it)"
                        : sha256(Files.readAllBytes(p))).append("  ").append(rel).append('\n');
            }
        }
        Golden.check(GOLDEN.resolve("MANIFEST.txt"), m.toString());
    }

    @Test
    void theExportPassesTheChecker() {
        assertThat(exported.report().errors()).isEmpty();
        assertThat(exported.report().warnings()).isEmpty();
        assertThat(HarborTaskChecker.check(task).ok()).isTrue();
    }

    @Test
    void theSealedTreeRebuildsTheSealedCommitAndTheHumanDiffApplies() throws Exception {
        Map<String, Object> toml = Toml.parse(Files.readString(task.resolve("task.toml")));
        String sealed = (String) ((Map<?, ?>) toml.get("metadata")).get("sealed_commit");
        assertThat(Files.readAllBytes(task.resolve("environment/sealed.tar")))
                .isEqualTo(Files.readAllBytes(task.resolve("tests/isobench/sealed.tar")));
        Path tree = Files.createDirectories(tmp.resolve("rebuilt"));
        ToyRepo.run(tree, "tar", "-xf", task.resolve("environment/sealed.tar").toString());
        ToyRepo.run(tree, "bash", "-c", HarborFiles.sealCommands(tree.toString(), sealed));
        assertThat(ToyRepo.run(tree, "git", "rev-parse", "HEAD").strip()).isEqualTo(sealed);
        ToyRepo.run(tree, "git", "apply", "--check", "--binary", task.resolve("solution/human.diff").toString());
        // a different tree gives another commit: the check in the Dockerfile is not vacuous
        Path other = Files.createDirectories(tmp.resolve("other"));
        ToyRepo.run(other, "tar", "-xf", task.resolve("environment/sealed.tar").toString());
        Files.writeString(other.resolve("extra.txt"), "x");
        Process p = new ProcessBuilder("bash", "-c", HarborFiles.sealCommands(other.toString(), sealed))
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isNotZero();
    }

    @Test
    void testShWritesANumericRewardEvenWhenIsobenchFails() throws Exception {
        Path logs = tmp.resolve("logs");
        ProcessBuilder pb = new ProcessBuilder("bash", task.resolve("tests/test.sh").toString())
                .redirectErrorStream(true);
        pb.environment().put("ISOBENCH_HARBOR_LOGS", logs.toString());
        pb.environment().put("ISOBENCH_HARBOR_HOME", task.resolve("tests/isobench").toString());
        pb.environment().put("ISOBENCH_HARBOR_REPO", tmp.resolve("no-repo").toString());
        pb.environment().put("ISOBENCH_HARBOR_JAVA", "false"); // isobench "fails" at its first call
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isNotZero();
        String reward = Files.readString(logs.resolve("reward.json"));
        assertThat(HarborTaskChecker.checkRewardJson(reward)).isEmpty();
        assertThat(reward).contains("\"reward\": 0");
        assertThat(Files.readString(logs.resolve("isobench-error.txt"))).contains("failed before a verdict");
    }

    @Test
    void theVerifierSuiteLoadsWithOneTaskAndTheHarborArm() throws IOException {
        Path suiteFile = task.resolve("tests/isobench/suite/isobench-harbor.yaml");
        Files.createDirectories(task.resolve("tests/isobench/work"));
        Files.writeString(task.resolve("tests/isobench/work/agent.diff"), "");
        Suite s = SuiteLoader.load(suiteFile);
        assertThat(s.tasks()).extracting(TaskSpec::id).containsExactly("topp-filter");
        assertThat(s.agents()).hasSize(1);
        assertThat(s.agents().getFirst().name()).isEqualTo(HarborExport.AGENT);
        assertThat(s.run().executor()).isEqualTo("local");
        assertThat(s.engine().localPath()).isEqualTo(task.resolve("tests/isobench/engine.bundle").toAbsolutePath()
                .normalize());
    }

    @Test
    void aGpuTaskCarriesTheOneLineNoteAndStillChecks() {
        TaskSpec t = TaskSpec.of("gpu-task", "b".repeat(40), "a".repeat(40),
                new TaskSpec.Workload("vllm bench latency --model m", "m", null, null));
        HarborExport.TaskFacts f = new HarborExport.TaskFacts("s", t, "vllm", "a".repeat(40), "c".repeat(40),
                "b".repeat(40), "latency_avg_s", true, "p", "0", "0", "none", 2, 4, 8192, 3600, 7200, List.of());
        String toml = HarborFiles.taskToml(f, new HarborExport.Options(List.of(), "base", "base", "verifier:1", null,
                "test"));
        assertThat(toml).contains("gpus = 2").contains("docker_image = \"verifier:1\"")
                .contains("gpu_note = \"" + HarborFiles.gpuNote(2) + "\"");
        assertThat(HarborFiles.gpuNote(2)).contains("Harbor's docker environment refuses GPU tasks")
                .contains("Modal, GKE, Daytona");
        Map<?, ?> env = (Map<?, ?>) Toml.parse(toml).get("environment");
        assertThat(env.get("gpus")).isEqualTo(2L);
    }

    @Test
    void namesAreSluggedToHarborsPattern() {
        for (String[] c : new String[][]{{"llama2c-real-history", "topp-filter"}, {"My Suite!", "t/1"},
                {"..x", "a..b"}, {"-", "_"}}) {
            String n = HarborFiles.name(c[0], c[1]);
            assertThat(HarborTaskChecker.ORG_NAME.matcher(n).matches()).as(n).isTrue();
            assertThat(n).doesNotContain("..");
        }
        assertThat(HarborFiles.name("My Suite!", "t/1")).isEqualTo("isobench/My-Suite-__t-1");
        assertThat(Set.of(HarborFiles.slug("..x"))).containsExactly("x");
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
