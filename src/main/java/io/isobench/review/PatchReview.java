package io.isobench.review;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Static integrity review of an agent patch (issue "Correctness and integrity gates", point 2). Parses the unified
 * diff and runs every {@link Check}; each finding names the check, the file and the evidence. Findings are outcomes,
 * not errors: the suite decides which checks fail the arm ({@link ReviewConfig#failingChecks()}).
 */
public final class PatchReview {

    private PatchReview() {
    }

    public static ReviewResult review(String patchText, ReviewConfig config) {
        String text = patchText == null ? "" : patchText;
        DiffParser.Parsed parsed = DiffParser.parse(text);
        List<PatchFile> files = parsed.files();
        // (check, file, evidence) -> reasons; keeps patch order and merges reasons about the same hunk
        Map<List<Object>, List<String>> hits = new LinkedHashMap<>();
        for (PatchFile f : files) {
            pathChecks(f, config, hits);
            for (ContentChecks.Hit h : ContentChecks.run(f)) {
                add(hits, h.check(), f.path(), h.hunk().text(), h.reason());
            }
        }
        int changed = files.stream().mapToInt(f -> f.addedLines() + f.removedLines()).sum();
        long bytes = text.getBytes(StandardCharsets.UTF_8).length;
        if (changed > config.maxChangedLines() || bytes > config.maxPatchBytes()) {
            add(hits, Check.OVERSIZED_PATCH, "", diffstat(files),
                    String.format(Locale.ROOT, "%d changed lines, %d bytes (limits: %d lines, %d bytes)",
                            changed, bytes, config.maxChangedLines(), config.maxPatchBytes()));
        }
        List<Finding> findings = new ArrayList<>();
        for (Map.Entry<List<Object>, List<String>> e : hits.entrySet()) {
            Check check = (Check) e.getKey().get(0);
            findings.add(new Finding(check, config.severityOf(check), (String) e.getKey().get(1),
                    String.join("; ", e.getValue()), (String) e.getKey().get(2)));
        }
        return new ReviewResult(findings, files.stream().map(PatchFile::path).toList(), changed, bytes,
                parsed.unparsedLines());
    }

    private static void pathChecks(PatchFile f, ReviewConfig c, Map<List<Object>, List<String>> hits) {
        List<String> paths = new ArrayList<>();
        if (f.oldPath() != null) {
            paths.add(f.oldPath());
        }
        if (f.newPath() != null && !paths.contains(f.newPath())) {
            paths.add(f.newPath());
        }
        String what = f.isNew() ? "adds" : f.isDeleted() ? "deletes" : f.isRename() ? "renames" : "edits";
        String evidence = f.text();
        boolean flagged = false;
        for (String p : paths) {
            String bench = firstMatch(c.benchmarkPatterns(), p);
            if (bench != null) {
                add(hits, Check.BENCHMARK_EDIT, f.path(), evidence,
                        what + " benchmark script " + p + " (matches " + bench + ")" + delta(f));
                flagged = true;
            }
            String test = firstMatch(c.testPatterns(), p);
            if (test != null) {
                add(hits, Check.TEST_EDIT, f.path(), evidence, what + " test file " + p + " (matches " + test + ")"
                        + delta(f));
                flagged = true;
            }
            String input = c.perfInputs().stream()
                    .filter(in -> p.equals(in) || p.startsWith(in.endsWith("/") ? in : in + "/")).findFirst()
                    .orElse(null);
            if (input != null) {
                add(hits, Check.PERF_INPUT_EDIT, f.path(), evidence, what + " " + p
                        + ", which the perf_command names (" + input + ")" + delta(f));
                flagged = true;
            }
            String wl = firstMatch(c.workloadPatterns(), p);
            if (wl != null) {
                add(hits, Check.WORKLOAD_DEFINITION_EDIT, f.path(), evidence, what + " isobench workload/probe"
                        + " definition " + p + " (matches " + wl + ")" + delta(f));
                flagged = true;
            }
        }
        if (f.binary()) {
            add(hits, Check.BINARY_FILE, f.path(), f.header(), what + " binary file " + f.path());
        }
        // A file already named by a path check is not also reported as outside the tree: one cause, one finding.
        if (!flagged && !c.engineRoots().isEmpty()) {
            for (String p : paths) {
                if (firstMatch(c.engineRoots(), p) == null) {
                    add(hits, Check.OUTSIDE_SOURCE_TREE, f.path(), f.binary() ? f.header() : evidence,
                            what + " " + p + ", outside the engine source tree " + c.engineRoots() + delta(f));
                    break;
                }
            }
        }
    }

    private static String delta(PatchFile f) {
        return f.binary() ? "" : String.format(Locale.ROOT, " (+%d -%d)", f.addedLines(), f.removedLines());
    }

    private static String firstMatch(List<String> patterns, String path) {
        for (String p : patterns) {
            if (Glob.matches(p, path)) {
                return p;
            }
        }
        return null;
    }

    private static String diffstat(List<PatchFile> files) {
        StringBuilder sb = new StringBuilder();
        for (PatchFile f : files) {
            sb.append(String.format(Locale.ROOT, "%s | %s%n", f.path(),
                    f.binary() ? "binary" : "+" + f.addedLines() + " -" + f.removedLines()));
        }
        return sb.toString();
    }

    private static void add(Map<List<Object>, List<String>> hits, Check check, String file, String evidence,
                            String reason) {
        List<String> reasons = hits.computeIfAbsent(List.of(check, file, evidence), k -> new ArrayList<>());
        if (!reasons.contains(reason)) {
            reasons.add(reason);
        }
    }
}
