package io.isobench.exec;

import io.isobench.task.TaskSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading the accuracy score and comparing it with the baseline's (the accuracy hook). */
class AccuracyParseTest {

    private static TaskSpec.Accuracy regex(String re) {
        return new TaskSpec.Accuracy(List.of("eval"), re, null, 0, 0, true, null);
    }

    private static TaskSpec.Accuracy path(String p) {
        return new TaskSpec.Accuracy(List.of("eval"), null, p, 0, 0, true, null);
    }

    @Test
    void theRegexTakesTheLastMatchAndItsFirstGroup() {
        Accuracy.Score s = Accuracy.parse("accuracy: 0.5 (warmup)\nwrong: 'x'\naccuracy: 0.9167\n",
                regex("accuracy: ([0-9.]+)"));
        assertThat(s.value()).isEqualTo(0.9167);
        assertThat(Accuracy.parse("acc 0.25", regex("[0-9.]+")).value()).isEqualTo(0.25);
    }

    @Test
    void aMissingOrNonNumericScoreSaysWhy() {
        assertThat(Accuracy.parse("Traceback…", regex("accuracy: ([0-9.]+)")).problem())
                .contains("no match of score_regex");
        assertThat(Accuracy.parse("accuracy: .", regex("accuracy: ([0-9.]+)")).problem()).contains("not a number");
    }

    @Test
    void jsonPathReadsLmEvalStyleResultsFromTheLastJsonLine() {
        String out = "progress 50%\n{\"results\": {\"gsm8k\": {\"exact_match,strict-match\": 0.4},"
                + " \"list\": [{\"v\": 3}]}}\n";
        assertThat(Accuracy.parse(out, path("results.gsm8k.exact_match,strict-match")).value()).isEqualTo(0.4);
        assertThat(Accuracy.parse(out, path("results.list[0].v")).value()).isEqualTo(3.0);
        assertThat(Accuracy.parse(out, path("results.mmlu.acc")).problem()).contains("is not in the accuracy output");
        assertThat(Accuracy.parse("no json", path("a")).problem()).contains("no JSON object");
    }

    @Test
    void aRegressionIsALossBeyondTheLargerTolerance() {
        TaskSpec.Accuracy acc = new TaskSpec.Accuracy(List.of("eval"), "x", null, 0.01, 0.05, true, null);
        assertThat(Accuracy.compare(0.80, 0.77, acc).regression()).isFalse(); // allowed 0.04
        Accuracy.Verdict v = Accuracy.compare(0.80, 0.75, acc);
        assertThat(v.regression()).isTrue();
        assertThat(v.reason()).contains("accuracy_score 0.7500 vs baseline 0.8000").contains("allowed 0.04000");
        assertThat(Accuracy.compare(0.80, 0.95, acc).regression()).isFalse(); // better is never a regression
        TaskSpec.Accuracy lower = new TaskSpec.Accuracy(List.of("eval"), "x", null, 0, 0, false, null);
        assertThat(Accuracy.compare(2.0, 2.5, lower).regression()).isTrue(); // perplexity went up
        assertThat(Accuracy.compare(2.0, 1.5, lower).regression()).isFalse();
    }

    @Test
    void offlineProbeLinesAreJsonObjectsWithText() {
        var probes = OfflineProbe.parse("loading model\n{\"index\": 0, \"text\": \"a b\", \"token_ids\": [1, 2]}\n"
                + "{\"not\": \"a probe\"}\n{\"index\": 1, \"text\": \"\"}\nINFO done\n");
        assertThat(probes).hasSize(2);
        assertThat(probes.get(0).tokenIds()).containsExactly(1, 2);
        assertThat(probes.get(1).text()).isEmpty();
    }
}
