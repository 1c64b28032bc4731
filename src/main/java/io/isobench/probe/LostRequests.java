package io.isobench.probe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Why a serving client's requests failed, as the client knew it: each reason (the load generator's error kinds,
 * e.g. {@code http_500}, {@code timeout}) with how many requests it lost, in the client's order. Empty when none
 * failed, or when the client ran elsewhere and only its counts came back (a pod, a batch job): the run's
 * {@code failed_requests} metric still says how many.
 *
 * @param byReason reason → requests lost (each count &gt; 0), in the client's order
 */
public record LostRequests(Map<String, Integer> byReason) {

    /** No reasons known. */
    public static final LostRequests NONE = new LostRequests(Map.of());

    public LostRequests {
        Objects.requireNonNull(byReason, "byReason");
        byReason.forEach((reason, n) -> {
            if (n == null || n <= 0) {
                throw new IllegalArgumentException("requests lost to " + reason + " must be > 0, not " + n);
            }
        });
        // the order is the client's (the load generator's: by reason name), kept as given
        byReason = Collections.unmodifiableMap(new LinkedHashMap<>(byReason));
    }

    /** The reasons of a client's summary ({@code LoadgenResult.Summary.failuresByReason}). */
    public static LostRequests of(Map<String, Integer> byReason) {
        return byReason.isEmpty() ? NONE : new LostRequests(byReason);
    }

    public boolean isEmpty() {
        return byReason.isEmpty();
    }

    /** The reasons as a run's failure states them: {@code http_500 x2, timeout x1}; empty when none is known. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        byReason.forEach((reason, n) -> parts.add(reason + " x" + n));
        return String.join(", ", parts);
    }
}
