package io.isobench.loadgen;

import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one reader of {@code vllm bench serve} flags, for the CLI and for a task's serving client. */
class ServeFlagsTest {

    private static LoadgenConfig task(Map<String, String> flags, List<String> warnings) {
        return ServeFlags.workload(LoadgenConfig.builder().model("m").seed(7), flags, warnings::add).build();
    }

    @Test
    void aTasksGoodputTargetsReachItsServingClient() {
        // a task's --goodput ttft:500 tpot:50 (vLLM's nargs="+") arrives space-joined from the plan's client argv
        LoadgenConfig c = task(Map.of("goodput", "ttft:500 tpot:50", "request-rate", "4"), new ArrayList<>());
        assertThat(c.goodputSloMs()).containsExactly(Map.entry("ttft", 500.0), Map.entry("tpot", 50.0));
        assertThat(c.requestRate()).isEqualTo(4.0);
        assertThat(ClientConfig.ofArgv(List.of("--goodput", "ttft:500", "tpot:50", "--request-rate", "4")).loadgenFlags())
                .containsEntry("goodput", "ttft:500 tpot:50").containsEntry("request-rate", "4");
    }

    @Test
    void aTaskAndTheCliReadTheSameWorkloadFlagsAlike() {
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("num-prompts", "50");
        flags.put("max-concurrency", "4");
        flags.put("request-rate", "inf");
        flags.put("random-input-len", "32");
        flags.put("random-output-len", "16");
        flags.put("ignore-eos", "true");
        flags.put("seed", "3");
        Map<String, List<String>> cli = new LinkedHashMap<>();
        flags.forEach((k, v) -> cli.put(k, List.of(v)));
        cli.put("model", List.of("m"));
        LoadgenConfig fromCli = ServeFlags.parse(cli, w -> { }).build();
        LoadgenConfig fromTask = task(flags, new ArrayList<>());
        assertThat(fromTask.numPrompts()).isEqualTo(fromCli.numPrompts()).isEqualTo(50);
        assertThat(fromTask.maxConcurrency()).isEqualTo(fromCli.maxConcurrency()).isEqualTo(4);
        assertThat(fromTask.dataset()).isEqualTo(fromCli.dataset()).isEqualTo(DatasetSpec.random(32, 16, 0.0, 0));
        assertThat(fromTask.ignoreEos()).isEqualTo(fromCli.ignoreEos()).isTrue();
        assertThat(fromTask.seed()).isEqualTo(fromCli.seed()).isEqualTo(3);
    }

    @Test
    void burstinessInfIsVllmsConstantGapsOfOneOverTheRate() {
        LoadgenConfig c = task(Map.of("request-rate", "4", "burstiness", "inf", "num-prompts", "5"), new ArrayList<>());
        assertThat(c.burstiness()).isInfinite();
        assertThat(Arrivals.schedule(c, 5)).containsExactly(250_000_000L, 500_000_000L, 750_000_000L,
                1_000_000_000L, 1_250_000_000L);
        assertThat(task(Map.of("request-rate", "4", "burstiness", "1", "num-prompts", "5"), new ArrayList<>())
                .burstiness()).isEqualTo(1.0);
        assertThatThrownBy(() -> task(Map.of("burstiness", "0"), new ArrayList<>()))
                .hasMessageContaining("--burstiness (0.0) must be > 0 or inf");
    }

