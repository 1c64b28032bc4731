package io.isobench.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.proc.ProcessGroup;
import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What an interrupted orchestrator left: the process group each placeholder ({@code NOT_RUN}) run recorded. A resumed
 * session signals a group only when it is provably the one the placeholder describes ({@link ProcessGroup#owner}):
 * a PGID that a stranger's group has now, or a placeholder without an identity (written before identities were
 * recorded), is left alone. The id is cleared from the placeholder once the group is gone or known not to be ours,
 * so no later resume signals that number again.
 */
final class Leftovers {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Leftovers() {
    }

    /** Placeholder fields: {@code pgid}, and {@code group} = {@link ProcessGroup.Identity#toMap()}. */
    static void record(Map<String, Object> extra, long pgid) {
        extra.put("pgid", pgid);
        ProcessGroup.launched(pgid).ifPresent(id -> extra.put("group", id.toMap()));
    }

    /** Reaps the group a placeholder recorded (when provably ours) and clears its id; true when a group was reaped. */
    static boolean reap(Store store, RunRecord placeholder, Consumer<String> say) {
        RunDetails extra = placeholder.details();
        if (!extra.recordsGroup()) {
            return false;
        }
        long pgid = extra.pgid();
        Optional<ProcessGroup.Identity> id = ProcessGroup.Identity.fromMap(JSON.convertValue(extra.section("group"),
                Map.class));
        if (id.isEmpty() && pgid <= 1) {
            return false; // a cluster job's placeholder (no process group on this machine): the executor reaps it
        }
        String outcome;
        boolean reaped = false;
        if (id.isEmpty()) {
            outcome = "left alone: no identity recorded";
            if (!ProcessGroup.members(pgid).isEmpty()) {
                say.accept("left process group " + pgid + " of the interrupted run " + placeholder.runId()
                        + " alone: its placeholder records no identity, so it cannot be proved isobench's");
            }
        } else {
            ProcessGroup.Owner owner = ProcessGroup.reap(id.get(), Duration.ofSeconds(2));
            switch (owner) {
                case OURS -> {
                    reaped = true;
                    outcome = "reaped";
                    say.accept("reaped process group " + id.get().pgid() + " left by the interrupted run "
                            + placeholder.runId());
                    if (!ProcessGroup.members(id.get().pgid()).isEmpty()) {
                        return true; // survived SIGKILL (uninterruptible): keep the id for the next resume
                    }
                }
                case FOREIGN -> {
                    outcome = "left alone: another process has that group id now";
                    say.accept("left process group " + id.get().pgid() + " alone: the interrupted run "
                            + placeholder.runId() + " recorded it, but another process has that group id now");
                }
                default -> outcome = "gone";
            }
        }
        store.putRun(placeholder.withDetails(extra.without("pgid").without("group")
                .with("group_outcome", outcome)));
        return reaped;
    }
}
