package io.isobench.legacy;

import io.isobench.store.RunDetails;
import io.isobench.store.RunRecord;
import io.isobench.store.TaskRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Gives runs whose file wrote a short commit id (8 or 12 hex) the full 40-hex hash when the same import knows it: from
 * the task table (every task stored before the import and every one a file of it showed: {@code full_commit},
 * {@code human_commit_full}, {@code commit_hash}, a journal's or micro result's commits), whatever the order the
 * files were read in. A run whose commit no file names in full keeps the id as written. The id as written stays in
 * the run's details ({@code commit_as_written}).
 */
final class CommitResolver {

    private static final Pattern FULL = Pattern.compile("[0-9a-f]{40}");

    private final Map<String, TaskRecord> tasks;
    /** Runs stored with a short commit in this import, by run id. */
    private final Map<String, RunRecord> pending = new LinkedHashMap<>();

    /** @param tasks the import's tasks by their 8-hex id (read when it began, kept up to date while it runs) */
    CommitResolver(Map<String, TaskRecord> tasks) {
        this.tasks = tasks;
    }

    /** The full hash of {@code commit} known now, or null (a full id, no id, or none known). */
    String full(String commit) {
        if (commit == null || commit.length() >= 40 || commit.length() < 7) {
            return null;
        }
        String c = commit.toLowerCase(Locale.ROOT);
        TaskRecord t = tasks.get(c.substring(0, Math.min(8, c.length())));
        String known = t == null || t.commit() == null ? null : t.commit().toLowerCase(Locale.ROOT);
        return known != null && FULL.matcher(known).matches() && known.startsWith(c) ? known : null;
    }

    /** {@code run} with the full hash when it is known now; else remembered, to be resolved at the end. */
    RunRecord resolve(RunRecord run) {
        String full = full(run.commit());
        if (full != null) {
            return withCommit(run, full);
        }
        if (run.commit() != null && run.commit().length() < 40) {
            pending.put(run.runId(), run);
        }
        return run;
    }

    /** The runs remembered by {@link #resolve} whose full hash is known now, rewritten with it. */
    List<RunRecord> resolvedAtEnd() {
        List<RunRecord> out = new ArrayList<>();
        for (RunRecord r : pending.values()) {
            String full = full(r.commit());
            if (full != null) {
                out.add(withCommit(r, full));
            }
        }
        pending.clear();
        return out;
    }

    private static RunRecord withCommit(RunRecord r, String full) {
        RunDetails details = r.details().with("commit_as_written", r.commit());
        RunRecord.Subject s = r.subject();
        return new RunRecord(r.key(), new RunRecord.Subject(full, full.substring(0, 8), s.agent(), s.arm(), s.mode(),
                s.model(), s.pipeline()), r.outcome(), r.primary(), r.provenance(), details, r.metrics());
    }
}
