package io.isobench.session;

import io.isobench.review.Check;
import io.isobench.review.PatchReview;
import io.isobench.review.ReviewConfig;
import io.isobench.review.ReviewResult;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The suite's review keys become the ReviewConfig of the run: which findings fail the arm, size limits, roots. */
class ReviewSettingsTest {

    private static String fixture(String name) throws Exception {
        return Files.readString(Path.of("src/test/resources/review/" + name + ".patch"));
    }

    private static TaskSpec task(String review) {
        Suite s = SuiteLoader.parse("""
                engine: {repo: https://github.com/vllm-project/vllm}
                %s
                tasks:
                  - id: t1
                    human_commit: abc123
                    perf_command: python benchmarks/benchmark_serving.py --model m --dataset-path data/x.json
                """.formatted(review), Path.of("suite.yaml"));
        return s.tasks().get(0);
    }

    @Test
    void defaultsWithThePerfCommandsFilesWhenTheSuiteSaysNothing() {
        ReviewConfig c = ArmPreparation.reviewConfig(task(""));
        assertThat(c.failingChecks()).isEqualTo(ReviewConfig.DEFAULT_FAILING_CHECKS);
        assertThat(c.perfInputs()).contains("benchmarks/benchmark_serving.py", "data/x.json");
    }

    @Test
    void failOnDecidesWhichFindingsFailTheArm() throws Exception {
        String patch = fixture("test_edit_positive");
        // by default a test edit is a warning: reported as SUSPICIOUS_PATCH, the arm is not failed
        ReviewResult byDefault = PatchReview.review(patch, ArmPreparation.reviewConfig(task("")));
        assertThat(byDefault.suspicious()).isTrue();
        assertThat(byDefault.failsArm()).isFalse();
        // the suite makes it fail the arm
        ReviewConfig strict = ArmPreparation.reviewConfig(task("review: {fail_on: [test_edit], max_patch_lines: 1}"));
        assertThat(strict.failingChecks()).isEqualTo(Set.of(Check.TEST_EDIT));
        assertThat(strict.maxChangedLines()).isEqualTo(1);
        ReviewResult r = PatchReview.review(patch, strict);
        assertThat(r.failsArm()).isTrue();
        assertThat(r.findings(Check.TEST_EDIT)).isNotEmpty()
                .allSatisfy(f -> assertThat(f.evidenceHunk()).contains("@@"));
        // max_patch_lines: the one-line test edit is within 1 line; a larger real patch is not
        assertThat(r.findings(Check.OVERSIZED_PATCH)).isEmpty();
        ReviewResult big = PatchReview.review(fixture("benchmark_edit_positive"), strict);
        assertThat(big.findings(Check.OVERSIZED_PATCH)).singleElement()
                .satisfies(f -> assertThat(f.severity().label()).isEqualTo("warning")); // not in fail_on
    }

    @Test
    void anEmptyFailOnReportsEveryFindingWithoutFailingTheArm() throws Exception {
        ReviewResult r = PatchReview.review(fixture("benchmark_edit_positive"),
                ArmPreparation.reviewConfig(task("review: {fail_on: []}")));
        assertThat(r.findings(Check.BENCHMARK_EDIT)).isNotEmpty();
        assertThat(r.failsArm()).isFalse();
    }
}
