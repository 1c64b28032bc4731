package io.isobench.history;

import io.isobench.session.SessionRequest;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;
import io.isobench.track.Bisect;
import io.isobench.track.Confirmation;
import io.isobench.track.Direction;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * Decides a track's candidate changes and bisects the confirmed ones (docs/statistics.md §21b, §21c), with real
 * paired sessions ({@link ConfirmSessions}: one per pair of commits, resumable, never run twice).
 *
 * <p>Guarantees, for the track's change rows in the store:
 * <ul>
 *   <li>Every {@code candidate} row becomes {@code confirmed} or {@code rejected}: the session of its commit against
 *       its earlier measured commit ({@code parentCommit}) — the pair's second session when the first was
 *       inconclusive ({@link ConfirmSessions#confirm}) — decided by {@link Confirmation#decide} in the candidate's
 *       direction. The row then holds the direction the session measured, {@code change_pct} and the interval
 *       (percent, later vs earlier commit), the evidence line ({@link ConfirmEvidence}) and the session id. A session
 *       that compared nothing (a build, a run, the correctness gate or the infrastructure failed) rejects the
 *       candidate, with no numbers and the failure as evidence.</li>
 *   <li>A {@code confirmed} row without a first commit gets one: its commit itself when the earlier commit is the
 *       previous commit of the range (adjacent on the first-parent line), no session asked; otherwise, with bisect
 *       on, the first commit {@link Bisect#first} finds among the commits after the earlier one up to the row's
 *       commit, asking commit m with a session of m against the earlier commit, and a second when the first does not
 *       settle m's side ({@link ConfirmSessions#step}; {@link ConfirmResult#answer}: carries when the estimate lies
 *       beyond the midpoint of the row's change, skip when m could not be measured), recorded in
 *       {@code bisect_json} ({@link BisectSteps}); a commit the series recorded as {@code build_failed} is skipped
 *       without a session. With bisect off a non-adjacent row keeps no first commit.</li>
 *   <li>Rows already decided are left as they are; calling {@link #confirm} again after it finished runs no session
 *       (every session it needs is stored complete), and after a kill resumes the unfinished one.</li>
 * </ul>
 */
public final class ChangeConfirmer {

    /** A track commit's state when the series could not build it (TrackCommit's contract). */
    private static final String BUILD_FAILED = "build_failed";

    private final SessionRequest template;
    private final String taskId;
    private final boolean bisect;
    private int sessionsStarted;

    /**
     * @param template the track's request: its suite holds the track task; its store, work folder, executor, plan
     *                 options and feedback are those of every confirming session (its session id and resume flag
     *                 are not used: each confirming session has its own id, resumed by the rules of
     *                 {@link ConfirmSessions})
     * @param taskId   the track's task
     * @param bisect   bisect confirmed changes whose two commits are not adjacent
     */
    public ChangeConfirmer(SessionRequest template, String taskId, boolean bisect) {
        this.template = Objects.requireNonNull(template, "template");
        this.taskId = Objects.requireNonNull(taskId, "taskId");
        this.bisect = bisect;
    }

    /**
     * Confirms or rejects every {@code candidate} row of the track (rows updated in the store), bisects confirmed ones
     * whose two commits are not adjacent on the first-parent line (when bisect is on); returns the track's change rows.
     *
     * @param commits the track's commits (any order: sorted by position here)
     */
    public List<TrackChange> confirm(TrackRecord track, List<TrackCommit> commits) {
        if (!track.taskId().equals(taskId)) {
            throw new IllegalArgumentException("track " + track.trackId() + " is of task " + track.taskId() + ", not "
                    + taskId);
        }
        ConfirmSessions sessions = new ConfirmSessions(template, track.trackId(), taskId);
        try {
            for (TrackChange c : changes(track)) {
                if (Confirmation.Status.CANDIDATE.label().equals(c.status())) {
                    put(decided(c, c.parentCommit() == null ? null : sessions.confirm(c.parentCommit(),
                            c.commitId())));
                }
            }
            List<TrackCommit> ordered = commits.stream().sorted(Comparator.comparingInt(TrackCommit::position))
                    .toList();
            for (TrackChange c : changes(track)) {
                if (Confirmation.Status.CONFIRMED.label().equals(c.status()) && c.firstCommit() == null) {
                    TrackChange located = located(c, ordered, sessions);
                    if (located != c) {
                        put(located);
                    }
                }
            }
        } finally {
            sessionsStarted += sessions.started();
        }
        return changes(track);
    }

    /** Paired sessions this confirmer started or resumed so far (stored complete ones that were read do not count). */
    int sessionsStarted() {
        return sessionsStarted;
    }

    /** The candidate decided by its session (null: it has no earlier commit to compare with). */
    static TrackChange decided(TrackChange c, ConfirmResult r) {
        String rejected = Confirmation.Status.REJECTED.label();
        TrackChange.Builder b = c.toBuilder().updatedAt(Instant.now());
        if (r == null) {
            return b.change(c.metric(), Direction.NONE.label(), null).interval(null, null).status(rejected, null,
                    "failed: no earlier measured commit to compare with").session(null, null).build();
        }
        if (r.state() != ConfirmResult.State.MEASURED) {
            return b.change(c.metric(), Direction.NONE.label(), null).interval(null, null).status(rejected, null,
                    r.evidence()).session(r.sessionId(), null).build();
        }
        Confirmation.Outcome o = Confirmation.decide(direction(c), r.analysis());
        return b.change(c.metric(), o.direction().label(), finite(o.changePct()))
                .interval(finite(o.ciLowPct()), finite(o.ciHighPct())).status(o.status().label(), null, r.evidence())
                .session(r.sessionId(), null).build();
    }

    /** The row with its first commit: adjacent, bisected, or (bisect off, or commits not in the track) unchanged. */
    private TrackChange located(TrackChange c, List<TrackCommit> ordered, ConfirmSessions sessions) {
        int good = indexOf(ordered, c.parentCommit());
        int bad = indexOf(ordered, c.commitId());
        if (good < 0 || bad <= good) {
            return c;
        }
        if (bad == good + 1) {
            return located(c, c.commitId(), null);
        }
        if (!bisect) {
            return c;
        }
        if (c.changePct() == null || !Double.isFinite(c.changePct()) || c.changePct() == 0) {
            return c; // a confirmed row always has its session's change; one written otherwise is not bisected
        }
        double change = c.changePct();
        List<TrackCommit> range = ordered.subList(good + 1, bad + 1);
        List<BisectSteps.Step> steps = new ArrayList<>();
        Bisect.Result result = Bisect.first(range.size(), i -> {
            BisectSteps.Step step = ask(range.get(i), change, m -> sessions.step(c.parentCommit(), m, change));
            steps.add(step);
            return step.answer();
        });
        BisectSteps.Outcome o = BisectSteps.outcome(ordered.get(good), range, result, steps);
        return located(c, o.firstCommit(), o.json());
    }

    /**
     * One bisect step: a commit the track's series already found not to build ({@code build_failed}) is skipped
     * without a session; any other is answered by its sessions against the good commit ({@code session}: commit id →
     * result), read against the confirmed change ({@code changePct}, percent: {@link ConfirmResult#answer}); the
     * evidence is the session's line and the reading ({@link ConfirmEvidence#step}).
     */
    static BisectSteps.Step ask(TrackCommit m, double changePct, Function<String, ConfirmResult> session) {
        if (BUILD_FAILED.equals(m.state())) {
            return new BisectSteps.Step(m.position(), m.commitId(), Bisect.Answer.SKIP, null, 0, ConfirmEvidence.failed(
                    ConfirmResult.State.LATER_NOT_BUILT, "the track's build of it failed" + (m.detail() == null ? ""
                    : ": " + m.detail())));
        }
        ConfirmResult r = session.apply(m.commitId());
        Bisect.Answer answer = r.answer(changePct);
        int sessions = r.first() == null ? 1 : 2;
        return new BisectSteps.Step(m.position(), m.commitId(), answer, r.sessionId(), sessions,
                ConfirmEvidence.step(r, changePct, answer));
    }

    private static int indexOf(List<TrackCommit> ordered, String commit) {
        for (int i = 0; i < ordered.size(); i++) {
            if (ordered.get(i).commitId().equals(commit)) {
                return i;
            }
        }
        return -1;
    }

    private static Direction direction(TrackChange c) {
        try {
            return Direction.valueOf(c.direction().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return Direction.NONE;
        }
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static TrackChange located(TrackChange c, String first, String bisectJson) {
        return c.toBuilder().status(c.status(), first, c.evidence()).session(c.sessionId(), bisectJson)
                .updatedAt(Instant.now()).build();
    }

    private List<TrackChange> changes(TrackRecord track) {
        try (Store store = Stores.open(template.db())) {
            return store.trackChanges(track.taskId()).stream().filter(c -> c.trackId().equals(track.trackId()))
                    .toList();
        }
    }

    private void put(TrackChange c) {
        try (Store store = Stores.open(template.db())) {
            store.putTrackChange(c);
        }
    }
}
