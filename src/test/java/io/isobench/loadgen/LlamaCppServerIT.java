package io.isobench.loadgen;

import io.isobench.SharedData;
import io.isobench.cli.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Against a real LLM engine on CPU: llama.cpp (node-llama-cpp) serving the tiny GGUF model through
 * tools/llm-server/server.mjs on a free 127.0.0.1 port, started in its own process group and stopped with it.
 */
class LlamaCppServerIT {

    static Process server;
    static long pgid;
    static String baseUrl;
    static Path log;

    @BeforeAll
    static void startServer() throws Exception {
        Path dir = Path.of("tools", "llm-server").toAbsolutePath();
        boolean installed = Files.isDirectory(dir.resolve("node_modules/node-llama-cpp"));
        SharedData.requireService(installed && onPath("node") && onPath("setsid"),
                "node + node-llama-cpp in tools/llm-server/node_modules (scripts/provision runs npm install there)");
        Path model = SharedData.require("fixtures/tiny-llama.gguf");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        log = Files.createTempFile("llm-server", ".log");
        server = new ProcessBuilder("setsid", "node", "server.mjs", "--model", model.toString(), "--port",
                Integer.toString(port), "--host", "127.0.0.1", "--sequences", "4")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        pgid = server.pid(); // setsid execs node directly: its pid is the new group's id
        baseUrl = "http://127.0.0.1:" + port;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        LoadgenConfig probe = LoadgenConfig.builder().baseUrl(baseUrl).model("tiny-llama").build();
        try (RequestExecutor ex = new RequestExecutor(probe)) {
            while (ex.get("/health") != 200) {
                if (!server.isAlive()) {
                    throw new AssertionError("llm server exited with " + server.exitValue() + ": " + Files.readString(log));
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("llm server not ready in 180 s: " + Files.readString(log));
                }
                Thread.sleep(200);
            }
        }
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server == null) {
            return;
        }
        kill("-TERM");
        if (!server.waitFor(10, TimeUnit.SECONDS)) {
            kill("-KILL");
            server.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(server.isAlive()).isFalse();
        Process check = new ProcessBuilder("pgrep", "-g", Long.toString(pgid)).start();
        assertThat(check.waitFor()).as("no process left in group " + pgid).isEqualTo(1);
        Files.deleteIfExists(log);
    }

    private static void kill(String sig) throws IOException, InterruptedException {
        new ProcessBuilder("kill", sig, "--", "-" + pgid).start().waitFor();
    }

