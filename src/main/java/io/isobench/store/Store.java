package io.isobench.store;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The results store: embedded DuckDB by default, PostgreSQL for teams (same schema, versioned migrations).
 * Obtain one with {@link Stores#open(String)}.
 */
public interface Store extends AutoCloseable {

    /** Runs {@code work} in one transaction: all of it is stored, or none of it. */
    <T> T inTransaction(TxWork<T> work);

    /** The artifact kind of a patch (an agent attempt's diff): stored byte for byte, see {@link #VERBATIM_KINDS}. */
    String PATCH_KIND = "patch";

    /**
     * Artifact kinds stored byte for byte: source code and diffs, which the generic redactor would rewrite
     * ({@code token = tokenizer.decode(ids)}). Every other kind (logs, stdout, trajectories) is redacted before it is
     * hashed; for these the caller masks the secret values it knows (docs/store.md, docs/agents.md).
     */
    Set<String> VERBATIM_KINDS = Set.of(PATCH_KIND);

    /**
     * Stores bytes once (content-addressed, compressed); returns the sha256 hex. Whole, never truncated; redacted
     * first unless {@code kind} is one of {@link #VERBATIM_KINDS}.
     */
    String putArtifact(String kind, byte[] bytes);

    /** An artifact to store: its kind and its bytes (whole). */
    record ArtifactInput(String kind, byte[] bytes) {
    }

    /**
     * {@link #putArtifact} for many, in one transaction and a few statements (importers store a batch of files at
     * once); returns the sha256 of each input, in order.
     */
    List<String> putArtifacts(List<ArtifactInput> artifacts);

    /** The stored bytes for a sha256, decompressed. */
    Optional<byte[]> artifact(String sha256);

    /** An imported source with this relative path and content hash, if any. */
    Optional<SourceRecord> findSource(String path, String sha256);

    void putSource(SourceRecord source);

    /** {@link #putSource} for many, in one transaction and a few statements. */
    void putSources(List<SourceRecord> sources);

    /**
     * Inserts or replaces a run and its metrics. Agent names are stored normalised ({@link io.isobench.Arm#normalizeAgent},
     * also inside {@code agent:NAME} arm labels), so what reads back may differ from what was put in that respect only.
     */
    void putRun(RunRecord run);

    /** {@link #putRun} for many runs, batched, in one transaction. */
    void putRuns(List<RunRecord> runs);

    /** The run with this id and its metrics, if any. */
    Optional<RunRecord> run(String runId);

    /** Deletes the runs (and their metrics) imported from a source; returns how many runs were deleted. */
    int deleteRunsOfSource(String sourceId);

    /** Inserts or replaces a session. */
    void putSession(SessionRecord session);

    Optional<SessionRecord> session(String sessionId);

    /** All sessions, ordered by start time then id. */
    List<SessionRecord> sessions();

    void putTask(TaskRecord task);

    /** Inserts or replaces many tasks, in one transaction and a few statements. */
    void putTasks(List<TaskRecord> tasks);

    Optional<TaskRecord> task(String taskId);

    /**
     * Streams runs matching the filter, ordered by commitShort, pipeline, arm, round, start time (then runId), without
     * holding the whole result in Java. Outside {@link #inTransaction} the sink may call this store (write, read,
     * stream again); inside, it must not (the transaction's connection is busy streaming).
     */
    void forEachRun(RunFilter filter, Consumer<RunRecord> sink);

    /**
     * Sets the kind of stored runs (one transaction; unknown ids are ignored), e.g. a progress-log attempt that a later
     * attempt superseded. Returns how many runs changed.
     */
    int setRunKinds(Map<String, RunRecord.RunKind> kindByRunId);

    long countRuns();

    /**
     * Runs matching the filter whose notes contain {@code notesFragment} (case-insensitive; null: every run),
     * counted in the database.
     */
    long countRuns(RunFilter filter, String notesFragment);

    /**
     * Failed runs matching the filter, per category and arm, aggregated in the database (reports over millions of
     * runs never stream them): with the first {@code examples} commits (by commit order) and the first evidence.
     */
    List<FailureCount> failureCounts(RunFilter filter, int examples);

    /**
     * Failed runs of one category: counts per arm ({@code noArmRuns}: charged to no arm, e.g. the old harness's own
     * failure before any arm started, stored under the arm label {@code attempt}), the first evidence, the first commits (by commit order) and
     * whether more commits have this failure.
     */
    record FailureCount(String category, long baselineRuns, long humanRuns, long agentRuns, long noArmRuns,
                        String exampleEvidence, List<String> exampleCommits, boolean moreCommits) {

        public long runs() {
            return baselineRuns + humanRuns + agentRuns + noArmRuns;
        }
    }

    /** All sources, ordered by path then sourceId. */
    List<SourceRecord> sources();

    /** All tasks, ordered by id. */
    List<TaskRecord> tasks();

    /** Inserts or replaces a track ({@code isobench track}) by its id. */
    void putTrack(TrackRecord track);

    Optional<TrackRecord> track(String trackId);

    /** Every track, by task then track id. */
    List<TrackRecord> tracks();

    /** Inserts or replaces the commits of tracks by (track id, position), in one transaction. */
    void putTrackCommits(List<TrackCommit> commits);

    /** A track's commits by position (first-parent order); empty for an unknown track. */
    List<TrackCommit> trackCommits(String trackId);

    /** Inserts or replaces a change by (track id, commit, metric). */
    void putTrackChange(TrackChange change);

    /** The changes of {@code taskIdOrNull}'s tracks (all tracks when null), by task, track, position, metric. */
    List<TrackChange> trackChanges(String taskIdOrNull);

    /** Where the store lives, for messages (a file path or a JDBC URL without credentials). */
    String describe();

    @Override
    void close();

    @FunctionalInterface
    interface TxWork<T> {
        T run(Store tx);
    }
}
