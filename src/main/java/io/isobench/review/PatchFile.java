package io.isobench.review;

import java.util.List;
import java.util.Objects;

/**
 * One file of a unified diff. Paths have the {@code a/}/{@code b/} prefixes removed; {@code oldPath} is null for a
 * new file and {@code newPath} null for a deleted one. {@code header} is the raw text from {@code diff --git} to the
 * first hunk (or the binary payload), kept as evidence for checks that look at the file rather than at a hunk.
 */
public record PatchFile(String oldPath, String newPath, boolean binary, String header, List<Hunk> hunks) {

    public PatchFile {
        Objects.requireNonNull(header, "header");
        hunks = List.copyOf(hunks);
    }

    /** The path the review talks about: the new path, or the old one for a deleted file. */
    public String path() {
        return newPath != null ? newPath : oldPath;
    }

    public boolean isNew() {
        return oldPath == null;
    }

    public boolean isDeleted() {
        return newPath == null;
    }

    public boolean isRename() {
        return oldPath != null && newPath != null && !oldPath.equals(newPath);
    }

    public int addedLines() {
        return hunks.stream().mapToInt(Hunk::addedLines).sum();
    }

    public int removedLines() {
        return hunks.stream().mapToInt(Hunk::removedLines).sum();
    }

    /** The whole diff of this file: header and every hunk, as it appeared in the patch (CRLF removed). */
    public String text() {
        StringBuilder sb = new StringBuilder(header);
        for (Hunk h : hunks) {
            sb.append(h.text());
        }
        return sb.toString();
    }

    /** One {@code @@ -a,b +c,d @@} hunk with its lines; old/new line numbers are 1-based, 0 where not applicable. */
    public record Hunk(int oldStart, int oldCount, int newStart, int newCount, String headerLine, List<Line> lines) {

        public Hunk {
            lines = List.copyOf(lines);
        }

        public int addedLines() {
            return (int) lines.stream().filter(l -> l.kind() == Kind.ADDED).count();
        }

        public int removedLines() {
            return (int) lines.stream().filter(l -> l.kind() == Kind.REMOVED).count();
        }

        /** The hunk exactly as it appeared (header line and every line with its prefix), newline-terminated. */
        public String text() {
            StringBuilder sb = new StringBuilder(headerLine).append('\n');
            for (Line l : lines) {
                sb.append(l.raw()).append('\n');
            }
            return sb.toString();
        }
    }

    public enum Kind { CONTEXT, ADDED, REMOVED, NO_NEWLINE }

    /** A hunk line: its kind, its text without the prefix, and its line numbers on each side. */
    public record Line(Kind kind, String text, int oldLine, int newLine) {
        public String raw() {
            return switch (kind) {
                case CONTEXT -> " " + text;
                case ADDED -> "+" + text;
                case REMOVED -> "-" + text;
                case NO_NEWLINE -> "\\" + text;
            };
        }
    }
}
