package io.isobench.task;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WordTest {

    @Test
    void aTemplateWordSplitsAtItsPlaceholdersOnly() {
        assertThat(Word.template("--bind={host}:{port}").parts()).containsExactly(new Word.Text("--bind="),
                Word.Slot.HOST, new Word.Text(":"), Word.Slot.PORT);
        assertThat(Word.template("{port}")).isEqualTo(Word.PORT);
        assertThat(Word.template("65432").parts()).containsExactly(new Word.Text("65432"));
        assertThat(Word.template("").parts()).containsExactly(new Word.Text(""));
        assertThat(Word.template("{model}").has(Word.Slot.PORT)).isFalse();
        assertThat(Word.template("--url=http://{host}:{port}/v1").toString()).isEqualTo("--url=http://{host}:{port}/v1");
    }

    @Test
    void literalTextIsNeverASlotWhateverItHolds() {
        assertThat(Word.text("{port}").has(Word.Slot.PORT)).isFalse();
        assertThat(Word.literal(List.of("--x", "{host}")).stream().noneMatch(w -> w.has(Word.Slot.HOST))).isTrue();
    }

    @Test
    void textPutInLaterStaysText() {
        // {model} is filled after the slots were found: a model name that reads like a placeholder stays text
        Word w = Word.template("{model}@{port}").mapText(t -> t.replace("{model}", "org/{port}"));
        assertThat(w.parts()).containsExactly(new Word.Text("org/{port}@"), Word.Slot.PORT);
    }

    @Test
    void aServerCommandTemplateGetsSlotsFromTheTemplateAndFlagsAsWritten(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("repo"));
        Files.writeString(dir.resolve("s.yaml"), String.join("\n",
                "engine: {repo: ./repo, name: vllm}",
                "tasks:",
                "  - id: t",
                "    human_commit: h",
                "    mode: serving",
                "    server_command: vllm serve {model} --host {host} --port {port} {server_flags} --x 65432",
                "    perf_command: vllm bench serve --model m --max-num-batched-tokens 65432 --seed 1065432",
                ""));
        TaskSpec t = SuiteLoader.load(dir.resolve("s.yaml")).tasks().get(0);
        ParsedTask parsed = t.parsed();
        assertThat(Word.shown(parsed.server())).containsExactly("vllm", "serve", "m", "--host", "{host}", "--port",
                "{port}", "--max-num-batched-tokens", "65432", "--x", "65432");
        assertThat(parsed.server().stream().filter(w -> w.has(Word.Slot.PORT)).count()).isEqualTo(1);
        assertThat(parsed.command().client().loadgenFlags()).containsEntry("seed", "1065432");
    }

    @Test
    void clientFlagsAsWrittenAreReadOnce() {
        ClientConfig c = ClientConfig.ofArgv(List.of("--goodput", "ttft:500", "tpot:50", "--request-rate=4",
                "--ignore-eos", "--seed", "-1", "--num-prompts", "65432"));
        assertThat(c.flags()).containsExactly(new ClientConfig.Flag("--goodput", "ttft:500 tpot:50"),
                new ClientConfig.Flag("--request-rate", "4"), new ClientConfig.Flag("--ignore-eos", null),
                new ClientConfig.Flag("--seed", "-1"), new ClientConfig.Flag("--num-prompts", "65432"));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("goodput", "ttft:500 tpot:50");
        expected.put("request-rate", "4");
        expected.put("ignore-eos", "true");
        expected.put("seed", "-1");
        expected.put("num-prompts", "65432");
        assertThat(c.loadgenFlags()).containsExactlyEntriesOf(expected);
        assertThat(ClientConfig.ofArgv(c.argv())).isEqualTo(c);
        assertThatThrownBy(() -> ClientConfig.ofArgv(List.of("4"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSweepPointSetsItsFlagOnTheTypedSettings() {
        ClientConfig c = ClientConfig.ofArgv(List.of("--request-rate", "2", "--num-prompts", "8"));
        Sweep s = new Sweep(Sweep.Kind.REQUEST_RATE, List.of(2.0, 4.0), Sweep.DEFAULT_MIN_GOOD_FRACTION, null);
        assertThat(s.clientAt(c, 4).argv()).containsExactly("--num-prompts", "8", "--request-rate", "4");
        assertThat(s.clientAt(ClientConfig.NONE, 2.5).loadgenFlags()).containsEntry("request-rate", "2.5");
    }
}
