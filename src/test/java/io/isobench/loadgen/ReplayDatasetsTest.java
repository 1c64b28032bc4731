package io.isobench.loadgen;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * vLLM's sonnet and prefix_repetition datasets (docs/loadgen.md): the recipe, the token budgets against the real
 * tiny-llama tokenizer.json from ../shared, determinism, and golden digests of the prompts (Datasets.digest) — a change
 * to any byte of any prompt changes the digest, so a change of what arms are sent cannot pass unnoticed.
 */
class ReplayDatasetsTest {

    static final Path SONNET = Path.of("src/test/resources/sonnet/sonnet.txt");

    // Golden: Datasets.digest of the prompts below. A deliberate change of the recipe rewrites these (and says so).
    static final String SONNET_GOLDEN = "db6d0b31bc7124573ad04a06fc74dd94089581877dfdd4060701756fc72ae3d1";
    static final String PREFIX_GOLDEN = "78a881e2a1feb88f960e48afb1f9d8aa21aa698a540e9934be665acf3e533d78";
    static final String SONNET_TK_GOLDEN = "00abd68d388cf39b79c378ec7365390eea3ffb3abcd4be89e8bf2d4bbf6907cf";
    static final String PREFIX_TK_GOLDEN = "bc7a33b7cab62ef47393d9fa5c093219fd9f76da2c9f6cc55b21c73c63ce4f78";

    private static BpeTokenizer tiny() {
        return BpeTokenizer.load(SharedData.require("fixtures/tiny-llama-hf/tokenizer.json"));
    }

    @Test
    void sonnetIsTheBaseInstructionThenTheLeadingLinesThenLinesDrawnFromTheFile() throws Exception {
        List<String> lines = ReplayDatasets.poemLines(DatasetSpec.sonnet(SONNET, 1, 1, 0));
        assertThat(lines).hasSize(42).allSatisfy(l -> assertThat(l).endsWith("\n"));
        // no tokenizer: 4 characters a token; base = 14, avg line ≈ 10.4 → round(186/avg) prefix lines
        DatasetSpec spec = DatasetSpec.sonnet(SONNET, 300, 150, 200);
        List<Prompt> ps = Datasets.load(spec, 40, 0, 1.0, null);
        assertThat(ps).hasSize(40);
        int base = Datasets.estimateTokens(ReplayDatasets.SONNET_BASE);
        double avg = lines.stream().mapToInt(Datasets::estimateTokens).average().orElseThrow();
        int numPrefix = (int) Math.rint((200 - base) / avg);
        int numInput = (int) Math.rint((300 - base) / avg);
        String head = ReplayDatasets.SONNET_BASE + String.join("", lines.subList(0, numPrefix));
        assertThat(numPrefix).isBetween(10, 30);
        for (Prompt p : ps) {
            assertThat(p.text()).startsWith(head);
            assertThat(Datasets.estimateTokens(p.text())).isLessThanOrEqualTo(300);
            assertThat(p.outputLen()).isEqualTo(150);
            assertThat(p.expectedInputTokens()).isEqualTo(-1);
            String rest = p.text().substring(head.length());
            int drawn = 0;
            for (String l : rest.split("(?<=\n)")) {
                assertThat(lines).contains(l);
                drawn++;
            }
            assertThat(drawn).isEqualTo(numInput - numPrefix);
        }
        assertThat(ps.stream().map(Prompt::text).distinct().count()).isGreaterThan(30);
        assertThat(Datasets.digest(ps)).isEqualTo(SONNET_GOLDEN);
    }

    @Test
    void theSameSeedGivesTheSameBytesAndAnotherSeedOthers() {
        DatasetSpec sonnet = DatasetSpec.sonnet(SONNET, 550, 150, 200);
        DatasetSpec prefix = DatasetSpec.prefixRepetition(256, 256, 10, 128);
        for (DatasetSpec spec : List.of(sonnet, prefix)) {
            String a = Datasets.digest(Datasets.load(spec, 100, 7, 1.0, null));
            assertThat(Datasets.digest(Datasets.load(spec, 100, 7, 1.0, null))).isEqualTo(a);
            assertThat(Datasets.digest(Datasets.load(spec, 100, 8, 1.0, null))).isNotEqualTo(a);
        }
        assertThat(Datasets.digest(Datasets.load(prefix, 100, 0, 1.0, null))).isEqualTo(PREFIX_GOLDEN);
    }

