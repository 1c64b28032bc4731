package io.isobench.report;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A stored bisect record (history.BisectSteps' shape) read back for the history page and section. */
class HistoryBisectTest {

    static final String A = "a".repeat(40);
    static final String B = "b".repeat(40);
    static final String C = "c".repeat(40);
    static final String D = "d".repeat(40);

    @Test
    void askedAndSkippedCommitsInWords() {
        String json = "{\"good\":\"" + A + "\",\"bad\":\"" + D + "\",\"found\":false,\"first_commit\":\"" + B
                + "\",\"first_low\":\"" + B + "\",\"first_high\":\"" + D + "\",\"sessions\":2,\"asked\":["
                + "{\"position\":2,\"commit\":\"" + C + "\",\"answer\":\"skip\",\"session\":\"s-c\",\"evidence\":\"BUILD_FAILED\"},"
                + "{\"position\":1,\"commit\":\"" + B + "\",\"answer\":\"clean\",\"session\":\"s-b\",\"evidence\":\"equivalent\"}],"
                + "\"skipped\":[{\"position\":2,\"commit\":\"" + C + "\",\"reason\":\"BUILD_FAILED\"}]}";
        HistoryBisect b = HistoryBisect.parse(json);
        assertThat(b).isNotNull();
        assertThat(b.describe()).isEqualTo("asked cccccccc: skip, bbbbbbbb: clean; skipped cccccccc (did not build);"
                + " the first commit lies between bbbbbbbb and dddddddd: skipped commits between could not be asked");
        assertThat(b.answerFor(C)).isEqualTo("skipped (did not build)");
        assertThat(b.answerFor(B)).isEqualTo("clean");
        assertThat(b.answerFor(A)).isNull();
        assertThat(b.asked()).extracting(HistoryBisect.Step::session).containsExactly("s-c", "s-b");
    }

    @Test
    void anotherShapeIsNotABisect() {
        assertThat(HistoryBisect.parse(null)).isNull();
        assertThat(HistoryBisect.parse("not json")).isNull();
        assertThat(HistoryBisect.parse("{\"steps\":[]}")).isNull();
    }
}
