package io.isobench.engine;

import io.isobench.Mode;
import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.Failure;
import io.isobench.parse.FailureClassifier;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.MetricDictionary;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry and its one choice rule (docs/engines.md, "Which adapter"), the contract every adapter keeps, and the
 * seam's proof: {@link PlantedEngine}, declared only on the test classpath, is picked up with no main file changed.
 */
class EnginesTest {

    private static List<String> words(String command) {
        return List.of(command.split(" "));
    }

    @Test
    void theBuiltInsComeFirstInOrderThenTheDeclaredOnes() {
        assertThat(Engines.all().stream().map(EngineAdapter::name).toList())
                .startsWith("vllm", "sglang", "toy", "generic").contains("planted");
        assertThat(Engines.vllm().name()).isEqualTo(Engines.DEFAULT);
    }

    @Test
    void aCommandGoesToTheAdapterWhoseDialectRecognisesItsProgramElseToVllm() {
        assertThat(Engines.forCommand(words("vllm bench serve --model m")).name()).isEqualTo("vllm");
        assertThat(Engines.forCommand(words("python3 benchmarks/benchmark_latency.py --model m")).name())
                .isEqualTo("vllm");
        assertThat(Engines.forCommand(words("python -m sglang.bench_serving --backend sglang")).name())
                .isEqualTo("sglang");
        assertThat(Engines.forCommand(words("python3 -u -m sglang.bench_one_batch --model-path m")).name())
                .isEqualTo("sglang");
        // nobody's program: vLLM's lint says what it is not
        assertThat(Engines.forCommand(words("python my_bench.py")).name()).isEqualTo("vllm");
        assertThat(Engines.toolOf(words("python my_bench.py"))).isEmpty();
        // the toy engine speaks vLLM's dialect: its commands are vLLM's
        assertThat(Engines.named("toy").orElseThrow().dialect()).isSameAs(Engines.vllm().dialect());
    }

    @Test
    void theEntryPointNamesTheModeTheOneModeDetectorSays() {
        for (String c : List.of("vllm bench serve", "vllm bench throughput", "vllm bench latency",
                "python benchmarks/benchmark_serving.py", "python benchmarks/benchmark_prefix_caching.py",
                "python -m sglang.bench_serving")) {
            EntryPoint e = Engines.toolOf(words(c)).orElseThrow();
            assertThat(e.mode()).as(c).isEqualTo(Mode.ofCommand(c).orElseThrow());
            assertThat(e.benchmark()).as(c).isTrue();
        }
        assertThat(Engines.toolOf(words("vllm serve m")).orElseThrow().benchmark()).isFalse();
        assertThat(Engines.toolOf(words("python -m sglang.launch_server --model-path m")).orElseThrow().benchmark())
                .isFalse();
    }

    @Test
    void aPlantedAdapterIsPickedUpWithNoOtherFileChanged() {
        EngineAdapter planted = Engines.named("planted").orElseThrow();
        assertThat(planted).isInstanceOf(PlantedEngine.class);
        assertThat(Engines.forCommand(words("planted-bench --rounds 3"))).isSameAs(planted);
        assertThat(Engines.serverMetricsOf(List.of("ttft_ms_mean", "planted:busy_ratio_mean")))
                .isSameAs(PlantedEngine.METRICS);
    }

    @Test
    void serverMetricNamesAreThoseOfTheEngineWhoseNamespaceTheRunsCarry() {
        assertThat(Engines.serverMetricsOf(List.of("tpot_ms_mean", "sglang:token_usage_mean")).namespace())
                .isEqualTo("sglang:");
        assertThat(Engines.serverMetricsOf(List.of("vllm:num_preemptions_delta")).namespace()).isEqualTo("vllm:");
        // not scraped: the default engine's
        assertThat(Engines.serverMetricsOf(List.of("tpot_ms_mean")).namespace()).isEqualTo("vllm:");
    }

    @Test
    void everyAdapterKeepsTheContract() {
        Set<String> names = new HashSet<>();
        for (EngineAdapter a : Engines.all()) {
            assertThat(a.name()).isEqualTo(a.name().toLowerCase(Locale.ROOT)).isNotBlank();
            assertThat(names.add(a.name())).as("unique name " + a.name()).isTrue();
            assertThat(a.serverMetrics().namespace()).endsWith(":");
            assertThat(a.serverMetrics().names()).allMatch(n -> n.startsWith(a.serverMetrics().namespace()));
            for (String junk : new String[] {"", "no result here", "{\"x\": 1}", "=".repeat(50), "\u0000{["}) {
                assertThat(a.parseConsole(junk)).as(a.name() + " console " + junk).isEmpty();
                assertThat(a.parseResult(junk)).as(a.name() + " result " + junk).isEmpty();
            }
            for (FailureSignature s : a.failureSignatures()) {
                // the classifier, given the adapter's lines, classifies its own failures as the adapter says
                assertThat(FailureClassifier.classify(s.text(), a.failureSignatures()).map(Failure::category))
                        .as(a.name() + ": " + s.text()).contains(s.category());
            }
            for (ServerMetricNames.Summary s : a.serverMetrics().summaries()) {
                for (String n : s.names()) {
                    // every summary is a canonical metric: the dictionary's rule gives the adapter's unit and direction
                    MetricDictionary.Definition d = MetricDictionary.lookup(n);
                    assertThat(d).as(a.name() + ": " + n).isNotNull();
                    assertThat(d.unit()).as(n).isEqualTo(s.unit(n));
                    assertThat(d.better()).as(n).isEqualTo(s.better(n));
                }
            }
        }
    }
}
