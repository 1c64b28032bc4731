package io.isobench.legacy;

import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunKind;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A simulation of the old harness's retries, run through the real importer and store: random progress logs (random
 * commits, times and file order, the same commit tried several times, sometimes twice in one log) and result files for
 * some commits, imported in two batches in a random order. The final attempts must be what the rule of {@link Attempts}
 * says, computed here independently, and the same as a one-shot import.
 */
class AttemptsSimulationTest {

    private static final String TREE = "archive/results/2026-01/omniperf_results_3way_sim/";
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss", Locale.ROOT);

    /** One simulated attempt: its log, its position there, its start (the log's) and commit. */
    private record Sim(String log, int index, LocalDateTime at, String commit) {
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void finalAttemptsFollowTheRuleWhateverTheImportOrder(long seed, @TempDir Path dir) throws IOException {
        Random rnd = new Random(seed);
        List<String> commits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            commits.add(String.format(Locale.ROOT, "%08x", rnd.nextInt() & 0x7fffffff));
        }
        Map<String, String> files = new TreeMap<>(); // relative path -> content
        List<Sim> attempts = new ArrayList<>();
        LocalDateTime t = LocalDateTime.of(2025, 12, 31, 0, 0);
        for (int log = 0; log < 5; log++) {
            t = t.plusMinutes(1 + rnd.nextInt(600));
            String name = TREE + "logs/modal/hero_3way_" + TS.format(t) + "_progress.json";
            StringBuilder results = new StringBuilder();
            int entries = 1 + rnd.nextInt(5);
            for (int i = 0; i < entries; i++) {
                String c = commits.get(rnd.nextInt(commits.size()));
                attempts.add(new Sim(name, i, t, c));
                results.append(i == 0 ? "" : ",").append(entry(c, rnd.nextBoolean()));
            }
            files.put(name, "{\"timestamp\": \"" + TS.format(t) + "\", \"total_commits\": 6, \"completed\": "
                    + entries + ", \"results\": [" + results + "]}");
        }
        Set<String> withResultFile = new HashSet<>();
        for (String c : commits) {
            if (rnd.nextInt(3) == 0) {
                withResultFile.add(c);
                files.put(TREE + "results/modal/" + c + "/benchmark_result.json",
                        "{\"instance\": {\"commit_hash\": \"" + c + "\", \"perf_command\": \"vllm bench serve\"},"
                                + " \"result\": " + entry(c, true) + "}");
            }
        }
        // the rule, computed here: per commit without a result file, the attempt of the latest log, then the last
        // position in it
        Map<String, Sim> expectedFinal = new HashMap<>();
        for (Sim a : attempts) {
            if (withResultFile.contains(a.commit())) {
                continue;
            }
            Sim f = expectedFinal.get(a.commit());
            if (f == null || a.at().isAfter(f.at()) || a.at().equals(f.at()) && a.index() > f.index()) {
                expectedFinal.put(a.commit(), a);
            }
        }

        List<String> paths = new ArrayList<>(files.keySet());
        Collections.shuffle(paths, rnd);
        int cut = 1 + rnd.nextInt(paths.size() - 1); // two batches, neither empty
        Map<String, RunKind> inTwoBatches;
        try (Store store = Stores.open(dir.resolve("two.duckdb").toString())) {
            new LegacyImporter(store, null, null).importTree(write(dir.resolve("b1"), files, paths.subList(0, cut)));
            new LegacyImporter(store, null, null).importTree(write(dir.resolve("b2"), files,
                    paths.subList(cut, paths.size())));
            inTwoBatches = kinds(store);
            for (RunRecord r : attemptRuns(store)) {
                Sim f = expectedFinal.get(r.commitShort());
                String attempt = r.details().string("path") + "#" + r.details().string(Attempts.INDEX);
                boolean isFinal = f != null && attempt.equals(f.log() + "#" + f.index());
                assertThat(r.kind()).as("seed " + seed + ": " + attempt + " of " + r.commitShort())
                        .isEqualTo(isFinal ? RunKind.LEGACY_ATTEMPT : RunKind.LEGACY_SUPERSEDED);
            }
        }
        try (Store store = Stores.open(dir.resolve("one.duckdb").toString())) {
            new LegacyImporter(store, null, null).importTree(write(dir.resolve("all"), files, paths));
            assertThat(kinds(store)).as("seed " + seed).isEqualTo(inTwoBatches);
        }
    }

    /** A modal result entry: a harness failure before any arm, or a run whose three arms printed TPOT. */
    private static String entry(String commit, boolean ran) {
        String head = "{\"commit\": \"" + commit + "\", \"model\": \"m\", \"perf_command\": \"vllm bench serve\", ";
        if (!ran) {
            return head + "\"status\": \"exception\", \"error\": \"name 'port' is not defined\", \"duration_s\": 0.6}";
        }
        return head + "\"status\": \"success\", \"baseline_metrics\": {\"tpot_mean\": 5.0}, \"human_metrics\":"
                + " {\"tpot_mean\": 4.0}, \"agent_metrics\": {\"tpot_mean\": 4.5}, \"duration_s\": 300}";
    }

    private static Path write(Path root, Map<String, String> files, List<String> which) throws IOException {
        Files.createDirectories(root);
        for (String p : which) {
            Path f = root.resolve(p);
            Files.createDirectories(f.getParent());
            Files.writeString(f, files.get(p));
        }
        return root;
    }

    private static List<RunRecord> attemptRuns(Store store) {
        List<RunRecord> runs = new ArrayList<>();
        store.forEachRun(new RunFilter(null, Set.of(RunKind.LEGACY_ATTEMPT, RunKind.LEGACY_SUPERSEDED), null, false),
                runs::add);
        return runs;
    }

    private static Map<String, RunKind> kinds(Store store) {
        Map<String, RunKind> m = new TreeMap<>();
        store.forEachRun(RunFilter.all(), r -> m.put(r.runId(), r.kind()));
        return m;
    }
}
