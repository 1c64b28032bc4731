package io.isobench.legacy;

import io.isobench.SharedData;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunKind;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 point 1 on the real progress logs ({@code ../shared/isobench-data-wide}, 6 logs, 49 attempts of 24 commits)
 * and the result files of the 42-file sample ({@code ../shared/isobench-data}): which attempt of a commit is final
 * ({@link Attempts}). The rule is checked as a rule (every commit, whatever its attempts), not per file.
 */
class AttemptsTest {

    private static final String WIDE = "isobench-data-wide";
    private static final String SAMPLE = "isobench-data";

    private static List<RunRecord> runs(Store store) {
        List<RunRecord> all = new ArrayList<>();
        store.forEachRun(new RunFilter(null, Set.of(RunKind.LEGACY, RunKind.LEGACY_ATTEMPT,
                RunKind.LEGACY_SUPERSEDED), null, false), all::add);
        return all;
    }

    private static Map<String, RunKind> kinds(Store store) {
        return runs(store).stream().collect(Collectors.toMap(RunRecord::runId, RunRecord::kind, (a, b) -> a,
                TreeMap::new));
    }

    /** One attempt = one progress-log entry: its file and position. */
    private static String attempt(RunRecord r) {
        return r.details().string("path") + "#" + r.details().string(Attempts.INDEX);
    }

    @Test
    void theLatestAttemptOfEachCommitIsFinalAndEveryEarlierOneSuperseded(@TempDir Path dir) {
        try (Store store = Stores.open(dir.resolve("w.duckdb").toString())) {
            new LegacyImporter(store, null, null).importTree(SharedData.require(WIDE));
            Map<String, List<RunRecord>> byCommit = new HashMap<>();
            for (RunRecord r : runs(store)) {
                if (r.details().string("path").contains("/logs/modal/")) {
                    byCommit.computeIfAbsent(r.commitShort(), k -> new ArrayList<>()).add(r);
                }
            }
            assertThat(byCommit).hasSize(24);
            int superseded = 0;
            for (Map.Entry<String, List<RunRecord>> e : byCommit.entrySet()) {
                Set<String> finals = e.getValue().stream().filter(r -> r.kind() == RunKind.LEGACY_ATTEMPT)
                        .map(AttemptsTest::attempt).collect(Collectors.toSet());
                assertThat(finals).as(e.getKey()).hasSize(1);
                Instant latest = e.getValue().stream().map(RunRecord::startedAt).max(Instant::compareTo).orElseThrow();
                for (RunRecord r : e.getValue()) {
                    assertThat(r.startedAt()).as("attempt_at of " + attempt(r)).isNotNull();
                    if (r.kind() == RunKind.LEGACY_ATTEMPT) {
                        assertThat(r.startedAt()).as(e.getKey()).isEqualTo(latest);
                    } else {
                        superseded++;
                    }
                }
            }
            assertThat(superseded).isPositive();
            // 6dd94dbe was tried in five logs; the one of 2026-01-02 is final
            assertThat(byCommit.get("6dd94dbe").stream().filter(r -> r.kind() == RunKind.LEGACY_ATTEMPT)
                    .map(AttemptsTest::attempt)).allMatch(a -> a.contains("hero_3way_20260102_101116"));
            // a second pass changes nothing
            assertThat(Attempts.resolve(store).runsChanged()).isZero();
        }
    }

    /**
     * A result file ({@code results/modal/<c8>/benchmark_result.json}) is the harness's last write for its commit:
     * every logged attempt of that commit is superseded — whichever of the two trees was imported first.
     */
    @Test
    void aResultFileSupersedesEveryLoggedAttemptWhateverTheImportOrder(@TempDir Path dir) {
        Map<String, RunKind> first;
        try (Store store = Stores.open(dir.resolve("a.duckdb").toString())) {
            new LegacyImporter(store, null, null).importTree(SharedData.require(WIDE));
            assertThat(kinds(store)).containsValue(RunKind.LEGACY_ATTEMPT);
            new LegacyImporter(store, null, null).importTree(SharedData.require(SAMPLE));
            first = kinds(store);
            Set<String> withResultFile = runs(store).stream().filter(r -> r.kind() == RunKind.LEGACY
                    && r.details().string("path").contains("/results/modal/")).map(RunRecord::commitShort)
                    .collect(Collectors.toSet());
            assertThat(withResultFile).contains("6dd94dbe");
            for (RunRecord r : runs(store)) {
                if (r.kind() != RunKind.LEGACY && withResultFile.contains(r.commitShort())) {
                    assertThat(r.kind()).as(attempt(r)).isEqualTo(RunKind.LEGACY_SUPERSEDED);
                }
            }
        }
        try (Store store = Stores.open(dir.resolve("b.duckdb").toString())) {
            new LegacyImporter(store, null, null).importTree(SharedData.require(SAMPLE));
            new LegacyImporter(store, null, null).importTree(SharedData.require(WIDE));
            assertThat(kinds(store)).isEqualTo(first);
        }
    }

    @Test
    void theTreeOfAFileIsItsPathUpToTheHarnessOutputFolder() {
        assertThat(Attempts.tree("archive/results/2026-01/omniperf_results_3way_x/logs/modal/hero_3way_1_progress.json"))
                .isEqualTo("archive/results/2026-01/omniperf_results_3way_x");
        assertThat(Attempts.tree("archive/results/2026-01/omniperf_results_3way_x/results/modal/abcd1234/"
                + "benchmark_result.json")).isEqualTo("archive/results/2026-01/omniperf_results_3way_x");
        assertThat(Attempts.tree("logs/modal/hero.json")).isEmpty();
        assertThat(Attempts.tree("results/modal/abcd1234/benchmark_result.json")).isEmpty();
    }
}
