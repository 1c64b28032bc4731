package io.isobench.loadgen;

import io.isobench.parse.Better;
import io.isobench.parse.MetricDictionary;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Multi-turn ShareGPT conversations on the committed sample {@code multiturn/sharegpt_multiturn.json} (made up for
 * these tests: 5 conversations of 1–5 turns, one with a system message, one whose roles break off).
 */
class ConversationsTest {

    static final Path SAMPLE = Path.of("src/test/resources/multiturn/sharegpt_multiturn.json");

    private static DatasetSpec spec(int maxTurns, int maxContext) {
        return DatasetSpec.sharegptMultiTurn(SAMPLE, 0, new DatasetSpec.MultiTurn(maxTurns, maxContext));
    }

    /** The turn counts by source entry (every entry once: count = 5 with seed 0 covers the shuffled file). */
    private static Map<Integer, Integer> turnsBySource(List<Conversations.Conversation> cs) {
        Map<Integer, Integer> m = new TreeMap<>();
        cs.forEach(c -> m.put(c.source(), c.turns().size()));
        return m;
    }

    @Test
    void turnsAreHumanReplyPairsUntilTheRolesBreakOff() {
        Conversations.Loaded l = Conversations.load(spec(0, 0), 5, 0, null);
        assertThat(turnsBySource(l.conversations())).isEqualTo(Map.of(0, 3, 1, 2, 2, 5, 3, 4, 4, 1));
        Conversations.Conversation trip = l.conversations().stream().filter(c -> c.source() == 1).findFirst().orElseThrow();
        assertThat(trip.system()).isEqualTo("You are a concise travel assistant.");
        // the output budget of a turn: its reply in the file at ≈ 4 characters a token (vLLM's ShareGPT estimate)
        String reply = "Day one: the Gulbenkian Museum and the tile museum. Day two: Belem and its tower.";
        assertThat(trip.turns().get(0).outputLen()).isEqualTo((reply.length() + 3) / 4);
        assertThat(l.fileSha256()).hasSize(64);
    }

    @Test
    void maxTurnsAndTheContextCapCutConversationsFromTheFileAlone() {
        assertThat(turnsBySource(Conversations.load(spec(2, 0), 5, 0, null).conversations()))
                .isEqualTo(Map.of(0, 2, 1, 2, 2, 2, 3, 2, 4, 1));
        // garden: turn 1 = 21 + 22 tokens (estimates), turn 2 adds 10 + 22, turn 3 adds 7 + 19: 43, 75, 101
        assertThat(turnsBySource(Conversations.load(spec(0, 75), 5, 0, null).conversations())).containsEntry(0, 2);
        assertThat(turnsBySource(Conversations.load(spec(0, 74), 5, 0, null).conversations())).containsEntry(0, 1);
        assertThat(turnsBySource(Conversations.load(spec(0, 101), 5, 0, null).conversations())).containsEntry(0, 3);
        assertThatThrownBy(() -> Conversations.load(spec(0, 10), 5, 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no usable multi-turn conversations");
    }

    @Test
    void aTurnsContextIsTheEarlierTurnsWithTheModelsActualReplies() {
        Conversations.Conversation trip = Conversations.load(spec(0, 0), 5, 0, null).conversations().stream()
                .filter(c -> c.source() == 1).findFirst().orElseThrow();
        List<String> replies = List.of("MODEL SAID THIS");
        assertThat(Conversations.messages(trip, replies, 0)).containsExactly(
                Map.of("role", "system", "content", "You are a concise travel assistant."),
                Map.of("role", "user", "content", "Plan a two day trip to Lisbon for someone who likes museums."));
        assertThat(Conversations.messages(trip, replies, 1)).extracting(m -> m.get("role") + ": " + m.get("content"))
                .containsExactly("system: You are a concise travel assistant.",
                        "user: Plan a two day trip to Lisbon for someone who likes museums.",
                        "assistant: MODEL SAID THIS",
                        "user: Which of these is best on a rainy day?");
        assertThat(Conversations.prompt(trip, replies, 1)).isEqualTo("You are a concise travel assistant.\n"
                + "Plan a two day trip to Lisbon for someone who likes museums.\nMODEL SAID THIS\n"
                + "Which of these is best on a rainy day?");
    }

    @Test
    void theDigestIsPinnedAndFollowsTheSeedAndTheFlags() {
        List<Conversations.Conversation> a = Conversations.load(spec(0, 2048), 8, 0, null).conversations();
        assertThat(Conversations.digest(a)).isEqualTo(Conversations.digest(
                Conversations.load(spec(0, 2048), 8, 0, null).conversations()));
        assertThat(Conversations.digest(a))
                .isEqualTo("5524329d1ebe7c854e6da6021157e61da9fe964af3a671ac4b794f463d102cf7");
        assertThat(Conversations.digest(Conversations.load(spec(0, 2048), 8, 1, null).conversations()))
                .isNotEqualTo(Conversations.digest(a));
        assertThat(Conversations.digest(Conversations.load(spec(2, 2048), 8, 0, null).conversations()))
                .isNotEqualTo(Conversations.digest(a));
    }

    @Test
    void flagsMakeAMultiTurnShareGptDataset() {
        Map<String, List<String>> f = new LinkedHashMap<>();
        f.put("dataset-name", List.of("sharegpt"));
        f.put("dataset-path", List.of(SAMPLE.toString()));
        f.put("multi-turn", List.of("true"));
        f.put("max-turns", List.of("3"));
        f.put("max-context-len", List.of("1000"));
        f.put("model", List.of("m"));
        DatasetSpec d = ServeFlags.parse(f, w -> { }).build().dataset();
        assertThat(d.multiTurn()).isEqualTo(new DatasetSpec.MultiTurn(3, 1000));
        assertThat(d.id()).isEqualTo("sharegpt:sharegpt_multiturn.json,multi_turn,max_turns=3,max_context=1000");
        f.put("dataset-name", List.of("random"));
        assertThatThrownBy(() -> ServeFlags.parse(f, w -> { })).hasMessageContaining("--multi-turn needs --dataset-name sharegpt");
        f.put("dataset-name", List.of("sharegpt"));
        f.remove("multi-turn");
        assertThatThrownBy(() -> ServeFlags.parse(f, w -> { })).hasMessageContaining("need --multi-turn");
        f.put("multi-turn", List.of("true"));
        f.put("duration", List.of("10"));
        f.put("request-rate", List.of("1"));
        assertThatThrownBy(() -> ServeFlags.parse(f, w -> { }).build()).hasMessageContaining("--duration is not supported");
        // a task's client flags carry them (the same work on every arm)
        assertThat(ServeFlags.WORKLOAD).contains("multi-turn", "max-turns", "max-context-len");
    }

    @Test
    void theMetricDictionaryKnowsTheTurnAndConversationMetrics() {
        for (String n : List.of("turn1_ttft_ms_mean", "turn2_tpot_ms_p99", "later_turns_e2el_ms_median",
                "conversation_duration_s_mean")) {
            assertThat(MetricDictionary.lookup(n)).as(n).isNotNull();
            assertThat(MetricDictionary.lookup(n).better()).as(n).isEqualTo(Better.LOWER);
        }
        assertThat(MetricDictionary.lookup("conversation_throughput_cps").better()).isEqualTo(Better.HIGHER);
        assertThat(MetricDictionary.lookup("turn3_input_tokens_mean").unit()).isEqualTo("tokens");
        assertThat(MetricDictionary.lookup("conversations_completed")).isNotNull();
        assertThat(MetricDictionary.lookup("turn0_ttft_ms_mean")).isNull();
    }
}
