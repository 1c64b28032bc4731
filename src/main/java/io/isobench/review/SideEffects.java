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

/**
 * IMPORT_TIME_SIDE_EFFECT and WRITE_OUTSIDE_TREE (issue 27): code a patch adds that runs when the engine merely
 * loads it, reading the whole environment (where the measured process' secrets would be), spawning processes,
 * opening sockets or writing files; and writes to absolute paths outside the repository. Both read added lines only
 * (comments skipped) and are narrow on purpose (docs/patch-review.md): reading one variable
 * ({@code os.environ.get("X")}, {@code os.environ["X"] = …}, {@code getenv}), computing a home path without writing
 * to it, reading an absolute path, and any of these calls inside a {@code def} or {@code class} body stay clean.
 * A Python statement is module-level when climbing the hunk's new side (context included) from it to column 0, each
 * time to the nearest less-indented line (a block opener such as {@code if}, {@code with}, {@code try}, or the
 * statement a continuation line belongs to), meets no {@code def} or {@code class}; a line whose enclosing block
 * starts before the hunk is not judged (left clean). In
 * C-like files nothing runs at import except load-time constructors ({@code __attribute__((constructor))}), which are
 * flagged; and the process-wide {@code environ} array is flagged wherever it is read.
 */
final class SideEffects {

    private static final Pattern PY_ENV = Pattern.compile("\\bos\\s*\\.\\s*environb?\\b(?!\\s*(?:\\.\\s*(?:get|setdefault"
            + "|pop|update|__contains__)\\s*\\(|\\[))");
    private static final Pattern PY_SPAWN = Pattern.compile("\\b(?:subprocess\\s*\\.\\s*(?:run|Popen|call|check_call"
            + "|check_output|getoutput|getstatusoutput)|os\\s*\\.\\s*(?:system|popen|fork|forkpty|exec[lv]p?e?"
            + "|spawn[lv]p?e?|posix_spawnp?)|pty\\s*\\.\\s*spawn|multiprocessing\\s*\\.\\s*Process)\\s*\\(");
    private static final Pattern PY_SOCKET = Pattern.compile("\\b(?:socket\\s*\\.\\s*(?:socket|create_connection"
            + "|create_server|socketpair)|urllib\\s*\\.\\s*request\\s*\\.\\s*urlopen|urlopen|requests\\s*\\.\\s*(?:get"
            + "|post|put|patch|delete|head|request)|http\\s*\\.\\s*client\\s*\\.\\s*HTTPS?Connection"
            + "|httpx\\s*\\.\\s*(?:get|post|Client|AsyncClient)|aiohttp\\s*\\.\\s*ClientSession)\\s*\\(");
    /** Calls that write to their first argument when their mode says so ({@code open(target, "w")}). */
    private static final Pattern PY_OPEN = Pattern.compile("(?<![\\w.])(?:io\\s*\\.\\s*|codecs\\s*\\.\\s*)?open\\s*\\(");
    /** {@code Path(target).write_text(…)} and the like: group 1 is where the call's arguments start. */
    private static final Pattern PY_PATH = Pattern.compile("\\b(?:Path|PurePath|PosixPath)\\s*\\(");
    private static final Pattern PY_PATH_WRITER = Pattern.compile("^\\s*\\.\\s*(?:write_text|write_bytes|touch|mkdir"
            + "|open\\s*\\(\\s*(?:mode\\s*=\\s*)?['\"][rbt]*[wax+])");
    /** Calls that write to their second argument. */
    private static final Pattern PY_COPY = Pattern.compile("\\b(?:shutil\\s*\\.\\s*(?:copy|copy2|copyfile|copytree|move)"
            + "|os\\s*\\.\\s*(?:rename|replace|symlink|link))\\s*\\(");
    /** Calls that create their first argument. */
    private static final Pattern PY_MAKEDIRS = Pattern.compile("\\bos\\s*\\.\\s*(?:makedirs|mkdir)\\s*\\(");
    private static final Pattern WRITE_MODE = Pattern.compile("^(?:mode\\s*=\\s*)?[rbfRBF]{0,2}['\"][rbtU]*[wax+]");
    /** A target outside the tree: a literal absolute or home path, or a home path computed at run time. */
    private static final Pattern OUTSIDE = Pattern.compile("^[rbfRBF]{0,2}['\"][/~]|\\bexpanduser\\s*\\("
            + "|\\bPath\\s*\\.\\s*home\\s*\\(|\\bjoin\\s*\\(\\s*[rbfRBF]{0,2}['\"][/~]|['\"]HOME['\"]");
    /** Absolute paths that are no file of the host (the null device, the process' own streams). */
    private static final Pattern HARMLESS = Pattern.compile("^[rbfRBF]{0,2}['\"]/dev/(?:null|stdout|stderr|tty)['\"]$");
    private static final Pattern PY_SCOPE = Pattern.compile("^(?:async\\s+)?(?:def|class)\\b.*");