    @Test
    void sonnetWithATokenizerStaysWithinTheBudgetByLessThanALineOrTwo() {
        BpeTokenizer tk = tiny();
        List<String> lines = ReplayDatasets.poemLines(DatasetSpec.sonnet(SONNET, 1, 1, 0));
        int maxLine = lines.stream().mapToInt(l -> tk.count(l, true)).max().orElseThrow();
        for (int budget : List.of(256, 550, 1024)) {
            List<Prompt> ps = Datasets.load(DatasetSpec.sonnet(SONNET, budget, 64, 200), 50, 0, 1.0, tk);
            for (Prompt p : ps) {
                int n = tk.count(p.text(), true);
                assertThat(p.expectedInputTokens()).isEqualTo(n);
                assertThat(n).isLessThanOrEqualTo(budget);
            }
            double mean = ps.stream().mapToInt(Prompt::expectedInputTokens).average().orElseThrow();
            // lines are drawn by the average line length: the prompts land within a couple of lines of the budget
            assertThat(mean).as("mean length at budget %d (max line %d tokens)", budget, maxLine)
                    .isGreaterThan(budget - 2.0 * maxLine);
        }
        assertThat(Datasets.digest(Datasets.load(DatasetSpec.sonnet(SONNET, 550, 150, 200), 100, 0, 1.0, tk)))
                .isEqualTo(SONNET_TK_GOLDEN);
    }

    @Test
    void prefixRepetitionWithATokenizerHasExactLengthsAndEachPrefixRepeated() {
        BpeTokenizer tk = tiny();
        DatasetSpec spec = DatasetSpec.prefixRepetition(64, 32, 5, 16);
        List<Prompt> ps = Datasets.load(spec, 50, 3, 1.0, tk);
        assertThat(ps).hasSize(50);
        Map<String, Integer> perPrefix = new HashMap<>();
        List<String> suffixes = new ArrayList<>();
        for (Prompt p : ps) {
            int[] ids = tk.encode(p.text(), false);
            assertThat(ids).hasSize(96);
            assertThat(p.expectedInputTokens()).isEqualTo(96 + tk.specialTokenCount());
            assertThat(p.outputLen()).isEqualTo(16);
            perPrefix.merge(tk.decode(Arrays.copyOf(ids, 64)), 1, Integer::sum);
            suffixes.add(tk.decode(Arrays.copyOfRange(ids, 64, 96)));
        }
        assertThat(perPrefix).hasSize(5).allSatisfy((k, v) -> assertThat(v).isEqualTo(10));
        assertThat(suffixes.stream().distinct().count()).isEqualTo(50);
        // shuffled: the first ten are not all one prefix
        assertThat(ps.subList(0, 10).stream().map(p -> p.text().substring(0, 40)).distinct().count()).isGreaterThan(1);
        assertThat(Datasets.digest(Datasets.load(DatasetSpec.prefixRepetition(256, 256, 10, 128), 100, 0, 1.0, tk)))
                .isEqualTo(PREFIX_TK_GOLDEN);
    }

    @Test
    void prefixRepetitionCyclesARemainderAndRefusesMorePrefixesThanPrompts() {
        List<Prompt> ps = Datasets.load(DatasetSpec.prefixRepetition(8, 8, 3, 4), 10, 0, 1.0, null);
        assertThat(ps).hasSize(10);
        assertThat(ps.get(9)).isEqualTo(ps.get(0)); // 3 × 3 made, the tenth is the first again
        assertThat(ps.subList(0, 9).stream().map(Prompt::text).distinct().count()).isEqualTo(9);
        assertThatThrownBy(() -> Datasets.load(DatasetSpec.prefixRepetition(8, 8, 11, 4), 10, 0, 1.0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--prefix-repetition-num-prefixes (11) is more than the 10 prompts to make (fix: raise --num-prompts)");
    }

    @Test
    void sonnetConfigErrorsNameTheFlag(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> Datasets.load(DatasetSpec.sonnet(dir.resolve("none.txt"), 550, 150, 200), 1, 0, 1.0, null))
                .hasMessage("dataset file " + dir.resolve("none.txt") + " does not exist");
        assertThatThrownBy(() -> Datasets.load(DatasetSpec.sonnet(SONNET, 10, 150, 200), 1, 0, 1.0, null))
                .hasMessage("--sonnet-input-len (10) must be more than the 14 tokens of the base instruction");
        Path empty = Files.writeString(dir.resolve("empty.txt"), "");
        assertThatThrownBy(() -> Datasets.load(DatasetSpec.sonnet(empty, 550, 150, 200), 1, 0, 1.0, null))
                .hasMessage("dataset file " + empty + " has no lines");
        // a prefix longer than the budget: vLLM loops forever; here it is a config error
        assertThatThrownBy(() -> Datasets.load(DatasetSpec.sonnet(SONNET, 100, 150, 400), 1, 0, 1.0, null))
                .hasMessageStartingWith("--dataset-name sonnet: no draw of 0 lines after the 34 prefix lines fits");
        assertThatThrownBy(() -> DatasetSpec.sonnet(null, 550, 150, 200).validate())
                .hasMessageContaining("needs --dataset-path");
        assertThatThrownBy(() -> DatasetSpec.prefixRepetition(0, 0, 10, 128).validate())
                .hasMessageStartingWith("--prefix-repetition-prefix-len (0) and -suffix-len (0)");
    }
}
