package io.isobench.legacy;

import io.isobench.store.Store;
import io.isobench.store.Stores;

import java.nio.file.Path;

/** The store the legacy tests run on: a real embedded DuckDB file in the test's temp folder. */
final class TestStores {

    private TestStores() {
    }

    static Store open(Path dir) {
        return Stores.open(dir.resolve("legacy-test.duckdb").toString());
    }
}
