package io.isobench.review;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Locale;

/**
 * The outcome of a patch review. A patch with findings is reported as {@code SUSPICIOUS_PATCH} with the findings'
 * reasons, beside whatever the run's outcome is (DESIGN.md §7); {@link #failsArm()} says whether any finding's check
 * is one the config marks as failing the arm.
 *
 * @param files          paths the patch touches, in patch order
 * @param changedLines   added + removed lines over all hunks
 * @param patchBytes     size of the patch text in UTF-8 bytes
 * @param unparsedLines  lines outside any file or hunk (commit message, mail headers, garbage)
 */
public record ReviewResult(List<Finding> findings, List<String> files, int changedLines, long patchBytes,
                           int unparsedLines) {

    public static final String SUSPICIOUS_PATCH = "SUSPICIOUS_PATCH";

    public ReviewResult {
        findings = List.copyOf(findings);
        files = List.copyOf(files);
    }

    public boolean suspicious() {
        return !findings.isEmpty();
    }

    public boolean failsArm() {
        return findings.stream().anyMatch(f -> f.severity() == Finding.Severity.ERROR);
    }

    /** One line per finding ({@link Finding#oneLine()}), the reasons of a SUSPICIOUS_PATCH report. */
    public List<String> reasons() {
        return findings.stream().map(Finding::oneLine).toList();
    }

    public List<Finding> findings(Check check) {
        return findings.stream().filter(f -> f.check() == check).toList();
    }

    /** Human-readable report: a summary line, then each finding with its evidence indented by "    | ". */
    public String text() {
        StringBuilder sb = new StringBuilder();
        long errors = findings.stream().filter(f -> f.severity() == Finding.Severity.ERROR).count();
        if (findings.isEmpty()) {
            sb.append(String.format(Locale.ROOT, "clean: no findings (%d file(s), %d changed line(s))%n",
                    files.size(), changedLines));
            return sb.toString();
        }
        sb.append(String.format(Locale.ROOT, "%s: %d finding(s), %d error(s)%s (%d file(s), %d changed line(s))%n",
                SUSPICIOUS_PATCH, findings.size(), errors, errors > 0 ? ", fails the arm" : "",
                files.size(), changedLines));
        for (Finding f : findings) {
            sb.append(String.format(Locale.ROOT, "%n%-7s %s%n", f.severity().label(), f.oneLine()));
            for (String line : DiffParser.splitLines(f.evidenceHunk())) {
                sb.append("    | ").append(line).append(System.lineSeparator());
            }
        }
        return sb.toString();
    }

    /** One JSON object (one line): verdict fields and every finding with its whole evidence hunk. */
    public String json() {
        ObjectMapper om = new ObjectMapper();
        ObjectNode root = om.createObjectNode();
        root.put("suspicious", suspicious());
        root.put("fails_arm", failsArm());
        root.put("finding_count", findings.size());
        ArrayNode fs = root.putArray("files");
        files.forEach(fs::add);
        root.put("changed_lines", changedLines);
        root.put("patch_bytes", patchBytes);
        root.put("unparsed_lines", unparsedLines);
        ArrayNode arr = root.putArray("findings");
        for (Finding f : findings) {
            ObjectNode o = arr.addObject();
            o.put("check", f.check().name());
            o.put("severity", f.severity().label());
            o.put("file", f.file());
            o.put("reason", f.reason());
            o.put("evidence_hunk", f.evidenceHunk());
        }
        return root.toString();
    }
}
