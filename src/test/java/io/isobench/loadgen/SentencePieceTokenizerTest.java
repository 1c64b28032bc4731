package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SentencePiece-style path of {@link BpeTokenizer} on the real Llama-2 vocabulary (32,000 tokens, from llama2.c's
 * tokenizer.bin via {@link Llama2Spm}), checked token for token against llama.cpp's ids on the committed corpus
 * ({@code src/test/resources/tokenizers/llama2/}: corpus.txt, llamacpp-ids.json; README.md says how the golden was
 * made; {@code SentencePieceReferenceIT} re-derives it live).
 */
class SentencePieceTokenizerTest {

    static List<String> corpusLines() throws IOException {
        String text = Files.readString(Llama2Spm.RESOURCES.resolve("corpus.txt"), StandardCharsets.UTF_8);
        return Arrays.asList(text.substring(0, text.length() - 1).split("\n", -1));
    }

    static String corpus() throws IOException {
        return Files.readString(Llama2Spm.RESOURCES.resolve("corpus.txt"), StandardCharsets.UTF_8);
    }

    static JsonNode golden() throws IOException {
        return new ObjectMapper().readTree(Llama2Spm.RESOURCES.resolve("llamacpp-ids.json").toFile());
    }

    static int[] ints(JsonNode a) {
        int[] out = new int[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).asInt();
        }
        return out;
    }

    @Test
    void legacyLlama2TokenizerMatchesLlamaCppOnEveryCorpusLineAndTheWholeFile() throws IOException {
        BpeTokenizer t = BpeTokenizer.load(Llama2Spm.tokenizerJson("legacy"));
        assertThat(t.sentencePiece()).isTrue();
        List<String> lines = corpusLines();
        JsonNode g = golden();
        assertThat(g.path("lines").size()).isEqualTo(lines.size()).isGreaterThanOrEqualTo(60);
        List<String> mismatches = new ArrayList<>();
        long tokens = 0;
        for (int i = 0; i < lines.size(); i++) {
            int[] want = ints(g.path("lines").get(i));
            int[] got = t.encode(lines.get(i), false);
            tokens += want.length;
            if (!Arrays.equals(got, want)) {
                mismatches.add("line " + (i + 1) + " '" + lines.get(i) + "': " + Arrays.toString(got) + " != llama.cpp "
                        + Arrays.toString(want));
            }
        }
        assertThat(mismatches).isEmpty();
        assertThat(tokens).isGreaterThan(1000);
        assertThat(t.encode(corpus(), false)).containsExactly(ints(g.path("whole")));
    }

    @Test
    void byteFallbackAndSpacesAreTheCasesTheCorpusCovers() throws IOException {
        BpeTokenizer t = BpeTokenizer.load(Llama2Spm.tokenizerJson("legacy"));
        // a newline and a tab are byte tokens (<0x0A>, <0x09>: ids 13 and 12); an emoji is four of them
        assertThat(t.encode("a\nb", false)).contains(13);
        assertThat(t.encode("\t", false)).containsExactly(29871, 12);
        int[] rocket = t.encode("🚀", false);
        assertThat(Arrays.stream(rocket).mapToObj(t::token).toList()).containsExactly("▁", "<0xF0>", "<0x9F>",
                "<0x9A>", "<0x80>");
        // the Prepend normalizer adds a "▁" to the text's own leading space: " Hello" is "▁" + "▁Hello"
        assertThat(t.encode(" Hello", false)).containsExactly(29871, 15043);
        assertThat(t.encode("Hello", true)).containsExactly(1, 15043);
        assertThat(t.specialTokenCount()).isEqualTo(1);
        assertThat(t.prependsSpace()).isTrue();
    }

    @Test
    void decodingGivesBackEveryCorpusLine() throws IOException {
        BpeTokenizer t = BpeTokenizer.load(Llama2Spm.tokenizerJson("legacy"));
        for (String line : corpusLines()) {
            assertThat(t.decode(t.encode(line, false))).as(line).isEqualTo(line);
        }
        assertThat(t.decode(t.encode(corpus(), false))).isEqualTo(corpus());
        // a byte run that is not UTF-8 decodes to one U+FFFD per byte (HF's ByteFallback decoder)
        assertThat(t.decode(new int[] {t.id("▁a"), t.id("<0xF0>"), t.id("<0x9F>"), t.id("▁b")}))
                .isEqualTo("a\uFFFD\uFFFD b");
    }

    @Test
    void metaspaceFormGivesTheSameIdsExceptThatItNeverDoublesALeadingSpace() throws IOException {
        BpeTokenizer legacy = BpeTokenizer.load(Llama2Spm.tokenizerJson("legacy"));
        BpeTokenizer meta = BpeTokenizer.load(Llama2Spm.tokenizerJson("metaspace"));
        JsonNode g = golden();
        List<String> lines = corpusLines();
        int leading = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.equals(" ")) {
                assertThat(meta.encode(line, false)).containsExactly(29871); // "▁" alone; llama.cpp: "▁▁"
            } else if (line.startsWith(" ")) {
                // Metaspace replaces ' ' first and prepends only when the text does not start with "▁" (HF)
                assertThat(meta.encode(line, false)).as(line).containsExactly(legacy.encode(line.substring(1), false));
                leading++;
            } else {
                assertThat(meta.encode(line, false)).as(line).containsExactly(ints(g.path("lines").get(i)));
            }
            assertThat(meta.decode(meta.encode(line, false))).as(line).isEqualTo(line.startsWith(" ") ? line.substring(1) : line);
        }
        assertThat(leading).isGreaterThanOrEqualTo(4);
    }

    @Test
    void randomPromptsAreExactTokenLengthsWithTheLlama2Tokenizer() {
        BpeTokenizer t = BpeTokenizer.load(Llama2Spm.tokenizerJson("legacy"));
        List<Prompt> prompts = Datasets.random(DatasetSpec.random(64, 8, 0.5, 16), 20, 3, t);
        assertThat(prompts).hasSize(20);
        for (Prompt p : prompts) {
            assertThat(p.text()).doesNotStartWith(" ");
            // intended length = what a server counting with this tokenizer reports (BOS included)
            assertThat(t.count(p.text(), true)).isEqualTo(p.expectedInputTokens());
            assertThat(p.expectedInputTokens()).isBetween(16 + 32 + 1, 16 + 96 + 1);
        }
    }

    @Test
    void metaspaceSplitUnknownTokensAndTheMetaspaceDecoder(@TempDir Path dir) throws IOException {
        // a hand-made Mistral-shaped file (no ../shared needed): Metaspace with split, fuse_unk, a Metaspace decoder
        Path f = dir.resolve("tokenizer.json");
        Files.writeString(f, """
                {"added_tokens":[{"id":0,"content":"<unk>","special":true},{"id":1,"content":"<s>","special":true}],
                 "normalizer":null,
                 "pre_tokenizer":{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always","split":true},
                 "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},
                    {"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},
                 "decoder":{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"always","split":true},
                 "model":{"type":"BPE","unk_token":"<unk>","fuse_unk":true,"byte_fallback":false,
                    "vocab":{"<unk>":0,"<s>":1,"\u2581":2,"a":3,"b":4,"\u2581a":5,"\u2581b":6,"\u2581\u2581":7},
                    "merges":[["\u2581","a"],["\u2581","b"],["\u2581","\u2581"]]}}""");
        BpeTokenizer t = BpeTokenizer.load(f);
        assertThat(t.sentencePiece()).isTrue();
        // split: "▁a▁▁b" is cut into "▁a", "▁", "▁b" before BPE, so "▁▁" is never formed
        assertThat(t.encode("a  b", false)).containsExactly(5, 2, 6);
        // unknown characters: one fused <unk> for "xyz"
        assertThat(t.encode("axyzb", false)).containsExactly(5, 0, 4);
        assertThat(t.encode("a", true)).containsExactly(1, 5);
        // the Metaspace decoder drops the first token's "▁" and turns the others into spaces
        assertThat(t.decode(new int[] {5, 2, 6})).isEqualTo("a  b");
        // "always": every segment between added tokens gets its "▁"
        assertThat(t.encode("a<s>b", false)).containsExactly(5, 1, 6);
    }
}
