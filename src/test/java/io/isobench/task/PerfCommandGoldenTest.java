package io.isobench.task;

import io.isobench.SharedData;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden file over all 94 real perf_commands of the ISO-Bench sample. To rewrite it after an intended change, run
 * {@code mvn -o -q test -Dtest=PerfCommandGoldenTest -Disobench.golden.rewrite=true} and review the diff.
 */
class PerfCommandGoldenTest {

    static final String FULL_RESULTS =
            "isobench-data/archive/results/2026-01/omniperf_results_3way_claude_code/exports/full_results.jsonl";
    static final Path GOLDEN = Path.of("src/test/resources/golden/perf-commands.jsonl");
    static final String HEADER = "# " + LintReport.FORMAT_ID + " — golden output of `isobench tasks lint"
            + " full_results.jsonl --format json` (one JSON object per line, after this header). The format is a"
            + " contract: field names, order and finding codes are relied on. Rewrite with"
            + " -Disobench.golden.rewrite=true and review the diff.";

    static List<TaskLint.Linted> lintSample() {
        Path file = SharedData.require(FULL_RESULTS);
        return TaskLint.lintRows(file);
    }

    /** Source paths differ per checkout; the golden keeps only the id. */
    static String render(List<TaskLint.Linted> items) {
        return HEADER + "\n" + LintReport.jsonLines(items);
    }

    @Test
    void allRealPerfCommandsMatchTheGoldenFile() throws IOException {
        List<TaskLint.Linted> items = lintSample();
        assertThat(items).hasSize(94);
        String actual = render(items);
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.writeString(GOLDEN, actual, StandardCharsets.UTF_8);
        }
        assertThat(GOLDEN).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
        String expected = Files.readString(GOLDEN, StandardCharsets.UTF_8);
        List<String> exp = expected.lines().toList();
        List<String> act = actual.lines().toList();
        for (int i = 0; i < Math.min(exp.size(), act.size()); i++) {
            assertThat(act.get(i)).as("golden line %d", i + 1).isEqualTo(exp.get(i));
        }
        assertThat(act).hasSameSizeAs(exp);
    }

    @Test
    void knownBadCommandsAreFlaggedWithTheRightCodes() {
        Map<String, Set<String>> errors = new TreeMap<>();
        Map<String, Set<String>> all = new TreeMap<>();
        for (TaskLint.Linted l : lintSample()) {
            errors.put(l.id(), l.command().errors().stream().map(Finding::code).collect(Collectors.toCollection(TreeSet::new)));
            all.put(l.id(), l.command().findings().stream().map(Finding::code).collect(Collectors.toCollection(TreeSet::new)));
        }
        // placeholders BS / MODEL / INPUT_LEN / OUTPUT_LEN
        assertThat(errors.get("526de822")).contains("PLACEHOLDER");
        // a path on someone's machine, a wrong script folder
        assertThat(errors.get("bfdb1ba5")).contains("ABSOLUTE_PATH");
        assertThat(errors.get("c45f3c3a")).contains("WRONG_SCRIPT_DIR");
        // offline flags on the serving client
        assertThat(errors.get("89a84b0b")).contains("INVALID_FLAG");
        assertThat(errors.get("379da6dc")).contains("INVALID_FLAG", "INVALID_VALUE", "MODEL_TOO_LARGE");
        assertThat(errors.get("d55e446d")).contains("INVALID_FLAG");
        // no perf_command at all; no --model (the script falls back to opt-125m: a warning)
        assertThat(errors.get("3127e975")).containsExactly("NO_PERF_COMMAND");
        assertThat(all.get("98f47f2a")).contains("MISSING_MODEL");
        // the row's benchmark_mode contradicts the command
        assertThat(errors.get("0ec82edd")).contains("MODE_MISMATCH");
        // local dataset files, or a file-based dataset without one
        assertThat(errors.get("8d75fe48")).contains("LOCAL_DATASET");
        assertThat(errors.get("9badee53")).contains("LOCAL_DATASET");
        assertThat(errors.get("4fb56914")).contains("LOCAL_DATASET", "MODEL_TOO_LARGE");
        assertThat(errors.get("9474e89b")).contains("DATASET_PATH_MISSING");
        // models too large for the GPUs the command uses
        for (String id : List.of("0d243f2a", "7661e92e", "ac45c44d", "b6d10354", "baeded25", "dae68969", "fb0acb6c")) {
            assertThat(errors.get(id)).as(id).contains("MODEL_TOO_LARGE");
        }
        // commands that ran fine in ISO-Bench stay runnable
        for (String id : List.of("299ebb62", "310aca88", "61b8cea3", "2deb029d", "f26c4aee", "21d93c14", "a3223766")) {
            assertThat(errors.get(id)).as(id).isEmpty();
        }
        // benchmark_serving.py without --dataset-name: the script defaults to ShareGPT and needs a file (the native
        // runner's runs crashed "dataset_path must be provided"; where these ran, a harness supplied the file)
        for (String id : List.of("30172b49", "8aa1485f", "e3580537", "22d33bac")) {
            assertThat(errors.get(id)).as(id).containsExactly("DATASET_NAME_MISSING");
        }
        assertThat(errors.values().stream().filter(e -> e.contains("DATASET_NAME_MISSING")).count()).isGreaterThan(20);
        assertThat(all.get("015069b0")).contains("MODEL_MISMATCH");
    }
}
