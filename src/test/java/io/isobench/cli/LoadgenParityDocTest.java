package io.isobench.cli;

import io.isobench.loadgen.ServeFlags;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/loadgen.md's section "Parity with vllm bench serve" cannot fall behind the code: every flag the load generator
 * accepts — each long option of {@code isobench loadgen}, each vLLM-only flag it accepts with a warning, and each flag
 * name {@link ServeFlags} reads (its source, so a flag a task command may pass is covered too) — and every
 * {@code --dataset-name} value {@link ServeFlags} makes has a row there, written as a code span ({@code `--flag`} or
 * {@code `--flag VALUE`}). {@code --help} and {@code --version} (picocli's) are not workload flags and are left out.
 */
class LoadgenParityDocTest {

    private static final Path DOC = Path.of("docs/loadgen.md");
    private static final Path SERVE_FLAGS = Path.of("src/main/java/io/isobench/loadgen/ServeFlags.java");
    private static final String SECTION = "## Parity with vllm bench serve";

    static String section() throws IOException {
        String doc = Files.readString(DOC);
        int at = doc.indexOf("\n" + SECTION + "\n");
        assertThat(at).as("docs/loadgen.md has a section '%s'", SECTION).isGreaterThanOrEqualTo(0);
        int end = doc.indexOf("\n## ", at + SECTION.length() + 1);
        return end < 0 ? doc.substring(at) : doc.substring(at, end);
    }

    /** Every long option of {@code isobench loadgen}, help and version aside. */
    static Set<String> cliFlags() {
        Set<String> flags = new TreeSet<>();
        for (CommandLine.Model.OptionSpec o : new CommandLine(new LoadgenCommand()).getCommandSpec().options()) {
            for (String n : o.names()) {
                if (n.startsWith("--") && !n.equals("--help") && !n.equals("--version")) {
                    flags.add(n);
                }
            }
        }
        return flags;
    }

    /** The flag names {@link ServeFlags} reads ({@code value("x")}, {@code intOr("x", …)} …) and its task flags. */
    static Set<String> serveFlags() throws IOException {
        Set<String> flags = new TreeSet<>();
        Matcher m = Pattern.compile("\\b(?:value|values|ifPresent|intOr|doubleOr)\\(\"([a-z0-9-]+)\"")
                .matcher(Files.readString(SERVE_FLAGS));
        while (m.find()) {
            flags.add("--" + m.group(1));
        }
        for (String w : ServeFlags.WORKLOAD) {
            flags.add("--" + w);
        }
        return flags;
    }

    /** The {@code --dataset-name} values {@link ServeFlags} makes: the labels of its dataset switch. */
    static Set<String> datasetNames() throws IOException {
        String src = Files.readString(SERVE_FLAGS);
        int from = src.indexOf("b.dataset(switch");
        int to = src.indexOf("default ->", from);
        assertThat(from).as("ServeFlags still chooses the dataset with b.dataset(switch …)").isPositive();
        Set<String> names = new TreeSet<>();
        Matcher caseLine = Pattern.compile("case ([^>]+)->").matcher(src.substring(from, to));
        while (caseLine.find()) {
            Matcher m = Pattern.compile("\"([a-z_-]+)\"").matcher(caseLine.group(1));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    static boolean listed(String section, String flag) {
        return Pattern.compile("`" + Pattern.quote(flag) + "[` =]").matcher(section).find();
    }

    @Test
    void everyFlagTheLoadGeneratorAcceptsHasARow() throws IOException {
        String s = section();
        Set<String> all = new TreeSet<>(cliFlags());
        all.addAll(LoadgenCommand.VLLM_ONLY.keySet());
        all.addAll(serveFlags());
        assertThat(all).as("flags found in the code").contains("--request-rate", "--dataset-name", "--backend",
                "--prefix-repetition-num-prefixes");
        List<String> missing = all.stream().filter(f -> !listed(s, f)).toList();
        assertThat(missing).as("flags with no row in docs/loadgen.md '%s'", SECTION).isEmpty();
    }

    @Test
    void everyDatasetHasARow() throws IOException {
        String s = section();
        Set<String> names = datasetNames();
        assertThat(names).contains("random", "sharegpt", "sonnet", "prefix_repetition");
        List<String> missing = names.stream().filter(n -> !s.contains("`" + n + "`")).toList();
        assertThat(missing).as("datasets with no row in docs/loadgen.md '%s'", SECTION).isEmpty();
    }

    @Test
    void aFlagMissingFromTheTableIsCaught() {
        String table = "| `--request-rate R` | … |\n| `--burstiness` | … |";
        assertThat(listed(table, "--request-rate")).isTrue();
        assertThat(listed(table, "--burstiness")).isTrue();
        assertThat(listed(table, "--max-concurrency")).isFalse();
        assertThat(listed(table, "--request-rat")).isFalse();
    }
}
