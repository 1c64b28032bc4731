package io.isobench.parse;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Server-metric summaries of any engine's namespace (docs/server-metrics.md, "Names of any engine"): the part after
 * {@code <namespace>:} is engine-neutral and says the unit and direction; vLLM's names keep the definitions they had
 * as literal entries before the rule (listed here as they were), SGLang's {@code sglang:*} get theirs.
 */
class MetricDictionaryServerTest {

    /** The vLLM entries the dictionary listed one by one before the rule: name → unit, direction. */
    private static final Map<String, List<Object>> VLLM_BEFORE = Map.ofEntries(
            Map.entry("vllm:num_requests_running_mean", List.of("requests", Better.NONE)),
            Map.entry("vllm:num_requests_running_max", List.of("requests", Better.NONE)),
            Map.entry("vllm:num_requests_waiting_mean", List.of("requests", Better.NONE)),
            Map.entry("vllm:num_requests_waiting_max", List.of("requests", Better.NONE)),
            Map.entry("vllm:kv_cache_usage_perc_mean", List.of("ratio", Better.NONE)),
            Map.entry("vllm:kv_cache_usage_perc_max", List.of("ratio", Better.NONE)),
            Map.entry("vllm:prefix_cache_hit_rate", List.of("ratio", Better.HIGHER)),
            Map.entry("vllm:spec_decode_acceptance_rate", List.of("ratio", Better.HIGHER)),
            Map.entry("vllm:num_preemptions_delta", List.of("preemptions", Better.LOWER)),
            Map.entry("vllm:time_to_first_token_ms_mean", List.of("ms", Better.LOWER)),
            Map.entry("vllm:time_to_first_token_ms_p99", List.of("ms", Better.LOWER)),
            Map.entry("vllm:e2e_request_latency_ms_mean", List.of("ms", Better.LOWER)),
            Map.entry("vllm:e2e_request_latency_ms_p99", List.of("ms", Better.LOWER)));

    private static List<Object> def(String name) {
        MetricDictionary.Definition d = MetricDictionary.require(name);
        return List.of(d.unit(), d.better());
    }

    @Test
    void vllmsNamesKeepTheirDefinitions() {
        VLLM_BEFORE.forEach((name, expected) -> assertThat(def(name)).as(name).isEqualTo(expected));
    }

    @Test
    void sglangsSummariesAreDefinedByTheSameRule() {
        assertThat(def("sglang:num_running_reqs_mean")).containsExactly("requests", Better.NONE);
        assertThat(def("sglang:num_queue_reqs_max")).containsExactly("requests", Better.NONE);
        assertThat(def("sglang:token_usage_mean")).containsExactly("ratio", Better.NONE);
        assertThat(def("sglang:cache_hit_rate_max")).containsExactly("ratio", Better.NONE);
        assertThat(def("sglang:spec_accept_length_mean")).containsExactly("tokens", Better.NONE);
        assertThat(def("sglang:time_to_first_token_ms_mean")).containsExactly("ms", Better.LOWER);
        assertThat(def("sglang:e2e_request_latency_ms_p99")).containsExactly("ms", Better.LOWER);
        // a metric of the run made from them is canonical (Metric.of requires a definition)
        assertThat(Metric.of("sglang:token_usage_mean", 0.5).unit()).isEqualTo("ratio");
    }

    @Test
    void anyNamespaceAndOnlyTheKindsOfTheRule() {
        assertThat(def("other:busy_ratio_mean")).containsExactly("ratio", Better.NONE);
        assertThat(def("other:queue_depth_max")).containsExactly("value", Better.NONE);
        assertThat(def("other:num_swaps_delta")).containsExactly("swaps", Better.LOWER);
        assertThat(def("other:restarts_delta")).containsExactly("count", Better.LOWER);
        assertThat(def("other:draft_hit_rate")).containsExactly("ratio", Better.HIGHER);
        assertThat(def("other:queue_time_ms_p99.9")).containsExactly("ms", Better.LOWER);
        for (String n : new String[] {"vllm:num_requests_running", "vllm:", ":x_mean", "Vllm:x_mean", "vllm:x_ms_sum",
                "vllm:time_to_first_token_seconds", "vllm:x_total", "a:b:c_mean"}) {
            assertThat(MetricDictionary.lookup(n)).as(n).isNull();
        }
    }
}
