package io.isobench;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the bundled demo engine (examples/toy-engine) consistent: the repository builds reproducibly, every patch
 * applies (or fails, or is empty) as designed, and the benchmark scripts print vLLM's formats. The measured effects
 * are checked by examples/toy-engine/selfcheck.py, which takes about a minute.
 */
class ToyEngineExampleTest {

    private static final Path EXAMPLE = Path.of("examples", "toy-engine").toAbsolutePath();
    private static final Pattern TASK_LINE = Pattern.compile(
            "task=(tpot|latency|throughput) parent=([0-9a-f]{40}) human=([0-9a-f]{40}) tag=task-\\1");

    @TempDir
    static Path tmp;

    private static Path repo;
    private static String mapping;

    @BeforeAll
    static void build() throws Exception {
        repo = tmp.resolve("repo");
        mapping = run(EXAMPLE, 0, "bash", EXAMPLE.resolve("build-repo.sh").toString(), repo.toString());
    }

    @Test
    void buildRepoPrintsOneLinePerTaskWithTheBaselineAsParent() {
        List<String> lines = mapping.lines().toList();
        assertThat(lines).hasSize(3);
        String parent = null;
        for (String line : lines) {
            Matcher m = TASK_LINE.matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            parent = parent == null ? m.group(2) : parent;
            assertThat(m.group(2)).isEqualTo(parent);
            assertThat(m.group(3)).isNotEqualTo(parent);
        }
    }

    @Test
    void buildRepoIsReproducibleAndReplacesItsOwnEarlierBuild() throws Exception {
        Path other = tmp.resolve("again");
        String first = run(EXAMPLE, 0, "bash", EXAMPLE.resolve("build-repo.sh").toString(), other.toString());
        String second = run(EXAMPLE, 0, "bash", EXAMPLE.resolve("build-repo.sh").toString(), other.toString());
        assertThat(first).isEqualTo(mapping).isEqualTo(second);
        String humanParent = run(repo, 0, "git", "rev-parse", "task-latency^").strip();
        assertThat(mapping).contains("parent=" + humanParent);
    }

    @Test
    void buildRepoRefusesAForeignNonEmptyFolder() throws Exception {
        Path foreign = Files.createDirectories(tmp.resolve("foreign"));
        Files.writeString(foreign.resolve("keep.txt"), "mine");
        run(EXAMPLE, 2, "bash", EXAMPLE.resolve("build-repo.sh").toString(), foreign.toString());
        assertThat(foreign.resolve("keep.txt")).hasContent("mine");
    }

    @Test
    void agentPatchesApplyFailOrAreEmptyAsDesigned() throws Exception {
        List<Path> patches;
        try (Stream<Path> s = Files.walk(EXAMPLE.resolve("patches/agents"))) {
            patches = s.filter(p -> p.toString().endsWith(".patch")).sorted().toList();
        }
        assertThat(patches).hasSize(12);
        for (Path p : patches) {
            String id = EXAMPLE.resolve("patches/agents").relativize(p).toString();
            switch (id) {
                case "delta/latency.patch" -> assertThat(Files.size(p)).as(id).isZero();
                case "delta/tpot.patch" -> run(repo, 1, "git", "apply", "--check", p.toString());
                default -> run(repo, 0, "git", "apply", "--check", p.toString());
            }
        }
    }

    @Test
    void demoSuiteNamesOnlyExistingPatches() throws IOException {
        String suite = Files.readString(EXAMPLE.resolve("demo-suite.yaml"));
        Matcher m = Pattern.compile("(patches/agents/\\S+\\.patch)").matcher(suite);
        int n = 0;
        while (m.find()) {
            assertThat(EXAMPLE.resolve(m.group(1))).isRegularFile();
            n++;
        }
        assertThat(n).isEqualTo(12);
    }

    @Test
    void benchmarkScriptsPrintVllmFormats() throws Exception {
        String tp = run(repo, 0, python(), "benchmarks/benchmark_throughput.py", "--input-len", "4", "--output-len",
                "4", "--num-prompts", "2", "--seed", "0");
        assertThat(tp).containsPattern("(?m)^Throughput: \\d+\\.\\d{2} requests/s, \\d+\\.\\d{2} total tokens/s, "
                        + "\\d+\\.\\d{2} output tokens/s$")
                .contains("Total num prompt tokens:  8\n", "Total num output tokens:  8\n");
        String lat = run(repo, 0, python(), "benchmarks/benchmark_latency.py", "--input-len", "4", "--output-len", "2",
                "--batch-size", "1", "--num-iters", "2", "--num-iters-warmup", "0");
        assertThat(lat).containsPattern("(?m)^Avg latency: [0-9.e-]+ seconds$");
        for (int pct : new int[] {10, 25, 50, 75, 90, 99}) {
            assertThat(lat).containsPattern("(?m)^" + pct + "% percentile latency: [0-9.e-]+ seconds$");
        }
    }

    private static String python() {
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    private static String run(Path dir, int expectedExit, String... argv) throws Exception {
        Process p = new ProcessBuilder(new ArrayList<>(List.of(argv))).directory(dir.toFile())
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(String.join(" ", argv) + "\n" + text).isEqualTo(expectedExit);
        return text;
    }
}