    private static final Pattern C_ENVIRON = Pattern.compile("(?<![\\w.>$])environ\\b(?!\\s*\\()");
    private static final Pattern C_CONSTRUCTOR = Pattern.compile("__attribute__\\s*\\(\\(\\s*constructor\\b"
            + "|\\[\\[\\s*gnu::constructor\\b|#\\s*pragma\\s+init\\b");
    private static final Pattern C_FOPEN_WRITE = Pattern.compile("\\b(?:fopen|freopen)\\s*\\(\\s*\"(/[^\"]*)\"\\s*,"
            + "\\s*\"[^\"]*[wa+]");
    private static final Pattern C_OPEN_WRITE = Pattern.compile("\\b(?:open|openat|creat)\\s*\\((?:[^,]*,)?\\s*\""
            + "(/[^\"]*)\"\\s*(?:,[^)]*\\b(?:O_WRONLY|O_RDWR|O_CREAT|O_APPEND|O_TRUNC)\\b|\\s*,\\s*0?[0-7]{3}\\s*\\))");
    private static final Pattern C_OFSTREAM = Pattern.compile("\\b(?:std\\s*::\\s*)?(?:ofstream|fstream)\\s*"
            + "(?:\\w+\\s*)?[({]\\s*\"(/[^\"]*)\"");
    private static final Pattern C_HARMLESS = Pattern.compile("^/dev/(?:null|stdout|stderr|tty)$");

    private SideEffects() {
    }

    /** The side-effect findings of one hunk's added lines (evidence left to the caller: the hunk). */
    static void scan(Hunk h, Lang lang, List<Hit> hits) {
        if (lang == Lang.PYTHON) {
            python(h, hits);
        } else if (lang == Lang.C_LIKE) {
            cLike(h, hits);
        }
    }

