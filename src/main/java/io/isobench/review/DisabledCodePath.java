package io.isobench.review;

import io.isobench.review.ContentChecks.Hit;
import io.isobench.review.ContentChecks.Lang;
import io.isobench.review.PatchFile.Hunk;
import io.isobench.review.PatchFile.Kind;
import io.isobench.review.PatchFile.Line;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.isobench.review.ContentChecks.changeBlocks;
import static io.isobench.review.ContentChecks.indent;
import static io.isobench.review.ContentChecks.isComment;
import static io.isobench.review.ContentChecks.isStringLiteral;
import static io.isobench.review.ContentChecks.newSide;

/**
 * The DISABLED_CODE_PATH content check for {@link ContentChecks}: an added early return, a flag forced off, code
 * commented out or a body stubbed, each read against the removed lines of its change block or the hunk's new side
 * (docs/patch-review.md).
 */
final class DisabledCodePath {

    private static final Pattern DEAD_END = Pattern.compile("^(?:return|continue|break)\\b(?!\\s*[(=.\\[]\\s*$).*");
    private static final Pattern ALWAYS_FALSE = Pattern.compile(
            "^\\s*(?:(?:el)?if|while)\\s*\\(?\\s*(?:False|false|0)\\s*\\)?\\s*(?::|\\{|$|and\\b|&&).*"
                    + "|^\\s*#\\s*if\\s+0\\b.*|.*\\b(?:and|&&)\\s*(?:False|false)\\s*\\)?\\s*[:{]?\\s*$");
    private static final Pattern FLAG_NAME = Pattern.compile(
            "(?i)(?:^|_)(?:enable|enabled|use|allow|do|with|support|supports|flag)(?:_|$).*|.*_enabled$");
    private static final Pattern DISABLE_NAME = Pattern.compile("(?i)(?:^|_)(?:disable|disabled|skip|no)(?:_|$).*");
    private static final Pattern ENV_FORCED = Pattern.compile(
            "(?:os\\.environ\\s*\\[\\s*[\"']([A-Z0-9_]+)[\"']\\s*\\]\\s*=|os\\.environ\\.setdefault\\(\\s*[\"']([A-Z0-9_]+)[\"']\\s*,)"
                    + "\\s*[\"'](0|false|False|)[\"']");
    private static final Pattern ENV_DEFAULT = Pattern.compile(
            "(?:getenv|environ\\.get)\\(\\s*[\"']([A-Z0-9_]+)[\"']\\s*,\\s*[\"']?([^\"')]*)[\"']?\\s*\\)");

    private DisabledCodePath() {
    }

    static void disabledCodePath(Hunk h, Lang lang, List<Hit> hits) {
        boolean cLike = lang == Lang.C_LIKE;
        List<String> reasons = new ArrayList<>();
        List<Line> newSide = newSide(h);
        for (int i = 0; i < newSide.size(); i++) {
            Line l = newSide.get(i);
            if (l.kind() != Kind.ADDED || isComment(l.text(), lang) && !l.text().strip().startsWith("#if")
                    || isStringLiteral(l.text())) {
                continue;
            }
            String code = Assignments.stripComment(l.text(), cLike).stripTrailing();
            String stmt = code.strip();
            if (cLike && stmt.endsWith(";")) {
                stmt = stmt.substring(0, stmt.length() - 1).strip();
            }
            if (DEAD_END.matcher(stmt).matches() && !stmt.endsWith("(") && !stmt.endsWith("\\")) {
                int indent = indent(l.text());
                Line dead = firstDeadLine(newSide, i, indent, lang);
                if (dead != null) {
                    reasons.add("added `" + stmt + "` (new line " + l.newLine() + ") makes the code after it"
                            + " unreachable: `" + dead.text().strip() + "` (line " + dead.newLine() + ")");
                }
            }
            if (ALWAYS_FALSE.matcher(l.text()).matches()) {
                reasons.add("added always-false condition `" + l.text().strip() + "` (line " + l.newLine() + ")");
            }
            Matcher env = ENV_FORCED.matcher(code);
            if (env.find()) {
                String var = env.group(1) != null ? env.group(1) : env.group(2);
                reasons.add("forces environment variable " + var + " off: `" + stmt + "`");
            }
        }
        for (List<Integer> block : changeBlocks(h)) {
            List<Line> removed = new ArrayList<>();
            List<Line> added = new ArrayList<>();
            for (int idx : block) {
                Line l = h.lines().get(idx);
                (l.kind() == Kind.REMOVED ? removed : added).add(l);
            }
            forcedFlags(removed, added, cLike, reasons);
            commentedOut(removed, added, lang, reasons);
            stubbedBody(h, block, lang, reasons);
        }
        if (!reasons.isEmpty()) {
            hits.add(new Hit(Check.DISABLED_CODE_PATH, String.join("; ", reasons.stream().distinct().toList()), null));
        }
    }

