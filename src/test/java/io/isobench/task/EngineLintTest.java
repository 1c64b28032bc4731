package io.isobench.task;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.Mode;
import io.isobench.SharedData;
import io.isobench.engine.Engines;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The perf_command lint goes through the engine adapter whose tool the command runs (docs/engines.md): SGLang's real
 * command from the archive (../shared; skipped without it) and its documented usage lines lint clean in SGLang's
 * dialect but for the one error that keeps them from running; a planted adapter's command is read in its dialect.
 */
class EngineLintTest {

    private static List<String> codes(ParsedPerfCommand p) {
        return p.findings().stream().map(Finding::code).toList();
    }

    @Test
    void theArchivesSglangCommandLintsCleanInSglangsDialect() throws Exception {
        String command = new ObjectMapper().readTree(Files.readString(SharedData.require("isobench-data/archive/"
                + "results/2026-01/omniperf_results_3way_sglang/sglang/09deb20d/benchmark_result.json")))
                .path("perf_command").asText();
        ParsedPerfCommand p = PerfCommand.parse(command, new PerfCommand.Hints("meta-llama/Llama-3.1-8B-Instruct",
                "serving", 1));
        assertThat(codes(p)).containsExactly("ENGINE_NOT_RUN");
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(p.model()).isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
        assertThat(p.flags()).extracting(ParsedPerfCommand.Flag::name)
                .containsExactly("--backend", "--model", "--num-prompts");
        assertThat(p.gpus()).isEqualTo(1);
    }

    @Test
    void bench_servingsOwnUsageLinesReadWithArgparsesAbbreviations() {
        // the usage lines of bench_serving's docstring: --num-prompt, --random-input, --random-output
        ParsedPerfCommand a = PerfCommand.parse("python3 -m sglang.bench_serving --backend sglang --num-prompt 10");
        assertThat(codes(a)).containsExactly("ENGINE_NOT_RUN");
        ParsedPerfCommand b = PerfCommand.parse("python3 -m sglang.bench_serving --backend sglang --dataset-name"
                + " random --num-prompts 3000 --random-input 1024 --random-output 1024 --random-range-ratio 0.5");
        assertThat(codes(b)).containsExactly("ENGINE_NOT_RUN");
        assertThat(b.flags()).extracting(ParsedPerfCommand.Flag::name).contains("--random-input-len",
                "--random-output-len");
    }

    @Test
    void sglangsValueRulesUnknownFlagsAndServerLauncherAreFound() {
        ParsedPerfCommand p = PerfCommand.parse("python -m sglang.bench_serving --num-prompts 0 --max-concurency 8"
                + " --disable-tqdm");
        assertThat(codes(p)).contains("INVALID_VALUE", "UNKNOWN_FLAG", "ENGINE_NOT_RUN");
        assertThat(p.findings().stream().filter(f -> f.code().equals("UNKNOWN_FLAG")).findFirst().orElseThrow()
                .message()).contains("--max-concurrency");
        assertThat(codes(PerfCommand.parse("python -m sglang.launch_server --model-path m --port 30000")))
                .containsExactly("NOT_A_BENCHMARK");
        ParsedPerfCommand batch = PerfCommand.parse("python -m sglang.bench_one_batch --model-path org/m-8B"
                + " --batch-size 1 8 --input-len 256 --output-len 32 --tp-size 2");
        assertThat(batch.mode()).isEqualTo(Mode.LATENCY);
        assertThat(batch.gpus()).isEqualTo(2);
        assertThat(batch.model()).isEqualTo("org/m-8B");
        assertThat(codes(batch)).doesNotContain("UNKNOWN_FLAG", "UNEXPECTED_ARGUMENT");
    }

    @Test
    void everyEngineASuiteCanNameHasAnAdapter() {
        assertThat(EngineSpec.NAMES).allMatch(n -> Engines.named(n).isPresent());
    }

    @Test
    void vllmCommandsLintAsBefore() {
        assertThat(PerfCommand.parse("vllm bench serve --model facebook/opt-125m --dataset-name random"
                + " --num-prompts 10").findings()).isEmpty();
        assertThat(codes(PerfCommand.parse("python my_bench.py --x 1"))).contains("UNSUPPORTED_SCRIPT");
    }

    @Test
    void aPlantedAdaptersCommandIsReadInItsDialect() {
        // io.isobench.engine.PlantedEngine, declared on the test classpath only
        ParsedPerfCommand p = PerfCommand.parse("planted-bench --rounds 0");
        assertThat(p.script()).isEqualTo("planted-bench");
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(codes(p)).containsExactlyInAnyOrder("INVALID_VALUE", "ENGINE_NOT_RUN");
    }
}
