package io.isobench.loadgen;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Against the real tiny-llama tokenizer.json (GPT-2-style byte-level BPE, 512 entries, 254 merges). Expected ids were
 * derived with GPT-2's own encoder.py algorithm (bytes_to_unicode, min-rank pair merging) over that file's vocab and
 * merges; LlamaCppServerIT compares counts with the llama.cpp server's usage.prompt_tokens.
 */
class BpeTokenizerTest {

    static BpeTokenizer tiny() {
        return BpeTokenizer.load(SharedData.require("fixtures/tiny-llama-hf/tokenizer.json"));
    }

    @Test
    void knownIdsFromTheVocabAndMerges() {
        BpeTokenizer t = tiny();
        assertThat(t.encode("Hello world", false)).containsExactly(41, 70, 357, 80, 279, 264, 77, 69);
        assertThat(t.encode("the quick brown fox jumps over the lazy dog", false)).containsExactly(
                503, 222, 435, 274, 76, 301, 297, 88, 79, 287, 80, 89, 222, 75, 506, 81, 84, 270, 310, 266, 314, 66, 91,
                90, 471, 72);
        // two spaces: the GPT-2 regex keeps a lone " " before " are"; digits are single tokens here
        assertThat(t.encode(" there  are 12345 cats!!", false)).containsExactly(
                260, 486, 222, 457, 499, 19, 20, 21, 22, 272, 282, 84, 2, 2);
        assertThat(t.encode("It's a test, isn't it?", false)).containsExactly(
                42, 85, 8, 84, 261, 258, 292, 85, 13, 331, 79, 8, 85, 349, 32);
        // non-ASCII goes through the byte-level alphabet (ï = C3 AF -> 'Ã', '¯')
        assertThat(t.encode("naïve café", false)).containsExactly(79, 66, 129, 109, 323, 272, 66, 71, 129, 104);
    }

    @Test
    void vocabularyEntriesAndSpecialTokens() {
        BpeTokenizer t = tiny();
        assertThat(t.id("Ġthe")).isEqualTo(266);
        assertThat(t.token(266)).isEqualTo("Ġthe");
        assertThat(t.encode("<s>hi</s>", false)).startsWith(0).endsWith(1);
        assertThat(t.specialTokenCount()).isZero(); // its TemplateProcessing adds nothing around a single sequence
        assertThat(t.encode("", true)).isEmpty();
    }

    @Test
    void decodeInvertsEncode() {
        BpeTokenizer t = tiny();
        for (String s : List.of("Hello world", "naïve café 😀", " leading and  double  spaces\nnew line\t tab", "x")) {
            assertThat(t.decode(t.encode(s, false))).isEqualTo(s);
        }
    }

    @Test
    void randomPromptsHaveExactTokenLengths() {
        BpeTokenizer t = tiny();
        List<Prompt> ps = Datasets.random(DatasetSpec.random(50, 8, 0.5, 7), 40, 3, t);
        assertThat(ps).hasSize(40);
        for (Prompt p : ps) {
            int n = t.count(p.text(), true);
            assertThat(n).isEqualTo(p.expectedInputTokens());
            assertThat(n).isBetween(25 + 7, 75 + 7);
        }
        assertThat(ps.stream().map(Prompt::expectedInputTokens).distinct().count()).isGreaterThan(5);
        // seeded: the same list again
        assertThat(Datasets.random(DatasetSpec.random(50, 8, 0.5, 7), 40, 3, t)).isEqualTo(ps);
    }

    @Test
    void unsupportedTokenizersAreConfigErrors(@TempDir Path dir) throws IOException {
        Path wp = dir.resolve("wordpiece.json");
        Files.writeString(wp, "{\"model\":{\"type\":\"WordPiece\",\"vocab\":{}}}");
        assertThatThrownBy(() -> BpeTokenizer.load(wp)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("WordPiece").hasMessageContaining(wp.toString());
        Path uni = dir.resolve("unigram.json");
        Files.writeString(uni, "{\"model\":{\"type\":\"Unigram\",\"vocab\":[]},\"pre_tokenizer\":{\"type\":\"Metaspace\"}}");
        assertThatThrownBy(() -> BpeTokenizer.load(uni)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unigram");
        // a BPE with neither a ByteLevel pre-tokenizer nor SentencePiece settings (Metaspace, Prepend, byte_fallback)
        Path bare = dir.resolve("bare.json");
        Files.writeString(bare, "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}");
        assertThatThrownBy(() -> BpeTokenizer.load(bare)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("neither a ByteLevel pre-tokenizer nor a SentencePiece-style");
        assertThatThrownBy(() -> BpeTokenizer.load(dir.resolve("missing.json")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not exist");
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{nope");
        assertThatThrownBy(() -> BpeTokenizer.load(bad)).hasMessageContaining("not valid JSON");
    }

    @Test
    void templateSpecialTokensAndStringMergesAndSplitRegex(@TempDir Path dir) throws IOException {
        // a Llama-3-like layout: Split(regex) then ByteLevel(use_regex=false), "a b" string merges, a BOS template
        Path f = dir.resolve("tokenizer.json");
        Files.writeString(f, """
                {"added_tokens":[{"id":5,"content":"<|bos|>","special":true}],
                 "normalizer":null,
                 "pre_tokenizer":{"type":"Sequence","pretokenizers":[
                    {"type":"Split","pattern":{"Regex":" ?[a-z]+|\\\\s+"},"behavior":"Isolated","invert":false},
                    {"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]},
                 "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<|bos|>","type_id":0}},
                    {"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"<|bos|>":{"id":"<|bos|>","ids":[5],"tokens":["<|bos|>"]}}},
                 "model":{"type":"BPE","ignore_merges":false,"vocab":{"a":0,"b":1,"Ġ":2,"ab":3,"Ġab":4},
                    "merges":["a b","Ġ ab"]}}""");
        BpeTokenizer t = BpeTokenizer.load(f);
        assertThat(t.encode("ab ab", true)).containsExactly(5, 3, 4);
        assertThat(t.encode("ab ab", false)).containsExactly(3, 4);
        assertThat(t.specialTokenCount()).isEqualTo(1);
    }
}
