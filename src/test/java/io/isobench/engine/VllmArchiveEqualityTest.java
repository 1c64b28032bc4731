package io.isobench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.OutputParser;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Old and new run-time reading agree for vLLM on every output the archive holds (../shared/isobench-data*; skipped
 * without it): each file's text and every text field of its JSON read through the vLLM adapter
 * ({@code readConsole}, the classifier with its {@code failureSignatures()}) give exactly what
 * {@code OutputParser.parse} and the generic table gave before the seam: the same metrics, warnings, workload, the same
 * failure category, detail and evidence.
 */
class VllmArchiveEqualityTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static void texts(JsonNode n, List<String> out) {
        if (n.isTextual() && !n.asText().isBlank()) {
            out.add(n.asText());
        }
        for (Iterator<JsonNode> it = n.elements(); it.hasNext(); ) {
            texts(it.next(), out);
        }
    }

    private static List<String> archiveTexts() throws IOException {
        Path shared = SharedData.isobenchData().getParent();
        List<String> out = new ArrayList<>();
        for (String root : new String[] {"isobench-data", "isobench-data-more", "isobench-data-wide"}) {
            Path dir = shared.resolve(root);
            if (!Files.isDirectory(dir)) {
                continue;
            }
            List<Path> files;
            try (Stream<Path> s = Files.walk(dir)) {
                files = s.filter(Files::isRegularFile).sorted().toList();
            }
            for (Path f : files) {
                String text;
                try {
                    text = Files.readString(f);
                } catch (CharacterCodingException binary) {
                    continue; // not text (a binary artifact): no output to read
                }
                out.add(text);
                if (f.toString().endsWith(".json")) {
                    try {
                        texts(JSON.readTree(text), out);
                    } catch (IOException notJson) {
                        // a file named .json that is not JSON: its whole text is read above
                    }
                }
            }
        }
        return out;
    }

    @Test
    void everyArchiveOutputReadsAndClassifiesAsBeforeThroughVllmsAdapter() throws Exception {
        EngineAdapter vllm = Engines.vllm();
        List<String> texts = archiveTexts();
        assertThat(texts).hasSizeGreaterThan(100);
        int withMetrics = 0;
        int failures = 0;
        for (String t : texts) {
            assertThat(vllm.readConsole(t, OutputParser.Truncation.NONE)).isEqualTo(OutputParser.parse(t));
            for (OutputParser.Truncation cut : OutputParser.Truncation.values()) {
                assertThat(vllm.readConsole(t, cut)).isEqualTo(OutputParser.parse(t, cut));
            }
            var before = FailureClassifier.classify(t);
            assertThat(FailureClassifier.classify(t, vllm.failureSignatures())).isEqualTo(before);
            assertThat(FailureClassifier.classify("error", t, t, vllm.failureSignatures()))
                    .isEqualTo(FailureClassifier.classify("error", t, t));
            withMetrics += OutputParser.parse(t).hasMetrics() ? 1 : 0;
            failures += before.isPresent() ? 1 : 0;
        }
        // the archive holds both kinds: outputs with metrics and failures the classifier names
        assertThat(withMetrics).isPositive();
        assertThat(failures).isPositive();
    }
}
