package io.isobench.export;

import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.TaskRecord;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** Real DuckDB stores for the export tests, and a delegating store that fails on demand. */
final class TestStores {

    private TestStores() {
    }

    static Store open(Path dir, String name) {
        return Stores.open(dir.resolve(name + ".duckdb").toString());
    }

    static List<RunRecord> runs(Store store) {
        List<RunRecord> out = new ArrayList<>();
        store.forEachRun(RunFilter.all(), out::add);
        return out;
    }

    /** Delegates to a real store; the n-th putRun inside a transaction throws. */
    static final class FailingStore implements Store {
        private final Store d;
        private final int failAt;
        private final int[] puts;
        private final boolean inTx;

        FailingStore(Store delegate, int failAt) {
            this(delegate, failAt, new int[1], false);
        }

        private FailingStore(Store delegate, int failAt, int[] puts, boolean inTx) {
            this.d = delegate;
            this.failAt = failAt;
            this.puts = puts;
            this.inTx = inTx;
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) {
            return inTx ? work.run(this) : d.inTransaction(tx -> work.run(new FailingStore(tx, failAt, puts, true)));
        }

        @Override
        public void putTrack(TrackRecord track) {
            d.putTrack(track);
        }

        @Override
        public Optional<TrackRecord> track(String trackId) {
            return d.track(trackId);
        }

        @Override
        public List<TrackRecord> tracks() {
            return d.tracks();
        }

        @Override
        public void putTrackCommits(List<TrackCommit> commits) {
            d.putTrackCommits(commits);
        }

        @Override
        public List<TrackCommit> trackCommits(String trackId) {
            return d.trackCommits(trackId);
        }

        @Override
        public void putTrackChange(TrackChange change) {
            d.putTrackChange(change);
        }

        @Override
        public List<TrackChange> trackChanges(String taskIdOrNull) {
            return d.trackChanges(taskIdOrNull);
        }

        @Override
        public String putArtifact(String kind, byte[] bytes) {
            return d.putArtifact(kind, bytes);
        }

        @Override
        public List<String> putArtifacts(List<ArtifactInput> artifacts) {
            return d.putArtifacts(artifacts);
        }

        @Override
        public void putSources(List<SourceRecord> sources) {
            d.putSources(sources);
        }

        @Override
        public void putTasks(List<TaskRecord> tasks) {
            d.putTasks(tasks);
        }

        @Override
        public Optional<byte[]> artifact(String sha256) {
            return d.artifact(sha256);
        }

        @Override
        public Optional<SourceRecord> findSource(String path, String sha256) {
            return d.findSource(path, sha256);
        }

        @Override
        public void putSource(SourceRecord source) {
            d.putSource(source);
        }

        @Override
        public void putRun(RunRecord run) {
            if (inTx && ++puts[0] == failAt) {
                throw new IllegalStateException("disk full (simulated)");
            }
            d.putRun(run);
        }

        @Override
        public void putRuns(List<RunRecord> runs) {
            if (inTx) {
                runs.forEach(this::putRun);
            } else {
                d.putRuns(runs);
            }
        }

        @Override
        public Optional<RunRecord> run(String runId) {
            return d.run(runId);
        }

        @Override
        public int deleteRunsOfSource(String sourceId) {
            return d.deleteRunsOfSource(sourceId);
        }

        @Override
        public int setRunKinds(Map<String, RunRecord.RunKind> kindByRunId) {
            return d.setRunKinds(kindByRunId);
        }

        @Override
        public void putSession(SessionRecord session) {
            d.putSession(session);
        }

        @Override
        public Optional<SessionRecord> session(String sessionId) {
            return d.session(sessionId);
        }

        @Override
        public List<SessionRecord> sessions() {
            return d.sessions();
        }

        @Override
        public void putTask(TaskRecord task) {
            d.putTask(task);
        }

        @Override
        public Optional<TaskRecord> task(String taskId) {
            return d.task(taskId);
        }

        @Override
        public void forEachRun(RunFilter filter, Consumer<RunRecord> sink) {
            d.forEachRun(filter, sink);
        }

        @Override
        public long countRuns() {
            return d.countRuns();
        }

        @Override
        public long countRuns(RunFilter filter, String notesFragment) {
            return d.countRuns(filter, notesFragment);
        }

        @Override
        public List<FailureCount> failureCounts(RunFilter filter, int examples) {
            return d.failureCounts(filter, examples);
        }

        @Override
        public List<SourceRecord> sources() {
            return d.sources();
        }

        @Override
        public List<TaskRecord> tasks() {
            return d.tasks();
        }

        @Override
        public String describe() {
            return d.describe();
        }

        @Override
        public void close() {
            d.close();
        }
    }
}