    private static boolean onPath(String exe) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, exe))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void streamingCompletionsMatchServerUsage() {
        int n = 24;
        int out = 16;
        LoadgenConfig c = LoadgenConfig.builder().baseUrl(baseUrl).model("tiny-llama")
                .dataset(DatasetSpec.random(32, out, 0.25, 0)).numPrompts(n).maxConcurrency(4)
                .requestRate(200).ignoreEos(true).numWarmups(2).seed(1)
                .percentiles(List.of(50.0, 90.0, 99.0))
                .percentileMetrics(Set.of("ttft", "tpot", "itl", "e2el"))
                .requestTimeout(Duration.ofSeconds(120)).build();
        LoadgenResult r = LoadGenerator.run(c, System.err::println);
        System.err.print(r.consoleBlock());
        System.err.print(r.detailBlock());
        assertThat(r.summary().failed()).as(r.summary().failuresByReason().toString()).isZero();
        assertThat(r.summary().completed()).isEqualTo(n);
        long expectedOut = 0;
        long reportedIn = 0;
        for (RequestResult q : r.requests()) {
            assertThat(q.success()).as(q.error()).isTrue();
            assertThat(q.outputTokensFromUsage()).isTrue();
            assertThat(q.promptTokens()).isPositive();
            // ignore_eos: exactly max_tokens tokens, one SSE chunk per token
            assertThat(q.outputTokens()).isEqualTo(q.maxTokens());
            assertThat(q.chunkNs()).hasSize(q.outputTokens());
            assertThat(q.itlNs()).hasSize(q.chunkNs().length - 1);
            assertThat(q.latencyNs()).isGreaterThanOrEqualTo(q.ttftNs());
            assertThat(q.ttftNs()).isPositive();
            for (long g : q.itlNs()) {
                assertThat(g).isGreaterThanOrEqualTo(0);
            }
            expectedOut += q.maxTokens();
            reportedIn += q.promptTokens();
        }
        assertThat(r.summary().totalOutput()).isEqualTo(expectedOut);
        assertThat(r.summary().totalInput()).isEqualTo(reportedIn);
        assertThat(r.summary().dists().get("itl").count()).isEqualTo((int) (expectedOut - n));
        assertThat(r.summary().maxInFlight()).isLessThanOrEqualTo(4);
        // no tokenizer here: the drift between intended and server-counted prompt lengths is measured and reported
        assertThat(r.summary().promptDriftPct()).isNotNull();
        assertThat(r.summary().dists().get("e2el").mean()).isGreaterThanOrEqualTo(r.summary().dists().get("ttft").mean());
        assertThat(r.summary().dists().get("tpot").count()).isEqualTo(n);
    }

    @Test
    void cliAgainstRealServerChatAndUnstreamed() {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), "loadgen", "--base-url", baseUrl,
                "--endpoint", "/v1/chat/completions", "--model", "tiny-llama", "--dataset-name", "random",
                "--random-input-len", "24", "--random-output-len", "8", "--num-prompts", "8", "--max-concurrency", "4",
                "--ignore-eos");
        assertThat(code).as(e.toString()).isZero();
        assertThat(o.toString()).contains("Successful requests:                     8 ")
                .contains("Total generated tokens:                  64 ");
        LoadgenConfig c = LoadgenConfig.builder().baseUrl(baseUrl).model("tiny-llama")
                .dataset(DatasetSpec.fixed("hello world", 6)).numPrompts(4).maxConcurrency(2).ignoreEos(true)
                .stream(false).build();
        LoadgenResult r = LoadGenerator.run(c, null);
        assertThat(r.summary().completed()).isEqualTo(4);
        assertThat(r.summary().totalOutput()).isEqualTo(24);
        for (RequestResult q : r.requests()) {
            assertThat(q.ttftNs()).isEqualTo(q.latencyNs());
        }
    }

    @Test
    void tokenizerJsonAgreesWithTheServersTokenizer() throws Exception {
        BpeTokenizer t = BpeTokenizer.load(SharedData.require("fixtures/tiny-llama-hf/tokenizer.json"));
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        try (RequestExecutor ex = new RequestExecutor(LoadgenConfig.builder().baseUrl(baseUrl).model("tiny-llama").build())) {
            // no digits: the GGUF was converted with llama.cpp's "default" pre-tokenizer, which cuts " 12345" into
            // " ", "123", "45" where HF's ByteLevel regex (and so this tokenizer.json) keeps " 12345" whole
            List<String> mismatches = new ArrayList<>();
            for (String s : List.of("Hello world", "the quick brown fox jumps over the lazy dog",
                    " there  are many cats!!", "It's a test, isn't it?", "naïve café 😀", "line one\nline two\ttab",
                    "Once upon a time, there was a little girl who lived in a village near the forest.")) {
                String body = ex.postJson("/tokenize", Map.of("prompt", s));
                assertThat(body).as("/tokenize answered").isNotNull();
                int[] server = toInts(json.readTree(body).path("tokens"));
                if (!Arrays.equals(t.encode(s, false), server)) {
                    mismatches.add(s + ": isobench " + Arrays.toString(t.encode(s, false)) + " vs server "
                            + Arrays.toString(server));
                }
            }
            assertThat(mismatches).as("token ids that differ from the server's /tokenize").isEmpty();
        }
        // random prompts built with the tokenizer: the server counts exactly the intended length (drift 0)
        LoadgenConfig c = LoadgenConfig.builder().baseUrl(baseUrl).model("tiny-llama")
                .dataset(DatasetSpec.random(40, 4, 0.5, 0)).numPrompts(12).maxConcurrency(4).ignoreEos(true).seed(5)
                .tokenizer(SharedData.require("fixtures/tiny-llama-hf/tokenizer.json"))
                .requestTimeout(Duration.ofSeconds(120)).build();
        LoadgenResult r = LoadGenerator.run(c, null);
        assertThat(r.summary().completed()).isEqualTo(12);
        for (RequestResult q : r.requests()) {
            assertThat(q.promptTokens()).as("server usage.prompt_tokens").isEqualTo(q.expectedInputTokens());
        }
        assertThat(r.summary().promptDriftPct()).isEqualTo(0.0);
    }

    /**
     * Multi-turn conversations on {@code /v1/chat/completions} (the committed sample, every conversation once): each
     * later turn's {@code usage.prompt_tokens} is what the server's own {@code /tokenize} counts for the messages
     * rebuilt from the file and the replies the model actually gave (so the context carried those replies, whole),
     * and it grows over the previous turn's prompt by the previous reply plus the new human turn, plus the server
     * template's role markers (a constant few tokens, printed).
     */
    @Test
    void multiTurnContextGrowsByTheReplyAndTheNewTurn() throws Exception {
        DatasetSpec ds = DatasetSpec.sharegptMultiTurn(ConversationsTest.SAMPLE, 8, new DatasetSpec.MultiTurn(0, 1024));
        int n = 5;
        LoadgenConfig c = LoadgenConfig.builder().baseUrl(baseUrl).model("tiny-llama").endpoint("/v1/chat/completions")
                .dataset(ds).numPrompts(n).maxConcurrency(2).ignoreEos(true).seed(0)
                .percentiles(List.of(50.0, 99.0)).requestTimeout(Duration.ofSeconds(120)).build();
        LoadgenResult r = LoadGenerator.run(c, System.err::println);
        System.err.print(r.consoleBlock());
        System.err.print(r.detailBlock());
        assertThat(r.summary().failed()).as(r.summary().failuresByReason().toString()).isZero();
        List<Conversations.Conversation> planned = Conversations.load(ds, n, 0, null).conversations();
        MultiTurnResult mt = r.multiTurn();
        assertThat(mt.completed()).isEqualTo(n);
        Map<Integer, List<RequestResult>> byConv = new TreeMap<>();
        for (int i = 0; i < r.requests().size(); i++) {
            byConv.computeIfAbsent(mt.conversationOfRequest().get(i), k -> new ArrayList<>())
                    .add(r.requests().get(i));
        }
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        List<Integer> overheads = new ArrayList<>();
        List<String> replyTokens = new ArrayList<>();
        try (RequestExecutor ex = new RequestExecutor(c)) {
            for (var e : byConv.entrySet()) {
                Conversations.Conversation conv = planned.get(e.getKey());
                List<RequestResult> rs = e.getValue();
                assertThat(rs).hasSize(conv.turns().size());
                List<String> replies = new ArrayList<>();
                for (int k = 0; k < rs.size(); k++) {
                    RequestResult q = rs.get(k);
                    assertThat(q.outputTokens()).isEqualTo(8);
                    String body = ex.postJson("/tokenize", Map.of("messages",
                            Conversations.messages(conv, replies, k)));
                    assertThat(q.promptTokens()).as("conversation %d turn %d: usage vs /tokenize of the rebuilt"
                            + " context", e.getKey(), k + 1).isEqualTo(json.readTree(body).path("count").asInt());
                    if (k > 0) {
                        RequestResult prev = rs.get(k - 1);
                        assertThat(q.sendNs()).isGreaterThanOrEqualTo(prev.endNs());
                        int human = json.readTree(ex.postJson("/tokenize", Map.of("prompt",
                                conv.turns().get(k).human()))).path("count").asInt();
                        // the reply as text in the context: its tokens when re-read (a generated token sequence
                        // need not be the one the tokenizer makes of its text), at least the generated count's
                        int reply = json.readTree(ex.postJson("/tokenize", Map.of("prompt",
                                replies.get(k - 1)))).path("count").asInt();
                        replyTokens.add(prev.outputTokens() + "->" + reply);
                        overheads.add(q.promptTokens() - prev.promptTokens() - reply - human);
                    }
                    replies.add(q.generatedText());
                }
            }
        }
        System.err.println("multi-turn: generated -> re-tokenized reply tokens " + replyTokens);
        System.err.println("multi-turn: prompt growth minus (previous reply + new turn), per later turn: " + overheads);
        assertThat(overheads).hasSize(r.requests().size() - n).isNotEmpty();
        // the server's template (server.mjs: "role: content\n" per message, then "assistant:") adds the same role
        // markers to every later turn: measured on one-word messages, ±2 tokens where words meet the markers
        int template;
        try (RequestExecutor ex = new RequestExecutor(c)) {
            ToIntFunction<String> count = text -> {
                try {
                    return json.readTree(ex.postJson("/tokenize", Map.of("prompt", text))).path("count").asInt();
                } catch (IOException ioe) {
                    throw new AssertionError(ioe);
                }
            };
            template = count.applyAsInt("user: hello\nassistant: fine\nuser: thanks\nassistant:")
                    - count.applyAsInt("user: hello\nassistant:") - count.applyAsInt("fine") - count.applyAsInt("thanks");
        }
        System.err.println("multi-turn: template markers per later turn: " + template + " tokens");
        assertThat(template).isBetween(1, 20);
        int t = template;
        assertThat(overheads).allSatisfy(o -> assertThat(o).isBetween(t - 2, t + 2));
    }

    private static int[] toInts(com.fasterxml.jackson.databind.JsonNode a) {
        int[] v = new int[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asInt();
        }
        return v;
    }
}
