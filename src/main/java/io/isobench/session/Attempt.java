package io.isobench.session;

import io.isobench.exec.Executor;
import io.isobench.plan.Job;
import io.isobench.plan.Plan;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.isobench.session.RunRecorder.runId;

/**
 * This attempt of a session and what earlier attempts left: the resume state read from the store.
 *
 * @param started  when the session first started
 * @param finished run ids an earlier attempt finished
 * @param previous the session's stored runs by run id (accuracy runs of this attempt are added as they end)
 * @param reaped   process groups of a killed attempt torn down
 * @param t0       this attempt's start ({@code System.nanoTime})
 */
record Attempt(String sessionId, Instant started, Set<String> finished, Map<String, RunRecord> previous,
               int reaped, long t0) {

    /** The id {@code run} would resume: the given one, else the latest session not marked complete. */
    static Optional<String> resumable(Store store, String sessionId) {
        if (sessionId != null) {
            return store.session(sessionId).map(SessionRecord::sessionId);
        }
        List<SessionRecord> all = store.sessions();
        for (int i = all.size() - 1; i >= 0; i--) {
            if (!"complete".equals(all.get(i).status()) && !all.get(i).isAgentsRun()) {
                return Optional.of(all.get(i).sessionId());
            }
        }
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1).sessionId());
    }

    static String newSessionId() {
        return "s" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).format(Instant.now()
                .atOffset(ZoneOffset.UTC)) + "-" + String.format(Locale.ROOT, "%04x", new SecureRandom().nextInt(0x10000));
    }

    /**
     * What a previous, interrupted attempt of the session left: its stored runs, the finished ones, and the process
     * groups, containers and cluster jobs of its placeholders torn down.
     *
     * @param session the session's id and first start; {@code t0} this attempt's start
     */
    static Attempt resume(SessionContext ctx, Attempt session) {
        Store store = ctx.store();
        Plan plan = ctx.plan();
        Executor executor = ctx.options().executor();
        SessionListener listener = ctx.options().listener();
        String sessionId = session.sessionId();
        executor.beginSession(sessionId);
        Map<String, RunRecord> previous = new HashMap<>();
        store.forEachRun(RunFilter.runs().inSession(sessionId), r -> previous.put(r.runId(), r));
        int reaped = 0;
        Set<String> finished = new HashSet<>();
        for (RunRecord r : previous.values()) {
            if (r.status() == RunRecord.RunStatus.NOT_RUN) {
                for (Job j : plan.jobs()) {
                    if (runId(sessionId, j).equals(r.runId())) {
                        executor.reap(j); // containers / cluster jobs the killed attempt left
                    }
                }
                PilotPhase.jobOf(plan, sessionId, r.runId()).ifPresent(executor::reap); // a killed sweep: auto pilot
                if (Leftovers.reap(store, r, listener::note)) { // only a group provably ours; its id is cleared
                    reaped++;
                }
            } else {
                finished.add(r.runId());
            }
        }
        if (!finished.isEmpty()) {
            listener.note("resuming session " + sessionId + ": " + finished.size() + " run(s) already finished");
        }
        return new Attempt(sessionId, session.started(), finished, previous, reaped, session.t0());
    }
}
