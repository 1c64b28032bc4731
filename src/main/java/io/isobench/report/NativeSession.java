package io.isobench.report;

import io.isobench.Arm;
import io.isobench.analysis.Leaderboard;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.TrackRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A native session of the {@link ReportModel}: its record, the analysis (run once), its tasks with what a task page
 * shows, the environment of each (task, arm) and the log artifacts of its failed runs.
 *
 * @param record       the stored session (null only when a one-session report names a session the store lacks)
 * @param analysis     {@link SessionAnalysis} of the session
 * @param tasks        its tasks, in plan order, with their page names
 * @param environments per {@code task|arm}: the details of the arm's first job (build step, recipes), in job order
 * @param failedLogs   log artifacts of the session's failed runs
 */
record NativeSession(SessionRecord record, SessionAnalysis analysis, List<NativeTask> tasks,
                     Map<String, RunDetails> environments, Set<String> failedLogs) {

    String sessionId() {
        return analysis.sessionId();
    }

    /** The session as the leaderboard sees it. */
    Leaderboard.Session board() {
        return new Leaderboard.Session(analysis.sessionId(), record == null ? null : record.startedAt(),
                record != null && "complete".equals(record.status()), analysis);
    }

    /**
     * The sessions of the scope: its one session as it is, or every session of the store with tasks (and, with an
     * agent filter, an arm of that agent: {@code agent:NAME}, or one of its attempts {@code agent:NAME@k}) but the
     * series sessions of tracks ({@code isobench track}: one arm, no baseline; their history pages show them).
     */
    static List<NativeSession> collect(Store store, ReportScope scope) {
        List<NativeSession> out = new ArrayList<>();
        if (scope.sessionId() != null) {
            SessionAnalysis a = SessionAnalysis.of(store, scope.sessionId(), StatsConfig.defaults());
            out.add(of(store, store.session(scope.sessionId()).orElse(null), a, 1));
            return out;
        }
        Arm wanted = scope.agent() == null ? null : Arm.agent(scope.agent());
        Set<String> series = seriesSessions(store);
        int sIndex = 0;
        for (SessionRecord s : store.sessions()) {
            if (s.isAgentsRun() || series.contains(s.sessionId())) {
                continue;
            }
            sIndex++;
            SessionAnalysis a = SessionAnalysis.of(store, s.sessionId(), StatsConfig.defaults());
            if (a.tasks().isEmpty()) {
                continue;
            }
            if (wanted != null && a.tasks().stream().noneMatch(t -> t.armOrder().stream()
                    .anyMatch(arm -> arm.equals(wanted) || arm.kind() == Arm.Kind.AGENT
                            && arm.agentName().startsWith(wanted.agentName() + "@")))) {
                continue;
            }
            out.add(of(store, s, a, sIndex));
        }
        return out;
    }

    /**
     * The other native sessions of the store, analysed, as the leaderboard sees them: what a one-session report
     * compares its session with between sessions ({@link io.isobench.analysis.BetweenSessions}).
     */
    static List<Leaderboard.Session> others(Store store, String sessionId) {
        List<Leaderboard.Session> out = new ArrayList<>();
        Set<String> series = seriesSessions(store);
        for (SessionRecord s : store.sessions()) {
            if (s.isAgentsRun() || s.sessionId().equals(sessionId) || series.contains(s.sessionId())) {
                continue;
            }
            SessionAnalysis a = SessionAnalysis.of(store, s.sessionId(), StatsConfig.defaults());
            if (!a.tasks().isEmpty()) {
                out.add(new Leaderboard.Session(s.sessionId(), s.startedAt(), "complete".equals(s.status()), a));
            }
        }
        return out;
    }

    /** The sessions that hold a track's series runs (arm {@code track}): never a paired session. */
    static Set<String> seriesSessions(Store store) {
        Set<String> ids = new HashSet<>();
        for (TrackRecord t : store.tracks()) {
            if (t.sessionId() != null) {
                ids.add(t.sessionId());
            }
        }
        return ids;
    }

    private static NativeSession of(Store store, SessionRecord s, SessionAnalysis a, int sIndex) {
        Set<String> failedLogs = new LinkedHashSet<>();
        List<NativeTask> tasks = NativeTask.collect(store, s, a, sIndex, failedLogs);
        return new NativeSession(s, a, tasks, environments(store, a.sessionId()), failedLogs);
    }

    /** Per (task, arm) the details of its first job (lowest job index) that ran, in job order. */
    static Map<String, RunDetails> environments(Store store, String sessionId) {
        Map<String, RunDetails> byArm = new LinkedHashMap<>();
        Map<String, Integer> order = new HashMap<>();
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.MEASURED)).inSession(sessionId), r -> {
            RunDetails x = r.details();
            if (r.status() == RunRecord.RunStatus.NOT_RUN || x.isNone()) {
                return;
            }
            String key = (x.task() == null ? "?" : x.task()) + "|" + r.arm().label();
            int idx = x.jobIndex(Integer.MAX_VALUE);
            if (!order.containsKey(key) || idx < order.get(key)) {
                order.put(key, idx);
                byArm.put(key, x);
            }
        });
        List<String> keys = new ArrayList<>(byArm.keySet());
        keys.sort(Comparator.comparingInt(order::get));
        Map<String, RunDetails> sorted = new LinkedHashMap<>();
        for (String k : keys) {
            sorted.put(k, byArm.get(k));
        }
        return sorted;
    }
}
