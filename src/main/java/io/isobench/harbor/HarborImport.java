package io.isobench.harbor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code isobench tasks import harbor} (docs/harbor.md, "Import"): Harbor task folders whose test is a performance
 * test, as far as they map, become tasks of one generic offline suite. A task maps when all of these hold, checked in
 * this order; the first that fails is its one-line reason:
 * <ol>
 *   <li>{@link HarborTaskChecker} finds no error, and the task is single-step;</li>
 *   <li>{@code tests/test.sh} writes {@code reward.json} with a performance key: a key whose name ends in a time
 *       unit ({@code _sec}, {@code _s}, {@code _ms}, {@code _us}, {@code _ns}: lower is better) or a rate
 *       ({@code _per_s}, {@code _per_sec}, {@code tok_s}, {@code throughput}: higher is better);</li>
 *   <li>{@code environment/} holds a git repository: a bundle {@code environment/*.bundle} or a folder
 *       {@code environment/X/} with {@code .git}; its HEAD is the parent commit;</li>
 *   <li>{@code solution/} holds one patch file ({@code *.diff} or {@code *.patch}) that {@code solve.sh} names:
 *       applied to HEAD and committed (isobench's fixed identity and date) it is the human commit.</li>
 * </ol>
 * A mapped task's command runs the Harbor test ({@code bash tests/test.sh} from the suite's folder, in the arm's
 * environment) and prints {@code /logs/verifier/reward.json}; its performance key is the primary metric, read from that
 * JSON. Everything else (pass/fail rewards, {@code reward.txt} only, multi-step tasks, no repository) is listed as not
 * mappable.
 */
public final class HarborImport {

    /** A JSON key as a script writes it: {@code "key":}, also with shell-escaped quotes ({@code \"key\":}). */
    private static final Pattern JSON_KEY = Pattern.compile("\\\\?\"([A-Za-z_][A-Za-z0-9_]*)\\\\?\"\\s*:");
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");

    /**
     * What the import made.
     *
     * @param yaml      the suite (null when no task mapped)
     * @param mapped    the task ids written
     * @param notMapped one line per task that did not map: its folder and why
     */
    public record Result(String yaml, List<String> mapped, List<String> notMapped) {
    }

    /** One mapped task. */
    private record Mapped(String id, String parent, String human, String key, boolean lower, String dirName) {
    }

    private HarborImport() {
    }

    /**
     * Maps {@code dirs}; writes the suite's engine repository ({@code <out stem>-repo.git}) and the tests of the
     * mapped tasks ({@code harbor/<id>/}) beside {@code out}, and returns the suite's text.
     */
    public static Result importTasks(List<Path> dirs, Path out) throws IOException {
        Path base = out.toAbsolutePath().getParent();
        String stem = out.getFileName().toString().replaceFirst("\\.ya?ml$", "");
        Path repo = base.resolve(stem + "-repo.git");
        List<Mapped> mapped = new ArrayList<>();
        List<String> notMapped = new ArrayList<>();
        Set<String> ids = new LinkedHashSet<>();
        for (Path dir : dirs) {
            String why = reason(dir);
            if (why != null) {
                notMapped.add(dir + ": not mappable: " + why);
                continue;
            }
            if (!Files.exists(repo)) {
                Files.createDirectories(repo);
                Git.git(repo, "init", "-q", "--bare");
            }
            Mapped m = map(dir, repo, base, ids);
            ids.add(m.id());
            mapped.add(m);
        }
        return new Result(mapped.isEmpty() ? null : yaml(mapped, repo.getFileName().toString(), dirs),
                mapped.stream().map(Mapped::id).toList(), notMapped);
    }

    /** Why {@code dir} does not map (one line), or null when it does. */
    static String reason(Path dir) throws IOException {
        HarborTaskChecker.Report r = HarborTaskChecker.check(dir);
        if (!r.ok()) {
            return "fails Harbor's task format: " + r.errors().getFirst();
        }
        Map<String, Object> toml = Toml.parse(Files.readString(dir.resolve("task.toml")));
        if (toml.containsKey("steps")) {
            return "a multi-step task ([[steps]]): isobench measures one change";
        }
        Path test = dir.resolve("tests/test.sh");
        if (!Files.isRegularFile(test)) {
            return "no tests/test.sh (the command isobench would measure)";
        }
        String text = Files.readString(test);
        if (!text.contains("reward.json")) {
            return "tests/test.sh writes no reward.json (reward.txt is one pass/fail number, no performance metric)";
        }
        if (perfKey(text) == null) {
            return "reward.json has no performance key (keys " + keys(text) + "; a time such as runtime_sec or a rate"
                    + " such as tok_per_s): a pass/fail test";
        }
        if (repoIn(dir) == null) {
            return "environment/ holds no git repository (a *.bundle file or a folder with .git): isobench needs the"
                    + " parent commit";
        }
        if (patchIn(dir) == null) {
            return "solution/ holds no patch file (*.diff, *.patch) that solve.sh names: isobench needs the human"
                    + " change as a commit";
        }
        return null;
    }

    private static Mapped map(Path dir, Path repo, Path base, Set<String> ids) throws IOException {
        Map<String, Object> toml = Toml.parse(Files.readString(dir.resolve("task.toml")));
        String name = toml.get("task") instanceof Map<?, ?> t && t.get("name") instanceof String n ? n
                : dir.getFileName().toString();
        String id = HarborFiles.slug(name.substring(name.indexOf('/') + 1)).replaceAll("[^A-Za-z0-9._-]", "-");
        String unique = id;
        for (int k = 2; ids.contains(unique); k++) {
            unique = id + "-" + k;
        }
        Path work = Files.createTempDirectory("isobench-harbor-import-");
        try {
            Path src = repoIn(dir).toAbsolutePath();
            Path wt = work.resolve("wt");
            Git.git(work, "clone", "-q", src.toString(), wt.toString());
            String parent = Git.git(wt, "rev-parse", "HEAD").strip();
            Git.git(wt, "apply", "--binary", patchIn(dir).toAbsolutePath().toString());
            Git.git(wt, "add", "-A");
            Git.run(wt, "env", "GIT_AUTHOR_NAME=isobench", "GIT_AUTHOR_EMAIL=isobench@localhost",
                    "GIT_COMMITTER_NAME=isobench", "GIT_COMMITTER_EMAIL=isobench@localhost",
                    "GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z",
                    "git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", "commit", "-q",
                    "--allow-empty", "-m", "harbor solution of " + name);
            String human = Git.git(wt, "rev-parse", "HEAD").strip();
            Git.git(wt, "push", "-q", repo.toString(), "HEAD:refs/heads/harbor/" + unique);
            Path tests = base.resolve("harbor").resolve(unique);
            copyTree(dir.resolve("tests"), tests);
            String text = Files.readString(dir.resolve("tests/test.sh"));
            String key = perfKey(text);
            return new Mapped(unique, parent, human, key, lowerIsBetter(key), unique);
        } finally {
            try (var walk = Files.walk(work)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** The first key of a JSON object test.sh writes that names a performance metric, or null. */
    static String perfKey(String testSh) {
        for (String k : keys(testSh)) {
            String l = k.toLowerCase(Locale.ROOT);
            if (rate(l) || l.matches(".*_(sec|s|ms|us|ns)")) {
                return k;
            }
        }
        return null;
    }

    private static boolean rate(String l) {
        return l.endsWith("_per_s") || l.endsWith("_per_sec") || l.endsWith("tok_s") || l.contains("throughput");
    }

    /** The unit a performance key names: a time suffix's, {@code tok/s} for tok_s, else {@code 1/s}. */
    static String unit(String key) {
        String l = key.toLowerCase(Locale.ROOT);
        if (rate(l)) {
            return l.endsWith("tok_s") || l.endsWith("tok_per_s") || l.endsWith("tokens_per_s") ? "tok/s" : "1/s";
        }
        return l.endsWith("_ms") ? "ms" : l.endsWith("_us") ? "us" : l.endsWith("_ns") ? "ns" : "s";
    }

    static boolean lowerIsBetter(String key) {
        return !rate(key.toLowerCase(Locale.ROOT));
    }

    private static List<String> keys(String text) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = JSON_KEY.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return List.copyOf(out);
    }

    private static Path repoIn(Path dir) throws IOException {
        Path env = dir.resolve("environment");
        try (var list = Files.list(env)) {
            for (Path p : list.sorted().toList()) {
                if (Files.isRegularFile(p) && p.getFileName().toString().endsWith(".bundle")
                        || Files.isDirectory(p.resolve(".git"))) {
                    return p;
                }
            }
        }
        return null;
    }

    private static Path patchIn(Path dir) throws IOException {
        Path sol = dir.resolve("solution");
        Path solve = sol.resolve("solve.sh");
        if (!Files.isRegularFile(solve)) {
            return null;
        }
        String script = Files.readString(solve);
        try (var list = Files.list(sol)) {
            for (Path p : list.sorted().toList()) {
                String n = p.getFileName().toString();
                if ((n.endsWith(".diff") || n.endsWith(".patch")) && script.contains(n)) {
                    return p;
                }
            }
        }
        return null;
    }

    private static String yaml(List<Mapped> tasks, String repoName, List<Path> dirs) {
        StringBuilder b = new StringBuilder();
        b.append("# Imported by `isobench tasks import harbor` from ").append(dirs.size()).append(" Harbor task folder(s) (")
                .append(HarborFiles.CITE).append(").\n");
        b.append("# Each task runs its Harbor test (tests/test.sh, copied under harbor/) in the arm's environment and"
                + " reads its\n# performance key from the reward.json it writes (docs/harbor.md, \"Import\"). A test"
                + " that uses absolute container\n# paths (/app/...) must be pointed at the arm's worktree (its working"
                + " folder) before it measures anything.\n");
        b.append("name: harbor-import\n");
        b.append("engine:\n  name: generic\n  repo: ./").append(repoName).append('\n');
        b.append("tasks:\n");
        for (Mapped m : tasks) {
            String metric = NAME.matcher(m.key().toLowerCase(Locale.ROOT)).matches() ? m.key().toLowerCase(Locale.ROOT)
                    : "harbor_metric";
            b.append("  - id: ").append(m.id()).append('\n');
            b.append("    parent_commit: ").append(m.parent()).append('\n');
            b.append("    human_commit: ").append(m.human()).append('\n');
            b.append("    offline:\n");
            b.append("      command: [bash, -c, 'mkdir -p /logs/verifier && bash \"$0\" >&2 && cat"
                    + " /logs/verifier/reward.json', \"{suite_dir}/harbor/").append(m.dirName()).append("/test.sh\"]\n");
            b.append("      metrics:\n");
            b.append("        - {name: ").append(metric).append(", from: stdout, json_path: ").append(m.key())
                    .append(", unit: ").append(unit(m.key())).append(", better: ").append(m.lower() ? "lower" : "higher").append(", primary: true}\n");
        }
        return b.toString();
    }

    private static void copyTree(Path src, Path dst) throws IOException {
        try (var walk = Files.walk(src)) {
            for (Path p : walk.sorted().toList()) {
                Path d = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(d);
                } else {
                    Files.createDirectories(d.getParent());
                    Files.copy(p, d, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
