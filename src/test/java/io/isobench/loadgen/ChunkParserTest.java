package io.isobench.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChunkParserTest {

    private static ChunkParser parse(String json) throws IOException {
        ChunkParser p = new ChunkParser();
        byte[] b = ("xx" + json + "yy").getBytes(StandardCharsets.UTF_8);
        p.parse(b, 2, b.length - 4); // an offset window, as the SSE scanner hands it over
        return p;
    }

    @Test
    void completionChunk() throws IOException {
        ChunkParser p = parse("{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":0,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"text\":\" hello\",\"logprobs\":null,\"finish_reason\":null}]}");
        assertThat(p.hasChoices).isTrue();
        assertThat(p.text()).isEqualTo(" hello");
        assertThat(p.finishReason).isNull();
        assertThat(p.promptTokens).isEqualTo(-1);
        assertThat(p.error).isNull();
    }

    @Test
    void chatDeltaAndReasoningAreAppended() throws IOException {
        ChunkParser p = parse("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"a\","
                + "\"content\":\"b\"},\"finish_reason\":\"stop\"}]}");
        assertThat(p.text()).isEqualTo("ab");
        assertThat(p.finishReason).isEqualTo("stop");
    }

    @Test
    void usageOnlyChunkHasNoChoices() throws IOException {
        ChunkParser p = parse("{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"total_tokens\":40,\"completion_tokens\":28,"
                + "\"prompt_tokens_details\":null}}");
        assertThat(p.hasChoices).isFalse();
        assertThat(p.hasText).isFalse();
        assertThat(p.promptTokens).isEqualTo(12);
        assertThat(p.completionTokens).isEqualTo(28);
    }

    @Test
    void escapesAreDecodedLikeAJsonLibrary() throws IOException {
        String text = "q\"b\\s/ \n\t\r\b\f é € 😀 \u0001";
        String json = new ObjectMapper().writeValueAsString(Map.of("choices", List.of(Map.of("text", text))));
        assertThat(parse(json).text()).isEqualTo(text);
        assertThat(parse("{\"choices\":[{\"text\":\"\\u00e9\\ud83d\\ude00\\/\"}]}").text()).isEqualTo("é😀/");
        assertThat(parse("{\"choices\":[{\"text\":\"\\ud83d!\"}]}").text()).isEqualTo("\ufffd!");
    }

    @Test
    void errorsInAnyShape() throws IOException {
        assertThat(parse("{\"error\":{\"code\":500,\"message\":\"engine died\"}}").error).isEqualTo("engine died");
        assertThat(parse("{\"error\":{\"code\":500}}").error).isEqualTo("error");
        assertThat(parse("{\"error\":\"plain\"}").error).isEqualTo("plain");
        assertThat(parse("{\"error\":42}").error).isEqualTo("42");
        assertThat(parse("{\"error\":null,\"choices\":[{\"text\":\"x\"}]}").error).isNull();
    }

    @Test
    void unknownNestedValuesAreSkippedAndOnlyTheFirstChoiceIsRead() throws IOException {
        ChunkParser p = parse(" { \"a\" : [1, -2.5e+3, true, false, null, {\"text\":\"no\"}, [[]], {}], \"choices\" : "
                + "[ {\"logprobs\":{\"tokens\":[\"x\"],\"top\":[{\"a\":-0.1}]}, \"text\":\"yes\"}, {\"text\":\"second\"} ] } ");
        assertThat(p.hasChoices).isTrue();
        assertThat(p.text()).isEqualTo("yes");
    }

    @Test
    void nonIntegerUsageIsIgnored() throws IOException {
        ChunkParser p = parse("{\"usage\":{\"prompt_tokens\":1.5,\"completion_tokens\":\"7\"}}");
        assertThat(p.promptTokens).isEqualTo(-1);
        assertThat(p.completionTokens).isEqualTo(-1);
    }

    @Test
    void parserIsReusableAcrossObjects() throws IOException {
        ChunkParser p = new ChunkParser();
        byte[] a = "{\"choices\":[{\"text\":\"aaaa\"}],\"usage\":{\"prompt_tokens\":3}}".getBytes(StandardCharsets.UTF_8);
        byte[] b = "{\"choices\":[]}".getBytes(StandardCharsets.UTF_8);
        p.parse(a, 0, a.length);
        p.parse(b, 0, b.length);
        assertThat(p.hasChoices).isFalse();
        assertThat(p.text()).isNull();
        assertThat(p.promptTokens).isEqualTo(-1);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"choices\":[{\"text\":\"oops\"",  // cut off
            "{\"choices\":[{\"text\":\"a\"}]}x", // trailing data
            "[1]",                                // not an object
            "",
            "{\"a\":tru}",
            "{\"a\":01x}",
            "{\"a\":1.}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12\"}",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "{a:1}",
            "{\"a\":[1 2]}",
            "{\"a\":\"tab\tinside\"}",
            "{\"choices\":[{\"text\":\"a\"} {\"text\":\"b\"}]}",
    })
    void malformedJsonIsRejected(String json) {
        assertThatThrownBy(() -> parse(json)).isInstanceOf(IOException.class).hasMessageContaining("at byte");
    }

    @Test
    void deepNestingIsAnErrorNotAStackOverflow() {
        String deep = "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        assertThatThrownBy(() -> parse(deep)).isInstanceOf(IOException.class).hasMessageContaining("nested deeper");
    }
}
