package io.isobench.legacy;

import io.isobench.IsobenchException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/** The files of a legacy tree: the walk (links and special files skipped with a reason) and each file's known path. */
final class LegacyTree {

    private LegacyTree() {
    }

    /** An entry of the tree that is not a file to read (a link to a folder, a FIFO, a dangling link…), and why. */
    record Skipped(Path path, String reason) {
    }

    /**
     * What a walk found: regular files to read (sorted), and every other entry with the reason it is skipped.
     *
     * @param root the root, symbolic links resolved (a linked root is followed)
     */
    record Walk(Path root, List<Path> files, List<Skipped> skipped) {
    }

    /**
     * Walks the tree under {@code root} without following links below it (a linked folder could loop or leave the
     * tree): a link to a regular file inside the tree is read like a file; a link to a file outside it, a link to a
     * folder, a dangling link, a link to a device and any FIFO, socket or device is listed as skipped with its reason.
     * The root itself may be a link.
     *
     * @throws IsobenchException.BadInput when it is missing, not a directory, unreadable or empty
     */
    static Walk walk(Path root) {
        if (!Files.exists(root)) {
            throw new IsobenchException.BadInput("import root '" + root + "' does not exist (give a results tree"
                    + " or a folder above it)");
        }
        if (!Files.isDirectory(root)) {
            throw new IsobenchException.BadInput("import root '" + root + "' is not a directory (give a results tree"
                    + " or a folder above it)");
        }
        Path real;
        try {
            real = root.toRealPath();
        } catch (IOException e) {
            throw new IsobenchException.BadInput("import root '" + root + "' cannot be read: " + e.getMessage(), e);
        }
        List<Path> files = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        try {
            Files.walkFileTree(real, EnumSet.noneOf(FileVisitOption.class), Integer.MAX_VALUE,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path f,
                                BasicFileAttributes a) {
                            if (a.isRegularFile()) {
                                files.add(f);
                            } else if (a.isSymbolicLink()) {
                                String why = linkReason(f, real);
                                if (why == null) {
                                    files.add(f);
                                } else {
                                    skipped.add(new Skipped(f, why));
                                }
                            } else if (!a.isDirectory()) {
                                skipped.add(new Skipped(f, specialReason(f) + ": not a regular file, not read"));
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path f, IOException e) {
                            skipped.add(new Skipped(f, "cannot be read: " + e.getMessage()));
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException | UncheckedIOException e) {
            throw new IsobenchException.BadInput("import root '" + root + "' cannot be read: " + e.getMessage(), e);
        }
        if (files.isEmpty() && skipped.isEmpty()) {
            throw new IsobenchException.BadInput("import root '" + root + "' is empty (no files to import)");
        }
        files.sort(null);
        skipped.sort(Comparator.comparing(Skipped::path));
        return new Walk(real, List.copyOf(files), List.copyOf(skipped));
    }

    /**
     * Null when a symbolic link leads to a regular file inside the tree (read it); else why it is skipped. A legacy
     * tree comes from elsewhere: a link out of it could bring any file of this machine into the store.
     */
    private static String linkReason(Path link, Path realRoot) {
        String target;
        try {
            target = Files.readSymbolicLink(link).toString();
        } catch (IOException | UnsupportedOperationException e) {
            target = "?";
        }
        if (!Files.exists(link)) {
            return "dangling symbolic link (to " + target + ", which does not exist): not read";
        }
        if (Files.isDirectory(link)) {
            return "symbolic link to a folder (" + target + "): not followed (it could loop or lead out of the tree)";
        }
        if (Files.isRegularFile(link)) {
            return inside(link, realRoot) ? null : "symbolic link to a file outside the tree (" + target + "): not read"
                    + " (the tree's files only)";
        }
        return "symbolic link to a " + specialReason(link) + " (" + target + "): not read";
    }

    /** Whether {@code file}'s real path (links followed) is under {@code realRoot}. */
    static boolean inside(Path file, Path realRoot) {
        try {
            return file.toRealPath().startsWith(realRoot);
        } catch (IOException e) {
            return false;
        }
    }

    /** FIFO, socket, character device, block device, or special file. */
    private static String specialReason(Path p) {
        try {
            Object mode = Files.getAttribute(p, "unix:mode");
            if (mode instanceof Integer m) {
                return switch (m & 0170000) {
                    case 0010000 -> "FIFO (named pipe)";
                    case 0140000 -> "socket";
                    case 0020000 -> "character device";
                    case 0060000 -> "block device";
                    default -> "special file";
                };
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // not a unix file system: say what we know
        }
        return "special file";
    }

    static String megabytes(Path file) {
        try {
            return String.format(Locale.ROOT, "%.1f MB", Files.size(file) / 1e6);
        } catch (IOException e) {
            return "size unknown";
        }
    }

    /**
     * The path a file is known by: from {@code archive/results/} when it lives there, else from the month folder or
     * the {@code omniperf_results*} folder of its tree, else relative to the root. The same file therefore keeps
     * its identity whether the root is the tree itself or any folder above it.
     */
    static String canonicalPath(Path absRoot, Path absFile) {
        List<String> segs = new ArrayList<>();
        for (Path p : absFile) {
            segs.add(p.toString());
        }
        int start = -1;
        for (int i = 0; i + 1 < segs.size(); i++) {
            if (segs.get(i).equals("archive") && segs.get(i + 1).equals("results")) {
                start = i;
            }
        }
        if (start < 0) {
            for (int i = 0; i < segs.size() - 1; i++) {
                if (segs.get(i).startsWith("omniperf_results")) {
                    start = i > 0 && segs.get(i - 1).matches("\\d{4}-\\d{2}") ? i - 1 : i;
                    break;
                }
            }
        }
        if (start < 0) {
            return absRoot.relativize(absFile).toString().replace('\\', '/');
        }
        return String.join("/", segs.subList(start, segs.size()));
    }
}
