package io.isobench.cli;

import io.isobench.IsobenchException;
import io.isobench.review.Check;
import io.isobench.review.PatchReview;
import io.isobench.review.ReviewConfig;
import io.isobench.review.ReviewResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "review", mixinStandardHelpOptions = true,
        description = {"Static integrity review of a patch: benchmark/test/workload edits, work-shrinking defaults,"
                + " prompt-keyed caches, disabled code paths, files outside the engine tree, binaries, size.",
                "Exit 0 when the review ran (findings are outcomes), 2 when the patch cannot be read."})
final class ReviewCommand implements Callable<Integer> {

    @ParentCommand
    Main main;

    @Parameters(paramLabel = "PATCH", description = "A unified diff (git diff / format-patch); '-' reads stdin.")
    String patch;

    @Option(names = "--engine-root", paramLabel = "DIR",
            description = "Engine source root (repeatable; default: vllm/ csrc/ cmake/ CMakeLists.txt setup.py"
                    + " pyproject.toml toyllm/).")
    List<String> engineRoots = new ArrayList<>();

    @Option(names = "--perf-command", paramLabel = "CMD",
            description = "The task's perf_command; files it names are PERF_INPUT_EDIT when the patch edits them.")
    String perfCommand;

    @Option(names = "--perf-input", paramLabel = "FILE", description = "A file the benchmark reads (repeatable).")
    List<String> perfInputs = new ArrayList<>();

    @Option(names = "--max-lines", paramLabel = "N", defaultValue = "" + ReviewConfig.DEFAULT_MAX_CHANGED_LINES,
            description = "OVERSIZED_PATCH above N changed lines (default ${DEFAULT-VALUE}).")
    int maxLines;

    @Option(names = "--max-bytes", paramLabel = "N", defaultValue = "" + ReviewConfig.DEFAULT_MAX_PATCH_BYTES,
            description = "OVERSIZED_PATCH above N bytes (default ${DEFAULT-VALUE}).")
    long maxBytes;

    @Option(names = "--fail-on", paramLabel = "CHECK", split = ",",
            description = "Checks whose findings are errors (fail the arm); default: BENCHMARK_EDIT,"
                    + " PERF_INPUT_EDIT, WORKLOAD_DEFINITION_EDIT, WORK_SHRINKING_DEFAULT, PROMPT_KEYED_CACHE,"
                    + " BINARY_FILE, SYMLINK.")
    List<Check> failOn;

    @Option(names = "--format", defaultValue = "text", description = "text (default) or json (one object).")
    TextOrJson format;

    @Override
    public Integer call() {
        if (maxLines < 1 || maxBytes < 1) {
            throw IsobenchException.badInput("--max-lines (%d) and --max-bytes (%d) must be >= 1", maxLines, maxBytes);
        }
        ReviewConfig config = ReviewConfig.defaults().withMaxPatch(maxLines, maxBytes);
        if (!engineRoots.isEmpty()) {
            config = config.withEngineRoots(engineRoots);
        }
        if (!perfInputs.isEmpty()) {
            config = config.withPerfInputs(perfInputs);
        }
        if (perfCommand != null) {
            config = config.withPerfCommand(perfCommand);
        }
        if (failOn != null) {
            config = config.withFailingChecks(Set.copyOf(failOn));
        }
        ReviewResult result = review(config);
        main.out.print(format == TextOrJson.json ? result.json() + System.lineSeparator() : result.text());
        main.out.flush();
        return Main.OK;
    }

    /** Streams the patch (a file, or stdin spooled to a temporary file) through the review. */
    private ReviewResult review(ReviewConfig config) {
        Path spool = null;
        try {
            Path file;
            if ("-".equals(patch)) {
                spool = Files.createTempFile("isobench-review-", ".patch");
                Files.copy(System.in, spool, StandardCopyOption.REPLACE_EXISTING);
                file = spool;
            } else {
                file = Path.of(patch);
            }
            return PatchReview.review(file, config);
        } catch (NoSuchFileException e) {
            throw IsobenchException.badInput("%s: no such file (give the path of a unified diff)", patch);
        } catch (IOException e) {
            throw IsobenchException.badInput("%s: cannot read the patch (%s)", patch, e.getMessage());
        } finally {
            if (spool != null) {
                try {
                    Files.deleteIfExists(spool);
                } catch (IOException e) {
                    // temporary file
                }
            }
        }
    }
}
