package io.isobench.legacy;

import io.isobench.store.RunRecord;
import io.isobench.store.SourceRecord;
import io.isobench.store.Store;
import io.isobench.store.TaskRecord;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The writes of files read but not stored yet. DuckDB spends milliseconds per statement, so a file per
 * transaction (about ten statements each) dominated an import; a batch is a few multi-row statements. Each file
 * is all in one batch, and a batch is one transaction: a file is stored whole or not at all.
 */
final class ImportBatch {

    /** Files flushed together in one transaction, at most this many (a file is never split across two). */
    private static final int BATCH_FILES = 256;
    /** … or about this many artifact bytes (whole logs are kept in memory until their batch is stored). */
    private static final long BATCH_BYTES = 32L << 20;

    private final Store store;
    final Map<String, Store.ArtifactInput> artifacts = new LinkedHashMap<>();
    final List<RunRecord> runs = new ArrayList<>();
    final Map<String, TaskRecord> tasks = new LinkedHashMap<>();
    final List<SourceRecord> sources = new ArrayList<>();
    long bytes;

    ImportBatch(Store store) {
        this.store = store;
    }

    /** Queues an artifact (redacted) and returns the sha256 the store will give it. */
    String artifact(String kind, String text) {
        Map<String, Store.ArtifactInput> one = new LinkedHashMap<>();
        String sha = pending(one, kind, text);
        addArtifacts(one);
        return sha;
    }

    /** Queues a file's artifacts (by sha256, as {@link #pending} made them). */
    void addArtifacts(Map<String, Store.ArtifactInput> fileArtifacts) {
        fileArtifacts.forEach((sha, a) -> {
            if (artifacts.putIfAbsent(sha, a) == null) {
                bytes += a.bytes().length;
            }
        });
    }

    void fileDone() {
        if (sources.size() >= BATCH_FILES || bytes >= BATCH_BYTES) {
            flush();
        }
    }

    void flush() {
        if (sources.isEmpty() && runs.isEmpty() && artifacts.isEmpty() && tasks.isEmpty()) {
            return;
        }
        store.inTransaction(tx -> {
            tx.putArtifacts(List.copyOf(artifacts.values()));
            tx.putRuns(runs);
            tx.putTasks(List.copyOf(tasks.values()));
            tx.putSources(sources);
            return null;
        });
        artifacts.clear();
        runs.clear();
        tasks.clear();
        sources.clear();
        bytes = 0;
    }

    /** Redacts, queues and returns the sha256 the store will give the artifact (content-addressed). */
    static String pending(Map<String, Store.ArtifactInput> artifacts, String kind, String text) {
        byte[] bytes = Redactor.redact(text).getBytes(StandardCharsets.UTF_8);
        String sha = LegacyImporter.sha256(bytes);
        artifacts.putIfAbsent(sha, new Store.ArtifactInput(kind, bytes));
        return sha;
    }
}
