package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.cli.Main;
import io.isobench.parse.Metric;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multi-turn runs against the real toy engine (examples/toy-engine: a Python process, the named fake of vLLM's
 * OpenAI server; {@code /v1/completions} only). Its tokenizer makes one token of every word and every punctuation
 * mark, so a later turn's {@code usage.prompt_tokens} must be exactly the previous turn's prompt + the tokens the
 * model generated for it + the new human turn's words: the context carried the model's actual reply, all of it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
public class MultiTurnToyEngineTest {

    static Process server;
    static String baseUrl;
    static Path log;
    private static final Pattern TOY_TOKEN = Pattern.compile("[^\\s,.;!?]+|[,.;!?]");

    @BeforeAll
    static void startToyEngine() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        log = Files.createTempFile("toy-engine", ".log");
        server = startToy(port, log);
        baseUrl = "http://127.0.0.1:" + port;
    }

    /** The toy engine on {@code port}, ready (its /health answers); extra server flags appended. */
    public static Process startToy(int port, Path logFile, String... extra) throws Exception {
        List<String> argv = new ArrayList<>(List.of("python3", "-m", "toyllm.entrypoints.api_server", "--host",
                "127.0.0.1", "--port", Integer.toString(port), "--model", "toy-1m", "--quiet"));
        argv.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(logFile.toFile());
        pb.environment().put("PYTHONPATH", Path.of("examples/toy-engine/src").toAbsolutePath().toString());
        pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (RequestExecutor ex = new RequestExecutor(LoadgenConfig.builder().baseUrl("http://127.0.0.1:" + port)
                .model("toy-1m").build())) {
            while (ex.get("/health") != 200) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    throw new AssertionError("toy engine not ready: " + Files.readString(logFile));
                }
                Thread.sleep(100);
            }
        }
        return p;
    }

    /** Stops a toy engine started by {@link #startToy}. */
    public static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stopToyEngine() throws Exception {
        if (server != null) {
            stop(server);
            Files.deleteIfExists(log);
        }
    }

    private static int toyTokens(String s) {
        Matcher m = TOY_TOKEN.matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static LoadgenConfig config(int conversations, int maxConcurrency) {
        return LoadgenConfig.builder().baseUrl(baseUrl).model("toy-1m")
                .dataset(DatasetSpec.sharegptMultiTurn(ConversationsTest.SAMPLE, 0, DatasetSpec.MultiTurn.DEFAULT))
                .numPrompts(conversations).maxConcurrency(maxConcurrency).ignoreEos(true).numWarmups(1).seed(3)
                .percentiles(List.of(50.0, 99.0)).requestTimeout(Duration.ofSeconds(60)).build();
    }

    @Test
    void laterTurnsCarryThePreviousRepliesAndGoOutOnlyAfterThem() throws Exception {
        int n = 8;
        LoadgenConfig c = config(n, 2);
        LoadgenResult r = LoadGenerator.run(c, System.err::println);
        System.err.print(r.consoleBlock());
        System.err.print(r.detailBlock());
        List<Conversations.Conversation> planned = Conversations.load(c.dataset(), n + 1, 3, null).conversations();
        int turns = planned.subList(0, n).stream().mapToInt(x -> x.turns().size()).sum();
        assertThat(r.summary().failed()).as(r.summary().failuresByReason().toString()).isZero();
        assertThat(r.requests()).hasSize(turns);
        MultiTurnResult mt = r.multiTurn();
        assertThat(mt.conversations()).hasSize(n);
        assertThat(mt.completed()).isEqualTo(n);
        assertThat(r.summary().maxInFlight()).isLessThanOrEqualTo(2);

        Map<Integer, List<RequestResult>> byConv = new HashMap<>();
        for (int i = 0; i < r.requests().size(); i++) {
            byConv.computeIfAbsent(mt.conversationOfRequest().get(i), k -> new ArrayList<>()).add(r.requests().get(i));
            assertThat(mt.turnOfRequest().get(i)).isEqualTo(byConv.get(mt.conversationOfRequest().get(i)).size());
        }
        int later = 0;
        for (var e : byConv.entrySet()) {
            Conversations.Conversation conv = planned.get(e.getKey());
            List<RequestResult> rs = e.getValue();
            assertThat(rs).hasSize(conv.turns().size());
            assertThat(rs.get(0).promptTokens()).isEqualTo(toyTokens(conv.turns().get(0).human())
                    + (conv.system() == null ? 0 : toyTokens(conv.system())));
            for (int k = 1; k < rs.size(); k++) {
                RequestResult prev = rs.get(k - 1);
                RequestResult cur = rs.get(k);
                // ordering: a turn is due when the previous reply ended and is sent no earlier
                assertThat(cur.scheduledNs()).isEqualTo(prev.endNs());
                assertThat(cur.sendNs()).isGreaterThanOrEqualTo(prev.endNs());
                assertThat(cur.maxTokens()).isEqualTo(conv.turns().get(k).outputLen());
                // ignore_eos: the reply is exactly its budget, and all of it is in the next turn's context
                assertThat(prev.outputTokens()).isEqualTo(prev.maxTokens());
                assertThat(cur.promptTokens()).as("conversation %d turn %d", e.getKey(), k + 1)
                        .isEqualTo(prev.promptTokens() + prev.outputTokens() + toyTokens(conv.turns().get(k).human()));
                later++;
            }
        }
        assertThat(later).isEqualTo(turns - n);

        Map<String, Double> m = r.metrics().stream().collect(Collectors.toMap(Metric::name, Metric::value));
        assertThat(m.get("conversations_completed")).isEqualTo((double) n);
        assertThat(m.get("conversations_failed")).isZero();
        assertThat(m.get("conversation_throughput_cps")).isCloseTo(n / r.durationS(), org.assertj.core.data.Offset.offset(1e-9));
        assertThat(m.get("turns_per_conversation_mean")).isEqualTo((double) turns / n);
        assertThat(m).containsKeys("turn1_ttft_ms_mean", "turn1_tpot_ms_p99", "turn2_e2el_ms_median",
                "later_turns_ttft_ms_mean", "later_turns_ttft_ms_p50", "conversation_duration_s_mean",
                "conversation_duration_s_p99", "turn1_input_tokens_mean", "later_turns_input_tokens_mean");
        // the context grows: later turns carry more input than first turns
        assertThat(m.get("later_turns_input_tokens_mean")).isGreaterThan(m.get("turn1_input_tokens_mean"));
        assertThat(m.get("completed_requests")).isEqualTo((double) turns);
        for (MultiTurnResult.ConversationResult cr : mt.conversations()) {
            assertThat(cr.durationS()).isPositive();
        }

        JsonNode json = r.resultJson(false);
        JsonNode multi = json.path("isobench_multi_turn");
        assertThat(multi.path("conversations").asInt()).isEqualTo(n);
        assertThat(multi.path("turn_of_request")).hasSize(turns);
        assertThat(multi.path("turns").get(0).path("turn").asInt()).isEqualTo(1);
        assertThat(multi.path("turns").get(0).path("requests").asInt()).isEqualTo(n);
        assertThat(multi.path("dataset_sha256").asText())
                .isEqualTo(Conversations.sha256(Files.readAllBytes(ConversationsTest.SAMPLE)));
        JsonNode w = json.path("isobench_workload");
        assertThat(w.has("input_tokens")).as("a later turn's input holds the arm's own replies").isFalse();
        assertThat(w.path("conversations").asInt()).isEqualTo(n);
        assertThat(w.path("requests").asInt()).isEqualTo(turns);
        assertThat(w.path("prompts_sha256").asText()).isEqualTo(Conversations.digest(planned));

        // another arm (other concurrency, same workload flags): the same fingerprint, byte for byte
        LoadgenResult again = LoadGenerator.run(config(n, 4), null);
        assertThat(again.workloadFingerprint()).isEqualTo(r.workloadFingerprint());
    }

    @Test
    void arrivalsStartConversationsAndTheCapHoldsLaterTurnsInTheClient() {
        // rate inf, cap 1: one request at a time in all; the first turns of the others wait for the slot
        LoadgenResult r = LoadGenerator.run(config(4, 1), null);
        assertThat(r.summary().failed()).isZero();
        assertThat(r.summary().maxInFlight()).isEqualTo(1);
        List<RequestResult> rs = r.requests();
        for (int i = 1; i < rs.size(); i++) {
            assertThat(rs.get(i).sendNs()).isGreaterThanOrEqualTo(rs.get(i - 1).endNs());
        }
        // every conversation's first turn was due at 0 (rate inf); those behind the cap queued in the client
        MultiTurnResult mt = r.multiTurn();
        for (int i = 0; i < rs.size(); i++) {
            if (mt.turnOfRequest().get(i) == 1) {
                assertThat(rs.get(i).scheduledNs()).isZero();
            }
        }
        assertThat(r.summary().dists().get("client_queue").max()).isPositive();
    }
    @Test
    void theCliTakesTheMultiTurnFlagsAndSavesTheTurnsInTheResultJson(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true),
                "loadgen", "--base-url", baseUrl, "--model", "toy-1m", "--dataset-name", "sharegpt", "--dataset-path",
                ConversationsTest.SAMPLE.toString(), "--multi-turn", "--max-turns", "2", "--num-prompts", "5",
                "--ignore-eos", "--save-result", "--result-dir", dir.toString(), "--result-filename", "mt.json");
        assertThat(code).as(err.toString()).isZero();
        // the sample's five conversations have 3, 2, 5, 4 and 1 turns: at most 2 each → 9 requests
        assertThat(out.toString()).contains("Successful requests:                     9 ");
        assertThat(err.toString()).contains("Conversations completed:                 5/5");
        JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dir.resolve("mt.json").toFile());
        assertThat(j.path("completed").asInt()).isEqualTo(9);
        assertThat(j.path("isobench_dataset").asText())
                .isEqualTo("sharegpt:sharegpt_multiturn.json,multi_turn,max_turns=2,max_context=2048");
        JsonNode turns = j.path("isobench_multi_turn").path("turns");
        assertThat(turns).hasSize(3);
        assertThat(turns.get(0).path("requests").asInt()).isEqualTo(5);
        assertThat(turns.get(1).path("turn").asInt()).isEqualTo(2);
        assertThat(turns.get(1).path("requests").asInt()).isEqualTo(4);
        assertThat(turns.get(2).path("turn").asText()).isEqualTo("later");
        assertThat(turns.get(1).path("mean_input_tokens").asDouble())
                .isGreaterThan(turns.get(0).path("mean_input_tokens").asDouble());
    }
    @Test
    void aFailedTurnEndsItsConversationAndTheRunGoesOn(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        // a toy engine with a 64-token context and 40 output tokens per turn, no client-side cap: every first turn
        // (at most 21 prompt tokens) fits, no second turn does (its context holds the 40-token reply), and the
        // engine refuses it (http_400)
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process small = startToy(port, dir.resolve("toy.log"), "--max-model-len", "64");
        LoadgenResult r;
        try {
            LoadgenConfig c = LoadgenConfig.builder().baseUrl("http://127.0.0.1:" + port).model("toy-1m")
                    .dataset(DatasetSpec.sharegptMultiTurn(ConversationsTest.SAMPLE, 40, new DatasetSpec.MultiTurn(0, 0)))
                    .numPrompts(5).maxConcurrency(3).ignoreEos(true).seed(0).requestTimeout(Duration.ofSeconds(60))
                    .build();
            r = LoadGenerator.run(c, null);
        } finally {
            stop(small);
        }
        MultiTurnResult mt = r.multiTurn();
        // the sample's conversations have 3, 2, 5, 4 and 1 turns: four fail at turn 2, the one-turn one completes
        assertThat(r.requests()).hasSize(9);
        assertThat(r.summary().completed()).isEqualTo(5);
        assertThat(r.summary().failuresByReason()).containsOnlyKeys("http_400");
        assertThat(mt.completed()).isEqualTo(1);
        assertThat(mt.conversations()).allSatisfy(x -> assertThat(x.turnsCompleted()).isEqualTo(1));
        for (int i = 0; i < r.requests().size(); i++) {
            assertThat(r.requests().get(i).success()).isEqualTo(mt.turnOfRequest().get(i) == 1);
        }
        Map<String, Double> m = r.metrics().stream().collect(Collectors.toMap(Metric::name, Metric::value));
        assertThat(m.get("conversations_failed")).isEqualTo(4.0);
        assertThat(m.get("turns_per_conversation_mean")).isEqualTo(1.0);
        assertThat(m).containsKey("turn1_ttft_ms_mean").doesNotContainKey("later_turns_ttft_ms_mean");
    }
}
