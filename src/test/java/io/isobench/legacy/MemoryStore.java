package io.isobench.legacy;

import io.isobench.Arm;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * An in-memory {@link Store} with the interface's ordering and transaction semantics, used until the DuckDB store
 * lands on main (then the tests run against {@code Stores.open}).
 */
final class MemoryStore implements Store {

    final Map<String, byte[]> artifacts = new HashMap<>();
    final Map<String, SourceRecord> sources = new LinkedHashMap<>();
    final Map<String, RunRecord> runs = new LinkedHashMap<>();
    final Map<String, TaskRecord> tasks = new LinkedHashMap<>();

    @Override
    public <T> T inTransaction(TxWork<T> work) {
        Map<String, byte[]> a = new HashMap<>(artifacts);
        Map<String, SourceRecord> s = new LinkedHashMap<>(sources);
        Map<String, RunRecord> r = new LinkedHashMap<>(runs);
        Map<String, TaskRecord> t = new LinkedHashMap<>(tasks);
        try {
            return work.run(this);
        } catch (RuntimeException e) {
            artifacts.clear();
            artifacts.putAll(a);
            sources.clear();
            sources.putAll(s);
            runs.clear();
            runs.putAll(r);
            tasks.clear();
            tasks.putAll(t);
            throw e;
        }
    }

    @Override
    public String putArtifact(String kind, byte[] bytes) {
        String sha = LegacyImporter.sha256(bytes);
        artifacts.putIfAbsent(sha, bytes.clone());
        return sha;
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
        List<RunRecord> list = new ArrayList<>();
        for (RunRecord r : runs.values()) {
            if (filter.agent() != null && (r.agent() == null
                    || !Arm.normalizeAgent(r.agent()).equals(Arm.normalizeAgent(filter.agent())))) {
                continue;
            }
            if (filter.kinds() != null && !filter.kinds().contains(r.kind())) {
                continue;
            }
            if (filter.sessionId() != null && !filter.sessionId().equals(r.sessionId())) {
                continue;
            }
            list.add(r);
        }
        list.sort(Comparator.comparing((RunRecord r) -> Objects.toString(r.commitShort(), ""))
                .thenComparing(r -> Objects.toString(r.pipeline(), ""))
                .thenComparing(RunRecord::arm).thenComparingInt(RunRecord::round));
        list.forEach(sink);
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
