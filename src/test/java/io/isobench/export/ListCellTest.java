package io.isobench.export;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** List cells as the old exports wrote them: Python literals, JSON arrays, numpy reprs; garbage is refused whole. */
class ListCellTest {

    @Test
    void numpyReprOfStringsWithLineBreaksInsideTheBrackets() throws Exception {
        // as hf_export/updated_rows.csv writes files_changed: no commas, a line break and a space between items
        assertThat(ListCell.parse("['tests/basic_correctness/test_chunked_prefill.py'\n 'vllm/core/scheduler.py']"))
                .containsExactly("tests/basic_correctness/test_chunked_prefill.py", "vllm/core/scheduler.py");
        assertThat(ListCell.parse("['a'\r\n 'b' \"c d\"\t'e']")).containsExactly("a", "b", "c d", "e");
        assertThat(ListCell.parse("['N/A']")).containsExactly("N/A");
        assertThat(ListCell.parse("[]")).isEmpty();
        assertThat(ListCell.parse("  [ ]  ")).isEmpty();
    }

    @Test
    void numpyReprOfNumbersKeepsTheirText() throws Exception {
        assertThat(ListCell.parse("[1. 2.5 nan\n -3e-05 inf]")).containsExactly("1.", "2.5", "nan", "-3e-05", "inf");
        assertThat(ListCell.parse("[1, 2, 3]")).containsExactly("1", "2", "3");
        assertThat(ListCell.parse("[True False None]")).containsExactly("True", "False", null);
    }

    @Test
    void pythonAndJsonListsStillRead() throws Exception {
        assertThat(ListCell.parse("['a', \"b's\", 'c\\'d', 'e\\\\f']")).containsExactly("a", "b's", "c'd", "e\\f");
        assertThat(ListCell.parse("[\"x\", null]")).containsExactly("x", null);
        assertThat(ListCell.parse("['a',]")).containsExactly("a");
    }

    @Test
    void whatIsNotAFlatReadableListIsRefusedWhole() {
        for (String bad : new String[] {
                "['a' ['b' 'c']]",          // nested brackets
                "[['a'], ['b']]",
                "['a' 'b'",                 // no closing bracket
                "a, b",                     // no brackets at all
                "['a' 'unterminated]",
                "['a' ... 'z']",            // numpy summary: the middle items are missing
                "[foo bar]",                // unquoted words
                "['a',, 'b']",              // empty item
                "[, 'a']",
                "['a'x 'b']",               // text glued to a closing quote
                "[{'k': 1}]"}) {
            assertThatThrownBy(() -> ListCell.parse(bad)).as(bad).isInstanceOf(HfValues.BadValue.class);
        }
    }
}
