package io.isobench.analysis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The session-to-session spread of every comparison measured in two or more sessions (docs/statistics.md §19): human
 * vs baseline and each agent vs baseline, grouped as the leaderboard groups entries — per task, commit and hardware
 * fingerprint ({@link Leaderboard}) — and per arm; each group with k ≥ 2 sessions that have an interval is pooled by
 * {@link SessionSpread}. The one model behind the reports' "Between sessions" sections and the sentence every report
 * carries ({@link #statement()}).
 *
 * @param groups     comparisons with at least two pooled sessions, in task order of first appearance, then arm
 * @param confidence the level of the pooled intervals
 */
public record BetweenSessions(List<Group> groups, double confidence) {

    /** No session measured anything twice. */
    public static final BetweenSessions NONE = new BetweenSessions(List.of(), 0.95);

    /**
     * One comparison of one task on one hardware, measured in several sessions.
     *
     * @param taskId    the task
     * @param commit    its human commit
     * @param hardware  the hardware fingerprint id (null: not fingerprinted, compared among themselves)
     * @param arm       the compared arm ({@code human}, {@code agent:NAME})
     * @param reference the reference ({@code baseline})
     * @param sessions  every session that measured the comparison, oldest first, pooled or left out with the reason
     * @param spread    the pooling of the sessions that have an interval (k ≥ 2)
     */
    public record Group(String taskId, String commit, String hardware, String arm, String reference,
                        List<Measured> sessions, SessionSpread spread) {
        public Group {
            sessions = List.copyOf(sessions);
        }

        /** {@code human vs baseline}. */
        public String comparison() {
            return arm + " vs " + reference;
        }

        /** Whether {@code sessionId} is one of the group's sessions. */
        public boolean has(String sessionId) {
            return sessions.stream().anyMatch(m -> m.sessionId().equals(sessionId));
        }
    }

    /**
     * One session's comparison in a group.
     *
     * @param leftOut why it is not pooled ({@code failed}, {@code incorrect}, {@code no interval}); null when pooled
     */
    public record Measured(String sessionId, Comparison comparison, String leftOut) {
    }

    public BetweenSessions {
        groups = List.copyOf(groups);
    }

    /** The groups of every task measured in two or more of {@code sessions}. */
    public static BetweenSessions of(List<Leaderboard.Session> sessions, StatsConfig config) {
        List<Leaderboard.Session> ordered = new ArrayList<>(sessions);
        ordered.sort(Comparator.comparing((Leaderboard.Session s) -> s.startedAt() == null ? Instant.EPOCH
                : s.startedAt()).thenComparing(Leaderboard.Session::sessionId));
        Map<Key, List<Measured>> byKey = new LinkedHashMap<>();
        for (Leaderboard.Session s : ordered) {
            for (SessionAnalysis.TaskResult t : s.analysis().tasks()) {
                TaskAnalysis ta = t.analysis();
                if (ta == null) {
                    continue;
                }
                List<Comparison> cs = new ArrayList<>();
                cs.add(ta.humanVsBaseline());
                ta.agents().forEach(o -> cs.add(o.vsBaseline()));
                for (Comparison c : cs) {
                    byKey.computeIfAbsent(new Key(t.taskId(), t.commit(), t.hardware(), c.arm()), k -> new ArrayList<>())
                            .add(new Measured(s.sessionId(), c, leftOut(s.sessionId(), c)));
                }
            }
        }
        List<Group> out = new ArrayList<>();
        for (Map.Entry<Key, List<Measured>> e : byKey.entrySet()) {
            List<SessionSpread.Estimate> pooled = new ArrayList<>();
            for (Measured m : e.getValue()) {
                if (m.leftOut() == null) {
                    pooled.add(SessionSpread.estimate(m.sessionId(), m.comparison()).orElseThrow());
                }
            }
            if (pooled.size() >= 2) {
                Key k = e.getKey();
                out.add(new Group(k.taskId(), k.commit(), k.hardware(), k.arm(),
                        e.getValue().get(0).comparison().reference(), e.getValue(),
                        SessionSpread.of(pooled, config.confidence())));
            }
        }
        return new BetweenSessions(out, config.confidence());
    }

    /** What a group shares: the leaderboard's (task, commit, hardware) and the compared arm. */
    private record Key(String taskId, String commit, String hardware, String arm) {
    }

    /** Why a session's comparison is not pooled, or null: failed and incorrect arms are outcomes, never numbers. */
    private static String leftOut(String sessionId, Comparison c) {
        if (!c.verdict().aboutSpeed()) {
            return c.verdict().label();
        }
        return SessionSpread.estimate(sessionId, c).isPresent() ? null : "no interval";
    }

    /** The groups that include {@code sessionId} (a one-session report shows only those). */
    public BetweenSessions containing(String sessionId) {
        return new BetweenSessions(groups.stream().filter(g -> g.has(sessionId)).toList(), confidence);
    }

    /** The groups of one task on one hardware (a task page). */
    public List<Group> ofTask(String taskId, String commit, String hardware) {
        return groups.stream().filter(g -> g.taskId().equals(taskId) && Objects.equals(g.commit(), commit)
                && Objects.equals(g.hardware(), hardware)).toList();
    }

    /**
     * The one sentence every report carries: a session's interval describes that session and does not cover the
     * variation between sessions, with the spread measured here when there is one.
     */
    public String statement() {
        String head = "A session's confidence interval describes that session only and does not cover session-to-session"
                + " variation";
        if (groups.isEmpty()) {
            return head + ", which is not measured here (no comparison was measured in two or more sessions on the"
                    + " same hardware).";
        }
        double lo = groups.stream().mapToDouble(g -> g.spread().tauPct()).min().orElse(0);
        double hi = groups.stream().mapToDouble(g -> g.spread().tauPct()).max().orElse(0);
        int kMin = groups.stream().mapToInt(g -> g.spread().k()).min().orElse(0);
        int kMax = groups.stream().mapToInt(g -> g.spread().k()).max().orElse(0);
        long tasks = groups.stream().map(g -> g.taskId() + "|" + g.commit() + "|" + g.hardware()).distinct().count();
        String low = String.format(Locale.ROOT, "±%.1f %%", lo);
        String high = String.format(Locale.ROOT, "±%.1f %%", hi);
        return String.format(Locale.ROOT, "%s, measured here as a between-session spread (τ, random effects) of %s"
                + " over %d comparison%s of %d task%s measured in %s sessions on the same hardware.", head,
                low.equals(high) ? high : low + " to " + high,
                groups.size(), groups.size() == 1 ? "" : "s", tasks, tasks == 1 ? "" : "s",
                kMin == kMax ? Integer.toString(kMin) : kMin + " to " + kMax);
    }
}
