package io.isobench.loadgen;

/**
 * One measured request. Times are nanoseconds on the run's monotonic clock: {@code scheduledNs} and {@code sendNs}
 * are offsets from the run start ({@link LoadgenResult#startNanoTime()}); {@code chunkNs} are offsets from
 * {@code sendNs}, one per streamed chunk that carried choices (vLLM's notion of a token chunk).
 *
 * @param index                 position in the request sequence (0-based, warm-ups excluded)
 * @param success               true when at least one chunk (or, unstreamed, a full response) arrived and no error
 * @param errorKind             null on success; else a short reason key (connect, timeout, http_503, malformed_json…)
 * @param error                 null on success; else the reason with detail (one line)
 * @param scheduledNs           when the arrival process scheduled the request
 * @param sendNs                when it was actually sent (after waiting for a concurrency slot): stamped on the I/O
 *                              thread in the loop turn that takes its connection and writes its bytes (a kept-alive
 *                              connection: microseconds before the write; a new one: before its connect, which is
 *                              part of the request as in vLLM's client)
 * @param endNs                 when the response ended (offset from the run start)
 * @param ttftNs                time to first chunk from send, or -1
 * @param latencyNs             E2EL: last chunk arrival − send (vLLM), or response end − send when unstreamed; -1 if none
 * @param chunkNs               chunk arrival offsets from send
 * @param expectedInputTokens   prompt length intended by the dataset, -1 when unknown
 * @param promptTokens          prompt tokens reported by the server ({@code usage.prompt_tokens}), -1 when not reported
 * @param outputTokens          output tokens used for metrics
 * @param outputTokensFromUsage true when {@code outputTokens} is the server's {@code usage.completion_tokens};
 *                              false when it is the counted chunks
 * @param maxTokens             output tokens requested
 * @param generatedText         concatenated streamed text
 * @param readyNs               the earliest it could have been sent: the later of {@code scheduledNs} and the moment
 *                              a {@code --max-concurrency} slot was free for it (offset from the run start); its
 *                              schedule lag is {@code sendNs − readyNs} (docs/loadgen.md, "Schedule fidelity")
 */
public record RequestResult(
        int index,
        boolean success,
        String errorKind,
        String error,
        long scheduledNs,
        long sendNs,
        long endNs,
        long ttftNs,
        long latencyNs,
        long[] chunkNs,
        int expectedInputTokens,
        int promptTokens,
        int outputTokens,
        boolean outputTokensFromUsage,
        int maxTokens,
        String generatedText,
        long readyNs) {

    /** Input tokens used for metrics: the server's count when reported, else the dataset's intended length. */
    public int inputTokens() {
        return promptTokens >= 0 ? promptTokens : Math.max(expectedInputTokens, 0);
    }

    /** Time spent waiting in the client for a concurrency slot. */
    public long clientQueueNs() {
        return Math.max(0, sendNs - scheduledNs);
    }

    /**
     * How late the client sent it: {@code sendNs − readyNs} (never negative), the time lost in the client between
     * the moment it could go (its intended time, or a free concurrency slot if later) and its send.
     */
    public long scheduleLagNs() {
        return Math.max(0, sendNs - readyNs);
    }

    /** TPOT in ns with vLLM's rule: (E2EL − TTFT)/(out − 1) for out > 1, else -1. */
    public double tpotNs() {
        return success && outputTokens > 1 ? (double) (latencyNs - ttftNs) / (outputTokens - 1) : -1;
    }

    /** Inter-chunk gaps in ns (chunks − 1 of them). */
    public long[] itlNs() {
        if (chunkNs.length < 2) {
            return new long[0];
        }
        long[] g = new long[chunkNs.length - 1];
        for (int i = 1; i < chunkNs.length; i++) {
            g[i - 1] = chunkNs[i] - chunkNs[i - 1];
        }
        return g;
    }
}
