package io.isobench.loadgen;

import java.nio.file.Path;

/**
 * Where the prompts come from (vLLM's {@code --dataset-name} and its per-dataset flags).
 *
 * @param kind        random, sharegpt, custom (JSONL prompts file) or fixed
 * @param path        the file for sharegpt/custom, else null
 * @param inputLen    random: target prompt length in tokens
 * @param outputLen   random: output tokens; custom/fixed: output tokens; sharegpt: override (0 = from the reply)
 * @param rangeRatio  random: lengths drawn uniformly from [len·(1−r), len·(1+r)]
 * @param prefixLen   random: fixed prefix tokens shared by every prompt
 * @param fixedPrompt fixed: the prompt text
 */
public record DatasetSpec(Kind kind, Path path, int inputLen, int outputLen, double rangeRatio, int prefixLen,
                          String fixedPrompt) {

    public enum Kind { RANDOM, SHAREGPT, CUSTOM, FIXED }

    public static DatasetSpec random(int inputLen, int outputLen, double rangeRatio, int prefixLen) {
        return new DatasetSpec(Kind.RANDOM, null, inputLen, outputLen, rangeRatio, prefixLen, null);
    }

    public static DatasetSpec sharegpt(Path path, int outputLenOverride) {
        return new DatasetSpec(Kind.SHAREGPT, path, 0, outputLenOverride, 0, 0, null);
    }

    public static DatasetSpec custom(Path path, int outputLen) {
        return new DatasetSpec(Kind.CUSTOM, path, 0, outputLen, 0, 0, null);
    }

    public static DatasetSpec fixed(String prompt, int outputLen) {
        return new DatasetSpec(Kind.FIXED, null, 0, outputLen, 0, 0, prompt);
    }

    /** A short id for the workload fingerprint. */
    public String id() {
        return switch (kind) {
            case RANDOM -> "random:in=" + inputLen + ",out=" + outputLen + ",ratio=" + rangeRatio + ",prefix=" + prefixLen;
            case SHAREGPT -> "sharegpt:" + path.getFileName() + (outputLen > 0 ? ",out=" + outputLen : "");
            case CUSTOM -> "custom:" + path.getFileName() + ",out=" + outputLen;
            case FIXED -> "fixed:len=" + fixedPrompt.length() + ",out=" + outputLen;
        };
    }

    void validate() {
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
                    throw new IllegalArgumentException("--dataset-name " + kind.name().toLowerCase(java.util.Locale.ROOT)
                            + " needs --dataset-path FILE");
                }
                if (outputLen < 0 || (kind == Kind.CUSTOM && outputLen < 1)) {
                    throw new IllegalArgumentException("output length (" + outputLen + ") must be >= 1");
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
}
