package io.isobench.probe;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The divergence rule of an output mismatch's evidence: first differing prompt, position, windows around it. */
class DivergenceTest {

    @Test
    void theFirstDifferingCharacterIsShownWithItsContextInBothTexts() {
        String same = "x".repeat(100) + "0123456789";
        String a = same + "abcdefghij".repeat(6);
        String b = same + "ABCDEFGHIJ".repeat(6);
        Divergence d = Divergence.of(List.of("ok", a), List.of("ok", b));
        assertThat(d.prompt()).isEqualTo(1);
        assertThat(d.at()).isEqualTo(110);
        assertThat(d.reference()).isEqualTo("…" + "x".repeat(20) + "0123456789▶" + "abcdefghij".repeat(4) + "…");
        assertThat(d.arm()).isEqualTo("…" + "x".repeat(20) + "0123456789▶" + "ABCDEFGHIJ".repeat(4) + "…");
        assertThat(d.describe("baseline")).startsWith("prompt 1, first difference at char 110: baseline \"…");
    }

    @Test
    void shortTextsAreNotCutAPrefixDiffersAtItsEndAndLineBreaksShow() {
        Divergence d = Divergence.of(List.of("one\ntwo"), List.of("one\ntwo three"));
        assertThat(d.at()).isEqualTo(7);
        assertThat(d.reference()).isEqualTo("one\\ntwo▶");
        assertThat(d.arm()).isEqualTo("one\\ntwo▶ three");
    }

    @Test
    void aSurrogatePairIsNeverSplitAndMatchingOutputsHaveNoDivergence() {
        String pre = "𝄞".repeat(20); // 40 UTF-16 units
        Divergence d = Divergence.of(List.of(pre + "a"), List.of(pre + "b"));
        assertThat(d.at()).isEqualTo(40);
        assertThat(d.reference()).isEqualTo("…" + "𝄞".repeat(15) + "▶a");
        assertThat(Divergence.of(List.of("same"), List.of("same", "extra"))).isNull();
    }
}
