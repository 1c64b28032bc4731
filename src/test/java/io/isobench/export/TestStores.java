package io.isobench.export;

import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.TaskRecord;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

    /** Delegates to a real store; the n-th putRun (inside or outside a transaction) throws. */
    static final class FailingStore implements Store {
        private final Store d;
        private final int failAt;
        private int puts;

        FailingStore(Store delegate, int failAt) {
            this.d = delegate;
            this.failAt = failAt;
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) {
            return d.inTransaction(tx -> work.run(new FailingTx(tx)));
        }

        private final class FailingTx implements Store {
            private final Store tx;

            FailingTx(Store tx) {
                this.tx = tx;
            }

            @Override
            public <T> T inTransaction(TxWork<T> work) {
                return work.run(this);
            }

            @Override
            public String putArtifact(String kind, byte[] bytes) {
                return tx.putArtifact(kind, bytes);
            }

            @Override
            public Optional<byte[]> artifact(String sha256) {
                return tx.artifact(sha256);
            }

            @Override
            public Optional<SourceRecord> findSource(String path, String sha256) {
                return tx.findSource(path, sha256);
            }

            @Override
            public void putSource(SourceRecord source) {
                tx.putSource(source);
            }

            @Override
            public void putRun(RunRecord run) {
                if (++puts == failAt) {
                    throw new IllegalStateException("disk full (simulated)");
                }
                tx.putRun(run);
            }

            @Override
            public void putRuns(List<RunRecord> runs) {
                runs.forEach(this::putRun);
            }

            @Override
            public Optional<RunRecord> run(String runId) {
                return tx.run(runId);
            }

            @Override
            public int deleteRunsOfSource(String sourceId) {
                return tx.deleteRunsOfSource(sourceId);
            }

            @Override
            public void putSession(SessionRecord session) {
                tx.putSession(session);
            }

            @Override
            public Optional<SessionRecord> session(String sessionId) {
                return tx.session(sessionId);
            }

            @Override
            public List<SessionRecord> sessions() {
                return tx.sessions();
            }

            @Override
            public void putTask(TaskRecord task) {
                tx.putTask(task);
            }

            @Override
            public Optional<TaskRecord> task(String taskId) {
                return tx.task(taskId);
            }

            @Override
            public void forEachRun(RunFilter filter, Consumer<RunRecord> sink) {
                tx.forEachRun(filter, sink);
            }

            @Override
            public long countRuns() {
                return tx.countRuns();
            }

            @Override
            public long countRuns(RunFilter filter, String notesFragment) {
                return tx.countRuns(filter, notesFragment);
            }

            @Override
            public java.util.List<FailureCount> failureCounts(RunFilter filter, int examples) {
                return tx.failureCounts(filter, examples);
            }

            @Override
            public List<SourceRecord> sources() {
                return tx.sources();
            }

            @Override
            public List<TaskRecord> tasks() {
                return tx.tasks();
            }

            @Override
            public String describe() {
                return tx.describe();
            }

            @Override
            public void close() {
            }
        }

        @Override
        public String putArtifact(String kind, byte[] bytes) {
            return d.putArtifact(kind, bytes);
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
            d.putRun(run);
        }

        @Override
        public void putRuns(List<RunRecord> runs) {
            d.putRuns(runs);
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
        public java.util.List<FailureCount> failureCounts(RunFilter filter, int examples) {
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
