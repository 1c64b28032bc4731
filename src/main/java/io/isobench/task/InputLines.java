package io.isobench.task;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.IsobenchException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A user-named input file read line by line (ISO-Bench JSON lines, the simulator's durations): unreadable is bad
 * input naming the file. The callers word their own messages for a line that is not what they expect.
 */
public final class InputLines {

    /**
     * One non-blank line of a JSON-lines file, parsed.
     *
     * @param number 1-based line number
     * @param node   the parsed value, null when it did not parse
     * @param error  why it did not parse, null when it did
     */
    public record Json(int number, JsonNode node, JsonProcessingException error) {
    }

    private InputLines() {
    }

    /** All lines of {@code file} (UTF-8); {@link IsobenchException.BadInput} when it cannot be read. */
    public static List<String> read(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IsobenchException.BadInput(file + ": cannot read (" + e.getMessage() + ")", e);
        }
    }

    /** The non-blank lines of {@code file}, stripped and parsed one at a time as they are iterated. */
    public static Iterable<Json> json(Path file) {
        List<String> lines = read(file);
        ObjectMapper mapper = new ObjectMapper();
        return () -> IntStream.range(0, lines.size())
                .filter(i -> !lines.get(i).isBlank())
                .mapToObj(i -> parse(mapper, i + 1, lines.get(i).strip()))
                .iterator();
    }

    private static Json parse(ObjectMapper mapper, int number, String line) {
        try {
            return new Json(number, mapper.readTree(line), null);
        } catch (JsonProcessingException e) {
            return new Json(number, null, e);
        }
    }
}
