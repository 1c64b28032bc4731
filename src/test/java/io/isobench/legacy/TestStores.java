package io.isobench.legacy;

import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The store the legacy tests run on: a real embedded DuckDB file in the test's temp folder. */
final class TestStores {

    private TestStores() {
    }

    static Store open(Path dir) {
        return Stores.open(dir.resolve("legacy-test.duckdb").toString());
    }

    /** Imports the tree {@code dir/t} into a fresh store in {@code dir}: every run, no file refused. */
    static List<RunRecord> importTree(Path dir) {
        List<RunRecord> runs = new ArrayList<>();
        try (Store store = open(dir)) {
            ImportSummary s = new LegacyImporter(store, null, null).importTree(dir.resolve("t"));
            assertThat(s.count(ImportSummary.Outcome.REFUSED)).as(s.files().toString()).isZero();
            store.forEachRun(RunFilter.all(), runs::add);
        }
        return runs;
    }
}
