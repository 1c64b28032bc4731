package io.isobench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Imports, not inline fully-qualified names (STYLE; docs/architecture.md): {@code scripts/fqn-imports --check} finds
 * none in {@code src/main/java}, and the tool rewrites a planted file as the rule says: a name in code becomes an
 * import, a name in a comment or a string stays, a name whose simple name means something else in the file stays.
 */
class FqnImportsTest {

    @Test
    void theMainSourcesUseImports() throws Exception {
        Run r = run("--check", "src/main/java");
        assertThat(r.out).as("fqn-imports --check").endsWith("0 inline names to rewrite\n");
        assertThat(r.code).isZero();
    }

    @Test
    void aPlantedFileIsRewrittenByTheRule(@TempDir Path dir) throws Exception {
        Path pkg = Files.createDirectories(dir.resolve("io/isobench/demo"));
        Files.writeString(pkg.resolve("Files.java"), "package io.isobench.demo;\n\nclass Files {\n}\n");
        Path f = pkg.resolve("Planted.java");
        Files.writeString(f, String.join("\n", List.of(
                "package io.isobench.demo;",
                "",
                "import java.util.List;",
                "",
                "/** Uses {@link java.util.Map} in a comment. */",
                "class Planted {",
                "    java.util.Map.Entry<String, java.util.Locale> e; // java.util.Set in a comment",
                "    String s = \"java.util.Deque in a string\";",
                "    java.nio.file.Files kept; // the package has its own Files",
                "    Object n = java.lang.Math.max(1, 2);",
                "    List<String> l;",
                "}",
                "")));
        Run r = run(dir.toString());
        assertThat(r.code).as(r.out).isZero();
        assertThat(Files.readString(f)).isEqualTo(String.join("\n", List.of(
                "package io.isobench.demo;",
                "",
                "import java.util.List;",
                "import java.util.Locale;",
                "import java.util.Map;",
                "",
                "/** Uses {@link java.util.Map} in a comment. */",
                "class Planted {",
                "    Map.Entry<String, Locale> e; // java.util.Set in a comment",
                "    String s = \"java.util.Deque in a string\";",
                "    java.nio.file.Files kept; // the package has its own Files",
                "    Object n = Math.max(1, 2);",
                "    List<String> l;",
                "}",
                "")));
        assertThat(run("--check", dir.toString()).code).as("a second pass finds nothing").isZero();
    }

    private record Run(int code, String out) {
    }

    private static Run run(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("python3", "scripts/fqn-imports"));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }
}
