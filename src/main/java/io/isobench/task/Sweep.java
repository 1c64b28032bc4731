package io.isobench.task;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A serving task's load sweep ({@code sweep:} in the suite; docs/suite-format.md, docs/loadgen.md "Load sweeps"):
 * the client flag that varies, the load points every arm is measured at (each point in every round), and the share
 * of requests that must meet the task's {@code --goodput} SLO targets for a point to count as met.
 *
 * @param kind        which client flag varies
 * @param points      the load points in ascending order (request rates in req/s, or concurrency limits); empty
 *                    for {@link Kind#AUTO} until the points are chosen
 * @param minGoodFraction the share of completed requests that must meet every SLO target (0 &lt; x ≤ 1): a point is
 *                    met when request_goodput_rps / request_throughput_rps ≥ this
 * @param pilots      {@link Kind#AUTO}: the pilot phase's settings ({@code start_rps}, {@code max_pilots}); null for
 *                    the defaults, and for every other kind
 */
public record Sweep(Kind kind, List<Double> points, double minGoodFraction, Pilots pilots) {

    /** The share of requests meeting the SLO a point needs by default (90 %). */
    public static final double DEFAULT_MIN_GOOD_FRACTION = 0.9;

    /** The most points a sweep may have (each one is a run per arm and round). */
    public static final int MAX_POINTS = 16;

    /** What a sweep varies. */
    public enum Kind {
        /** {@code --request-rate}: Poisson arrivals at each rate (req/s). */
        REQUEST_RATE("request_rate", "--request-rate", "req/s"),
        /** {@code --max-concurrency}: at most N requests in flight (all sent at once otherwise). */
        MAX_CONCURRENCY("max_concurrency", "--max-concurrency", "concurrent requests"),
        /** The points are found by the saturation search (docs/loadgen.md "auto"), on request rates. */
        AUTO("auto", "--request-rate", "req/s");

        private final String label;
        private final String flag;
        private final String unit;

        Kind(String label, String flag, String unit) {
            this.label = label;
            this.flag = flag;
            this.unit = unit;
        }

        /** The suite's key ({@code request_rate}, {@code max_concurrency}, {@code auto}). */
        public String label() {
            return label;
        }

        /** The client flag a point sets. */
        public String flag() {
            return flag;
        }

        /** The unit of a point's value. */
        public String unit() {
            return unit;
        }

        /** The kind of a label, or null. */
        public static Kind of(String label) {
            for (Kind k : values()) {
                if (k.label.equals(label)) {
                    return k;
                }
            }
            return null;
        }
    }

    /**
     * {@code sweep: auto}'s pilot phase settings (docs/suite-format.md): the first pilot's rate and the most pilots.
     *
     * @param startRps  the first pilot's request rate in req/s (default 1)
     * @param maxPilots pilot runs in all, at most (default 8)
     */
    public record Pilots(double startRps, int maxPilots) {
        /** 1 req/s, at most 8 pilots. */
        public static final Pilots DEFAULTS = new Pilots(1.0, 8);

        public Pilots {
            if (!(startRps > 0) || Double.isInfinite(startRps) || maxPilots < 1) {
                throw new IllegalArgumentException("start_rps must be > 0 and max_pilots >= 1");
            }
        }
    }

    /** A sweep with the default pilot settings (none for an explicit list). */
    public Sweep(Kind kind, List<Double> points, double minGoodFraction) {
        this(kind, points, minGoodFraction, null);
    }

    public Sweep {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.AUTO && pilots == null) {
            pilots = Pilots.DEFAULTS;
        }
        points = List.copyOf(points);
        if (!(minGoodFraction > 0 && minGoodFraction <= 1)) {
            throw new IllegalArgumentException("minGoodFraction (" + minGoodFraction + ") must be in (0, 1]");
        }
        for (int i = 0; i < points.size(); i++) {
            double p = points.get(i);
            if (!(p > 0) || Double.isInfinite(p)) {
                throw new IllegalArgumentException("sweep point " + p + " must be a positive finite number");
            }
            if (i > 0 && !(p > points.get(i - 1))) {
                throw new IllegalArgumentException("sweep points must be strictly ascending: " + points);
            }
        }
        if (kind != Kind.AUTO && points.isEmpty()) {
            throw new IllegalArgumentException("a " + kind.label() + " sweep needs at least one point");
        }
        if (points.size() > MAX_POINTS) {
            throw new IllegalArgumentException("a sweep has at most " + MAX_POINTS + " points, got " + points.size());
        }
    }

    /**
     * The explicit request-rate sweep an {@code auto} sweep becomes once its pilots chose {@code decided}: the same
     * {@code min_good_fraction}, planned like a listed one.
     */
    public Sweep decided(List<Double> decided) {
        if (kind != Kind.AUTO) {
            throw new IllegalStateException("only an auto sweep is decided by pilots");
        }
        return new Sweep(Kind.REQUEST_RATE, decided, minGoodFraction, null);
    }

    /** A point's value as the client flag's text: integers without a decimal point ({@code 4}, {@code 2.5}). */
    public static String text(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : Double.toString(value);
    }

    /** The client with this sweep's flag set to {@code value}: the flag as the task wrote it dropped, set last. */
    public ClientConfig clientAt(ClientConfig client, double value) {
        return client.with(kind.flag(), text(value));
    }

    /** {@code request_rate=4} for a point: the name of a point in job ids, the plan's order and reports. */
    public String pointName(double value) {
        return kind.label() + "=" + text(value);
    }

    @Override
    public String toString() {
        return kind.label().toLowerCase(Locale.ROOT) + points.stream().map(Sweep::text).toList();
    }
}
