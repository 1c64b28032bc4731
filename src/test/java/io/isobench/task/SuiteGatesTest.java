package io.isobench.task;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Suite keys of the correctness and integrity gates: correctness thresholds, offline probe, accuracy, review. */
class SuiteGatesTest {

    @TempDir
    Path dir;

    Path write(String yaml) throws IOException {
        Path f = dir.resolve("suite.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    @Test
    void gatesLoadWithSuiteReviewMergedIntoEachTask() throws IOException {
        Suite s = SuiteLoader.load(write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                review:
                  fail_on: [benchmark_edit, TEST_EDIT]
                  max_patch_lines: 500
                tasks:
                  - id: t1
                    human_commit: abc123
                    perf_command: python3 benchmarks/benchmark_latency.py --model m --output-len 16
                    correctness:
                      prompts: 4
                      max_tokens: 16
                      tolerance: 0.25
                      max_logprob_drift: 0.01
                      logprobs: true
                      offline_command: python3 {suite_dir}/probe.py --in {prompts_file} -n {max_tokens} --model {model}
                    accuracy:
                      command: [python3, "{suite_dir}/eval.py", --model, "{model}"]
                      score_regex: 'acc=([0-9.]+)'
                      tolerance_abs: 0.01
                      tolerance_rel: 0.02
                      higher_is_better: false
                      timeout_s: 30
                  - id: t2
                    human_commit: def456
                    accuracy:
                      command: lm_eval --model local --tasks gsm8k
                      json_path: results.gsm8k[0].exact_match
                    review: {max_patch_bytes: 1000, engine_roots: [vllm/]}
                """));
        TaskSpec t1 = s.tasks().get(0);
        assertThat(t1.correctness()).isEqualTo(new TaskSpec.Correctness(4, 16, 0.25, 0.01, true,
                "python3 {suite_dir}/probe.py --in {prompts_file} -n {max_tokens} --model {model}"));
        assertThat(t1.correctness().offlineArgv("/s")).containsExactly("python3", "/s/probe.py", "--in",
                "{prompts_file}", "-n", "{max_tokens}", "--model", "{model}");
        assertThat(t1.accuracy()).isEqualTo(new TaskSpec.Accuracy(List.of("python3", "{suite_dir}/eval.py", "--model",
                "{model}"), "acc=([0-9.]+)", null, 0.01, 0.02, false, 30));
        assertThat(t1.accuracy().argv("m", "/s")).containsExactly("python3", "/s/eval.py", "--model", "m");
        assertThat(t1.review()).isEqualTo(new TaskSpec.Review(List.of("benchmark_edit", "test_edit"), 500, null, null));
        TaskSpec t2 = s.tasks().get(1);
        assertThat(t2.accuracy().command()).containsExactly("lm_eval", "--model", "local", "--tasks", "gsm8k");
        assertThat(t2.accuracy().jsonPath()).isEqualTo("results.gsm8k[0].exact_match");
        assertThat(t2.accuracy().higherIsBetter()).isTrue();
        // the task's keys win, the suite's fill the rest
        assertThat(t2.review()).isEqualTo(new TaskSpec.Review(List.of("benchmark_edit", "test_edit"), 500, 1000L,
                List.of("vllm/")));
    }

    @Test
    void badGateKeysAreReportedWithFileLineAndField() throws IOException {
        Path f = write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                review:
                  fail_on: [benchmark_edits, cache]
                  max_patch_lines: 0
                  strict: true
                tasks:
                  - id: t1
                    human_commit: abc123
                    correctness:
                      tolerance: 2
                      logprobs: maybe
                      offline_command: python3 probe.py | tee out
                    accuracy:
                      command: [python3, eval.py, "{port}"]
                      score_regex: 'acc=([0-9.]+'
                      json_path: a..b
                      tolerance_rel: 1.5
                  - id: t2
                    human_commit: abc124
                    correctness: {offline_command: "python3 probe.py {prompts}"}
                    accuracy: {command: eval}
                """);
        String msg = SuiteLoaderTest.message(() -> SuiteLoader.load(f));
        assertThat(msg).contains(f + ":3: review.fail_on[0]: 'benchmark_edits' is not a review check (did you mean"
                + " benchmark_edit?)");
        assertThat(msg).contains(f + ":3: review.fail_on[1]: 'cache' is not a review check");
        assertThat(msg).contains(f + ":4: review.max_patch_lines: 0 is out of range");
        assertThat(msg).contains(f + ":5: review.strict: unknown key");
        assertThat(msg).contains(f + ":10: tasks[0].correctness.tolerance: 2 is out of range");
        assertThat(msg).contains(f + ":11: tasks[0].correctness.logprobs: 'maybe' is not true or false");
        assertThat(msg).contains(f + ":12: tasks[0].correctness.offline_command: needs a shell (operators |)");
        assertThat(msg).contains(f + ":14: tasks[0].accuracy.command: unknown placeholder {port}");
        assertThat(msg).contains(f + ":15: tasks[0].accuracy.score_regex: is not a valid regular expression");
        assertThat(msg).contains(f + ":16: tasks[0].accuracy.json_path: 'a..b' is not a dotted path");
        assertThat(msg).contains(f + ":17: tasks[0].accuracy.tolerance_rel: 1.5 is out of range");
        assertThat(msg).contains(f + ":20: tasks[1].correctness.offline_command: unknown placeholder {prompts}");
        assertThat(msg).contains(f + ":20: tasks[1].correctness.offline_command: has no {prompts_file}");
        assertThat(msg).contains(f + ":21: tasks[1].accuracy: has neither score_regex nor json_path");
    }

    @Test
    void bothScoreSourcesAreRejected() throws IOException {
        Path f = write("""
                engine: {repo: https://github.com/vllm-project/vllm}
                tasks:
                  - id: t1
                    human_commit: abc123
                    accuracy: {command: [eval], score_regex: 'x', json_path: y}
                """);
        assertThat(SuiteLoaderTest.message(() -> SuiteLoader.load(f)))
                .contains(f + ":5: tasks[0].accuracy: has both score_regex and json_path");
    }
}
