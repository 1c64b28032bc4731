package io.isobench.parse;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Declared read rules on real and hand-made command output (generic engine adapter). */
class RuleReaderTest {

    /** llama2.c's run prints its generated text on stdout and this on stderr, with no trailing newline. */
    static final String LLAMA2C_STDERR = "achieved tok/s: 48.712871";
    static final ReadRule TOK_S = new ReadRule(ReadRule.Source.STDERR, null, "achieved tok/s: ([0-9.]+)", null);

    @Test
    void aRegexMatchesALastLineWithoutNewlineAndTheLastMatchWins() {
        RuleReader.Streams s = new RuleReader.Streams("Once upon a time", "achieved tok/s: 12.5\n"
                + LLAMA2C_STDERR, Map.of());
        assertThat(RuleReader.value(TOK_S, s).value()).isEqualTo(48.712871);
        MetricRule rule = new MetricRule("tok_s", TOK_S, "tok/s", Better.HIGHER, true);
        RuleReader.Read read = RuleReader.metrics(List.of(rule), s);
        assertThat(read.metrics()).containsExactly(new Metric("tok_s", 48.712871, "tok/s", Better.HIGHER));
        assertThat(read.unmatched()).isEmpty();
    }

    @Test
    void aRuleThatDoesNotMatchSaysWhereItLookedAndWhatWasThere() {
        RuleReader.Streams s = new RuleReader.Streams("text", "Couldn't open file model.bin", Map.of());
        RuleReader.Value v = RuleReader.value(TOK_S, s);
        assertThat(v.value()).isNull();
        assertThat(v.problem()).isEqualTo("no match of /achieved tok/s: ([0-9.]+)/ in stderr (its last line:"
                + " Couldn't open file model.bin)");
        MetricRule rule = new MetricRule("tok_s", TOK_S, "tok/s", Better.HIGHER, false);
        assertThat(RuleReader.metrics(List.of(rule), s).unmatched()).containsOnlyKeys("tok_s");
        ReadRule stdout = new ReadRule(ReadRule.Source.STDOUT, null, "ms: (\\S+)", null);
        assertThat(RuleReader.value(stdout, new RuleReader.Streams("ms: fast", "", Map.of())).problem())
                .isEqualTo("/ms: (\\S+)/ matched 'fast', not a number");
    }

    @Test
    void jsonPathsReadTheWholeDocumentOrItsLastJsonLine() {
        ReadRule r = new ReadRule(ReadRule.Source.STDOUT, null, null, "results[1].latency_ms");
        String lines = "warming up\n{\"results\": [{\"latency_ms\": 9}, {\"latency_ms\": \"12.5\"}]}\ndone";
        assertThat(RuleReader.value(r, new RuleReader.Streams(lines, "", Map.of())).value()).isEqualTo(12.5);
        assertThat(RuleReader.value(r, new RuleReader.Streams("{\"results\": []}", "", Map.of())).problem())
                .isEqualTo("json_path results[1].latency_ms is not in stdout");
        ReadRule file = new ReadRule(ReadRule.Source.FILE, "out/bench.json", null, "tok_s");
        assertThat(RuleReader.value(file, new RuleReader.Streams("", "", Map.of("out/bench.json",
                "{\n  \"tok_s\": 310.5\n}\n"))).value()).isEqualTo(310.5);
        assertThat(RuleReader.value(file, new RuleReader.Streams("", "", Map.of())).problem())
                .isEqualTo("file out/bench.json was not written");
    }

    @Test
    void generatedTextsAreEveryMatchTheListElementsOrTheWholeText() {
        RuleReader.Streams s = new RuleReader.Streams("<s>\nOnce upon a time\n", "", Map.of());
        assertThat(RuleReader.texts(new ReadRule(ReadRule.Source.STDOUT, null, null, null), s))
                .containsExactly("<s>\nOnce upon a time\n");
        RuleReader.Streams many = new RuleReader.Streams("OUT: a b\nnoise\nOUT: c", "", Map.of());
        assertThat(RuleReader.texts(new ReadRule(ReadRule.Source.STDOUT, null, "OUT: (.*)", null), many))
                .containsExactly("a b", "c");
        RuleReader.Streams json = new RuleReader.Streams("{\"samples\": [\"x\", \"y y\"]}", "", Map.of());
        assertThat(RuleReader.texts(new ReadRule(ReadRule.Source.STDOUT, null, null, "samples"), json))
                .containsExactly("x", "y y");
        assertThat(RuleReader.texts(new ReadRule(ReadRule.Source.STDOUT, null, "nothing (here)", null), s)).isEmpty();
    }

    @Test
    void rulesAndMetricsValidateTheirShape() {
        assertThatThrownBy(() -> new ReadRule(ReadRule.Source.FILE, null, "x", null))
                .hasMessageContaining("exactly when it has a path");
        assertThatThrownBy(() -> new ReadRule(ReadRule.Source.STDOUT, null, "(", null))
                .hasMessageContaining("regex (() is not valid");
        assertThatThrownBy(() -> new ReadRule(ReadRule.Source.STDOUT, null, "x", "a.b"))
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> new MetricRule("tok_s", TOK_S, "tok/s", Better.NONE, false))
                .hasMessageContaining("must be higher or lower");
        assertThatThrownBy(() -> new MetricRule("Tok/s", TOK_S, "tok/s", Better.HIGHER, false))
                .hasMessageContaining("must match");
        assertThat(MetricRule.builtIn(MetricRule.CPU, true).metric(1.5))
                .isEqualTo(new Metric("command_cpu_s", 1.5, "s", Better.LOWER));
        assertThat(MetricDictionary.lookup("command_wall_s").better()).isEqualTo(Better.LOWER);
        Readout r = new Readout(List.of(new MetricRule("tok_s", TOK_S, "tok/s", Better.HIGHER, true)), "tok_s", null);
        assertThat(r.primaryDefinition()).isEqualTo(new MetricDictionary.Definition("tok_s", "tok/s", Better.HIGHER));
        assertThat(new Readout(List.of(), "command_cpu_s", null).primaryDefinition().unit()).isEqualTo("s");
        assertThat(TOK_S.describe()).isEqualTo("stderr /achieved tok/s: ([0-9.]+)/");
    }
}
