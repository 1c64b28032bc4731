package io.isobench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden files: machine formats sealed as contracts. {@code -Disobench.golden.rewrite=true} writes the actual text
 * instead of comparing (after an intended change; review the diff).
 */
public final class Golden {

    private Golden() {
    }

    public static void check(Path file, String actual) throws IOException {
        if (Boolean.getBoolean("isobench.golden.rewrite")) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, actual, StandardCharsets.UTF_8);
        }
        assertThat(file).as("golden file (create it with -Disobench.golden.rewrite=true)").exists();
        assertThat(actual).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }
}
