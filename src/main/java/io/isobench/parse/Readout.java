package io.isobench.parse;

import java.util.List;
import java.util.Objects;

/**
 * How a generic engine's job is read (part of the plan): the declared metric rules, the primary metric, and for a
 * correctness check the rule that reads the generated text.
 *
 * @param metrics the declared rules read from the command's output (measured jobs, and the baseline's first check,
 *                which is the lint run: every rule must match the baseline's output); built-in metrics are not listed
 * @param primary the primary metric's name: a declared rule's, {@link MetricRule#WALL} or {@link MetricRule#CPU};
 *                for a serving task a metric of isobench's load generator
 * @param output  check jobs: where the generated text is (each regex match, JSON list element, or the whole text is
 *                one output); null for measured jobs
 */
public record Readout(List<MetricRule> metrics, String primary, ReadRule output) {

    public Readout {
        metrics = List.copyOf(metrics);
        Objects.requireNonNull(primary, "primary");
    }

    /** The same readout without the metric rules (what a check that is not the lint run reads). */
    public Readout outputOnly() {
        return new Readout(List.of(), primary, output);
    }

    /** Unit and direction of the primary metric: its rule's, or the dictionary's (built-ins, loadgen metrics). */
    public MetricDictionary.Definition primaryDefinition() {
        for (MetricRule r : metrics) {
            if (r.name().equals(primary)) {
                return new MetricDictionary.Definition(r.name(), r.unit(), r.better());
            }
        }
        return MetricDictionary.lookup(primary);
    }
}