    @Test
    void aBadNumberIsOneLineNamingTheFlagAndTheFix() {
        for (String flag : List.of("num-prompts", "max-concurrency", "random-input-len", "burstiness", "seed")) {
            assertThatThrownBy(() -> task(Map.of(flag, "lots"), new ArrayList<>()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--" + flag + " 'lots' must be ")
                    .hasMessageContaining("(fix: e.g. --" + flag + " ")
                    .hasMessageNotContaining("\n");
        }
        assertThatThrownBy(() -> task(Map.of("request-rate", "fast"), new ArrayList<>()))
                .hasMessage("--request-rate 'fast' must be a number or inf (fix: e.g. --request-rate 10 or --request-rate inf)");
    }

    @Test
    void aTaskReadsOnlyWorkloadFlagsAndFallsBackToRandomForDatasetsItCannotMake() {
        List<String> warnings = new ArrayList<>();
        LoadgenConfig c = task(Map.of("dataset-name", "sonnet", "endpoint", "/v1/chat/completions",
                "temperature", "0.7", "num-prompts", "9"), warnings);
        assertThat(c.endpoint()).isEqualTo("/v1/completions");
        assertThat(c.sampling()).isEmpty();
        assertThat(c.numPrompts()).isEqualTo(9);
        assertThat(c.seed()).isEqualTo(7);
        assertThat(c.dataset()).isEqualTo(DatasetSpec.random(1024, 128, 0.0, 0));
        assertThat(warnings).singleElement().asString().contains("--dataset-name sonnet");
    }

    @Test
    void aTaskFileDatasetWithoutItsFileOrAFixedPromptIsRandomToo() {
        for (String ds : List.of("sharegpt", "custom", "fixed")) {
            List<String> warnings = new ArrayList<>();
            assertThat(task(Map.of("dataset-name", ds), warnings).dataset()).isEqualTo(DatasetSpec.random(1024, 128, 0.0, 0));
            assertThat(warnings).hasSize(1);
        }
    }

    @Test
    void sonnetAndPrefixRepetitionTakeVllmsFlagsAndDefaults() {
        Map<String, List<String>> cli = new LinkedHashMap<>();
        cli.put("model", List.of("m"));
        cli.put("dataset-name", List.of("sonnet"));
        cli.put("dataset-path", List.of("benchmarks/sonnet.txt"));
        assertThat(ServeFlags.parse(cli, w -> { }).build().dataset())
                .isEqualTo(DatasetSpec.sonnet(Path.of("benchmarks/sonnet.txt"), 550, 150, 200));
        cli.put("sonnet-input-len", List.of("256"));
        cli.put("sonnet-output-len", List.of("64"));
        cli.put("sonnet-prefix-len", List.of("100"));
        assertThat(ServeFlags.parse(cli, w -> { }).build().dataset())
                .isEqualTo(DatasetSpec.sonnet(Path.of("benchmarks/sonnet.txt"), 256, 64, 100));
        Map<String, List<String>> pr = new LinkedHashMap<>();
        pr.put("model", List.of("m"));
        pr.put("dataset-name", List.of("prefix_repetition"));
        assertThat(ServeFlags.parse(pr, w -> { }).build().dataset())
                .isEqualTo(DatasetSpec.prefixRepetition(256, 256, 10, 128));
        pr.put("prefix-repetition-prefix-len", List.of("512"));
        pr.put("prefix-repetition-suffix-len", List.of("64"));
        pr.put("prefix-repetition-num-prefixes", List.of("4"));
        pr.put("prefix-repetition-output-len", List.of("32"));
        assertThat(ServeFlags.parse(pr, w -> { }).build().dataset())
                .isEqualTo(DatasetSpec.prefixRepetition(512, 64, 4, 32));
        pr.put("prefix-repetition-num-prefixes", List.of("0"));
        assertThatThrownBy(() -> ServeFlags.parse(pr, w -> { }).build())
                .hasMessageStartingWith("--prefix-repetition-prefix-len (512) and -suffix-len (64)");
    }

    @Test
    void aTasksRelativeTokenizerIsTheArmsWhereItsWorktreeHoldsIt(@org.junit.jupiter.api.io.TempDir Path worktree)
            throws Exception {
        Path tk = io.isobench.SharedData.require("fixtures/tiny-llama-hf/tokenizer.json");
        Files.createDirectories(worktree.resolve("tok"));
        Files.copy(tk, worktree.resolve("tok/tokenizer.json"));
        List<String> warnings = new ArrayList<>();
        LoadgenConfig c = ServeFlags.workload(LoadgenConfig.builder().model("m"), Map.of("tokenizer", "tok"), worktree,
                worktree, warnings::add).build();
        assertThat(warnings).isEmpty();
        // read through a private copy (TreeFile), byte for byte
        assertThat(c.tokenizer()).isEqualTo(worktree.resolve("tokenizer/tokenizer.json"));
        assertThat(Files.mismatch(c.tokenizer(), tk)).isEqualTo(-1L);
        // not in the worktree: taken as written (a hub id here: not cached, so a warning and no tokenizer)
        LoadgenConfig hub = ServeFlags.workload(LoadgenConfig.builder().model("m"),
                Map.of("tokenizer", "no-such-org/no-such-model"), worktree, worktree, warnings::add).build();
        assertThat(hub.tokenizer()).isNull();
        assertThat(warnings).singleElement().asString().startsWith("--tokenizer no-such-org/no-such-model is not");
    }

    @Test
    void aTaskSonnetFileIsReadFromTheArmsWorktreeAndFallsBackToRandomWhereItIsNot(
            @org.junit.jupiter.api.io.TempDir Path worktree) throws Exception {
        Files.createDirectories(worktree.resolve("benchmarks"));
        Files.copy(ReplayDatasetsTest.SONNET, worktree.resolve("benchmarks/sonnet.txt"));
        Map<String, String> flags = Map.of("dataset-name", "sonnet", "dataset-path", "benchmarks/sonnet.txt",
                "sonnet-input-len", "256", "sonnet-output-len", "64", "num-prompts", "5");
        List<String> warnings = new ArrayList<>();
        Path scratch = Files.createDirectories(worktree.resolve("scratch"));
        LoadgenConfig c = ServeFlags.workload(LoadgenConfig.builder().model("m"), flags, worktree, scratch,
                warnings::add).build();
        assertThat(warnings).isEmpty();
        assertThat(c.dataset()).isEqualTo(DatasetSpec.sonnet(scratch.resolve("sonnet.txt"), 256, 64, 200));
        assertThat(Files.mismatch(scratch.resolve("sonnet.txt"), ReplayDatasetsTest.SONNET)).isEqualTo(-1L);
        Path other = worktree.resolve("other");
        Files.createDirectories(other);
        LoadgenConfig none = ServeFlags.workload(LoadgenConfig.builder().model("m"), flags, other, scratch,
                warnings::add).build();
        assertThat(none.dataset()).isEqualTo(DatasetSpec.random(1024, 128, 0.0, 0));
        assertThat(warnings).singleElement().asString()
                .isEqualTo("--dataset-name sonnet file " + other.resolve("benchmarks/sonnet.txt")
                        + " does not exist; random prompts instead");
        List<String> w2 = new ArrayList<>();
        LoadgenConfig pr = task(Map.of("dataset-name", "prefix_repetition", "prefix-repetition-num-prefixes", "2"), w2);
        assertThat(w2).isEmpty();
        assertThat(pr.dataset()).isEqualTo(DatasetSpec.prefixRepetition(256, 256, 2, 128));
    }

    @Test
    void theWorkloadFingerprintCarriesThePromptsDigestAlikeOnEveryRun() throws Exception {
        // the real load generator against the in-process streaming server; two "arms", one seed
        List<String> digests = new ArrayList<>();
        for (int arm = 0; arm < 2; arm++) {
            try (StreamingTestServer server = new StreamingTestServer(0, 1, 1, 0)) {
                LoadgenConfig c = LoadgenConfig.builder().baseUrl(URI.create(server.baseUrl())).model("test")
                        .dataset(DatasetSpec.prefixRepetition(16, 8, 2, 4)).numPrompts(6).seed(11).build();
                LoadgenResult r = LoadGenerator.run(c, null);
                assertThat(r.summary().completed()).isEqualTo(6);
                com.fasterxml.jackson.databind.node.ObjectNode w = r.workloadFingerprint();
                assertThat(w.path("dataset").asText()).isEqualTo("prefix_repetition:prefix=16,suffix=8,prefixes=2,out=4");
                digests.add(w.path("prompts_sha256").asText());
            }
        }
        assertThat(digests.get(0)).hasSize(64).isEqualTo(digests.get(1))
                .isEqualTo(Datasets.digest(Datasets.load(DatasetSpec.prefixRepetition(16, 8, 2, 4), 6, 11, 1.0, null)));
    }
}
