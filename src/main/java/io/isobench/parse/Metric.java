package io.isobench.parse;

/** One canonical metric value; unit and direction come from {@link MetricDictionary}. */
public record Metric(String name, double value, String unit, Better better) {

    public Metric {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("metric name must not be blank");
        }
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("metric " + name + " value (" + value + ") must be finite");
        }
    }

    public static Metric of(String name, double value) {
        MetricDictionary.Definition d = MetricDictionary.require(name);
        return new Metric(name, value, d.unit(), d.better());
    }
}