    private static void python(Hunk h, List<Hit> hits) {
        List<Line> side = h.lines().stream().filter(l -> l.kind() != Kind.REMOVED && l.kind() != Kind.NO_NEWLINE)
                .toList();
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < side.size(); i++) {
            Line l = side.get(i);
            if (l.kind() != Kind.ADDED || ContentChecks.isComment(l.text(), Lang.PYTHON)) {
                continue;
            }
            String code = Assignments.stripComment(l.text(), false);
            String write = pythonWrite(code);
            if (write != null) {
                add(hits, seen, Check.WRITE_OUTSIDE_TREE, "writes " + write + ", outside the repository, at line "
                        + l.newLine() + ": " + l.text().strip());
            }
            String effect = pythonEffect(code);
            if (effect != null && moduleLevel(side, i)) {
                add(hits, seen, Check.IMPORT_TIME_SIDE_EFFECT, effect + " at import time (module level, line "
                        + l.newLine() + "): " + l.text().strip());
            }
        }
    }

    /** What a line does that must not run at import, or null. */
    private static String pythonEffect(String line) {
        String code = stripStrings(line);
        Matcher env = PY_ENV.matcher(code);
        while (env.find()) {
            String before = code.substring(0, env.start());
            // "X" in os.environ tests one key; "for k in os.environ" iterates them all
            if (!before.matches(".*\\bin\\s+$") || before.matches(".*\\bfor\\b.*\\bin\\s+$")) {
                return "reads the whole environment (os.environ)";
            }
        }
        if (PY_SPAWN.matcher(code).find()) {
            return "spawns a process";
        }
        if (PY_SOCKET.matcher(code).find()) {
            return "opens a network connection";
        }
        if (!writeTargets(line).isEmpty()) {
            return "writes a file";
        }
        return null;
    }

    /** The targets a line writes to, as written (open for writing, Path writers, copies, makedirs). */
    static List<String> writeTargets(String code) {
        List<String> out = new ArrayList<>();
        Matcher m = PY_OPEN.matcher(code);
        while (m.find()) {
            List<String> a = args(code, m.end());
            String mode = a.size() > 1 ? a.get(1) : a.stream().filter(x -> x.startsWith("mode")).findFirst()
                    .orElse("");
            if (!a.isEmpty() && WRITE_MODE.matcher(mode).find()) {
                out.add(a.get(0));
            }
        }
        m = PY_PATH.matcher(code);
        while (m.find()) {
            List<String> a = args(code, m.end());
            int close = end(code, m.end());
            if (!a.isEmpty() && close < code.length() && PY_PATH_WRITER.matcher(code.substring(close + 1)).find()) {
                out.add(a.get(0));
            }
        }
        m = PY_COPY.matcher(code);
        while (m.find()) {
            List<String> a = args(code, m.end());
            if (a.size() > 1) {
                out.add(a.get(1));
            }
        }
        m = PY_MAKEDIRS.matcher(code);
        while (m.find()) {
            List<String> a = args(code, m.end());
            if (!a.isEmpty()) {
                out.add(a.get(0));
            }
        }
        return out;
    }

    /** The outside path a line writes to (its target as written), or null. */
    private static String pythonWrite(String code) {
        for (String target : writeTargets(code)) {
            if (OUTSIDE.matcher(target).find() && !HARMLESS.matcher(target).matches()) {
                return target;
            }
        }
        return null;
    }

    /** The top-level arguments of the call whose arguments start at {@code from} (stripped; to the line's end). */
    private static List<String> args(String code, int from) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        char quote = 0;
        int start = from;
        for (int k = from; k < code.length(); k++) {
            char c = code.charAt(k);
            if (quote != 0) {
                if (c == '\\') {
                    k++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
                depth--;
            } else if (c == ')' || (c == ',' && depth == 0)) {
                out.add(code.substring(start, k).strip());
                if (c == ')') {
                    return out;
                }
                start = k + 1;
            }
        }
        out.add(code.substring(start).strip());
        return out;
    }

    /** The index of the parenthesis that closes the call whose arguments start at {@code from}; the length if none. */
    private static int end(String code, int from) {
        int depth = 0;
        char quote = 0;
        for (int k = from; k < code.length(); k++) {
            char c = code.charAt(k);
            if (quote != 0) {
                if (c == '\\') {
                    k++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (depth == 0) {
                    return k;
                }
                depth--;
            }
        }
        return code.length();
    }

    /**
     * Whether the statement at {@code side[i]} runs at import: every enclosing line (the nearest less-indented one,
     * then its own, up to column 0) is a block opener, never a {@code def}, {@code class} or decorator; false when the
     * hunk does not show how the line is enclosed.
     */
    static boolean moduleLevel(List<Line> side, int i) {
        int indent = indent(side.get(i).text());
        for (int j = i - 1; j >= 0 && indent > 0; j--) {
            String t = side.get(j).text();
            if (t.isBlank() || ContentChecks.isComment(t, Lang.PYTHON)) {
                continue;
            }
            int k = indent(t);
            if (k >= indent) {
                continue;
            }
            if (PY_SCOPE.matcher(t.strip()).matches()) {
                return false;
            }
            indent = k; // a block opener (if, with, try…) or the statement this line continues: its scope is ours
        }
        return indent == 0;
    }

    private static int indent(String text) {
        int n = 0;
        while (n < text.length() && (text.charAt(n) == ' ' || text.charAt(n) == '\t')) {
            n += text.charAt(n) == '\t' ? 8 : 1;
        }
        return n;
    }

    private static void cLike(Hunk h, List<Hit> hits) {
        List<String> seen = new ArrayList<>();
        for (Line l : h.lines()) {
            if (l.kind() != Kind.ADDED || ContentChecks.isComment(l.text(), Lang.C_LIKE)) {
                continue;
            }
            String code = stripStrings(Assignments.stripComment(l.text(), true));
            if (C_ENVIRON.matcher(code).find()) {
                add(hits, seen, Check.IMPORT_TIME_SIDE_EFFECT, "reads the whole environment (environ) at line "
                        + l.newLine() + ": " + l.text().strip());
            }
            if (C_CONSTRUCTOR.matcher(code).find()) {
                add(hits, seen, Check.IMPORT_TIME_SIDE_EFFECT, "adds a load-time constructor (runs when the library "
                        + "is loaded) at line " + l.newLine() + ": " + l.text().strip());
            }
            String raw = Assignments.stripComment(l.text(), true);
            for (Pattern p : List.of(C_FOPEN_WRITE, C_OPEN_WRITE, C_OFSTREAM)) {
                Matcher m = p.matcher(raw);
                if (m.find() && !C_HARMLESS.matcher(m.group(1)).matches()) {
                    add(hits, seen, Check.WRITE_OUTSIDE_TREE, "writes \"" + m.group(1) + "\", outside the repository,"
                            + " at line " + l.newLine() + ": " + l.text().strip());
                    break;
                }
            }
        }
    }

    /** The line with its string literals emptied (an {@code "environ"} in a message is no read of it). */
    private static String stripStrings(String code) {
        return code.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'", "\"\"");
    }

    private static void add(List<Hit> hits, List<String> seen, Check check, String reason) {
        if (!seen.contains(check + reason)) {
            seen.add(check + reason);
            hits.add(new Hit(check, reason, null));
        }
    }
}
