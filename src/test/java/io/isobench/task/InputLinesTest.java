package io.isobench.task;

import io.isobench.IsobenchException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Input files: unreadable is bad input naming the file; JSON lines skip blank lines and keep line numbers. */
class InputLinesTest {

    @Test
    void unreadableFileIsBadInput(@TempDir Path dir) {
        Path missing = dir.resolve("missing.jsonl");
        assertThatThrownBy(() -> InputLines.read(missing)).isInstanceOf(IsobenchException.BadInput.class)
                .hasMessageStartingWith(missing + ": cannot read (");
        assertThatThrownBy(() -> InputLines.json(missing)).isInstanceOf(IsobenchException.BadInput.class);
    }

    @Test
    void jsonLinesAreNumberedAndParsedOrNot(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("rows.jsonl");
        Files.writeString(f, "{\"a\": 1}\n\n   \n  [2] \n{not json\n");
        List<InputLines.Json> lines = new ArrayList<>();
        InputLines.json(f).forEach(lines::add);
        assertThat(lines).extracting(InputLines.Json::number).containsExactly(1, 4, 5);
        assertThat(lines.get(0).node().get("a").asInt()).isEqualTo(1);
        assertThat(lines.get(1).node().isArray()).isTrue();
        assertThat(lines.get(1).error()).isNull();
        assertThat(lines.get(2).node()).isNull();
        assertThat(lines.get(2).error()).isNotNull();
    }
}
