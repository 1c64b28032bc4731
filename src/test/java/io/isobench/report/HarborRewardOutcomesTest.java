package io.isobench.report;

import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.harbor.HarborTaskChecker;
import io.isobench.harbor.SessionVerdicts;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Harbor's reward for the outcomes other than {@code better} (docs/harbor.md, "Reward"), on the native-only store
 * (this package's {@link NativeOnlyStore}): a patch that did not apply is {@code applied 0}, an agent whose output
 * differs is {@code correct 0}; neither is ever rewarded; numbers only, undefined values left out.
 */
class HarborRewardOutcomesTest {

    @TempDir
    Path tmp;

    @Test
    void failedAndIncorrectArmsGetRewardZero() {
        try (Store store = Stores.open(tmp.resolve("n.duckdb").toString())) {
            NativeOnlyStore.write(store);
            SessionAnalysis a = SessionAnalysis.of(store, NativeOnlyStore.SESSION, StatsConfig.defaults());
            Map<String, Number> stale = SessionVerdicts.reward(a, "offline", "stale");
            assertThat(stale).containsEntry("reward", 0).containsEntry("applied", 0);
            Map<String, Number> wrong = SessionVerdicts.reward(a, "offline", "wrong");
            assertThat(wrong).containsEntry("reward", 0).containsEntry("correct", 0).containsEntry("applied", 1);
            Map<String, Number> fast = SessionVerdicts.reward(a, "offline", "fast");
            assertThat(fast.get("reward")).isIn(0, 1);
            for (Map<String, Number> r : new Map[]{stale, wrong, fast}) {
                assertThat(r.values()).allSatisfy(v -> assertThat(Double.isFinite(v.doubleValue())).isTrue());
                assertThat(HarborTaskChecker.checkRewardJson(json(r))).isEmpty();
            }
        }
    }

    private static String json(Map<String, Number> r) {
        StringBuilder b = new StringBuilder("{");
        r.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        return b.append('}').toString();
    }
}
