package io.isobench.loadgen;

import io.isobench.cli.Main;
import io.isobench.task.ParsedPerfCommand;
import io.isobench.task.PerfCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --tokenizer ORG/NAME} (and {@code --model ORG/NAME}, vLLM's default tokenizer) from a local HuggingFace hub
 * cache laid out in a temp dir as huggingface_hub writes it (snapshots holding links into blobs, refs/main).
 */
@Isolated("it sets the JVM's user.home, which other tests read: nothing runs beside it (ItLocks)")
class HfCacheTest {

    private String savedHome;

    /** A cache at {@code root/hub} with one snapshot of {@code repo} whose tokenizer.json links to a blob. */
    static Path snapshot(Path hub, String repo, String rev, String json) throws IOException {
        Path r = hub.resolve("models--" + repo.replace("/", "--"));
        Path blob = r.resolve("blobs").resolve("blob-" + rev);
        Files.createDirectories(blob.getParent());
        Files.writeString(blob, json);
        Path f = r.resolve("snapshots").resolve(rev).resolve("tokenizer.json");
        Files.createDirectories(f.getParent());
        Files.createSymbolicLink(f, f.getParent().relativize(blob));
        return f;
    }

    @AfterEach
    void restoreHome() {
        if (savedHome != null) {
            System.setProperty("user.home", savedHome);
        }
    }

    /** Points {@code ~} at {@code home} for this test (skipped where HF_HOME/HF_HUB_CACHE would win over it). */
    private void home(Path home) {
        Assumptions.assumeTrue(System.getenv("HF_HOME") == null && System.getenv("HF_HUB_CACHE") == null,
                "skipped: HF_HOME or HF_HUB_CACHE is set in this environment");
        savedHome = System.getProperty("user.home");
        System.setProperty("user.home", home.toString());
    }

    @Test
    void hubFolderFollowsHuggingfaceHubsRule() {
        assertThat(HfCache.hubDir(Map.of(), "/home/u")).isEqualTo(Path.of("/home/u/.cache/huggingface/hub"));
        assertThat(HfCache.hubDir(Map.of("HF_HOME", "/data/hf"), "/home/u")).isEqualTo(Path.of("/data/hf/hub"));
        assertThat(HfCache.hubDir(Map.of("HF_HOME", "/data/hf", "HF_HUB_CACHE", "/fast/hub"), "/home/u"))
                .isEqualTo(Path.of("/fast/hub"));
        assertThat(HfCache.isRepoId("meta-llama/Llama-2-7b-hf")).isTrue();
        assertThat(HfCache.isRepoId("mistralai/Mistral-7B-v0.1")).isTrue();
        assertThat(HfCache.isRepoId("/abs/path")).isFalse();
        assertThat(HfCache.isRepoId("tokenizer.json")).isFalse();
        assertThat(HfCache.isRepoId("a/b/c")).isFalse();
    }

    @Test
    void refsMainWinsElseTheNewestSnapshotAndAMissOneNamesThePathsTried(@TempDir Path dir) throws IOException {
        Path hub = dir.resolve("hub");
        Path old = snapshot(hub, "meta-llama/Llama-2-7b-hf", "aaa111", "{}");
        Path newer = snapshot(hub, "meta-llama/Llama-2-7b-hf", "bbb222", "{}");
        Files.setLastModifiedTime(old.getParent(), FileTime.fromMillis(1_000_000));
        Files.setLastModifiedTime(newer.getParent(), FileTime.fromMillis(2_000_000));
        assertThat(HfCache.find("meta-llama/Llama-2-7b-hf", hub).tokenizerJson()).isEqualTo(newer);
        Path refs = hub.resolve("models--meta-llama--Llama-2-7b-hf/refs");
        Files.createDirectories(refs);
        Files.writeString(refs.resolve("main"), "aaa111");
        HfCache.Lookup l = HfCache.find("meta-llama/Llama-2-7b-hf", hub);
        assertThat(l.tokenizerJson()).isEqualTo(old);
        assertThat(Files.readString(l.tokenizerJson())).isEqualTo("{}"); // through the link into blobs
        // refs/main naming a snapshot without the file: the newest one that has it
        Files.writeString(refs.resolve("main"), "ccc333");
        assertThat(HfCache.find("meta-llama/Llama-2-7b-hf", hub).tokenizerJson()).isEqualTo(newer);
        HfCache.Lookup miss = HfCache.find("mistralai/Mistral-7B-v0.1", hub);
        assertThat(miss.tokenizerJson()).isNull();
        assertThat(miss.triedText()).isEqualTo("tried " + hub.resolve("models--mistralai--Mistral-7B-v0.1/snapshots/*/tokenizer.json"));
    }

    @Test
    void tokenizerHubIdIsReadFromTheCacheAndAMissIsOneWarningLine(@TempDir Path dir) throws IOException {
        home(dir);
        Path hub = dir.resolve(".cache/huggingface/hub");
        Path json = snapshot(hub, "meta-llama/Llama-2-7b-hf", "abc", "{}");
        List<String> warnings = new ArrayList<>();
        LoadgenConfig.Builder b = ServeFlags.parse(Map.of("tokenizer", List.of("meta-llama/Llama-2-7b-hf"),
                "model", List.of("m")), warnings::add);
        assertThat(b.build().tokenizer()).isEqualTo(json);
        assertThat(warnings).isEmpty();
        ServeFlags.parse(Map.of("tokenizer", List.of("meta-llama/Llama-2-13b-hf")), warnings::add);
        assertThat(warnings).containsExactly("--tokenizer meta-llama/Llama-2-13b-hf is not a local tokenizer.json (or a"
                + " directory with one) nor in the local HuggingFace cache (tried "
                + hub.resolve("models--meta-llama--Llama-2-13b-hf/snapshots/*/tokenizer.json")
                + "); prompt lengths are checked against the server's counts instead");
        // --model alone: vLLM's default tokenizer is the model's
        assertThat(ServeFlags.parse(Map.of("model", List.of("meta-llama/Llama-2-7b-hf")), warnings::add).build()
                .tokenizer()).isEqualTo(json);
        assertThat(ServeFlags.parse(Map.of("model", List.of("org/not-cached")), warnings::add).build().tokenizer()).isNull();
        assertThat(warnings).hasSize(1);
    }

    @Test
    void isoBenchCommandWithASentencePieceModelLintsCleanAndReplaysWithTheCachedTokenizer(@TempDir Path dir)
            throws IOException {
        home(dir);
        Path hub = dir.resolve(".cache/huggingface/hub");
        String legacy = Files.readString(Llama2Spm.tokenizerJson("legacy"));
        Path llama = snapshot(hub, "meta-llama/Llama-2-7b-hf", "01c7f73d771dfac7d292323805ebc428287df4f9", legacy);
        Path mistral = snapshot(hub, "mistralai/Mistral-7B-v0.1", "26bca36bde8333b5d7f72e9ed20ccda6a618af24", legacy);
        // the shape of ISO-Bench's `vllm bench serve ... --tokenizer Qwen/Qwen2.5-1.5B-Instruct` commands
        for (String cmd : List.of(
                "vllm bench serve --model meta-llama/Llama-2-7b-hf --tokenizer meta-llama/Llama-2-7b-hf --request-rate 1"
                        + " --num-prompts 6 --random-input-len 200 --random-output-len 10 --ignore-eos",
                "python benchmarks/benchmark_serving.py --model mistralai/Mistral-7B-v0.1 --dataset-name random"
                        + " --random-input-len 200 --random-output-len 10 --num-prompts 6 --seed 0")) {
            ParsedPerfCommand p = PerfCommand.parse(cmd);
            assertThat(p.findings()).as(cmd).isEmpty();
            Map<String, String> flags = p.client().loadgenFlags();
            List<String> warnings = new ArrayList<>();
            LoadgenConfig c = ServeFlags.workload(LoadgenConfig.builder().model(flags.get("model")), flags, dir, dir,
                    warnings::add).build();
            assertThat(warnings).isEmpty();
            assertThat(c.tokenizer()).isEqualTo(cmd.contains("Mistral") ? mistral : llama);
            // replayed with the same arguments: exact-length prompts counted with the model's own tokenizer
            BpeTokenizer t = BpeTokenizer.load(c.tokenizer());
            List<Prompt> prompts = Datasets.load(c.dataset(), 6, c.seed(), 1.0, t);
            for (Prompt q : prompts) {
                assertThat(q.expectedInputTokens()).isEqualTo(200 + 1); // + BOS
                assertThat(t.count(q.text(), true)).isEqualTo(201);
            }
        }
    }

    @Test
    void isobenchLoadgenWithAHubIdRunsWithTheCachedSentencePieceTokenizer(@TempDir Path dir) throws Exception {
        home(dir);
        Path json = snapshot(dir.resolve(".cache/huggingface/hub"), "meta-llama/Llama-2-7b-hf", "rev1",
                Files.readString(Llama2Spm.tokenizerJson("legacy")));
        try (StreamingTestServer server = new StreamingTestServer(0, 1, 0, 0)) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true),
                    new String[] {"loadgen", "--base-url", server.baseUrl(), "--model", "llama", "--tokenizer",
                            "meta-llama/Llama-2-7b-hf", "--dataset-name", "random", "--random-input-len", "40",
                            "--random-output-len", "2", "--num-prompts", "4", "--save-result", "--result-dir",
                            dir.toString(), "--result-filename", "r.json"});
            assertThat(code).as(err.toString()).isZero();
            assertThat(err.toString()).contains("random prompts built with the tokenizer " + json)
                    .doesNotContain("HuggingFace cache");
            assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(dir.resolve("r.json").toFile())
                    .path("tokenizer_id").asText()).isEqualTo(json.toString());
        }
    }
}
