package io.isobench.review;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the review treats as the engine, as benchmark/test/workload files, how large a patch may be, and which
 * checks fail the arm (their findings get severity ERROR; the others are WARNING). Path patterns follow
 * {@code docs/patch-review.md}: {@code dir/} is a folder at the repository root, a bare name matches in any folder,
 * {@code **}{@code /} spans folders.
 *
 * @param patterns          which paths are the engine, benchmarks, tests, perf inputs and workload definitions
 * @param maxChangedLines   OVERSIZED_PATCH above this many added + removed lines
 * @param maxPatchBytes     OVERSIZED_PATCH above this many bytes of patch text
 * @param failingChecks     checks whose findings fail the arm (severity ERROR)
 */
public record ReviewConfig(Patterns patterns, int maxChangedLines, long maxPatchBytes, Set<Check> failingChecks) {

    /**
     * The path patterns of a review.
     *
     * @param engineRoots the engine's source tree; a file outside every root is OUTSIDE_SOURCE_TREE (empty: off)
     * @param perfInputs  files the perf_command names (scripts, datasets, configs), relative to the repository
     */
    public record Patterns(List<String> engineRoots, List<String> benchmarkPatterns, List<String> testPatterns,
                           List<String> perfInputs, List<String> workloadPatterns) {
        public Patterns {
            engineRoots = List.copyOf(engineRoots);
            benchmarkPatterns = List.copyOf(benchmarkPatterns);
            testPatterns = List.copyOf(testPatterns);
            perfInputs = perfInputs.stream().map(Glob::normalize).toList();
            workloadPatterns = List.copyOf(workloadPatterns);
        }
    }

    /** vLLM's source tree and build files, plus the bundled toy engine's package. */
    public static final List<String> DEFAULT_ENGINE_ROOTS = List.of(
            "vllm/", "csrc/", "cmake/", "CMakeLists.txt", "setup.py", "pyproject.toml", "toyllm/");
    public static final List<String> DEFAULT_BENCHMARK_PATTERNS = List.of(
            "benchmarks/", "**/benchmarks/**", "benchmark_*.py", "**/benchmark/**");
    public static final List<String> DEFAULT_TEST_PATTERNS = List.of(
            "tests/", "**/tests/**", "conftest.py", "test_*.py", "*_test.py");
    public static final List<String> DEFAULT_WORKLOAD_PATTERNS = List.of(
            ".isobench/", "**/isobench*.yaml", "**/isobench*.yml", "**/isobench*.json", "**/*suite*.yaml",
            "**/*suite*.yml", "**/*.isobench.*");
    public static final int DEFAULT_MAX_CHANGED_LINES = 2000;
    public static final long DEFAULT_MAX_PATCH_BYTES = 512L * 1024;
    public static final Set<Check> DEFAULT_FAILING_CHECKS = Set.copyOf(EnumSet.of(
            Check.BENCHMARK_EDIT, Check.PERF_INPUT_EDIT, Check.WORKLOAD_DEFINITION_EDIT,
            Check.WORK_SHRINKING_DEFAULT, Check.PROMPT_KEYED_CACHE, Check.BINARY_FILE, Check.SYMLINK,
            Check.IMPORT_TIME_SIDE_EFFECT, Check.WRITE_OUTSIDE_TREE));

