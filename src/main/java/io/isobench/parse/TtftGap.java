package io.isobench.parse;

/**
 * When a run's client-vs-server TTFT gap ({@code ttft_client_minus_server_ms}: client TTFT mean − the server's
 * {@code vllm:time_to_first_token} mean) is "large" ({@code ttft_client_server_gap_large}): above both thresholds, in
 * either direction. One place for the loadgen that flags it and the report that explains it (docs/server-metrics.md).
 */
public final class TtftGap {

    /** The gap is large above this many ms … */
    public static final double LARGE_MS = 10.0;
    /** … and above this share of the client's TTFT mean (both must hold). */
    public static final double LARGE_SHARE = 0.25;

    private TtftGap() {
    }

    /** Whether {@code gapMs} is large against a client TTFT mean of {@code clientMs}. */
    public static boolean large(double gapMs, double clientMs) {
        return Math.abs(gapMs) > LARGE_MS && Math.abs(gapMs) > LARGE_SHARE * Math.abs(clientMs);
    }

    /** The rule in words: {@code |gap| > 10 ms and > 25 % of the client's TTFT}. */
    public static String rule() {
        return "|gap| > " + Math.round(LARGE_MS) + " ms and > " + Math.round(LARGE_SHARE * 100) + " % of the client's TTFT";
    }
}
