package io.isobench.parse;

import io.isobench.Mode;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static io.isobench.parse.RealFiles.CLAUDE;
import static io.isobench.parse.RealFiles.CODEX;
import static org.assertj.core.api.Assertions.assertThat;

/** The one console-text mode detector, fed the inputs of both its former callers (legacy import, the parser). */
class ConsoleModeTest {

    private static final String BLOCK = "============ Serving Benchmark Result ============\n"
            + "Successful requests:                     100       \n"
            + "Mean TPOT (ms):                          4.76      \n"
            + "==================================================\n";

    /** The parser's mode, as far as it is a console mode (micro-benchmark JSON lines are not one). */
    private static Optional<Mode> parserMode(String text, OutputParser.Truncation truncation) {
        Mode m = OutputParser.parse(text, truncation).mode();
        return m == null || m == Mode.MICRO ? Optional.empty() : Optional.of(m);
    }

    @Test
    void legacyRawTextsShowTheModeOfTheContract() {
        // legacy-import.md "Mode", R3/R4/R5: serving block, Avg latency, Throughput, est. speed / start generating
        assertThat(ConsoleMode.of("warm-up\n" + BLOCK + BLOCK)).contains(Mode.SERVING);
        assertThat(ConsoleMode.of("Avg latency: 3.2030584950697083 seconds\n")).contains(Mode.LATENCY);
        assertThat(ConsoleMode.of("Throughput: 10.49 requests/s, 4611.33 tokens/s\n")).contains(Mode.THROUGHPUT);
        assertThat(ConsoleMode.of("------start generating------\nest. speed input: 3.00 toks/s, output: 4.00 toks/s]\n"))
                .contains(Mode.PREFIX_CACHING);
        // Throughput runs print est. speed progress bars too: the Throughput line decides.
        assertThat(ConsoleMode.of("est. speed input: 3.00 toks/s, output: 4.00 toks/s\n"
                + "Throughput: 9.18 requests/s, 11745.11 tokens/s\n")).contains(Mode.THROUGHPUT);
        assertThat(ConsoleMode.of("AVG LATENCY: 1.5 SECONDS\n")).contains(Mode.LATENCY); // case-insensitive
        assertThat(ConsoleMode.of("Traceback (most recent call last):\n")).isEmpty();
        assertThat(ConsoleMode.of(null)).isEmpty();
    }

    @Test
    void whereTheParserReadsNoMetricsTheTextStillShowsItsMode() {
        // The contract: "start generating" alone means prefix_caching; a header without rows is still serving.
        String marker = "------start generating------\n";
        assertThat(ConsoleMode.of(marker)).contains(Mode.PREFIX_CACHING);
        assertThat(OutputParser.parse(marker).mode()).isNull();
        String header = "============ Serving Benchmark Result ============\nAvg latency: 1.5 seconds\n";
        assertThat(ConsoleMode.of(header)).contains(Mode.SERVING);
        assertThat(OutputParser.parse(header).mode()).isEqualTo(Mode.LATENCY);
    }

    @Test
    void parserInputsOfEveryModeAgree() {
        String[] texts = {
                BLOCK,
                "Avg latency: 1.5 seconds\n10% percentile latency: 1.4 seconds\n",
                "Throughput: 50.08 requests/s, 19152.84 total tokens/s, 6410.83 output tokens/s\n",
                "------start generating------\nest. speed input: 3.00 toks/s, output: 4.00 toks/s]\ncost time 3.5\n",
                "no result here at all\n"};
        for (String t : texts) {
            assertThat(ConsoleMode.of(t)).as(t).isEqualTo(parserMode(t, OutputParser.Truncation.NONE));
        }
    }

    @Test
    void realRawOutputsAgreeWithTheParser() {
        String[] tails = {CODEX + "results/aea94362_agent_result.json", CODEX + "results/98f47f2a_agent_result.json",
                CLAUDE + "results/separate_agent/6ce01f30_human_result.json",
                CLAUDE + "results/separate_agent/cf2f084d_human_result.json"};
        for (String f : tails) {
            String raw = RealFiles.field(f, "/raw_output");
            assertThat(ConsoleMode.of(raw)).as(f).isPresent()
                    .isEqualTo(parserMode(raw, OutputParser.Truncation.TAIL_KEPT));
        }
        for (String raw : RealFiles.allRawTexts()) {
            assertThat(ConsoleMode.of(raw)).isEqualTo(parserMode(raw, OutputParser.Truncation.NONE));
        }
    }
}
