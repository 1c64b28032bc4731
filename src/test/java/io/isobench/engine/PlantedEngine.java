package io.isobench.engine;

import io.isobench.Mode;
import io.isobench.loadgen.ServerMetricNames;
import io.isobench.parse.FailureSignature;
import io.isobench.parse.ParsedOutput;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An engine planted by the tests alone (declared in the test classpath's
 * {@code META-INF/services/io.isobench.engine.EngineAdapter}): the seam's proof that a new adapter is picked up by the
 * registry, the lint, the server-metric summaries and the secondary metrics with no main file changed.
 */
public final class PlantedEngine implements EngineAdapter {

    static final ServerMetricNames METRICS = new ServerMetricNames("planted:", List.of(
            // the summary's name tells its unit (a share: _ratio), as the metric dictionary reads it
            new ServerMetricNames.Gauge("planted:busy_ratio", List.of("planted:busy"), false, "ratio")),
            List.of("planted:busy_ratio_mean"), null, Map.of());

    @Override
    public String name() {
        return "planted";
    }

    @Override
    public Dialect dialect() {
        return new Dialect() {
            @Override
            public Optional<EntryPoint> entryPoint(List<String> words) {
                return !words.isEmpty() && words.get(0).equals("planted-bench")
                        ? Optional.of(new EntryPoint("planted", "planted-bench", Mode.SERVING, 1, true))
                        : Optional.empty();
            }

            @Override
            public Set<String> known() {
                return Set.of("--rounds");
            }

            @Override
            public Set<String> accepted(EntryPoint tool) {
                return Set.of("--rounds");
            }

            @Override
            public boolean isBoolean(String canonical) {
                return false;
            }

            @Override
            public ValueRule rule(String canonical) {
                return ValueRule.POSITIVE_INT;
            }
        };
    }

    @Override
    public Optional<ParsedOutput> parseConsole(String text) {
        return Optional.empty();
    }

    @Override
    public Optional<ParsedOutput> parseResult(String text) {
        return Optional.empty();
    }

    @Override
    public List<FailureSignature> failureSignatures() {
        return List.of();
    }

    @Override
    public ServerMetricNames serverMetrics() {
        return METRICS;
    }
}
