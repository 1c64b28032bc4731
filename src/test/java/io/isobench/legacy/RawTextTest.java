package io.isobench.legacy;

import io.isobench.Mode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RawTextTest {

    private static final String BLOCK = "============ Serving Benchmark Result ============\n"
            + "Successful requests:                     100       \n"
            + "Total input tokens:                      51200     \n"
            + "Output token throughput (tok/s):         124.10    \n"
            + "Mean TPOT (ms):                          4.76      \n"
            + "==================================================\n";

    @Test
    void tpotIsSearchedFromTheFirstHeaderAndTheFirstBlockWins() {
        String echo = BLOCK.replace("4.76", "9.99");
        RawText t = new RawText("Mean TPOT (ms): 1.00\n" + BLOCK + echo, false);
        assertThat(t.mode()).isEqualTo(Mode.SERVING);
        assertThat(t.primary(Mode.SERVING).text()).isEqualTo("4.76");
        assertThat(t.workload()).containsEntry("successful_requests", 100L).containsEntry("total_input_tokens", 51200L);
        assertThat(t.servingOutputTokS().text()).isEqualTo("124.10");
        assertThat(new RawText("Mean TPOT (ms): 1.00\n", false).primary(Mode.SERVING)).isNull();
    }

    @Test
    void aCutLastLineOfAHeadTruncatedRawIsNotTrusted() {
        String cut = "============ Serving Benchmark Result ============\nMean TPOT (ms):                          4.7";
        assertThat(new RawText(cut, true).primary(Mode.SERVING)).isNull();
        assertThat(new RawText(cut + "6\n", true).primary(Mode.SERVING).text()).isEqualTo("4.76");
        assertThat(new RawText(cut, false).primary(Mode.SERVING).text()).isEqualTo("4.7");
        assertThat(new RawText("Avg latency: 1.5 seconds", true).primary(Mode.LATENCY)).isNull();
    }

    @Test
    void linesSplitOnNewlineOnly() {
        // A carriage return does not start a line: the anchored TPOT regex does not see a line start after \r.
        String text = "============ Serving Benchmark Result ============\nx\rMean TPOT (ms):  3.00\n";
        assertThat(new RawText(text, false).primary(Mode.SERVING)).isNull();
    }

    @Test
    void latencyThroughputAndPrefixCaching() {
        RawText lat = new RawText("Avg latency: 3.2030584950697083 seconds\n10% percentile latency: 3.1 seconds\n", false);
        assertThat(lat.mode()).isEqualTo(Mode.LATENCY);
        assertThat(lat.primary(Mode.LATENCY).text()).isEqualTo("3203.0584950697083");
        assertThat(new RawText("Avg latency: 1.5e-02 seconds\n", false).primary(Mode.LATENCY).text()).isEqualTo("15");

        RawText oldTp = new RawText("Throughput: 10.49 requests/s, 4611.33 tokens/s\n", false);
        assertThat(oldTp.mode()).isEqualTo(Mode.THROUGHPUT);
        assertThat(oldTp.primary(Mode.THROUGHPUT).text()).isEqualTo("4611.33");
        RawText newTp = new RawText("Throughput: 50.08 requests/s, 19152.84 total tokens/s, 6410.83 output tokens/s\n",
                false);
        assertThat(newTp.primary(Mode.THROUGHPUT).text()).isEqualTo("19152.84");

        String prefix = "------warm up------\nest. speed input: 1.00 toks/s, output: 2.00 toks/s]\n"
                + "------start generating------\nest. speed input: 3.00 toks/s, output: 4.00 toks/s]\n"
                + "est. speed input: 5.00 toks/s, output: 6.00 toks/s]\ncost time 3.5\n";
        RawText pc = new RawText(prefix, false);
        assertThat(pc.mode()).isEqualTo(Mode.PREFIX_CACHING);
        assertThat(pc.primary(Mode.PREFIX_CACHING).text()).isEqualTo("6.00");
        assertThat(new RawText("est. speed input: 3.00 toks/s, output: 4.00 toks/s\n", false)
                .primary(Mode.PREFIX_CACHING)).isNull();
        // Throughput runs also print est. speed progress bars: the Throughput line decides the mode.
        assertThat(new RawText("est. speed input: 3.00 toks/s, output: 4.00 toks/s\n"
                + "Throughput: 9.18 requests/s, 11745.11 tokens/s\n", false).mode()).isEqualTo(Mode.THROUGHPUT);
    }

    @Test
    void lenientJsonRecoversTheTwoKnownDamagesAndRefusesTheRest() throws Exception {
        assertThat(LenientJson.parse("{\"a\": 1}").recovered()).isFalse();
        LenientJson.Parsed p = LenientJson.parse("{\"a\": 1}x\": \"y\"}");
        assertThat(p.recovery()).contains("stray fragment");
        assertThat(p.root().get("a").asInt()).isEqualTo(1);
        LenientJson.Parsed q = LenientJson.parse("{\"a\": , \"b\": 2}");
        assertThat(q.recovery()).contains("\"a\"");
        assertThat(q.root().get("a").isNull()).isTrue();
        assertThat(q.root().get("b").asInt()).isEqualTo(2);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LenientJson.parse("{\"a\": [1, 2"))
                .isInstanceOf(LenientJson.Unrecoverable.class).hasMessageStartingWith("invalid JSON");
    }

    @Test
    void secretsAreRedactedBeforeStoring() {
        String r = Redactor.redact("token hf_abcdefghijklmnopqrstuvwxyz012345 key sk-ABCDEFGHIJKLMNOPQRSTUVWX\n"
                + "Authorization: Bearer abc.def.ghi\nplain text");
        assertThat(r).doesNotContain("hf_abcdefghij").doesNotContain("sk-ABCDEFGHIJ").doesNotContain("abc.def.ghi")
                .contains("hf_***").contains("plain text");
    }

    @Test
    void timestampsInEveryStyle() {
        assertThat(Timestamps.parse("2026-01-14 21:01:19")).hasToString("2026-01-14T21:01:19Z");
        assertThat(Timestamps.parse("2026-01-09T14:00:00Z")).hasToString("2026-01-09T14:00:00Z");
        assertThat(Timestamps.parse("2026-01-12T14:22:25.610911")).hasToString("2026-01-12T14:22:25.610911Z");
        assertThat(Timestamps.parse("20251231_011435")).hasToString("2025-12-31T01:14:35Z");
        assertThat(Timestamps.parse("01-02 17:05:28")).isNull();
    }
}
