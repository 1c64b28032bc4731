package io.isobench.export;

import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A small in-memory {@link Store} for tests of the export package (named fake: the real stores live in
 * io.isobench.store and are exercised by their own contract tests). Transactions restore a snapshot on failure.
 */
class MemoryStore implements Store {

    final Map<String, RunRecord> runs = new HashMap<>();
    final Map<String, byte[]> artifacts = new HashMap<>();
    final Map<String, SourceRecord> sources = new HashMap<>();
    final Map<String, TaskRecord> tasks = new HashMap<>();
    private boolean inTx;

    @Override
    public <T> T inTransaction(TxWork<T> work) {
        if (inTx) {
            return work.run(this);
        }
        Map<String, RunRecord> r = new HashMap<>(runs);
        Map<String, byte[]> a = new HashMap<>(artifacts);
        Map<String, SourceRecord> s = new HashMap<>(sources);
        Map<String, TaskRecord> t = new HashMap<>(tasks);
        inTx = true;
        try {
            return work.run(this);
        } catch (RuntimeException e) {
            runs.clear();
            runs.putAll(r);
            artifacts.clear();
            artifacts.putAll(a);
            sources.clear();
            sources.putAll(s);
            tasks.clear();
            tasks.putAll(t);
            throw e;
        } finally {
            inTx = false;
        }
    }

    @Override
    public String putArtifact(String kind, byte[] bytes) {
        try {
            String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            artifacts.put(sha, bytes.clone());
            return sha;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Optional<byte[]> artifact(String sha256) {
        return Optional.ofNullable(artifacts.get(sha256)).map(byte[]::clone);
    }

    @Override
    public Optional<SourceRecord> findSource(String path, String sha256) {
        return sources.values().stream().filter(s -> s.path().equals(path) && s.sha256().equals(sha256)).findFirst();
    }

    @Override
    public void putSource(SourceRecord source) {
        sources.put(source.sourceId(), source);
    }

    @Override
    public void putRun(RunRecord run) {
        runs.put(run.runId(), run);
    }

    @Override
    public void putTask(TaskRecord task) {
        tasks.put(task.taskId(), task);
    }

    @Override
    public Optional<TaskRecord> task(String taskId) {
        return Optional.ofNullable(tasks.get(taskId));
    }

    @Override
    public void forEachRun(RunFilter filter, Consumer<RunRecord> sink) {
        List<RunRecord> all = new ArrayList<>(runs.values());
        all.sort(Comparator.comparing((RunRecord r) -> Objects.toString(r.commitShort(), ""))
                .thenComparing(r -> Objects.toString(r.pipeline(), ""))
                .thenComparing(RunRecord::arm)
                .thenComparingInt(RunRecord::round)
                .thenComparing(RunRecord::runId));
        for (RunRecord r : all) {
            if (filter.kinds() != null && !filter.kinds().contains(r.kind())) {
                continue;
            }
            sink.accept(r);
        }
    }

    @Override
    public long countRuns() {
        return runs.size();
    }

    @Override
    public List<SourceRecord> sources() {
        return List.copyOf(sources.values());
    }

    @Override
    public String describe() {
        return "memory";
    }

    @Override
    public void close() {
    }
}
