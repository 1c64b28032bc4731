package io.isobench.report;

import io.isobench.Arm;
import io.isobench.analysis.AgentAttempts;
import io.isobench.analysis.AttemptScores;
import io.isobench.analysis.BetweenSessions;
import io.isobench.analysis.Leaderboard;
import io.isobench.analysis.StatsConfig;
import io.isobench.store.Store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Everything a report shows, built once from the store ({@link #build}) and rendered by {@link MarkdownReport},
 * {@link HtmlReport} or {@link SessionReport}, which never read the store themselves: the imported data
 * ({@link LegacyModel}: 3-way rows, failures, corrections, caveat counters), the native sessions ({@link NativeSession}:
 * each analysed once, its tasks, environments and failed-run logs), their leaderboard and the spread between sessions.
 *
 * <p>Close it when done (the imported rows are spooled to temporary files); keep the store open while rendering
 * (the HTML report copies the failed runs' logs from it).
 */
public final class ReportModel implements AutoCloseable {

    private final ReportScope scope;
    private final String storeName;
    private final LegacyModel legacy;
    private final List<NativeSession> sessions;
    private final Leaderboard leaderboard;
    private final Function<String, Optional<byte[]>> artifacts;
    private final AgentAttempts attempts;
    private final AgentAttempts unmeasured;
    private final AttemptScores attemptScores;
    private final BetweenSessions betweenSessions;
    private final Map<String, AttemptTrajectory> trajectories = new HashMap<>();
    private final List<FailureCounts.Count> failures;
    private final Map<String, List<HistoryModel.Track>> histories;

    private ReportModel(ReportScope scope, Store store, LegacyModel legacy, List<NativeSession> sessions) {
        this.scope = scope;
        this.storeName = store.describe();
        this.legacy = legacy;
        this.sessions = List.copyOf(sessions);
        List<Leaderboard.Session> boards = new ArrayList<>();
        for (NativeSession s : sessions) {
            boards.add(s.board());
        }
        this.leaderboard = Leaderboard.of(boards, StatsConfig.defaults());
        this.betweenSessions = betweenSessions(store, scope, boards);
        this.artifacts = store::artifact;
        this.failures = FailureCounts.of(legacy.failures(), tasks(), scope.agent());
        // the engine histories (isobench track): whole-store reports only
        this.histories = scope.sessionId() == null ? HistoryModel.collect(store) : Map.of();
        this.attempts = attemptsOf(store, scope, sessions);
        this.attemptScores = AttemptScores.of(leaderboard, attempts, StatsConfig.defaults());
        this.unmeasured = unmeasuredOf(store, scope, sessions);
        List<AgentAttempts.Attempt> shown = new ArrayList<>(unmeasured.all());
        for (NativeSession s : sessions) {
            for (NativeTask t : s.tasks()) {
                shown.addAll(attempts.ofTask(t.result().taskId()));
            }
        }
        for (AgentAttempts.Attempt a : shown) {
            String sha = a.text("trajectory_sha256");
            if (sha != null && !trajectories.containsKey(sha)) {
                store.artifact(sha).ifPresent(bytes -> trajectories.put(sha, AttemptTrajectory.parse(bytes)));
            }
        }
    }

    /**
     * The stored agent attempts at tasks no session of the store measured (isobench's own before a measured run, and
     * trajectories imported with {@code isobench agents import}): whole-store reports only, of the scope's agent when
     * it names one. They have no verdict to score; the HTML report shows them on their own page.
     */
    private static AgentAttempts unmeasuredOf(Store store, ReportScope scope, List<NativeSession> sessions) {
        if (scope.sessionId() != null) {
            return AgentAttempts.NONE;
        }
        Set<String> measured = new HashSet<>();
        sessions.forEach(s -> s.tasks().forEach(t -> measured.add(t.result().taskId())));
        String agent = scope.agent() == null ? null : Arm.normalizeAgent(AgentAttempts.baseName(scope.agent()));
        return AgentAttempts.read(store).filter(a -> !measured.contains(a.task())
                && (agent == null || agent.equals(a.agent())));
    }

    /**
     * The spread between sessions: over the scope's sessions; for one session, of its comparisons against every other
     * session of the store that measured them (a one-session report is where a reader meets one interval alone).
     */
    private static BetweenSessions betweenSessions(Store store, ReportScope scope, List<Leaderboard.Session> boards) {
        if (scope.sessionId() == null) {
            return BetweenSessions.of(boards, StatsConfig.defaults());
        }
        List<Leaderboard.Session> all = new ArrayList<>(boards);
        all.addAll(NativeSession.others(store, scope.sessionId()));
        return BetweenSessions.of(all, StatsConfig.defaults()).containing(scope.sessionId());
    }

    /**
     * The stored agent attempts the scope can show: of its agent when it names one, at the tasks of its sessions (an
     * attempt at a task no session measured has no verdict to score).
     */
    private static AgentAttempts attemptsOf(Store store, ReportScope scope, List<NativeSession> sessions) {
        if (sessions.isEmpty()) {
            return AgentAttempts.NONE;
        }
        AgentAttempts all = AgentAttempts.read(store);
        Set<String> tasks = new HashSet<>();
        sessions.forEach(s -> s.tasks().forEach(t -> tasks.add(t.result().taskId())));
        String agent = scope.agent() == null ? null : Arm.normalizeAgent(AgentAttempts.baseName(scope.agent()));
        return all.filter(a -> tasks.contains(a.task()) && (agent == null || agent.equals(a.agent())));
    }

    /** The model of {@code scope}: the imported data (none for one session), then the native sessions. */
    public static ReportModel build(Store store, ReportScope scope) {
        LegacyModel legacy = scope.sessionId() == null ? LegacyModel.collect(store, scope.agent(), scope.bandPct())
                : LegacyModel.empty(scope.bandPct());
        try {
            return new ReportModel(scope, store, legacy, NativeSession.collect(store, scope));
        } catch (RuntimeException e) {
            legacy.close();
            throw e;
        }
    }

    ReportScope scope() {
        return scope;
    }

    /** The store the model was built from, as its receipt names it. */
    String storeName() {
        return storeName;
    }

    LegacyModel legacy() {
        return legacy;
    }

    List<NativeSession> sessions() {
        return sessions;
    }

    /** Every native task of the sessions, in session and plan order. */
    List<NativeTask> tasks() {
        List<NativeTask> out = new ArrayList<>();
        for (NativeSession s : sessions) {
            out.addAll(s.tasks());
        }
        return out;
    }

    /**
     * Failed runs by category and arm (final attempts, imported and native), a native arm's preparation failure
     * counted once ({@link FailureCounts}).
     */
    List<FailureCounts.Count> failures() {
        return failures;
    }

    /** The agent leaderboard over the sessions. */
    Leaderboard leaderboard() {
        return leaderboard;
    }

    /** How the comparisons measured in two or more sessions on the same hardware disagree. */
    BetweenSessions betweenSessions() {
        return betweenSessions;
    }

    /** The stored agent attempts at the scope's tasks. */
    AgentAttempts attempts() {
        return attempts;
    }

    /** The stored agent attempts at tasks no session measured (whole-store reports; {@link #unmeasuredOf}). */
    AgentAttempts unmeasuredAttempts() {
        return unmeasured;
    }

    /** Opt@K, mean-of-K and best-of-K over the leaderboard's entries. */
    AttemptScores attemptScores() {
        return attemptScores;
    }

    /** Per trajectory sha256: the trajectory read from the store (the attempts this report shows). */
    Map<String, AttemptTrajectory> trajectories() {
        return trajectories;
    }

    /** The tracks of the store ({@code isobench track}) by task: sorted task ids, a task's tracks by id. */
    Map<String, List<HistoryModel.Track>> histories() {
        return histories;
    }

    /** A stored artifact's bytes (a failed run's log). */
    Optional<byte[]> artifact(String sha256) {
        return artifacts.apply(sha256);
    }

    @Override
    public void close() {
        legacy.close();
    }
}
