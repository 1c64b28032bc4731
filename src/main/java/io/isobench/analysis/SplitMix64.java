package io.isobench.analysis;

/**
 * SplitMix64 (Steele, Lea, Flood 2014): a fixed, documented generator, so a bootstrap CI can be reproduced
 * outside the JVM. Bounded draws take the high 32 bits: index = ⌊(r >>> 32) · n / 2³²⌋ (bias ≤ n / 2³²).
 */
final class SplitMix64 {

    private long state;

    SplitMix64(long seed) {
        this.state = seed;
    }

    long nextLong() {
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Uniform index in [0, n), n ≥ 1. */
    int nextIndex(int n) {
        return (int) (((nextLong() >>> 32) * n) >>> 32);
    }
}
