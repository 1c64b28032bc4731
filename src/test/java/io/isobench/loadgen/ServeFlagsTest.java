package io.isobench.loadgen;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one reader of {@code vllm bench serve} flags, for the CLI and for a task's serving client. */
class ServeFlagsTest {

    private static LoadgenConfig task(Map<String, String> flags, List<String> warnings) {
        return ServeFlags.workload(LoadgenConfig.builder().model("m").seed(7), flags, warnings::add).build();
    }

    @Test
    void aTaskAndTheCliReadTheSameWorkloadFlagsAlike() {
        Map<String, String> flags = new LinkedHashMap<>();
        flags.put("num-prompts", "50");
        flags.put("max-concurrency", "4");
        flags.put("request-rate", "inf");
        flags.put("random-input-len", "32");
        flags.put("random-output-len", "16");
        flags.put("ignore-eos", "true");
        flags.put("seed", "3");
        Map<String, List<String>> cli = new LinkedHashMap<>();
        flags.forEach((k, v) -> cli.put(k, List.of(v)));
        cli.put("model", List.of("m"));
        LoadgenConfig fromCli = ServeFlags.parse(cli, w -> { }).build();
        LoadgenConfig fromTask = task(flags, new ArrayList<>());
        assertThat(fromTask.numPrompts()).isEqualTo(fromCli.numPrompts()).isEqualTo(50);
        assertThat(fromTask.maxConcurrency()).isEqualTo(fromCli.maxConcurrency()).isEqualTo(4);
        assertThat(fromTask.dataset()).isEqualTo(fromCli.dataset()).isEqualTo(DatasetSpec.random(32, 16, 0.0, 0));
        assertThat(fromTask.ignoreEos()).isEqualTo(fromCli.ignoreEos()).isTrue();
        assertThat(fromTask.seed()).isEqualTo(fromCli.seed()).isEqualTo(3);
    }

    @Test
    void aBadNumberIsOneLineNamingTheFlagAndTheFix() {
        for (String flag : List.of("num-prompts", "max-concurrency", "random-input-len", "burstiness", "seed")) {
            assertThatThrownBy(() -> task(Map.of(flag, "lots"), new ArrayList<>()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("--" + flag + " 'lots' must be ")
                    .hasMessageContaining("(fix: e.g. --" + flag + " ")
                    .hasMessageNotContaining("\n");
        }
        assertThatThrownBy(() -> task(Map.of("request-rate", "fast"), new ArrayList<>()))
                .hasMessage("--request-rate 'fast' must be a number or inf (fix: e.g. --request-rate 10 or --request-rate inf)");
    }

    @Test
    void aTaskReadsOnlyWorkloadFlagsAndFallsBackToRandomForDatasetsItCannotMake() {
        List<String> warnings = new ArrayList<>();
        LoadgenConfig c = task(Map.of("dataset-name", "sonnet", "endpoint", "/v1/chat/completions",
                "temperature", "0.7", "num-prompts", "9"), warnings);
        assertThat(c.endpoint()).isEqualTo("/v1/completions");
        assertThat(c.sampling()).isEmpty();
        assertThat(c.numPrompts()).isEqualTo(9);
        assertThat(c.seed()).isEqualTo(7);
        assertThat(c.dataset()).isEqualTo(DatasetSpec.random(1024, 128, 0.0, 0));
        assertThat(warnings).singleElement().asString().contains("--dataset-name sonnet");
    }

    @Test
    void aTaskFileDatasetWithoutItsFileOrAFixedPromptIsRandomToo() {
        for (String ds : List.of("sharegpt", "custom", "fixed")) {
            List<String> warnings = new ArrayList<>();
            assertThat(task(Map.of("dataset-name", ds), warnings).dataset()).isEqualTo(DatasetSpec.random(1024, 128, 0.0, 0));
            assertThat(warnings).hasSize(1);
        }
    }
}
