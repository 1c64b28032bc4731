package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Re-derives the Llama-2 SentencePiece golden live: the real llama.cpp (node-llama-cpp from
 * tools/llm-server/node_modules, vocabulary-only load of the GGUF that {@code spm_reference.py} writes from llama2.c's
 * tokenizer.bin) tokenizes the committed corpus through {@code tools/llm-server/tokenize.mjs}; its ids must equal the
 * committed {@code llamacpp-ids.json} and isobench's pure-Java tokenizer on the generated {@code tokenizer.json}.
 */
class SentencePieceReferenceIT {

    @Test
    void llamaCppIdsEqualTheCommittedGoldenAndThePureJavaTokenizer() throws Exception {
        Path dir = Path.of("tools", "llm-server").toAbsolutePath();
        SharedData.requireService(Files.isDirectory(dir.resolve("node_modules/node-llama-cpp")) && Llama2Spm.onPath("node"),
                "node + node-llama-cpp in tools/llm-server/node_modules (scripts/provision runs npm install there)");
        Path gguf = Llama2Spm.gguf().toAbsolutePath();
        Path corpus = Llama2Spm.RESOURCES.resolve("corpus.txt").toAbsolutePath();
        Path out = Llama2Spm.WORK.resolve("llamacpp-ids-live.json").toAbsolutePath();
        Files.deleteIfExists(out);
        Llama2Spm.run(List.of("node", dir.resolve("tokenize.mjs").toString(), "--model", gguf.toString(), "--corpus",
                corpus.toString(), "--out", out.toString()));
        ObjectMapper json = new ObjectMapper();
        JsonNode live = json.readTree(out.toFile());
        JsonNode golden = SentencePieceTokenizerTest.golden();
        assertThat(live).isEqualTo(golden);
        BpeTokenizer t = BpeTokenizer.load(Llama2Spm.tokenizerJson("legacy"));
        List<String> lines = SentencePieceTokenizerTest.corpusLines();
        for (int i = 0; i < lines.size(); i++) {
            int[] want = SentencePieceTokenizerTest.ints(live.path("lines").get(i));
            assertThat(t.encode(lines.get(i), false)).as("line %d: %s", i + 1, lines.get(i)).containsExactly(want);
        }
        assertThat(t.encode(SentencePieceTokenizerTest.corpus(), false))
                .containsExactly(SentencePieceTokenizerTest.ints(live.path("whole")));
        System.err.println("SentencePieceReferenceIT: " + lines.size() + " lines, "
                + Arrays.stream(SentencePieceTokenizerTest.ints(live.path("whole"))).count()
                + " tokens for the whole corpus: llama.cpp = golden = isobench");
    }
}
