package io.isobench.track;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A synthetic engine history for {@code isobench track}: a real git repository of N linear commits of a tiny C engine
 * ({@code engine.c}, built by {@code make} with {@code gcc -O2} in about 0.1 s) whose CPU work changes at chosen
 * commits by chosen factors, while every other commit touches only documentation or comments.
 *
 * <p>Rules (what a commit changes and how a factor maps to code):
 * <ul>
 *   <li>The engine evaluates a fixed hash kernel (FNV-1a with an xorshift over a 4,096-entry table, about 7 µs of CPU
 *       a pass) {@code PASSES} times and prints {@code checksum XXXXXXXX} of one evaluation: the output is the same at
 *       every commit (a correctness gate matches) and the CPU time is proportional to {@code PASSES}; with the default
 *       {@link Spec#DEFAULT_PASSES} a run takes about 0.2 s of CPU here.</li>
 *   <li>Commit 1 (the root) adds {@code engine.c}, {@code Makefile}, {@code README.md}, {@code docs/notes.md} and a
 *       {@code .gitignore} of the built {@code engine}.</li>
 *   <li>A change {@code I:FACTOR} makes commit I ({@code 2 ≤ I ≤ N}) a {@link Kind#WORK} commit: its only edit is the
 *       {@code #define PASSES} line of {@code engine.c}, set to {@code round(parent's PASSES × FACTOR)}, so its CPU work
 *       relative to its parent is FACTOR (0.85 = 15 % less work, 1.10 = 10 % more). Factors compose along the
 *       history.</li>
 *   <li>Every other commit I: when {@code I % 3 == 0} a {@link Kind#COMMENT} commit that appends a comment line to
 *       {@code engine.c}'s header comment (the compiled program is byte-identical to its parent's), otherwise a
 *       {@link Kind#DOCS} commit that appends a line to {@code README.md} (I even) or {@code docs/notes.md} (I odd).</li>
 *   <li>A commit of {@link #build(Path, Spec, Set)}'s {@code broken} set is a {@link Kind#BROKEN} commit: engine.c
 *       with an {@code #error} line appended, so {@code make} fails there and builds again at the next commit.</li>
 *   <li>Deterministic: fixed author, committer and message; commit I is dated {@code 2026-01-01T12:00:00Z} plus
 *       I − 1 days (author and committer dates), branch {@code main}, no signing, no user or system git config, so
 *       the same spec gives the same commit ids on every machine with the same git.</li>
 * </ul>
 *
 * <p>Needs only the JDK and {@code git} (building the engine needs {@code make} and {@code gcc}), so that
 * {@code scripts/synthetic-history} runs this file directly with the JDK's source launcher.
 */
public final class SyntheticHistory {

    /** What a commit changes. */
    public enum Kind {
        /** The root commit: the engine, its Makefile and docs. */
        ROOT,
        /** Changes the engine's work ({@code #define PASSES}) by a factor. */
        WORK,
        /** Appends a comment line to engine.c: the compiled program does not change. */
        COMMENT,
        /** Appends a line to README.md or docs/notes.md. */
        DOCS,
        /**
         * Breaks the build: an {@code #error} line in engine.c ({@link #build(Path, Spec, Set)}); the next commit's
         * engine.c is written without it again.
         */
        BROKEN
    }

    /** Commit {@code commit} (1-based; the root is 1) multiplies the engine's work by {@code factor}. */
    public record Change(int commit, double factor) {

        /** Parses {@code I:FACTOR}, e.g. {@code 9:0.85}. */
        public static Change parse(String text) {
            int colon = text.indexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("a change is I:FACTOR (e.g. 9:0.85), not " + text);
            }
            return new Change(Integer.parseInt(text.substring(0, colon).trim()),
                    Double.parseDouble(text.substring(colon + 1).trim()));
        }
    }

    /**
     * What to build: {@code commits} commits, the work changes, and the root's number of kernel passes.
     *
     * @param commits      how many commits (≥ 2)
     * @param changes      at most one per commit, each at 2..commits with a factor &gt; 0 that changes the pass count
     * @param rootPasses   the root commit's {@code PASSES} (≥ 1)
     */
    public record Spec(int commits, List<Change> changes, int rootPasses) {

        /** The root's kernel passes: about 0.2 s of CPU per run on this machine. */
        public static final int DEFAULT_PASSES = 30_000;

        public Spec {
            changes = List.copyOf(changes);
        }

        /** 30 commits; commit 9 does 15 % less work, commit 21 10 % more. */
        public static Spec defaults() {
            return new Spec(30, List.of(new Change(9, 0.85), new Change(21, 1.10)), DEFAULT_PASSES);
        }
    }

    /**
     * One commit of a built history.
     *
     * @param index   1-based position (1 = root)
     * @param sha     full commit id
     * @param subject the commit message's subject
     * @param kind    what it changes
     * @param passes  {@code PASSES} at this commit
     * @param factor  the designed work factor against the parent (1.0 unless {@link Kind#WORK})
     */
    public record Commit(int index, String sha, String subject, Kind kind, int passes, double factor) {
    }

    /** A built history: the repository (branch {@code main}, checked out at the last commit) and its commits. */
    public record History(Path repo, List<Commit> commits) {

        public History {
            commits = List.copyOf(commits);
        }

        /** Commit {@code index} (1-based). */
        public Commit commit(int index) {
            return commits.get(index - 1);
        }

        /** The {@link Kind#WORK} commits, oldest first. */
        public List<Commit> workChanges() {
            return commits.stream().filter(c -> c.kind() == Kind.WORK).toList();
        }
    }

    private static final Instant FIRST_DATE = Instant.parse("2026-01-01T12:00:00Z");

    private SyntheticHistory() {
    }

    /**
     * Builds the history into {@code repo}, which must be absent or an empty folder.
     *
     * @throws IllegalArgumentException on a spec that breaks the rules above
     */
    public static History build(Path repo, Spec spec) throws IOException, InterruptedException {
        return build(repo, spec, Set.of());
    }

    /**
     * Builds the history with commits that do not build: each commit I of {@code broken} ({@code 2 ≤ I ≤ N}, not a
     * change's commit) is a {@link Kind#BROKEN} commit whose only edit adds {@code #error "broken build (commit I)"}
     * to engine.c ({@code make} fails), keeping its parent's {@code PASSES}; the next commit writes engine.c without
     * that line (besides its own edit), so it builds again.
     */
    public static History build(Path repo, Spec spec, Set<Integer> broken) throws IOException, InterruptedException {
        Map<Integer, Double> factors = validate(spec);
        for (int b : broken) {
            if (b < 2 || b > spec.commits() || factors.containsKey(b)) {
                throw new IllegalArgumentException("a broken commit is at 2.." + spec.commits()
                        + " and not a change's commit, not " + b);
            }
        }
        if (Files.exists(repo)) {
            try (var entries = Files.list(repo)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException(repo + " exists and is not empty");
                }
            }
        }
        Files.createDirectories(repo.resolve("docs"));
        git(repo, "init", "-q", "-b", "main");
        List<String> comments = new ArrayList<>();
        List<String> readme = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<Commit> commits = new ArrayList<>();
        int passes = spec.rootPasses();
        for (int i = 1; i <= spec.commits(); i++) {
            Kind kind;
            String subject;
            double factor = 1.0;
            if (i == 1) {
                kind = Kind.ROOT;
                subject = "engine: a hash kernel evaluated " + passes + " times";
                Files.writeString(repo.resolve("Makefile"), MAKEFILE);
                Files.writeString(repo.resolve(".gitignore"), "engine\n");
            } else if (broken.contains(i)) {
                kind = Kind.BROKEN;
                subject = "engine: break the build (commit " + i + ")";
            } else if (factors.containsKey(i)) {
                kind = Kind.WORK;
                factor = factors.get(i);
                int next = (int) Math.round(passes * factor);
                subject = String.format(Locale.ROOT, "engine: evaluate the kernel %d times instead of %d (%+.0f %% work)",
                        next, passes, (factor - 1) * 100);
                passes = next;
            } else if (i % 3 == 0) {
                kind = Kind.COMMENT;
                subject = "engine: comment on the kernel (note " + i + ")";
                comments.add(" * note " + i + ": the kernel is FNV-1a with an xorshift; its cost is linear in PASSES.");
            } else {
                kind = Kind.DOCS;
                subject = "docs: " + (i % 2 == 0 ? "README" : "notes") + " line " + i;
                (i % 2 == 0 ? readme : notes).add("- line " + i + ": the engine prints one checksum; its work is"
                        + " set by PASSES.");
            }
            String source = engine(passes, comments);
            Files.writeString(repo.resolve("engine.c"), kind == Kind.BROKEN
                    ? source + "#error \"broken build (commit " + i + ")\"\n" : source);
            Files.writeString(repo.resolve("README.md"), "# synthetic engine\n\n" + String.join("\n", readme) + "\n");
            Files.writeString(repo.resolve("docs/notes.md"), "# notes\n\n" + String.join("\n", notes) + "\n");
            git(repo, "add", "-A");
            String date = FIRST_DATE.plus(i - 1L, ChronoUnit.DAYS).toString();
            gitDated(repo, date, "commit", "-q", "-m", subject);
            commits.add(new Commit(i, git(repo, "rev-parse", "HEAD").strip(), subject, kind, passes, factor));
        }
        return new History(repo, commits);
    }

    private static Map<Integer, Double> validate(Spec spec) {
        if (spec.commits() < 2) {
            throw new IllegalArgumentException("a history has at least 2 commits, not " + spec.commits());
        }
        if (spec.rootPasses() < 1) {
            throw new IllegalArgumentException("the root needs at least 1 kernel pass, not " + spec.rootPasses());
        }
        Map<Integer, Double> factors = new TreeMap<>();
        for (Change c : spec.changes()) {
            if (c.commit() < 2 || c.commit() > spec.commits()) {
                throw new IllegalArgumentException("a change is at a commit 2.." + spec.commits() + ", not " + c.commit());
            }
            if (!(c.factor() > 0) || Double.isInfinite(c.factor())) {
                throw new IllegalArgumentException("a factor is > 0, not " + c.factor());
            }
            if (factors.put(c.commit(), c.factor()) != null) {
                throw new IllegalArgumentException("two changes at commit " + c.commit());
            }
        }
        int passes = spec.rootPasses();
        for (Map.Entry<Integer, Double> e : factors.entrySet()) {
            int next = (int) Math.round(passes * e.getValue());
            if (next == passes || next < 1) {
                throw new IllegalArgumentException("the factor " + e.getValue() + " at commit " + e.getKey()
                        + " does not change " + passes + " kernel passes to another count >= 1");
            }
            passes = next;
        }
        return factors;
    }

    private static final String MAKEFILE = """
            # builds the synthetic engine: `make` (or `make engine`), then `./engine`
            engine: engine.c
            \tgcc -O2 -o engine engine.c

            clean:
            \trm -f engine
            """;

    private static String engine(int passes, List<String> comments) {
        String notes = comments.isEmpty() ? "" : " *\n" + String.join("\n", comments) + "\n";
        return """
                /*
                 * A synthetic engine for isobench track tests: it evaluates a hash kernel PASSES times and prints
                 * the checksum of one evaluation, so its output never changes and its CPU work is linear in PASSES.
                %s */
                #include <stdint.h>
                #include <stdio.h>

                #define PASSES %d
                #define ELEMS 4096

                static uint32_t table[ELEMS];

                static uint32_t kernel(uint32_t salt) {
                    uint32_t h = 2166136261u ^ salt;
                    for (int i = 0; i < ELEMS; i++) {
                        h = (h ^ table[i]) * 16777619u;
                        h ^= h >> 13;
                    }
                    return h;
                }

                int main(void) {
                    for (int i = 0; i < ELEMS; i++) {
                        table[i] = (uint32_t)i * 2654435761u;
                    }
                    volatile uint32_t sink = 0; /* keeps the redundant passes: each has its own salt */
                    for (uint32_t p = 1; p < PASSES; p++) {
                        sink ^= kernel(p);
                    }
                    printf("checksum %%08x\\n", (unsigned)kernel(0));
                    return 0;
                }
                """.formatted(notes, passes);
    }

    /** Runs git in {@code repo} with no user or system config; its stdout; fails with its output unless it exits 0. */
    static String git(Path repo, String... args) throws IOException, InterruptedException {
        return gitDated(repo, null, args);
    }

    private static String gitDated(Path repo, String date, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(repo.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.putAll(Map.of("GIT_CONFIG_NOSYSTEM", "1", "GIT_CONFIG_GLOBAL", "/dev/null",
                "GIT_AUTHOR_NAME", "synthetic engine", "GIT_AUTHOR_EMAIL", "engine@synthetic.invalid",
                "GIT_COMMITTER_NAME", "isobench tests", "GIT_COMMITTER_EMAIL", "tests@isobench.invalid"));
        if (date != null) {
            env.put("GIT_AUTHOR_DATE", date);
            env.put("GIT_COMMITTER_DATE", date);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("git " + String.join(" ", args) + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }

    /**
     * {@code SyntheticHistory DIR [--commits N] [--passes P] [--change I:FACTOR ...]}: builds a history into DIR and
     * prints one line per commit: index, sha, kind, passes, factor, subject (tab-separated). Without {@code --change}
     * the changes are the defaults' (9:0.85 and 21:1.10); {@code --change none} builds a history with none.
     */
    public static void main(String[] args) throws Exception {
        Spec d = Spec.defaults();
        Path dir = null;
        int commits = d.commits();
        int passes = d.rootPasses();
        List<Change> changes = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--commits" -> commits = Integer.parseInt(value(args, ++i, a));
                case "--passes" -> passes = Integer.parseInt(value(args, ++i, a));
                case "--change" -> {
                    String v = value(args, ++i, a);
                    changes = changes == null ? new ArrayList<>() : changes;
                    if (!v.equals("none")) {
                        changes.add(Change.parse(v));
                    }
                }
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    return;
                }
                default -> {
                    if (a.startsWith("-") || dir != null) {
                        System.err.println("synthetic-history: unexpected argument " + a + "\n" + USAGE);
                        System.exit(2);
                    }
                    dir = Path.of(a);
                }
            }
        }
        if (dir == null) {
            System.err.println(USAGE);
            System.exit(2);
        }
        History h = build(dir, new Spec(commits, changes == null ? d.changes() : changes, passes));
        System.out.println("# " + h.repo().toAbsolutePath() + ": index, sha, kind, passes, factor, subject");
        for (Commit c : h.commits()) {
            System.out.printf(Locale.ROOT, "%d\t%s\t%s\t%d\t%.4f\t%s%n", c.index(), c.sha(),
                    c.kind().name().toLowerCase(Locale.ROOT), c.passes(), c.factor(), c.subject());
        }
    }

    private static final String USAGE = "usage: synthetic-history DIR [--commits N] [--passes P]"
            + " [--change I:FACTOR ...]   (defaults: 30 commits, 30000 passes, changes 9:0.85 21:1.10;"
            + " --change none: no change)";

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
