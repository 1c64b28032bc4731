package io.isobench.probe;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OutputDiffTest {

    @Test
    void identicalOutputsMatchExactly() {
        List<Probe> ref = List.of(Probe.text("a b c"), Probe.text("d e"));
        OutputDiff d = OutputDiff.compare(ref, ref);
        assertThat(d.exactMatchRate()).isEqualTo(1.0);
        assertThat(d.firstDivergencePrompt()).isNull();
        assertThat(d.firstDivergenceChar()).isNull();
        assertThat(d.mismatchFraction()).isZero();
        assertThat(d.describe()).isEqualTo("2/2 exact (100 %)");
    }

    @Test
    void droppedSpacesDivergeAtTheFirstMissingSpace() {
        // charlie/tpot: the detokenizer drops SentencePiece spaces
        List<Probe> ref = List.of(Probe.text("bubo kiri kado"), Probe.text("same"), Probe.text("xy zz"));
        List<Probe> got = List.of(Probe.text("bubokirikado"), Probe.text("same"), Probe.text("xyzz"));
        OutputDiff d = OutputDiff.compare(ref, got);
        assertThat(d.exactMatches()).isEqualTo(1);
        assertThat(d.exactMatchRate()).isEqualTo(1.0 / 3);
        assertThat(d.firstDivergencePrompt()).isZero();
        assertThat(d.firstDivergenceChar()).isEqualTo(2);
        assertThat(d.perPrompt().get(0)).containsEntry("first_divergence_char", 4);
        assertThat(d.perPrompt().get(2)).containsEntry("first_divergence_char", 2);
    }

    @Test
    void tokenIdsGiveTheFirstDivergentTokenAndLogprobDriftIsMeasuredBeforeIt() {
        Probe r = new Probe("a b c", List.of(1, 2, 3), List.of(-0.1, -0.2, -0.3));
        Probe x = new Probe("a b d", List.of(1, 2, 4), List.of(-0.1, -0.25, -2.0));
        OutputDiff d = OutputDiff.compare(List.of(r), List.of(x));
        assertThat(d.firstDivergenceToken()).isEqualTo(2);
        assertThat(d.maxLogprobDrift()).isCloseTo(0.05, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(d.describe()).contains("token 2").contains("max logprob drift 0.05");
    }

    @Test
    void sameTextDifferentLogprobsIsAMatchWithDrift() {
        Probe r = new Probe("a", List.of(1), List.of(-0.1));
        Probe x = new Probe("a", List.of(1), List.of(-0.4));
        OutputDiff d = OutputDiff.compare(List.of(r), List.of(x));
        assertThat(d.exactMatchRate()).isEqualTo(1.0);
        assertThat(d.firstDivergenceToken()).isNull();
        assertThat(d.maxLogprobDrift()).isCloseTo(0.3, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void missingOutputsCountAsMismatches() {
        OutputDiff d = OutputDiff.compare(List.of(Probe.text("a"), Probe.text("b")), List.of(Probe.text("a")));
        assertThat(d.exactMatches()).isEqualTo(1);
        assertThat(d.exactMatchRate()).isEqualTo(0.5);
        assertThat(d.firstDivergencePrompt()).isEqualTo(1);
        assertThat(d.perPrompt().get(1)).containsEntry("missing", true);
    }
}
