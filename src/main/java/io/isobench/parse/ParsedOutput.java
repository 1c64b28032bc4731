package io.isobench.parse;

import io.isobench.Mode;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What a benchmark's output said.
 *
 * @param mode              mode the output shows (serving block, latency lines, throughput line, prefix-caching
 *                          "est. speed" lines, micro JSON lines), or null when it shows none
 * @param metrics           canonical metrics (names from {@link MetricDictionary}), in the order they were read
 * @param workload          serving workload fingerprint, or null when the output has no serving block counts
 * @param evidence          metric name → the line it came from (whole, ANSI stripped, redacted) or, for JSON
 *                          input, the key and value
 * @param warnings          anything a reader of the numbers should know (duplicate blocks, cut last line, skipped
 *                          non-finite values, …)
 * @param micro             every micro-benchmark JSON line found (metrics come from the first successful one)
 * @param emptyResultBlock  true when a serving result header was printed but no block carried a metric row (the
 *                          old harness's empty/error echo block): a header is not a success
 */
public record ParsedOutput(
        Mode mode,
        List<Metric> metrics,
        Workload workload,
        Map<String, String> evidence,
        List<String> warnings,
        List<MicroResult> micro,
        boolean emptyResultBlock) {

    public ParsedOutput {
        metrics = metrics == null ? List.of() : List.copyOf(metrics);
        evidence = evidence == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
        micro = micro == null ? List.of() : List.copyOf(micro);
    }

    static ParsedOutput empty(List<String> warnings) {
        return new ParsedOutput(null, List.of(), null, Map.of(), warnings, List.of(), false);
    }

    /** Output of one mode read as metrics (no micro-benchmark lines, not an empty result block). */
    public static ParsedOutput of(Mode mode, List<Metric> metrics, Workload workload, Map<String, String> evidence,
                                  List<String> warnings) {
        return new ParsedOutput(mode, metrics, workload, evidence, warnings, List.of(), false);
    }

    /** A serving result header printed without any metric row (no metrics: a header is not a success). */
    static ParsedOutput emptyResultBlock(List<String> warnings) {
        return new ParsedOutput(Mode.SERVING, List.of(), null, Map.of(), warnings, List.of(), true);
    }

    public boolean hasMetrics() {
        return !metrics.isEmpty();
    }

    public Optional<Metric> metric(String name) {
        for (Metric m : metrics) {
            if (m.name().equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    public OptionalDouble value(String name) {
        return metric(name).map(m -> OptionalDouble.of(m.value())).orElse(OptionalDouble.empty());
    }

    /** The primary metric of the detected mode (DESIGN.md §5), if the output has it. */
    public Optional<Metric> primary() {
        return mode == null ? Optional.empty() : metric(MetricDictionary.primaryMetric(mode));
    }
}
