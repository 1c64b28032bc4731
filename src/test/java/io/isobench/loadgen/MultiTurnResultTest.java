package io.isobench.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.parse.Metric;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-turn and per-conversation figures of a multi-turn run, from hand-made requests: two conversations, the
 * first with three turns, the second failing at its second turn. The {@code isobench_multi_turn} JSON and the stored
 * metrics are golden ({@code multiturn/result.golden.json}, {@code multiturn/metrics.golden.txt}; rewrite with
 * {@code -Disobench.golden.update=true}).
 */
class MultiTurnResultTest {

    static final Path DIR = Path.of("src/test/resources/multiturn");

    private static void golden(String name, String actual) throws IOException {
        if (Boolean.getBoolean("isobench.golden.update")) {
            Files.writeString(DIR.resolve(name), actual, StandardCharsets.UTF_8);
        }
        assertThat(actual).isEqualTo(Files.readString(DIR.resolve(name), StandardCharsets.UTF_8));
    }

    private static RequestResult failed(int i, long sendMs, long endMs) {
        return new RequestResult(i, false, "http_400", "HTTP 400: too long", sendMs * 1_000_000L, sendMs * 1_000_000L,
                endMs * 1_000_000L, -1, -1, new long[0], -1, -1, 0, false, 4, "", sendMs * 1_000_000L);
    }

    private static LoadgenResult result() {
        // send order: c0t1 (0 ms), c1t1 (5 ms), c0t2 (after c0t1 ended at 40 ms), c1t2 (after 50), c0t3 (after 90)
        List<RequestResult> rs = List.of(
                LoadgenMetricsTest.req(0, 0, new long[] {20, 30, 40}, 3),
                LoadgenMetricsTest.req(1, 5, new long[] {25, 35, 45}, 3),
                LoadgenMetricsTest.req(2, 40, new long[] {10, 30, 50}, 3),
                failed(3, 50, 52),
                LoadgenMetricsTest.req(4, 90, new long[] {6, 16, 20}, 3));
        MultiTurnResult mt = new MultiTurnResult(List.of(
                new MultiTurnResult.ConversationResult(0, 2, 3, 3, 0, 110_000_000L),
                new MultiTurnResult.ConversationResult(1, 0, 2, 1, 5_000_000L, 52_000_000L)),
                List.of(1, 1, 2, 2, 3), List.of(0, 1, 0, 1, 0), "ab".repeat(32));
        LoadgenConfig c = LoadgenConfig.builder().model("m").percentiles(List.of(50.0, 99.0)).build();
        return new LoadgenResult(c, new LoadgenResult.Run(Instant.EPOCH, 0, 0.2, 0, "cd".repeat(32)), rs,
                RunSummary.of(c, rs, 0.2), List.of(), null, mt, null);
    }

    @Test
    void turnAndConversationFiguresAreGolden() throws IOException {
        LoadgenResult r = result();
        MultiTurnResult mt = r.multiTurn();
        assertThat(mt.completed()).isEqualTo(1);
        assertThat(mt.conversations().get(0).durationS()).isEqualTo(0.11);
        var byTurn = mt.byTurn(r.requests(), List.of(50.0, 99.0));
        assertThat(byTurn.keySet()).containsExactly(1, 2, 3, 0);
        assertThat(byTurn.get(1).ttft().mean()).isEqualTo(22.5); // 20 and 25 ms
        assertThat(byTurn.get(2).requests()).as("the failed turn 2 is not a sample").isEqualTo(1);
        assertThat(byTurn.get(0).ttft().mean()).isEqualTo(8.0); // turns 2 and 3: 10 and 6 ms
        String json = new ObjectMapper().writerWithDefaultPrettyPrinter()
                .writeValueAsString(r.resultJson(false).get("isobench_multi_turn")) + "\n";
        String metrics = r.metrics().stream().filter(m -> m.name().startsWith("turn") || m.name().startsWith("later")
                        || m.name().startsWith("conversation"))
                .map(m -> String.format(Locale.ROOT, "%s %.6f", m.name(), m.value()))
                .collect(Collectors.joining("\n")) + "\n";
        assertThat(metrics).contains("conversation_throughput_cps 5.000000", "conversations_failed 1.000000",
                "later_turns_ttft_ms_mean 8.000000", "turn3_e2el_ms_mean 20.000000");
        golden("result.golden.json", json);
        golden("metrics.golden.txt", metrics);
        assertThat(r.workloadFingerprint().has("input_tokens")).isFalse();
        assertThat(r.workloadFingerprint().get("dataset_sha256").asText()).isEqualTo("ab".repeat(32));
        assertThat(r.detailBlock()).contains("Conversations completed:                 1/2")
                .contains("Mean TTFT, turn 1 (ms):                  22.50")
                .contains("Mean TTFT, later turns (ms):             8.00");
        assertThat(Files.readString(DIR.resolve("result.golden.json"), StandardCharsets.UTF_8))
                .contains("\"turn\" : \"later\"");
    }
}