    public ReviewConfig {
        Objects.requireNonNull(patterns, "patterns");
        failingChecks = failingChecks.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(failingChecks));
        if (maxChangedLines < 1) {
            throw new IllegalArgumentException("maxChangedLines (" + maxChangedLines + ") must be >= 1");
        }
        if (maxPatchBytes < 1) {
            throw new IllegalArgumentException("maxPatchBytes (" + maxPatchBytes + ") must be >= 1");
        }
    }

    public static ReviewConfig defaults() {
        return new ReviewConfig(new Patterns(DEFAULT_ENGINE_ROOTS, DEFAULT_BENCHMARK_PATTERNS, DEFAULT_TEST_PATTERNS,
                List.of(), DEFAULT_WORKLOAD_PATTERNS), DEFAULT_MAX_CHANGED_LINES, DEFAULT_MAX_PATCH_BYTES,
                DEFAULT_FAILING_CHECKS);
    }

    /** The engine's source tree; a file outside every root is OUTSIDE_SOURCE_TREE (empty: off). */
    public List<String> engineRoots() {
        return patterns.engineRoots();
    }

    public List<String> benchmarkPatterns() {
        return patterns.benchmarkPatterns();
    }

    public List<String> testPatterns() {
        return patterns.testPatterns();
    }

    /** Files the perf_command names (scripts, datasets, configs), relative to the repository. */
    public List<String> perfInputs() {
        return patterns.perfInputs();
    }

    public List<String> workloadPatterns() {
        return patterns.workloadPatterns();
    }

    public ReviewConfig withEngineRoots(List<String> roots) {
        return new ReviewConfig(new Patterns(roots, benchmarkPatterns(), testPatterns(), perfInputs(),
                workloadPatterns()), maxChangedLines, maxPatchBytes, failingChecks);
    }

    public ReviewConfig withPerfInputs(List<String> inputs) {
        return new ReviewConfig(new Patterns(engineRoots(), benchmarkPatterns(), testPatterns(), inputs,
                workloadPatterns()), maxChangedLines, maxPatchBytes, failingChecks);
    }

    /** Adds the files named in a perf_command ({@link #perfInputsOf}) to the perf inputs. */
    public ReviewConfig withPerfCommand(String perfCommand) {
        Set<String> all = new LinkedHashSet<>(perfInputs());
        all.addAll(perfInputsOf(perfCommand));
        return withPerfInputs(new ArrayList<>(all));
    }

    public ReviewConfig withWorkloadPatterns(List<String> workload) {
        return new ReviewConfig(new Patterns(engineRoots(), benchmarkPatterns(), testPatterns(), perfInputs(),
                workload), maxChangedLines, maxPatchBytes, failingChecks);
    }

    public ReviewConfig withMaxPatch(int changedLines, long bytes) {
        return new ReviewConfig(patterns, changedLines, bytes, failingChecks);
    }

    public ReviewConfig withFailingChecks(Set<Check> checks) {
        return new ReviewConfig(patterns, maxChangedLines, maxPatchBytes, checks);
    }

    public Finding.Severity severityOf(Check check) {
        return failingChecks.contains(check) ? Finding.Severity.ERROR : Finding.Severity.WARNING;
    }

    /**
     * The relative file paths a perf_command names: words (and {@code --flag=value} values) that look like a
     * file of the repository, i.e. relative paths with a folder or a known file suffix. Model ids such as
     * {@code meta-llama/Llama-3.1-8B} count too; they only matter if the patch creates such a path.
     */
    public static List<String> perfInputsOf(String perfCommand) {
        Set<String> out = new LinkedHashSet<>();
        if (perfCommand == null) {
            return List.of();
        }
        for (String word : shellWords(perfCommand)) {
            String w = word;
            int eq = w.indexOf('=');
            if (w.startsWith("-")) {
                if (eq < 0) {
                    continue;
                }
                w = w.substring(eq + 1);
            }
            w = Glob.normalize(w);
            if (w.isEmpty() || w.startsWith("/") || w.startsWith("$") || w.contains("://") || w.startsWith("~")) {
                continue;
            }
            boolean fileSuffix = w.matches("(?i)[\\w./-]+\\.(py|sh|json|jsonl|txt|ya?ml|csv|toml|cfg|ini|parquet|jinja)");
            boolean folderPath = w.matches("[\\w.-]+(/[\\w.-]+)+/?");
            if (fileSuffix || folderPath) {
                out.add(w);
            }
        }
        return List.copyOf(out);
    }

    private static List<String> shellWords(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                any = true;
            } else if (c == '\\' && i + 1 < s.length()) {
                cur.append(s.charAt(++i));
                any = true;
            } else if (Character.isWhitespace(c) || c == ';' || c == '&' || c == '|') {
                if (any || cur.length() > 0) {
                    words.add(cur.toString());
                }
                cur.setLength(0);
                any = false;
            } else {
                cur.append(c);
                any = true;
            }
        }
        if (any || cur.length() > 0) {
            words.add(cur.toString());
        }
        return words;
    }
}
