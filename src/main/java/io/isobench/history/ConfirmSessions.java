package io.isobench.history;

import io.isobench.Arm;
import io.isobench.IsobenchException;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.parse.FailureCategory;
import io.isobench.plan.Planner;
import io.isobench.session.Session;
import io.isobench.session.SessionRequest;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;
import io.isobench.task.TaskSpec;
import io.isobench.track.Confirmation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Confirming sessions of one track's task (docs/statistics.md §21b): a real paired session of a later commit against
 * an earlier one, run by the session machinery exactly as {@code isobench run} runs a task ({@link Session#start}),
 * with the track's store, work folder, executor, plan options and feedback.
 *
 * <p>Rules:
 * <ul>
 *   <li>The suite: the track suite reduced to its one task, given {@code parent_commit} = the earlier commit (the
 *       baseline, and again the A/A arm) and {@code human_commit} = the later one; no agent arms.</li>
 *   <li>The session id is {@code track-} and the first 16 hex digits of SHA-256 of the track id, the earlier and the
 *       later commit (newline-separated): the same pair of the same track is the same session. A session of that id
 *       that is {@code complete} in the store is read, not run again; one that is there but not complete is resumed;
 *       otherwise it is started.</li>
 *   <li>A candidate ({@link #confirm}): a first session that measured and is {@code inconclusive}
 *       ({@link Confirmation#reopens}) is followed by the pair's second session, whose id hashes a fourth line
 *       {@code 2}, under the same rules (read, resumed or started); the second decides when it measured
 *       ({@link ConfirmResult#after}: its evidence names the first), and the first stands when the second compared
 *       nothing. Any other first session decides alone.</li>
 *   <li>A bisect step ({@link #step}): a first session that measured and does not settle the commit's side of the
 *       confirmed change ({@link Confirmation#settles}: its interval holds the change's midpoint) is followed by the
 *       pair's second session (the same id rule); the answer reads both ({@link ConfirmResult#answer}), or the first
 *       alone when the second compared nothing.</li>
 *   <li>Read as every session is ({@link SessionAnalysis}, default statistics): the task's analysis. The later commit
 *       did not build when one of its (human arm's) runs failed as {@code BUILD_FAILED} and none succeeded; the
 *       session failed when there is no analysis, or its verdict is not about speed ({@code failed},
 *       {@code incorrect}), or the session could not start (its error) — the first failed run (baseline, A/A, then
 *       the later commit's) says why.</li>
 * </ul>
 */
final class ConfirmSessions {

    private final SessionRequest template;
    private final String trackId;
    private final String taskId;
    private int started;

    ConfirmSessions(SessionRequest template, String trackId, String taskId) {
        this.template = Objects.requireNonNull(template, "template");
        this.trackId = Objects.requireNonNull(trackId, "trackId");
        this.taskId = Objects.requireNonNull(taskId, "taskId");
    }

    /** The session id of the pair (earlier, later) of a track: its first session. */
    static String sessionId(String trackId, String earlier, String later) {
        return sessionId(trackId, earlier, later, 1);
    }

    /** The id of the pair's {@code attempt}-th session (1: the first; its id has no fourth line). */
    static String sessionId(String trackId, String earlier, String later, int attempt) {
        String key = trackId + "\n" + earlier + "\n" + later + (attempt == 1 ? "" : "\n" + attempt);
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "track-" + HexFormat.of().formatHex(h).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The suite of a confirming session: the task alone, {@code later} against {@code earlier}, no agents. */
    static Suite derive(Suite suite, String taskId, String earlier, String later) {
        TaskSpec task = suite.task(taskId).orElseThrow(() -> new IsobenchException.BadInput("the suite has no task "
                + taskId));
        return suite.withTasks(List.of(task.withCommits(later, earlier))).withAgents(List.of());
    }

    /** Sessions started or resumed by this object (a stored, complete one read again is not counted). */
    int started() {
        return started;
    }

    /**
     * A candidate's answer ({@code later} against {@code earlier}): the pair's first session, and its second when the
     * first measured and was inconclusive (the rules above).
     */
    ConfirmResult confirm(String earlier, String later) {
        ConfirmResult first = session(earlier, later, 1);
        if (first.state() != ConfirmResult.State.MEASURED || !Confirmation.reopens(first.analysis())) {
            return first;
        }
        template.feedback().listener().note("track " + taskId + ": " + abbrev(later) + " against " + abbrev(earlier)
                + " inconclusive (" + first.sessionId() + "): its second session decides");
        ConfirmResult second = session(earlier, later, Confirmation.SESSIONS_PER_PAIR);
        return second.state() == ConfirmResult.State.MEASURED ? second.after(first) : first;
    }

    /**
     * A bisect step's sessions ({@code later} against {@code earlier}, the good end of a confirmed change of
     * {@code changePct} percent): the pair's first session, and its second when the first measured and did not settle
     * the commit's side ({@link Confirmation#settles}); {@link ConfirmResult#answer} then reads both.
     */
    ConfirmResult step(String earlier, String later, double changePct) {
        ConfirmResult first = session(earlier, later, 1);
        if (first.state() != ConfirmResult.State.MEASURED || Confirmation.settles(changePct, first.analysis())) {
            return first;
        }
        template.feedback().listener().note("track " + taskId + ": bisect step " + abbrev(later) + " against "
                + abbrev(earlier) + " (" + first.sessionId() + ") does not settle its side of the change: a second"
                + " session");
        ConfirmResult second = session(earlier, later, Confirmation.SESSIONS_PER_PAIR);
        return second.state() == ConfirmResult.State.MEASURED ? second.after(first) : first;
    }

    private static String abbrev(String commit) {
        return commit.length() > 12 ? commit.substring(0, 12) : commit;
    }

    /** One session of the pair: read when complete, else run (or resumed) first. */
    private ConfirmResult session(String earlier, String later, int attempt) {
        String id = sessionId(trackId, earlier, later, attempt);
        String status;
        try (Store store = Stores.open(template.db())) {
            status = store.session(id).map(SessionRecord::status).orElse(null);
        }
        if (!"complete".equals(status)) {
            Planner.Options o = template.planOptions();
            // the confirmation rule needs the A/A arm (docs/statistics.md §21b): on whatever --no-aa or run.aa say
            Planner.Options withAa = new Planner.Options(o.rounds(), o.seed(), o.workdir(), Boolean.TRUE,
                    o.serverMetricsIntervalMs(), o.autoPoints());
            SessionRequest r = new SessionRequest(derive(template.suite(), taskId, earlier, later), withAa,
                    template.db(), id, status != null, template.executor(), template.feedback());
            started++;
            try {
                Session.start(r);
            } catch (IsobenchException e) {
                return new ConfirmResult(id, ConfirmResult.State.FAILED, null, "the session did not run: "
                        + e.getMessage());
            }
        }
        try (Store store = Stores.open(template.db())) {
            return read(store, id, taskId);
        }
    }

    /** A stored session read by the rules above. */
    static ConfirmResult read(Store store, String sessionId, String taskId) {
        TaskAnalysis analysis = SessionAnalysis.of(store, sessionId, StatsConfig.defaults()).tasks().stream()
                .filter(t -> t.taskId().equals(taskId)).map(SessionAnalysis.TaskResult::analysis)
                .filter(Objects::nonNull).findFirst().orElse(null);
        List<RunRecord> failed = new ArrayList<>();
        boolean[] laterOk = {false};
        store.forEachRun(RunFilter.runs().inSession(sessionId), r -> {
            if (r.status() == RunRecord.RunStatus.FAILED) {
                failed.add(r);
            } else if (r.status() == RunRecord.RunStatus.SUCCESS && Arm.HUMAN.equals(r.arm())) {
                laterOk[0] = true;
            }
        });
        failed.sort((a, b) -> Integer.compare(armOrder(a.arm()), armOrder(b.arm())));
        RunRecord notBuilt = laterOk[0] ? null : failed.stream().filter(r -> Arm.HUMAN.equals(r.arm())
                && r.failure() != null && FailureCategory.BUILD_FAILED.name().equals(r.failure().category()))
                .findFirst().orElse(null);
        if (notBuilt != null) {
            return new ConfirmResult(sessionId, ConfirmResult.State.LATER_NOT_BUILT, null, describe(notBuilt));
        }
        if (analysis != null && analysis.humanVsBaseline().verdict().aboutSpeed()) {
            return new ConfirmResult(sessionId, ConfirmResult.State.MEASURED, analysis, null);
        }
        String why = !failed.isEmpty() ? describe(failed.get(0)) : analysis != null
                ? analysis.humanVsBaseline().verdictText() + ": " + analysis.humanVsBaseline().reason()
                : "no measured runs of task " + taskId;
        return new ConfirmResult(sessionId, ConfirmResult.State.FAILED, null, why);
    }

    private static int armOrder(Arm arm) {
        return Arm.BASELINE.equals(arm) ? 0 : Arm.BASELINE_AA.equals(arm) ? 1 : Arm.HUMAN.equals(arm) ? 2 : 3;
    }

    /** {@code human BUILD_FAILED: build exited with 2: make} (the arm's label, the category, the detail). */
    private static String describe(RunRecord r) {
        RunRecord.FailureInfo f = r.failure();
        String arm = Arm.HUMAN.equals(r.arm()) ? "later commit" : Arm.BASELINE.equals(r.arm()) ? "earlier commit"
                : r.arm().label();
        return arm + " " + (f == null ? "failed" : f.category() + (f.detail() == null ? "" : ": " + f.detail()));
    }
}
