package io.isobench.review;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Static integrity review of an agent patch (issue "Correctness and integrity gates", point 2). Parses the unified
 * diff and runs every {@link Check}; each finding names the check, the file and the evidence. Findings are outcomes,
 * not errors: the suite decides which checks fail the arm ({@link ReviewConfig#failingChecks()}).
 *
 * <p>The patch is streamed: one file's header and one hunk are held at a time, plus the findings. A file's diff used
 * as evidence is kept up to {@value #MAX_FILE_EVIDENCE_CHARS} characters (a note says how much more there was), and
 * beyond {@value #MAX_FINDINGS_PER_CHECK} findings of one check the rest are counted in one last finding, so memory
 * stays bounded whatever the patch's size.
 */
public final class PatchReview {

    /** A file's whole diff as evidence (path checks) is cut here, with a note. Hunk evidence is never cut. */
    static final int MAX_FILE_EVIDENCE_CHARS = 1 << 20;
    /** Findings listed per check; more are counted in a last finding of that check. */
    static final int MAX_FINDINGS_PER_CHECK = 100;

    private PatchReview() {
    }

    /** Reviews a patch held in memory. */
    public static ReviewResult review(String patchText, ReviewConfig config) {
        try {
            return review(new StringReader(patchText == null ? "" : patchText), -1, config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reviews a patch file without holding it: read as UTF-8, or (it is not) as ISO-8859-1, so a Latin-1 patch is
     * reviewed rather than refused.
     */
    public static ReviewResult review(Path patch, ReviewConfig config) throws IOException {
        long bytes = Files.size(patch);
        try (InputStream in = Files.newInputStream(patch)) {
            return review(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)),
                    bytes, config);
        } catch (CharacterCodingException e) {
            try (InputStream in = Files.newInputStream(patch)) {
                return review(new InputStreamReader(in, StandardCharsets.ISO_8859_1), bytes, config);
            }
        }
    }

    /** Reviews the patch {@code in} reads; {@code bytes}: its size, or -1 to count the UTF-8 bytes read. */
    private static ReviewResult review(Reader in, long bytes, ReviewConfig config) throws IOException {
        Collector c = new Collector(config);
        DiffParser.Lines lines = new DiffParser.Lines(in);
        int unparsed = DiffParser.parse(lines, c);
        long size = bytes >= 0 ? bytes : lines.utf8Bytes();
        if (c.changed > config.maxChangedLines() || size > config.maxPatchBytes()) {
            c.add(Check.OVERSIZED_PATCH, "", c.diffstat(),
                    String.format(Locale.ROOT, "%d changed lines, %d bytes (limits: %d lines, %d bytes)",
                            c.changed, size, config.maxChangedLines(), config.maxPatchBytes()));
        }
        List<Finding> findings = new ArrayList<>();
        for (Map.Entry<List<Object>, List<String>> e : c.hits.entrySet()) {
            Check check = (Check) e.getKey().get(0);
            findings.add(new Finding(check, config.severityOf(check), (String) e.getKey().get(1),
                    String.join("; ", e.getValue()), (String) e.getKey().get(2)));
        }
        c.omitted.forEach((check, n) -> findings.add(new Finding(check, config.severityOf(check), "",
                String.format(Locale.ROOT, "%d more finding(s) of this check, not listed (the first %d are)", n,
                        MAX_FINDINGS_PER_CHECK), "")));
        return new ReviewResult(findings, c.files, (int) Math.min(Integer.MAX_VALUE, c.changed), size, unparsed);
    }

    /** Receives the parsed patch file by file, hunk by hunk, and keeps only findings. */
    private static final class Collector implements DiffParser.Sink {
        final ReviewConfig config;
        /** (check, file, evidence) -> reasons; keeps patch order and merges reasons about the same hunk. */
        final Map<List<Object>, List<String>> hits = new LinkedHashMap<>();
        final Map<Check, Integer> listed = new EnumMap<>(Check.class);
        final Map<Check, Integer> omitted = new EnumMap<>(Check.class);
        final List<String> files = new ArrayList<>();
        final StringBuilder diffstat = new StringBuilder();
        int diffstatOmitted;
        long changed;

        PatchFile file;
        ContentChecks.Scan scan;
        StringBuilder evidence;
        int evidenceOmitted;
        int added;
        int removed;
        String linkOld;
        String linkNew;

        Collector(ReviewConfig config) {
            this.config = config;
        }

        @Override
        public void file(PatchFile header) {
            file = header;
            scan = new ContentChecks.Scan(header);
            evidence = new StringBuilder(header.header());
            evidenceOmitted = 0;
            added = 0;
            removed = 0;
            linkOld = null;
            linkNew = null;
            files.add(header.path());
        }

        @Override
        public void hunk(PatchFile.Hunk h) {
            added += h.addedLines();
            removed += h.removedLines();
            for (PatchFile.Line l : h.lines()) {
                if (l.kind() == PatchFile.Kind.ADDED && linkNew == null) {
                    linkNew = l.text();
                } else if (l.kind() == PatchFile.Kind.REMOVED && linkOld == null) {
                    linkOld = l.text();
                }
            }
            scan.hunk(h);
            String text = evidenceOmitted == 0 ? h.text() : null;
            if (text != null && evidence.length() + text.length() <= MAX_FILE_EVIDENCE_CHARS) {
                evidence.append(text);
            } else {
                evidenceOmitted += h.lines().size() + 1;
            }
        }

        @Override
        public void endFile() {
            changed += added + removed;
            String line = String.format(Locale.ROOT, "%s | %s%n", file.path(), file.binary() ? "binary"
                    : "+" + added + " -" + removed);
            if (diffstat.length() + line.length() <= MAX_FILE_EVIDENCE_CHARS) {
                diffstat.append(line);
            } else {
                diffstatOmitted++;
            }
            String ev = evidenceOmitted == 0 ? evidence.toString()
                    : evidence + "[" + evidenceOmitted + " more lines of this file's diff not shown]\n";
            evidence = null;
            pathChecks(ev);
            symlink(ev);
            for (ContentChecks.Hit h : scan.finish()) {
                add(h.check(), file.path(), h.evidence(), h.reason());
            }
        }

        String diffstat() {
            return diffstatOmitted == 0 ? diffstat.toString()
                    : diffstat + "[" + diffstatOmitted + " more files not listed]\n";
        }

        private void pathChecks(String evidence) {
            PatchFile f = file;
            List<String> paths = new ArrayList<>();
            if (f.oldPath() != null) {
                paths.add(f.oldPath());
            }
            if (f.newPath() != null && !paths.contains(f.newPath())) {
                paths.add(f.newPath());
            }
            String what = f.isNew() ? "adds" : f.isDeleted() ? "deletes" : f.isRename() ? "renames" : "edits";
            boolean flagged = false;
            for (String p : paths) {
                String bench = firstMatch(config.benchmarkPatterns(), p);
                if (bench != null) {
                    add(Check.BENCHMARK_EDIT, f.path(), evidence,
                            what + " benchmark script " + p + " (matches " + bench + ")" + delta());
                    flagged = true;
                }
                String test = firstMatch(config.testPatterns(), p);
                if (test != null) {
                    add(Check.TEST_EDIT, f.path(), evidence, what + " test file " + p + " (matches " + test + ")"
                            + delta());
                    flagged = true;
                }
                String input = config.perfInputs().stream()
                        .filter(in -> p.equals(in) || p.startsWith(in.endsWith("/") ? in : in + "/")).findFirst()
                        .orElse(null);
                if (input != null) {
                    add(Check.PERF_INPUT_EDIT, f.path(), evidence, what + " " + p
                            + ", which the perf_command names (" + input + ")" + delta());
                    flagged = true;
                }
                String wl = firstMatch(config.workloadPatterns(), p);
                if (wl != null) {
                    add(Check.WORKLOAD_DEFINITION_EDIT, f.path(), evidence, what + " isobench workload/probe"
                            + " definition " + p + " (matches " + wl + ")" + delta());
                    flagged = true;
                }
            }
            if (f.binary()) {
                add(Check.BINARY_FILE, f.path(), f.header(), what + " binary file " + f.path());
            }
            // A file already named by a path check is not also reported as outside the tree: one cause, one finding.
            if (!flagged && !config.engineRoots().isEmpty()) {
                for (String p : paths) {
                    if (firstMatch(config.engineRoots(), p) == null) {
                        add(Check.OUTSIDE_SOURCE_TREE, f.path(), f.binary() ? f.header() : evidence,
                                what + " " + p + ", outside the engine source tree " + config.engineRoots() + delta());
                        break;
                    }
                }
            }
        }

        /**
         * SYMLINK: the file is a symbolic link (git mode 120000) on the patched side and the patch creates it, turns
         * a file into it or changes where it points; the link's target (its one line of content) is named, and a
         * target outside the repository is said so. Deleting a link is not a finding.
         */
        private void symlink(String evidence) {
            String header = file.header();
            boolean created = header.contains("\nnew file mode 120000") || header.startsWith("new file mode 120000");
            boolean retyped = header.contains("\nnew mode 120000");
            boolean retargeted = !created && !retyped && header.lines().anyMatch(l -> l.startsWith("index ")
                    && l.endsWith(" 120000")) && linkNew != null;
            if (!(created || retyped || retargeted) || file.newPath() == null) {
                return;
            }
            String target = linkNew == null ? "?" : linkNew;
            String where = outsideRepository(file.newPath(), target) ? " (outside the repository)" : "";
            String reason = created ? "creates symbolic link " + file.newPath() + " -> " + target + where
                    : retyped ? "turns " + file.newPath() + " into a symbolic link -> " + target + where
                    : "retargets symbolic link " + file.newPath() + " from " + linkOld + " to " + target + where;
            add(Check.SYMLINK, file.path(), evidence, reason);
        }

        private String delta() {
            return file.binary() ? "" : String.format(Locale.ROOT, " (+%d -%d)", added, removed);
        }

        void add(Check check, String file, String evidence, String reason) {
            List<Object> key = List.of(check, file, evidence);
            List<String> reasons = hits.get(key);
            if (reasons == null) {
                int n = listed.getOrDefault(check, 0);
                if (n >= MAX_FINDINGS_PER_CHECK) {
                    omitted.merge(check, 1, Integer::sum);
                    return;
                }
                listed.put(check, n + 1);
                reasons = new ArrayList<>();
                hits.put(key, reasons);
            }
            if (!reasons.contains(reason)) {
                reasons.add(reason);
            }
        }
    }

    /** A link target that leaves the repository: absolute, or more {@code ..} than the link's folder is deep. */
    static boolean outsideRepository(String linkPath, String target) {
        if (target.startsWith("/") || target.startsWith("~") || target.matches("^[A-Za-z]:[\\\\/].*")) {
            return true;
        }
        try {
            Path dir = Path.of(linkPath).getParent();
            Path resolved = (dir == null ? Path.of("") : dir).resolve(target).normalize();
            return resolved.startsWith("..");
        } catch (InvalidPathException e) {
            return true;
        }
    }

    private static String firstMatch(List<String> patterns, String path) {
        for (String p : patterns) {
            if (Glob.matches(p, path)) {
                return p;
            }
        }
        return null;
    }
}
