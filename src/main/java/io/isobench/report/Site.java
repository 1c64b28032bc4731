package io.isobench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import io.isobench.guard.AtomicFile;

/** Writes pages; remembers how many and the largest. */
final class Site {
    final Path dir;
    int pages;
    long largest;
    String largestName = "";

    Site(Path dir) {
        this.dir = dir;
    }

    void page(String name, String title, String body) throws IOException {
        byte[] bytes = Html.page(title, body).getBytes(StandardCharsets.UTF_8);
        AtomicFile.write(dir.resolve(name), bytes); // a killed run leaves the old page whole
        pages++;
        if (bytes.length > largest) {
            largest = bytes.length;
            largestName = name;
        }
    }
}
