package io.isobench.legacy;

import io.isobench.store.Pipeline;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunKind;
import io.isobench.store.Store;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which imported attempts are final and which a later attempt superseded (issue 28; docs/legacy-import-usage.md
 * "Attempts: final and superseded").
 *
 * <p>The old modal harness tried a commit again and again: each invocation wrote a progress log
 * ({@code <tree>/logs/modal/hero_3way_<ts>_progress.json}, one entry per attempt) and rewrote the commit's result file
 * ({@code <tree>/results/modal/<c8>/benchmark_result.json}) at the end of every attempt, so that file holds the last one
 * (checked on the real archive: the file equals the latest progress entry of its commit). The rule, per tree and
 * commit:
 * <ol>
 *   <li>a result file of the commit exists → every progress-log attempt of the commit is superseded;</li>
 *   <li>otherwise the latest attempt is final — ordered by the invocation's start time (the log's {@code timestamp};
 *       unknown times first), then the log's path, then the entry's position — and the earlier ones are
 *       superseded.</li>
 * </ol>
 * The rule runs over the whole store after every import, so the order in which files (or trees) are imported does not
 * matter, and re-running it changes nothing.
 */
final class Attempts {

    /** Details key: the position of an attempt inside its progress log. */
    static final String INDEX = "attempt_index";

    private static final EnumSet<RunKind> MODAL_KINDS =
            EnumSet.of(RunKind.LEGACY, RunKind.LEGACY_ATTEMPT, RunKind.LEGACY_SUPERSEDED);

    /** What a pass decided: attempts (not runs) that are final and superseded, and the runs whose kind changed. */
    record Outcome(int finalAttempts, int supersededAttempts, int runsChanged) {
    }

    /** One attempt: its runs and where it sits in time. */
    private record Attempt(Instant at, String path, int index, List<String> runIds) {
    }

    private static final Comparator<Attempt> ORDER = Comparator
            .comparing((Attempt a) -> a.at() == null ? Instant.MIN : a.at())
            .thenComparing(Attempt::path)
            .thenComparingInt(Attempt::index);

    private Attempts() {
    }

    /** Applies the rule to every modal run in {@code store}. */
    static Outcome resolve(Store store) {
        Map<String, Map<String, Attempt>> attemptsByCommit = new LinkedHashMap<>();
        Map<String, Boolean> hasResultFile = new HashMap<>();
        RunFilter filter = RunFilter.runs().ofKinds(MODAL_KINDS)
                .within(Pipeline.Id.MODAL.label(), null, null);
        store.forEachRun(filter, r -> {
            String path = r.details().string("path");
            if (path == null || r.commitShort() == null) {
                return;
            }
            String key = tree(path) + "\n" + r.commitShort();
            if (r.kind() == RunKind.LEGACY) {
                hasResultFile.put(key, true);
                return;
            }
            String index = r.details().string(INDEX);
            int i = index == null || !index.matches("\\d{1,9}") ? 0 : Integer.parseInt(index);
            attemptsByCommit.computeIfAbsent(key, k -> new HashMap<>())
                    .computeIfAbsent(path + "#" + i, k -> new Attempt(r.startedAt(), path, i, new ArrayList<>()))
                    .runIds().add(r.runId());
        });
        Map<String, RunKind> kinds = new HashMap<>();
        int finals = 0;
        int superseded = 0;
        for (Map.Entry<String, Map<String, Attempt>> e : attemptsByCommit.entrySet()) {
            List<Attempt> attempts = new ArrayList<>(e.getValue().values());
            attempts.sort(ORDER);
            Attempt last = hasResultFile.containsKey(e.getKey()) ? null : attempts.get(attempts.size() - 1);
            for (Attempt a : attempts) {
                RunKind kind = a == last ? RunKind.LEGACY_ATTEMPT : RunKind.LEGACY_SUPERSEDED;
                a.runIds().forEach(id -> kinds.put(id, kind));
                if (a == last) {
                    finals++;
                } else {
                    superseded++;
                }
            }
        }
        return new Outcome(finals, superseded, store.setRunKinds(kinds));
    }

    /**
     * The tree a modal file belongs to: its path up to the {@code logs/} or {@code results/} folder the harness wrote
     * into ({@code 2026-01/omniperf_results_3way_claude_code}), else its folder.
     */
    static String tree(String path) {
        int cut = Math.max(path.lastIndexOf("/logs/"), path.lastIndexOf("/results/"));
        if (cut < 0) {
            cut = path.startsWith("logs/") || path.startsWith("results/") ? 0 : path.lastIndexOf('/');
        }
        return cut <= 0 ? "" : path.substring(0, cut);
    }
}
