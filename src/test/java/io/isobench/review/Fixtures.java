package io.isobench.review;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Real diffs: the toy engine's patches and src/test/resources/review (made by make_fixtures.py with git). */
final class Fixtures {

    static final Path TOY_PATCHES = Path.of("examples/toy-engine/patches");
    static final Path REVIEW = Path.of("src/test/resources/review");

    /** The perf_command the vLLM-like fixtures are reviewed against (it names a chat template). */
    static final String PERF_COMMAND = "python benchmarks/benchmark_serving.py --backend vllm"
            + " --model meta-llama/Llama-3.1-8B-Instruct --dataset-name random --random-input-len 1024"
            + " --chat-template examples/template_chatml.jinja --num-prompts 100";

    private Fixtures() {
    }

    static String toy(String rel) {
        return read(TOY_PATCHES.resolve(rel));
    }

    static String review(String name) {
        return read(REVIEW.resolve(name + ".patch"));
    }

    static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ReviewResult reviewFixture(String name) {
        return PatchReview.review(review(name), ReviewConfig.defaults().withPerfCommand(PERF_COMMAND));
    }
}
