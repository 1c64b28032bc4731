package io.isobench.export;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * An export's staging folder in {@code OUT/data}, named for its owner: {@code .export-PID-STARTMS-RANDOM} (the
 * exporting process' id and start time in epoch milliseconds). An export killed with {@code kill -9} cannot remove
 * its folder; the next export does, by rule: a staging folder whose owner is no live process (no process with that
 * id, or one that started at another time: the id was reused) is stale and removed. A folder of an older isobench
 * ({@code .export-RANDOM}, no owner in its name) is stale once it is {@value #UNOWNED_STALE_HOURS} hours old.
 * Folders of live exports are never touched.
 */
final class ExportStaging {

    static final String PREFIX = ".export-";
    static final int UNOWNED_STALE_HOURS = 24;
    private static final Pattern OWNED = Pattern.compile("\\.export-(\\d+)-(\\d+)-.*");

    private ExportStaging() {
    }

    /** A new staging folder owned by this process. */
    static Path create(Path dataDir) throws IOException {
        ProcessHandle self = ProcessHandle.current();
        long start = self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
        return Files.createTempDirectory(dataDir, PREFIX + self.pid() + "-" + start + "-");
    }

    /** Removes the stale staging folders of {@code dataDir} (best effort); the ones removed. */
    static List<Path> removeStale(Path dataDir) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dataDir, PREFIX + "*")) {
            for (Path p : ds) {
                if (Files.isDirectory(p) && stale(p) && delete(p)) {
                    removed.add(p);
                }
            }
        } catch (IOException e) {
            // an unreadable data folder: the export itself reports it
        }
        return removed;
    }

    /** Whether a staging folder's owner is no live process (see the class comment). */
    static boolean stale(Path dir) {
        Matcher m = OWNED.matcher(dir.getFileName().toString());
        if (!m.matches()) {
            try {
                FileTime t = Files.getLastModifiedTime(dir);
                return t.toInstant().isBefore(Instant.now().minus(Duration.ofHours(UNOWNED_STALE_HOURS)));
            } catch (IOException e) {
                return false;
            }
        }
        long pid;
        long startMs;
        try {
            pid = Long.parseLong(m.group(1));
            startMs = Long.parseLong(m.group(2));
        } catch (NumberFormatException e) {
            return false;
        }
        Optional<ProcessHandle> owner = ProcessHandle.of(pid);
        if (owner.isEmpty() || !owner.get().isAlive()) {
            return true;
        }
        Optional<Instant> started = owner.get().info().startInstant();
        // the id was reused by a process that started at another time: the owner is gone
        return started.isPresent() && startMs != 0 && started.get().toEpochMilli() != startMs;
    }

    private static boolean delete(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
