package io.isobench.parse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.isobench.SharedData;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Reads the real ISO-Bench files under ../shared/isobench-data (skips when absent; never copied into the project). */
final class RealFiles {

    static final String R = "archive/results/2026-01/";
    static final String CLAUDE = R + "omniperf_results_3way_claude_code/";
    static final String CODEX = R + "omniperf_results_3way_codex/";
    static final String CODEX_CLI = R + "omniperf_results_3way_codex_cli/";

    private static final ObjectMapper JSON = new ObjectMapper();

    private RealFiles() {
    }

    static Path path(String relative) {
        return SharedData.isobenchData().resolve(relative);
    }

    static JsonNode json(String relative) {
        try {
            return JSON.readTree(path(relative).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String text(String relative) {
        try {
            return Files.readString(path(relative), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A string field by JSON pointer ("/result/baseline_raw"), or null. */
    static String field(String relative, String pointer) {
        JsonNode n = json(relative).at(pointer);
        return n.isMissingNode() || n.isNull() ? null : n.asText();
    }

    /** Every long string value (raw console text) in every parseable JSON file of the sample, plus .txt files. */
    static List<String> allRawTexts() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SharedData.isobenchData())) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                String name = p.getFileName().toString();
                if (name.endsWith(".txt")) {
                    out.add(Files.readString(p, StandardCharsets.UTF_8));
                } else if (name.endsWith(".json")) {
                    try {
                        collect(JSON.readTree(p.toFile()), out);
                    } catch (IOException e) {
                        out.add(Files.readString(p, StandardCharsets.UTF_8)); // the corrupt files: raw text is input too
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static void collect(JsonNode n, List<String> out) {
        if (n.isTextual() && n.asText().length() > 200) {
            out.add(n.asText());
        } else if (n.isContainerNode()) {
            n.forEach(c -> collect(c, out));
        }
    }
}
