package io.isobench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The house's shape (docs/architecture.md): {@code scripts/shape-check} finds no class over 600 lines, no method over 7
 * parameters and no wide record rebuilt positionally at call sites in {@code src/main/java}.
 */
class ShapeCheckTest {

    @Test
    void theMainSourcesHaveNoShapeFault() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("python3", "scripts/shape-check", "src/main/java")
                .directory(Path.of(".").toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("shape-check finished").isTrue();
        assertThat(out).as("shape-check output").isEmpty();
        assertThat(p.exitValue()).isZero();
    }
}
