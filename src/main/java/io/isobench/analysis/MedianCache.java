package io.isobench.analysis;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Resampled medians per (arm samples, role), so a task computes each arm's bootstrap distribution once however
 * many comparisons use it. Results are identical with or without the cache: each role has its own stream.
 */
final class MedianCache {

    private final Map<ArmSamples, double[]> asReference = new IdentityHashMap<>();
    private final Map<ArmSamples, double[]> asArm = new IdentityHashMap<>();
    private final StatsConfig config;

    MedianCache(StatsConfig config) {
        this.config = config;
    }

    double[] asReference(ArmSamples samples) {
        return asReference.computeIfAbsent(samples, s -> Bootstrap.resampledMedians(s.values(),
                Bootstrap.referenceStream(config.bootstrapSeed()), config.bootstrapResamples()));
    }

    double[] asArm(ArmSamples samples) {
        return asArm.computeIfAbsent(samples, s -> Bootstrap.resampledMedians(s.values(),
                Bootstrap.armStream(config.bootstrapSeed()), config.bootstrapResamples()));
    }
}
