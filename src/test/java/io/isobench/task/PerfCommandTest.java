package io.isobench.task;

import io.isobench.Mode;
import io.isobench.loadgen.DatasetSpec;
import io.isobench.loadgen.LoadgenConfig;
import io.isobench.loadgen.ServeFlags;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PerfCommandTest {

    static List<String> codes(ParsedPerfCommand p) {
        return p.findings().stream().map(Finding::code).toList();
    }

    static List<String> errorCodes(ParsedPerfCommand p) {
        return p.errors().stream().map(Finding::code).toList();
    }

    @Test
    void servingCommandSplitsServerAndClientFlagsAndForwardsServerFlags() {
        ParsedPerfCommand p = PerfCommand.parse("VLLM_USE_V1=1 python benchmarks/benchmark_serving.py"
                + " --model meta-llama/Llama-3.1-8B-Instruct --dtype float16 -tp 2 --enable-prefix-caching"
                + " --num-prompts 300 --seed 0 --backend vllm --trust-remote-code --dataset-name random");
        assertThat(p.tool()).isEqualTo(Tool.BENCHMARK_SERVING);
        assertThat(p.mode()).isEqualTo(Mode.SERVING);
        assertThat(p.env()).containsEntry("VLLM_USE_V1", "1");
        assertThat(p.gpus()).isEqualTo(2);
        assertThat(p.serverArgv()).containsExactly("python", "-m", "vllm.entrypoints.openai.api_server",
                "--model", "meta-llama/Llama-3.1-8B-Instruct", "--dtype", "float16", "--tensor-parallel-size", "2",
                "--enable-prefix-caching", "--trust-remote-code");
        assertThat(p.server()).endsWith(Word.text("--host"), Word.HOST, Word.text("--port"), Word.PORT);
        assertThat(p.client().argv()).containsExactly("--model", "meta-llama/Llama-3.1-8B-Instruct",
                "--num-prompts", "300", "--seed", "0", "--backend", "vllm", "--trust-remote-code", "--dataset-name",
                "random");
        assertThat(p.client().asMap()).containsEntry("--num-prompts", "300").containsEntry("--trust-remote-code", "true");
        assertThat(p.findings()).isEmpty();
    }

    @Test
    void vllmBenchServeDropsHostAndPortWithAWarningAndKeepsTheWorkload() {
        ParsedPerfCommand p = PerfCommand.parse("vllm bench serve --dataset-name random --model facebook/opt-125m"
                + " --random-input-len 700 --random-output-len 1 --ignore-eos --host localhost --port 8000");
        assertThat(p.tool()).isEqualTo(Tool.VLLM_BENCH_SERVE);
        assertThat(p.client().argv()).containsExactly("--model", "facebook/opt-125m", "--dataset-name", "random",
                "--random-input-len", "700", "--random-output-len", "1", "--ignore-eos");
        assertThat(codes(p)).containsExactly("ENDPOINT_IGNORED", "ENDPOINT_IGNORED");
        assertThat(p.hasErrors()).isFalse();
    }

    @Test
    void offlineScriptKeepsItsArgvAndCountsGpus() {
        ParsedPerfCommand p = PerfCommand.parse("python3 benchmarks/benchmark_latency.py --model"
                + " meta-llama/Meta-Llama-3-70B --load-format dummy --enforce-eager -tp 4");
        assertThat(p.mode()).isEqualTo(Mode.LATENCY);
        assertThat(p.tensorParallelSize()).isEqualTo(4);
        assertThat(p.gpus()).isEqualTo(4);
        assertThat(p.serverArgv()).containsExactly("python3", "-m", "vllm.entrypoints.openai.api_server",
                "--model", "meta-llama/Meta-Llama-3-70B", "--load-format", "dummy", "--enforce-eager",
                "--tensor-parallel-size", "4");
        assertThat(p.client()).isNull();
        assertThat(p.benchmarkArgv()).startsWith("python3", "benchmarks/benchmark_latency.py").contains("-tp", "4");
        assertThat(p.findings()).isEmpty();
    }

    @Test
    void placeholdersAreErrors() {
        ParsedPerfCommand p = PerfCommand.parse("python benchmarks/benchmark_latency.py --batch-size BS"
                + " --input-len INPUT_LEN --model MODEL");
        assertThat(errorCodes(p)).containsExactly("PLACEHOLDER");
        assertThat(p.errors().get(0).message()).contains("--batch-size BS", "--input-len INPUT_LEN", "--model MODEL");
        assertThat(p.model()).isNull();
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_latency.py --model <model>")))
                .containsExactly("PLACEHOLDER");
    }

    @Test
    void absolutePathsAndWrongScriptDirsAreErrors() {
        assertThat(errorCodes(PerfCommand.parse("python /home/ray/vllm/benchmarks/benchmark_latency.py --model facebook/opt-125m")))
                .containsExactly("ABSOLUTE_PATH");
        assertThat(errorCodes(PerfCommand.parse("python benchmark/benchmark_latency.py --model facebook/opt-125m")))
                .containsExactly("WRONG_SCRIPT_DIR");
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_latency.py --model facebook/opt-125m"
                + " --download-dir /data/models"))).containsExactly("ABSOLUTE_PATH");
        assertThat(PerfCommand.parse("python ./benchmarks/benchmark_latency.py --model facebook/opt-125m").findings())
                .isEmpty();
    }

    @Test
    void offlineFlagsOnTheServingClientAndClientFlagsOnOfflineScriptsAreErrors() {
        ParsedPerfCommand p = PerfCommand.parse("python benchmarks/benchmark_serving.py --model Qwen/Qwen1.5-0.5B"
                + " --input-len 1024 --dataset-name random");
        assertThat(errorCodes(p)).containsExactly("INVALID_FLAG");
        assertThat(p.errors().get(0).message()).contains("--random-input-len");
        assertThat(p.serverArgv()).doesNotContain("--input-len");
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_latency.py --model facebook/opt-125m"
                + " --request-rate 4"))).containsExactly("INVALID_FLAG");
    }

    @Test
    void missingModelIsAnErrorForServingAndAWarningOffline() {
        assertThat(errorCodes(PerfCommand.parse("vllm bench serve --num-prompts 10"))).containsExactly("MISSING_MODEL");
        ParsedPerfCommand offline = PerfCommand.parse("python benchmarks/benchmark_latency.py");
        assertThat(offline.hasErrors()).isFalse();
        assertThat(codes(offline)).containsExactly("MISSING_MODEL");
        ParsedPerfCommand fromTask = PerfCommand.parse("python benchmarks/benchmark_latency.py",
                new PerfCommand.Hints("facebook/opt-125m", null, null));
        assertThat(fromTask.model()).isEqualTo("facebook/opt-125m");
        assertThat(fromTask.modelFromTask()).isTrue();
        assertThat(fromTask.benchmarkArgv()).endsWith("--model", "facebook/opt-125m");
    }

    @Test
    void localDatasetFilesAreErrorsAndRepoFilesAreNot() {
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name sharegpt --dataset-path ./ShareGPT_V3_unfiltered_cleaned_split.json")))
                .containsExactly("LOCAL_DATASET");
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name sharegpt"))).containsExactly("DATASET_PATH_MISSING");
        assertThat(PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name sonnet --dataset-path benchmarks/sonnet.txt").findings()).isEmpty();
    }

    @Test
    void anAbsolutePathToTheEngineReposSonnetFileIsAWarningWithTheRepoPath() {
        // written on one machine (/home/ray/vllm is that machine's clone): the file is the engine repo's own
        ParsedPerfCommand p = PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name sonnet --dataset-path /home/ray/vllm/benchmarks/sonnet.txt --num-prompts 10");
        assertThat(p.hasErrors()).isFalse();
        assertThat(codes(p)).containsExactly("REPO_DATASET_PATH");
        assertThat(p.findings().get(0).message()).contains("reads benchmarks/sonnet.txt from each arm's worktree")
                .contains("fix: write --dataset-path benchmarks/sonnet.txt");
        // any other absolute file stays an error: no worktree holds it
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name sonnet --dataset-path /data/poems.txt"))).containsExactly("LOCAL_DATASET");
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name sharegpt --dataset-path /home/ray/vllm/benchmarks/sharegpt.json")))
                .containsExactly("LOCAL_DATASET");
    }

    @Test
    void aServingCommandWithoutDatasetNameIsAnErrorWithTheFix() {
        // benchmark_serving.py then defaults to sharegpt, which needs a file: 12 old runs crashed exactly so
        ParsedPerfCommand p = PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m");
        assertThat(errorCodes(p)).containsExactly("DATASET_NAME_MISSING");
        assertThat(p.errors().get(0).message()).contains("defaults to sharegpt")
                .contains("fix: --dataset-name random --random-input-len");
        // `vllm bench serve` defaulted to random in the versions ISO-Bench ran (299ebb62's Namespace shows it)
        assertThat(errorCodes(PerfCommand.parse("vllm bench serve --model facebook/opt-125m --num-prompts 10"))).isEmpty();
        assertThat(PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name random --random-input-len 512 --random-output-len 64").findings()).isEmpty();
        // an offline benchmark has no dataset default to trip over
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_latency.py --model facebook/opt-125m")))
                .isEmpty();
    }

    @Test
    void modeLabelsThatContradictTheCommandAreErrors() {
        String cmd = "vllm bench throughput --model Qwen/Qwen3-30B-A3B --input-len 1000 --output-len 100";
        assertThat(errorCodes(PerfCommand.parse(cmd, new PerfCommand.Hints(null, "serving", null))))
                .containsExactly("MODE_MISMATCH");
        assertThat(PerfCommand.parse(cmd, new PerfCommand.Hints(null, "standalone", null)).hasErrors()).isFalse();
        assertThat(PerfCommand.parse(cmd, new PerfCommand.Hints(null, "throughput", null)).hasErrors()).isFalse();
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --dataset-name random", new PerfCommand.Hints(null, "standalone", null))))
                .containsExactly("MODE_MISMATCH");
    }

    @Test
    void modelsTooLargeForTheCommandsGpusAreErrors() {
        ParsedPerfCommand p = PerfCommand.parse("python benchmarks/benchmark_latency.py --model meta-llama/Llama-2-70b-hf"
                + " --tensor-parallel-size 1");
        assertThat(errorCodes(p)).containsExactly("MODEL_TOO_LARGE");
        assertThat(p.errors().get(0).message()).contains("estimate", "140 GB", "--tensor-parallel-size 4");
        assertThat(PerfCommand.parse("python benchmarks/benchmark_latency.py --model meta-llama/Llama-2-70b-hf -tp 2")
                .hasErrors()).isFalse();
        ParsedPerfCommand r1 = PerfCommand.parse("python benchmarks/benchmark_throughput.py --model deepseek-ai/DeepSeek-R1"
                + " --tensor-parallel-size 8");
        assertThat(errorCodes(r1)).containsExactly("MODEL_TOO_LARGE");
    }

    @Test
    void declaredGpuCountIsCheckedAgainstTheCommand() {
        String cmd = "python benchmarks/benchmark_latency.py --model meta-llama/Llama-3.1-8B-Instruct -tp 4";
        assertThat(errorCodes(PerfCommand.parse(cmd, new PerfCommand.Hints(null, null, 2))))
                .containsExactly("GPU_CONFIG_TOO_SMALL");
        assertThat(codes(PerfCommand.parse("python benchmarks/benchmark_latency.py --model facebook/opt-125m",
                new PerfCommand.Hints(null, null, 8)))).containsExactly("GPU_CONFIG_UNUSED");
    }

    @Test
    void shellSyntaxIsTokenisedWithoutAShellAndChainsAreFlagged() {
        ParsedPerfCommand q = PerfCommand.parse("python benchmarks/benchmark_latency.py --model facebook/opt-125m"
                + " --speculative-model '[ngram]' --hf-overrides \"{\\\"a\\\": 1}\" --input-len 5\\ ");
        assertThat(q.flag("--speculative-model")).contains("[ngram]");
        assertThat(q.flag("--hf-overrides")).contains("{\"a\": 1}");
        assertThat(q.hasErrors()).isFalse();

        ParsedPerfCommand chain = PerfCommand.parse("cd vllm && python benchmarks/benchmark_latency.py"
                + " --model facebook/opt-125m > out.txt");
        assertThat(errorCodes(chain)).containsExactly("SHELL_OPERATOR");
        assertThat(chain.tool()).isEqualTo(Tool.BENCHMARK_LATENCY);
        assertThat(chain.argv()).doesNotContain("out.txt", ">");

        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_latency.py --model $MODEL")))
                .containsExactly("SHELL_EXPANSION");
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/benchmark_latency.py --model 'facebook/opt")))
                .contains("SHELL_SYNTAX");
    }

    @Test
    void secretsAreRedactedAndFlagged() {
        ParsedPerfCommand p = PerfCommand.parse("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz python"
                + " benchmarks/benchmark_latency.py --model facebook/opt-125m");
        assertThat(errorCodes(p)).containsExactly("SECRET_IN_COMMAND");
        assertThat(p.raw()).doesNotContain("hf_abcdefghijklmnop");
        assertThat(p.env()).containsEntry("HF_TOKEN", "***");
    }

    @Test
    void nonBenchmarksAreNotRunnable() {
        assertThat(errorCodes(PerfCommand.parse("vllm serve facebook/opt-125m"))).containsExactly("NOT_A_BENCHMARK");
        assertThat(errorCodes(PerfCommand.parse("python -m vllm.entrypoints.openai.api_server --model x/y-1B")))
                .containsExactly("NOT_A_BENCHMARK");
        assertThat(errorCodes(PerfCommand.parse("pytest tests/")) ).containsExactly("UNSUPPORTED_COMMAND");
        assertThat(errorCodes(PerfCommand.parse("python benchmarks/kernels/benchmark_moe.py")))
                .containsExactly("UNSUPPORTED_SCRIPT");
        assertThat(errorCodes(PerfCommand.parse("  "))).containsExactly("NO_PERF_COMMAND");
        assertThat(errorCodes(PerfCommand.parse(null))).containsExactly("NO_PERF_COMMAND");
    }

    @Test
    void unknownServingFlagsAreForwardedWithANearestSuggestion() {
        ParsedPerfCommand p = PerfCommand.parse("python benchmarks/benchmark_serving.py --model facebook/opt-125m"
                + " --multi-step --dataset-name random");
        assertThat(codes(p)).containsExactly("UNKNOWN_FLAG");
        assertThat(p.findings().get(0).message()).contains("--multi-step-stream-outputs");
        assertThat(p.serverArgv()).endsWith("--multi-step");
    }

    @Test
    void attachedAndEqualsValuesAreUnderstood() {
        ParsedPerfCommand p = PerfCommand.parse("python benchmarks/benchmark_serving.py --model=facebook/opt-125m"
                + " -tp=2 -O3 --num-prompts=10 --dataset-name=random");
        assertThat(p.model()).isEqualTo("facebook/opt-125m");
        assertThat(p.gpus()).isEqualTo(2);
        assertThat(p.serverArgv()).containsSubsequence("--tensor-parallel-size", "2", "--compilation-config", "3");
        assertThat(p.client().get("--num-prompts")).contains("10");
        assertThat(p.findings()).isEmpty();
    }

    @Test
    void anotherEnginesCommandIsReadInItsAdaptersDialectWithTheModeItsEntryPointNames() {
        // SGLang's adapter claims bench_serving (engine seam, docs/engines.md): serving, as Mode.ofCommand says in the
        // legacy import; linted in SGLang's dialect, and not run: isobench has no runner for SGLang's tools
        ParsedPerfCommand p = PerfCommand.parse("python -m sglang.bench_serving --backend sglang --model org/m");
        assertThat(p.tool()).isEqualTo(Tool.OTHER_SCRIPT);
        assertThat(p.script()).isEqualTo("-m sglang.bench_serving");
        assertThat(p.mode()).isEqualTo(Mode.SERVING).isEqualTo(Mode.ofCommand(p.raw()).orElseThrow());
        assertThat(codes(p)).contains("ENGINE_NOT_RUN").doesNotContain("UNSUPPORTED_COMMAND", "UNKNOWN_FLAG");
    }

    @Test
    void sonnetAndPrefixRepetitionCommandsLintCleanAndKeepTheirWorkloadFlags() {
        // the sonnet run of an ISO-Bench agent harness (Bamba-9B task log: benchmark_serving.py's Namespace), and
        // vLLM's documented prefix_repetition example, as task commands
        ParsedPerfCommand sonnet = PerfCommand.parse("python benchmarks/benchmark_serving.py --backend vllm"
                + " --model ibm-ai-platform/Bamba-9B --dataset-name sonnet --dataset-path benchmarks/sonnet.txt"
                + " --sonnet-input-len 256 --sonnet-output-len 64 --sonnet-prefix-len 200 --num-prompts 100"
                + " --request-rate inf --percentile-metrics ttft,tpot,itl --metric-percentiles 99");
        assertThat(sonnet.findings()).isEmpty();
        assertThat(sonnet.client().get("--sonnet-input-len")).contains("256");
        assertThat(sonnet.client().get("--sonnet-prefix-len")).contains("200");
        ParsedPerfCommand prefix = PerfCommand.parse("vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct"
                + " --dataset-name prefix_repetition --num-prompts 100 --prefix-repetition-prefix-len 512"
                + " --prefix-repetition-suffix-len 128 --prefix-repetition-num-prefixes 5"
                + " --prefix-repetition-output-len 128");
        assertThat(prefix.findings()).isEmpty();
        assertThat(prefix.client().get("--prefix-repetition-num-prefixes")).contains("5");
        // the client flags reach the one flag parser as the dataset the load generator makes
        Map<String, String> flags = new LinkedHashMap<>();
        prefix.client().flags().forEach(f -> flags.put(f.name().replaceFirst("^-+", ""), f.value() == null ? "true" : f.value()));
        List<String> warnings = new ArrayList<>();
        assertThat(ServeFlags.workload(LoadgenConfig.builder().model("m"), flags,
                warnings::add).build().dataset()).isEqualTo(DatasetSpec.prefixRepetition(512, 128, 5, 128));
        assertThat(warnings).isEmpty();
        // sonnet needs its file, as vLLM does
        assertThat(errorCodes(PerfCommand.parse("vllm bench serve --model m --dataset-name sonnet")))
                .containsExactly("DATASET_PATH_MISSING");
    }
    @Test
    void multiTurnCommandsLintCleanAndReachTheLoadGeneratorAsConversations() {
        ParsedPerfCommand p = PerfCommand.parse("vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --dataset-name sharegpt"
                + " --dataset-path benchmarks/conversations.json --multi-turn --max-turns 4 --max-context-len 4096"
                + " --num-prompts 50 --max-concurrency 8");
        assertThat(p.findings()).isEmpty();
        Map<String, String> flags = new LinkedHashMap<>();
        p.client().flags().forEach(f -> flags.put(f.name().replaceFirst("^-+", ""), f.value() == null ? "true" : f.value()));
        assertThat(flags).containsEntry("multi-turn", "true").containsEntry("max-turns", "4");
        DatasetSpec d = ServeFlags.workload(
                LoadgenConfig.builder().model("m"), flags, w -> { }).build().dataset();
        assertThat(d.multiTurn()).isEqualTo(new DatasetSpec.MultiTurn(4, 4096));
    }
}

