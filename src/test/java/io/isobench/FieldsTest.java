package io.isobench;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A record's fields as a map: names in the order given, null values kept, and the map open to additions. */
class FieldsTest {

    @Test
    void keepsOrderAndNulls() {
        Map<String, Object> m = Fields.inOrder("z", 1, "a", null, "m", "x");
        assertThat(m.keySet()).containsExactly("z", "a", "m");
        assertThat(m).containsEntry("a", null).containsEntry("z", 1);
        m.put("extra", true);
        assertThat(m).hasSize(4);
    }

    @Test
    void namesAndValuesComeInPairs() {
        assertThatThrownBy(() -> Fields.inOrder("a", 1, "b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Fields.inOrder()).isEmpty();
    }
}