    /** The first statement after an added return/continue/break at the same indentation, before the block ends. */
    private static Line firstDeadLine(List<Line> newSide, int at, int indent, Lang lang) {
        for (int k = at + 1; k < newSide.size(); k++) {
            Line n = newSide.get(k);
            String s = n.text().strip();
            if (s.isEmpty() || isComment(n.text(), lang)) {
                continue;
            }
            int ind = indent(n.text());
            if (ind < indent) {
                return null;
            }
            if (ind > indent) {
                continue; // continuation of a multi-line return
            }
            if (s.matches("^(else|elif|except|finally|case|default)\\b.*") || s.startsWith("}") || s.startsWith(")")
                    || s.startsWith("]") || s.startsWith("#") || s.endsWith(":") && s.startsWith("case ")) {
                return null;
            }
            return n;
        }
        return null;
    }

    private static void forcedFlags(List<Line> removed, List<Line> added, boolean cLike, List<String> reasons) {
        for (Line a : added) {
            for (Assignments.Pair p : Assignments.on(a.text(), null, cLike)) {
                boolean enableFlag = FLAG_NAME.matcher(p.name()).matches();
                boolean disableFlag = DISABLE_NAME.matcher(p.name()).matches();
                String v = p.value().strip();
                boolean off = enableFlag && v.matches("False|false|0|None|nullptr|\"0\"|'0'")
                        || disableFlag && v.matches("True|true|1");
                if (!off) {
                    continue;
                }
                for (Line r : removed) {
                    for (Assignments.Pair q : Assignments.on(r.text(), null, cLike)) {
                        if (q.name().equals(p.name()) && !q.value().strip().equals(v)) {
                            reasons.add("forces " + p.name() + " = " + v + " (was " + q.value().strip() + ")");
                        }
                    }
                }
            }
            Matcher na = ENV_DEFAULT.matcher(a.text());
            while (na.find()) {
                for (Line r : removed) {
                    Matcher nr = ENV_DEFAULT.matcher(r.text());
                    while (nr.find()) {
                        if (nr.group(1).equals(na.group(1)) && !nr.group(2).equals(na.group(2))
                                && na.group(2).matches("0|false|False|")) {
                            reasons.add("turns the default of " + na.group(1) + " off (" + nr.group(2) + " -> "
                                    + na.group(2) + ")");
                        }
                    }
                }
            }
        }
    }

    private static void commentedOut(List<Line> removed, List<Line> added, Lang lang, List<String> reasons) {
        for (Line a : added) {
            String s = a.text().strip();
            String body;
            if (lang == Lang.PYTHON && s.startsWith("#")) {
                body = s.substring(1).strip();
            } else if (lang == Lang.C_LIKE && s.startsWith("//")) {
                body = s.substring(2).strip();
            } else {
                continue;
            }
            if (!body.contains("(")) {
                continue;
            }
            for (Line r : removed) {
                String rs = r.text().strip();
                if (!rs.isEmpty() && !isComment(r.text(), lang) && rs.replaceAll("\\s+", "").equals(body.replaceAll("\\s+", ""))) {
                    reasons.add("comments out `" + rs + "`");
                    break;
                }
            }
        }
    }

    /**
     * A body whose code is all removed and replaced by a lone pass/return/continue: the line before the change is
     * the block's header (ends with ':' or '{') and the line after it closes the block (less indented).
     */
    private static void stubbedBody(Hunk h, List<Integer> block, Lang lang, List<String> reasons) {
        List<Line> lines = h.lines();
        List<Line> removedCode = new ArrayList<>();
        List<Line> addedCode = new ArrayList<>();
        for (int idx : block) {
            Line l = lines.get(idx);
            if (l.text().isBlank() || isComment(l.text(), lang)) {
                continue;
            }
            (l.kind() == Kind.REMOVED ? removedCode : addedCode).add(l);
        }
        if (removedCode.size() < 2 || addedCode.size() != 1) {
            return;
        }
        String stmt = addedCode.get(0).text().strip().replaceAll(";$", "").strip();
        if (!stmt.matches("pass|return|return None|continue")) {
            return;
        }
        int indent = indent(addedCode.get(0).text());
        if (removedCode.stream().anyMatch(l -> indent(l.text()) < indent)) {
            return;
        }
        Line before = neighbour(lines, block.get(0), -1, lang);
        Line after = neighbour(lines, block.get(block.size() - 1), +1, lang);
        String head = before == null ? "" : Assignments.stripComment(before.text(), lang == Lang.C_LIKE).strip();
        // the header may be the last line of a multi-line signature, so its own indentation says nothing
        boolean opensBlock = head.endsWith(":") || head.endsWith("{");
        boolean closesBlock = after == null || indent(after.text()) < indent;
        if (opensBlock && closesBlock) {
            reasons.add("replaces the body of `" + head + "` (" + removedCode.size() + " lines of code) with `"
                    + addedCode.get(0).text().strip() + "`");
        }
    }

    /** The nearest non-blank, non-comment context line before (-1) or after (+1) index {@code at}; null if none. */
    private static Line neighbour(List<Line> lines, int at, int step, Lang lang) {
        for (int k = at + step; k >= 0 && k < lines.size(); k += step) {
            Line l = lines.get(k);
            String t = l.text().strip();
            boolean docstring = isStringLiteral(t) || t.endsWith("\"\"\"") || t.endsWith("'''");
            if (l.kind() == Kind.CONTEXT && !t.isEmpty() && !isComment(t, lang) && !docstring) {
                return l;
            }
        }
        return null;
    }
}
