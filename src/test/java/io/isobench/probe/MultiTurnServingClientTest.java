package io.isobench.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.loadgen.MultiTurnToyEngineTest;
import io.isobench.parse.Metric;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task's serving client (the arm's run) with multi-turn client flags, against the real toy engine: the relative
 * conversation file is read from each arm's worktree, the per-turn and per-conversation metrics reach the run's
 * metrics, and the workload fingerprint is the same for the same bytes and differs for other bytes.
 */
class MultiTurnServingClientTest {

    @TempDir
    Path root;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void armsReadTheirOwnConversationFileAndCompareByItsBytes() throws Exception {
        byte[] sample = Files.readAllBytes(Path.of("src/test/resources/multiturn/sharegpt_multiturn.json"));
        Path armA = Files.createDirectories(root.resolve("baseline/benchmarks"));
        Path armB = Files.createDirectories(root.resolve("human/benchmarks"));
        Path armC = Files.createDirectories(root.resolve("agent/benchmarks"));
        Files.write(armA.resolve("conv.json"), sample);
        Files.write(armB.resolve("conv.json"), sample);
        Files.writeString(armC.resolve("conv.json"), new String(sample, StandardCharsets.UTF_8)
                .replace("balcony", "terrace"), StandardCharsets.UTF_8);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process toy = MultiTurnToyEngineTest.startToy(port, root.resolve("toy.log"));
        try {
            Map<String, String> flags = ClientConfig.ofArgv(List.of("--dataset-name", "sharegpt", "--dataset-path",
                    "benchmarks/conv.json", "--multi-turn", "--max-turns", "3", "--num-prompts", "5",
                    "--max-concurrency", "2", "--ignore-eos")).loadgenFlags();
            URI url = URI.create("http://127.0.0.1:" + port);
            ServingClient.Result a = Clients.serving().run(url, new ServingClient.Workload("toy-1m", flags, 1, 0,
                    armA.getParent()));
            ServingClient.Result b = Clients.serving().run(url, new ServingClient.Workload("toy-1m", flags, 1, 0,
                    armB.getParent()));
            ServingClient.Result c = Clients.serving().run(url, new ServingClient.Workload("toy-1m", flags, 1, 0,
                    armC.getParent()));
            Map<String, Double> m = a.metrics().stream().collect(Collectors.toMap(Metric::name, Metric::value));
            assertThat(m.get("conversations_completed")).isEqualTo(5.0);
            // 3, 2, 5→3, 4→3 and 1 turns
            assertThat(m.get("completed_requests")).isEqualTo(12.0);
            assertThat(m).containsKeys("turn1_ttft_ms_mean", "turn3_ttft_ms_mean", "later_turns_ttft_ms_mean",
                    "conversation_duration_s_mean", "conversation_throughput_cps");
            ObjectMapper json = new ObjectMapper();
            JsonNode wa = json.readTree(a.workloadJson());
            assertThat(wa.has("input_tokens")).isFalse();
            assertThat(wa.path("dataset").asText()).isEqualTo("sharegpt:conv.json,multi_turn,max_turns=3,max_context=2048");
            assertThat(json.readTree(b.workloadJson())).as("same bytes on another arm").isEqualTo(wa);
            JsonNode wc = json.readTree(c.workloadJson());
            assertThat(wc.path("dataset_sha256")).isNotEqualTo(wa.path("dataset_sha256"));
            assertThat(wc.path("prompts_sha256")).isNotEqualTo(wa.path("prompts_sha256"));
        } finally {
            MultiTurnToyEngineTest.stop(toy);
        }
    }
}
