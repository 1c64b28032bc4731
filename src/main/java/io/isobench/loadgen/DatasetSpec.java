package io.isobench.loadgen;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * Where the prompts come from (vLLM's {@code --dataset-name} and its per-dataset flags).
 *
 * <p>Built only by the factories below (10 components, read by name; scripts/shape-check allows that).
 *
 * @param kind        random, sharegpt, custom (JSONL prompts file), fixed, sonnet, prefix_repetition or timed_trace
 * @param path        the file for sharegpt/custom/sonnet/timed_trace, else null
 * @param inputLen    random: target prompt length in tokens; sonnet: prompt budget in tokens;
 *                    prefix_repetition: suffix length in tokens
 * @param outputLen   random/sonnet/prefix_repetition/custom/fixed: output tokens; sharegpt: override
 *                    (0 = from the reply)
 * @param rangeRatio  random: lengths drawn uniformly from [len·(1−r), len·(1+r)]
 * @param prefixLen   random/prefix_repetition: prefix tokens shared by prompts; sonnet: tokens of fixed leading lines
 * @param fixedPrompt fixed: the prompt text
 * @param numPrefixes prefix_repetition: how many distinct prefixes (else 0)
 * @param multiTurn   sharegpt with {@code --multi-turn}: every turn of a conversation is sent, each after the previous
 *                    reply, with the conversation so far as context (docs/loadgen.md, "Multi-turn conversations");
 *                    null: one request per conversation (its first turn), as vLLM's ShareGPT dataset
 * @param trace       timed_trace: how the trace file is read and replayed (docs/loadgen.md, "timed-trace"); else null
 */
public record DatasetSpec(Kind kind, Path path, int inputLen, int outputLen, double rangeRatio, int prefixLen,
                          String fixedPrompt, int numPrefixes, MultiTurn multiTurn, Trace trace) {

    public enum Kind { RANDOM, SHAREGPT, CUSTOM, FIXED, SONNET, PREFIX_REPETITION, TIMED_TRACE }

    /**
     * Timed-trace settings ({@code --dataset-name timed-trace}).
     *
     * @param blockTokens   {@code --timed-trace-chunk-hash-size}: tokens per hash id (512 Mooncake's, 16 Alibaba's)
     * @param secMultiplier {@code --timed-trace-sec-multiplier}: a numeric timestamp times this is seconds (vLLM's
     *                      meaning; isobench's default 0.001 reads Mooncake's milliseconds)
     * @param speedup       {@code --trace-speedup}: intended offsets are divided by this
     * @param startS        {@code --trace-start}: the window starts this many trace seconds after the first record
     * @param durationS     {@code --trace-duration}: the window is this many trace seconds long (infinite: to the end)
     * @param labels        the JSON field names ({@code --timed-trace-label-*})
     */
    public record Trace(int blockTokens, double secMultiplier, double speedup, double startS, double durationS,
                        Labels labels) {

        /** isobench's defaults: Mooncake's 512-token blocks, millisecond timestamps at their real pace, all of it. */
        public static final Trace DEFAULT = new Trace(512, 0.001, 1.0, 0.0, Double.POSITIVE_INFINITY, Labels.DEFAULT);
    }

    /** The JSON field names of a timed-trace record (vLLM's {@code --timed-trace-label-*} flags). */
    public record Labels(String timestamp, String inputLength, String outputLength, String hashIds) {

        public static final Labels DEFAULT = new Labels("timestamp", "input_length", "output_length", "hash_ids");
    }

    /**
     * Multi-turn settings ({@code --multi-turn}).
     *
     * @param maxTurns         {@code --max-turns}: at most this many turns (human messages) of a conversation are sent;
     *                         0 = all of them
     * @param maxContextTokens {@code --max-context-len}: a turn is sent only while the estimated context (system prompt,
     *                         the earlier turns and their output budgets, this turn) plus this turn's output budget fits;
     *                         the conversation ends before the first turn that does not (0 = no cap)
     */
    public record MultiTurn(int maxTurns, int maxContextTokens) {

        /** The defaults: every turn, a context of at most 2,048 tokens (vLLM's ShareGPT filter: prompt + output). */
        public static final MultiTurn DEFAULT = new MultiTurn(0, 2048);
    }

    public static DatasetSpec random(int inputLen, int outputLen, double rangeRatio, int prefixLen) {
        return new DatasetSpec(Kind.RANDOM, null, inputLen, outputLen, rangeRatio, prefixLen, null, 0, null, null);
    }

    public static DatasetSpec sharegpt(Path path, int outputLenOverride) {
        return new DatasetSpec(Kind.SHAREGPT, path, 0, outputLenOverride, 0, 0, null, 0, null, null);
    }

    /**
     * ShareGPT conversations with every turn sent ({@code --dataset-name sharegpt --multi-turn}); {@code
     * outputLenOverride} as {@link #sharegpt}, for every turn.
     */
    public static DatasetSpec sharegptMultiTurn(Path path, int outputLenOverride, MultiTurn multiTurn) {
        return new DatasetSpec(Kind.SHAREGPT, path, 0, outputLenOverride, 0, 0, null, 0,
                Objects.requireNonNull(multiTurn, "multiTurn"), null);
    }

    public static DatasetSpec custom(Path path, int outputLen) {
        return new DatasetSpec(Kind.CUSTOM, path, 0, outputLen, 0, 0, null, 0, null, null);
    }

    public static DatasetSpec fixed(String prompt, int outputLen) {
        return new DatasetSpec(Kind.FIXED, null, 0, outputLen, 0, 0, prompt, 0, null, null);
    }

    /** vLLM's SonnetDataset: lines of a poem file; defaults --sonnet-input-len 550, -output-len 150, -prefix-len 200. */
    public static DatasetSpec sonnet(Path path, int inputLen, int outputLen, int prefixLen) {
        return new DatasetSpec(Kind.SONNET, path, inputLen, outputLen, 0, prefixLen, null, 0, null, null);
    }

    /**
     * vLLM's PrefixRepetitionRandomDataset: {@code numPrefixes} random prefixes, each request one of them plus a random
     * suffix; vLLM's defaults are prefix 256, suffix 256, 10 prefixes, output 128.
     */
    public static DatasetSpec prefixRepetition(int prefixLen, int suffixLen, int numPrefixes, int outputLen) {
        return new DatasetSpec(Kind.PREFIX_REPETITION, null, suffixLen, outputLen, 0, prefixLen, null, numPrefixes, null, null);
    }

    /** A timed trace: the file's records give each request's prompt, output length and intended send offset. */
    public static DatasetSpec timedTrace(Path path, Trace trace) {
        return new DatasetSpec(Kind.TIMED_TRACE, path, 0, 0, 0, 0, null, 0, null, Objects.requireNonNull(trace, "trace"));
    }

    /** A short id for the workload fingerprint. */
    public String id() {
        return switch (kind) {
            case RANDOM -> "random:in=" + inputLen + ",out=" + outputLen + ",ratio=" + rangeRatio + ",prefix=" + prefixLen;
            case SHAREGPT -> "sharegpt:" + path.getFileName() + (outputLen > 0 ? ",out=" + outputLen : "")
                    + (multiTurn == null ? "" : ",multi_turn,max_turns=" + multiTurn.maxTurns() + ",max_context="
                    + multiTurn.maxContextTokens());
            case CUSTOM -> "custom:" + path.getFileName() + ",out=" + outputLen;
            case FIXED -> "fixed:len=" + fixedPrompt.length() + ",out=" + outputLen;
            case SONNET -> "sonnet:" + path.getFileName() + ",in=" + inputLen + ",out=" + outputLen
                    + ",prefix=" + prefixLen;
            case PREFIX_REPETITION -> "prefix_repetition:prefix=" + prefixLen + ",suffix=" + inputLen + ",prefixes="
                    + numPrefixes + ",out=" + outputLen;
            case TIMED_TRACE -> "timed_trace:" + path.getFileName() + ",block=" + trace.blockTokens() + ",sec_multiplier="
                    + trace.secMultiplier() + ",speedup=" + trace.speedup() + ",start=" + trace.startS()
                    + (Double.isInfinite(trace.durationS()) ? "" : ",duration=" + trace.durationS())
                    + (trace.labels().equals(Labels.DEFAULT) ? "" : ",labels=" + trace.labels().timestamp() + "/"
                    + trace.labels().inputLength() + "/" + trace.labels().outputLength() + "/" + trace.labels().hashIds());
        };
    }

    void validate() {
        if (multiTurn != null && (multiTurn.maxTurns() < 0 || multiTurn.maxContextTokens() < 0)) {
            throw new IllegalArgumentException("--max-turns (" + multiTurn.maxTurns() + ") and --max-context-len ("
                    + multiTurn.maxContextTokens() + ") must be >= 0 (0: no limit)");
        }
        switch (kind) {
            case RANDOM -> {
                if (inputLen < 1 || outputLen < 1) {
                    throw new IllegalArgumentException("--random-input-len (" + inputLen + ") and --random-output-len ("
                            + outputLen + ") must be >= 1");
                }
                if (!(rangeRatio >= 0) || rangeRatio >= 1) {
                    throw new IllegalArgumentException("--random-range-ratio (" + rangeRatio + ") must be in [0, 1)");
                }
                if (prefixLen < 0) {
                    throw new IllegalArgumentException("--random-prefix-len (" + prefixLen + ") must be >= 0");
                }
            }
            case SHAREGPT, CUSTOM -> {
                if (path == null) {
                    throw new IllegalArgumentException("--dataset-name " + kind.name().toLowerCase(Locale.ROOT)
                            + " needs --dataset-path FILE");
                }
                if (outputLen < 0 || (kind == Kind.CUSTOM && outputLen < 1)) {
                    throw new IllegalArgumentException("output length (" + outputLen + ") must be >= 1");
                }
            }
            case SONNET -> {
                if (path == null) {
                    throw new IllegalArgumentException("--dataset-name sonnet needs --dataset-path FILE (vLLM's"
                            + " benchmarks/sonnet.txt)");
                }
                if (inputLen < 1 || outputLen < 1 || prefixLen < 0) {
                    throw new IllegalArgumentException("--sonnet-input-len (" + inputLen + ") and --sonnet-output-len ("
                            + outputLen + ") must be >= 1, --sonnet-prefix-len (" + prefixLen + ") >= 0");
                }
            }
            case PREFIX_REPETITION -> {
                if (prefixLen < 0 || inputLen < 0 || prefixLen + inputLen < 1 || outputLen < 1 || numPrefixes < 1) {
                    throw new IllegalArgumentException("--prefix-repetition-prefix-len (" + prefixLen
                            + ") and -suffix-len (" + inputLen + ") must be >= 0 with a sum >= 1, -num-prefixes (" + numPrefixes
                            + ") and -output-len (" + outputLen + ") >= 1");
                }
            }
            case TIMED_TRACE -> {
                if (path == null) {
                    throw new IllegalArgumentException("--dataset-name timed-trace needs --dataset-path FILE (a Mooncake"
                            + " JSONL trace or an Azure LLM inference trace CSV)");
                }
                if (trace.blockTokens() < 1) {
                    throw new IllegalArgumentException("--timed-trace-chunk-hash-size (" + trace.blockTokens()
                            + ") must be >= 1 (tokens per hash id: 512 for Mooncake's traces, 16 for Alibaba's)");
                }
                positive("--timed-trace-sec-multiplier", trace.secMultiplier(), "0.001 for millisecond timestamps");
                positive("--trace-speedup", trace.speedup(), "2 replays the trace twice as fast");
                if (!(trace.startS() >= 0) || Double.isInfinite(trace.startS())) {
                    throw new IllegalArgumentException("--trace-start (" + trace.startS() + ") must be a number of"
                            + " seconds >= 0");
                }
                if (!(trace.durationS() > 0)) {
                    throw new IllegalArgumentException("--trace-duration (" + trace.durationS() + ") must be > 0 seconds");
                }
            }
            case FIXED -> {
                if (fixedPrompt == null || fixedPrompt.isEmpty()) {
                    throw new IllegalArgumentException("--dataset-name fixed needs --prompt TEXT");
                }
                if (outputLen < 1) {
                    throw new IllegalArgumentException("output length (" + outputLen + ") must be >= 1");
                }
            }
        }
    }

    private static void positive(String flag, double v, String example) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(flag + " (" + v + ") must be a finite number > 0 (e.g. " + example + ")");
        }
    }
}
