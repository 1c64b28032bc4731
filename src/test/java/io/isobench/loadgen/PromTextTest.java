package io.isobench.loadgen;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Prometheus text parser on recorded expositions: {@code toy-engine.prom} was scraped from the toy engine's
 * {@code /metrics} (vLLM's names and types, written like prometheus_client) after three streamed requests; its
 * parse is golden ({@code toy-engine.parsed.txt}; rewrite with {@code -Disobench.golden.update=true}).
 * {@code edge-cases.prom} holds escapes, special values, timestamps, an exemplar and malformed lines.
 */
class PromTextTest {

    static final Path DIR = Path.of("src/test/resources/server-metrics");

    static String read(String name) throws IOException {
        return Files.readString(DIR.resolve(name), StandardCharsets.UTF_8);
    }

    /** One line per type and per sample, in order: a stable text form of a parse. */
    static String render(PromText.Exposition e) {
        StringBuilder b = new StringBuilder();
        e.types().forEach((k, v) -> b.append("type ").append(k).append(' ').append(v).append('\n'));
        for (PromText.Sample s : e.samples()) {
            b.append(s.key()).append(' ').append(s.value()).append(" family=")
                    .append(PromText.familyOf(s.name(), e.types())).append('\n');
        }
        b.append("bad_lines ").append(e.badLines()).append('\n');
        e.errors().forEach(x -> b.append("error ").append(x).append('\n'));
        return b.toString();
    }

    static void golden(String name, String actual) throws IOException {
        Path p = DIR.resolve(name);
        if (Boolean.getBoolean("isobench.golden.update")) {
            Files.writeString(p, actual, StandardCharsets.UTF_8);
        }
        assertThat(actual).isEqualTo(Files.readString(p, StandardCharsets.UTF_8));
    }

    @Test
    void toyEngineExpositionParsesAsGolden() throws IOException {
        PromText.Exposition e = PromText.parse(read("toy-engine.prom"));
        assertThat(e.badLines()).isZero();
        assertThat(e.types()).containsEntry("vllm:num_requests_running", "gauge")
                .containsEntry("vllm:prefix_cache_hits_total", "counter")
                .containsEntry("vllm:time_to_first_token_seconds", "histogram");
        // the histogram's families: 23 buckets (22 bounds + +Inf), _sum, _count
        Map<String, Long> ttft = e.samples().stream()
                .filter(s -> PromText.familyOf(s.name(), e.types()).equals("vllm:time_to_first_token_seconds"))
                .collect(Collectors.groupingBy(PromText.Sample::name, Collectors.counting()));
        assertThat(ttft).containsEntry("vllm:time_to_first_token_seconds_bucket", 23L)
                .containsEntry("vllm:time_to_first_token_seconds_sum", 1L)
                .containsEntry("vllm:time_to_first_token_seconds_count", 1L);
        assertThat(PromText.familyOf("vllm:num_preemptions_created", e.types()))
                .isEqualTo("vllm:num_preemptions_total");
        golden("toy-engine.parsed.txt", render(e));
    }

    @Test
    void escapesSpecialValuesTimestampsExemplarsAndMalformedLines() throws IOException {
        PromText.Exposition e = PromText.parse(read("edge-cases.prom"));
        List<PromText.Sample> s = e.samples();
        assertThat(s).extracting(PromText.Sample::name).containsExactly("vllm:num_requests_running",
                "vllm:num_requests_running", "vllm:gpu_cache_usage_perc", "weird", "weird", "weird_neg",
                "vllm:num_preemptions_total", "after_bad");
        assertThat(s.get(0).labels()).containsEntry("model_name", "meta-llama/Llama-3.1-8B")
                .containsEntry("engine", "0");
        assertThat(s.get(2).value()).as("timestamp ignored").isEqualTo(0.5);
        assertThat(s.get(3).labels()).containsEntry("path", "C:\\dir\\file").containsEntry("quote", "say \"hi\"")
                .containsEntry("nl", "a\nb");
        assertThat(s.get(3).value()).isNaN();
        assertThat(s.get(3).key()).as("the key escapes as on the wire")
                .isEqualTo("weird{nl=\"a\\nb\",path=\"C:\\\\dir\\\\file\",quote=\"say \\\"hi\\\"\"}");
        assertThat(s.get(4).labels()).containsEntry("empty", "").containsEntry("path", "x");
        assertThat(s.get(4).value()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(s.get(5).value()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(s.get(6).value()).as("exemplar dropped").isEqualTo(7.0);
        assertThat(e.badLines()).isEqualTo(8);
        assertThat(e.errors()).hasSize(PromText.KEPT_ERRORS);
        assertThat(e.errors().get(0)).isEqualTo("line 15: no value for no_value_here");
        golden("edge-cases.parsed.txt", render(e));
    }

    @Test
    void garbageNeverThrows() {
        PromText.Exposition e = PromText.parse("<html><body>502 Bad Gateway</body></html>\n\0\0{\"x\":1}\n");
        assertThat(e.samples()).isEmpty();
        assertThat(e.badLines()).as("two lines, neither a sample").isEqualTo(2);
    }
}
