package io.isobench.task;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ModelSizeTest {

    static ModelSize est(String name) {
        return ModelSize.estimate(name).orElseThrow(() -> new AssertionError("no estimate for " + name));
    }

    @Test
    void countsWrittenInTheName() {
        assertThat(est("meta-llama/Meta-Llama-3-70B").paramsB()).isEqualTo(70);
        assertThat(est("meta-llama/Llama-3.1-8B-Instruct").paramsB()).isEqualTo(8);
        assertThat(est("Qwen/Qwen2.5-1.5B-Instruct").paramsB()).isEqualTo(1.5);
        assertThat(est("facebook/opt-125m").paramsB()).isCloseTo(0.125, within(1e-9));
        assertThat(est("huggyllama/llama-7b").paramsB()).isEqualTo(7);
        assertThat(est("nvidia/Nemotron-4-340B-Instruct").paramsB()).isEqualTo(340);
    }

    @Test
    void moeNames() {
        assertThat(est("Qwen/Qwen3-30B-A3B").paramsB()).isEqualTo(30);
        assertThat(est("mistralai/Mixtral-8x7B-v0.1").paramsB()).isEqualTo(46.7);
        assertThat(est("someorg/Foo-4x2B").paramsB()).isEqualTo(8);
        assertThat(est("meta-llama/Llama-4-Scout-17B-16E-Instruct").paramsB()).isEqualTo(109);
    }

    @Test
    void tableForNamesWithoutACount() {
        assertThat(est("deepseek-ai/DeepSeek-V3-0324").paramsB()).isEqualTo(671);
        assertThat(est("deepseek-ai/DeepSeek-R1").paramsB()).isEqualTo(671);
        assertThat(est("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B").paramsB()).isEqualTo(7);
        assertThat(est("deepseek-ai/DeepSeek-V2").paramsB()).isEqualTo(236);
        assertThat(est("deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct").paramsB()).isEqualTo(15.7);
        assertThat(est("microsoft/phi-1_5").paramsB()).isEqualTo(1.4);
        assertThat(ModelSize.estimate("someorg/mystery-model")).isEmpty();
        assertThat(ModelSize.estimate(null)).isEmpty();
    }

    @Test
    void precisionFromTheNameAndGpusNeeded() {
        assertThat(est("neuralmagic/Meta-Llama-3-8B-Instruct-FP8").bytesPerParam()).isEqualTo(1.0);
        assertThat(est("TheBloke/Llama-2-70B-AWQ").bytesPerParam()).isEqualTo(0.5);
        assertThat(est("meta-llama/Meta-Llama-3-70B").gpusNeeded()).isEqualTo(4); // 140 GB × 1.2 = 168 GB → 3 → 4
        assertThat(est("meta-llama/Llama-3.1-8B-Instruct").gpusNeeded()).isEqualTo(1);
        assertThat(est("mistralai/Mixtral-8x7B-v0.1").gpusNeeded()).isEqualTo(2);
        assertThat(est("deepseek-ai/DeepSeek-R1").gpusNeeded()).isEqualTo(16);
    }

    @Test
    void gpuEstimateForThePlanner() {
        GpuEstimate e = GpuEstimate.forCommand("python benchmarks/benchmark_latency.py --model meta-llama/Meta-Llama-3-70B"
                + " -tp 4", "meta-llama/Meta-Llama-3-70B", "H100:4");
        assertThat(e.gpus()).isEqualTo(4);
        assertThat(e.commandGpus()).isEqualTo(4);
        assertThat(e.modelGpus()).isEqualTo(4);
        assertThat(e.fits()).isTrue();
        assertThat(e.basis()).contains("estimate");

        GpuEstimate big = GpuEstimate.forCommand("python benchmarks/benchmark_serving.py --model nvidia/Nemotron-4-340B-Instruct",
                null, "H100:8");
        assertThat(big.gpus()).isEqualTo(8);
        assertThat(big.commandGpus()).isEqualTo(1);
        assertThat(big.fits()).isFalse();

        GpuEstimate none = GpuEstimate.forCommand(null, null, null);
        assertThat(none.gpus()).isEqualTo(1);
    }

    @Test
    void quantizationEntersTheMemoryEstimate() {
        assertThat(ModelSize.estimate("meta-llama/Meta-Llama-3-70B", "fp8").orElseThrow().bytesPerParam()).isEqualTo(1.0);
        assertThat(ModelSize.estimate("meta-llama/Meta-Llama-3-70B", "awq_marlin").orElseThrow().bytesPerParam())
                .isEqualTo(0.5);
        assertThat(ModelSize.estimate("meta-llama/Meta-Llama-3-70B", "gptq").orElseThrow().weightsGb()).isEqualTo(35.0);
        assertThat(ModelSize.estimate("meta-llama/Meta-Llama-3-70B", "experts_int8").orElseThrow().bytesPerParam())
                .isEqualTo(1.0);
        // an unknown method keeps the name's precision
        assertThat(ModelSize.estimate("meta-llama/Meta-Llama-3-70B", "compressed-tensors").orElseThrow().bytesPerParam())
                .isEqualTo(2.0);
        // a 70B model does not fit one H100 in 16 bits, does with fp8 weights (70 GB), and the lint agrees
        String cmd = "python benchmarks/benchmark_latency.py --model meta-llama/Meta-Llama-3-70B";
        assertThat(PerfCommand.parse(cmd).errors()).extracting(Finding::code).contains("MODEL_TOO_LARGE");
        ParsedPerfCommand fp8 = PerfCommand.parse(cmd + " --quantization fp8");
        assertThat(fp8.errors()).extracting(Finding::code).doesNotContain("MODEL_TOO_LARGE");
        assertThat(fp8.modelSize().bytesPerParam()).isEqualTo(1.0);
        assertThat(fp8.modelSize().basis()).contains("--quantization fp8");
        assertThat(PerfCommand.parse(cmd + " -q awq").modelSize().bytesPerParam()).isEqualTo(0.5);
        assertThat(GpuEstimate.forCommand(cmd + " --quantization fp8", null, null).fits()).isTrue();
        assertThat(GpuEstimate.forCommand(cmd, null, null).fits()).isFalse();
    }
}
