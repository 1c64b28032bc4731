package io.isobench.legacy;

import io.isobench.store.Store;

import java.nio.file.Path;

/** The store the legacy tests run on. */
final class TestStores {

    private TestStores() {
    }

    static Store open(Path dir) {
        return new MemoryStore();
    }
}
