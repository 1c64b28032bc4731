package io.isobench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The integration tests run two classes at a time (ItLocks); this keeps a class that uses a shared resource from
 * running beside another that uses it: by what its source names, it must hold that resource's lock or be
 * {@code @Isolated} (which runs it alone).
 */
class ItLocksTest {

    /** What a source names → the lock it must hold. */
    private record Rule(Pattern uses, String lock) {
    }

    private static final List<Rule> RULES = List.of(
            new Rule(Pattern.compile("SlurmExecutor|SlurmCli|sbatch"), "ItLocks.SLURM"),
            new Rule(Pattern.compile("DockerSandbox\\b"), "ItLocks.SANDBOX"),
            new Rule(Pattern.compile("DockerExecutor|DockerLeftovers|\"--executor\", \"docker\"|executor: docker"
                    + "|run\\(\"docker\""), "ItLocks.DOCKER_EXECUTOR"),
            // the shared demo session: whoever runs it first must run alone (DemoIT checks its verdicts)
            new Rule(Pattern.compile("DemoRun\\."), "@Isolated"));

    /** The rules this class's source breaks, one line each; empty when it keeps them. */
    static List<String> broken(String name, String source) {
        List<String> out = new ArrayList<>();
        boolean isolated = Pattern.compile("(?m)^@Isolated\\b").matcher(source).find();
        for (Rule r : RULES) {
            if (!r.uses().matcher(source).find() || isolated) {
                continue;
            }
            if (r.lock().equals("@Isolated") || !source.contains("@ResourceLock(" + r.lock() + ")")) {
                out.add(name + " uses what " + r.lock() + " guards (" + r.uses().pattern() + ") without it");
            }
        }
        return out;
    }

    @Test
    void everyIntegrationTestHoldsTheLocksOfWhatItUses() throws IOException {
        List<String> broken = new ArrayList<>();
        int its = 0;
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith("IT.java")).toList()) {
                its++;
                broken.addAll(broken(f.getFileName().toString(), Files.readString(f)));
            }
        }
        assertThat(its).isGreaterThan(30);
        assertThat(broken).isEmpty();
    }

    @Test
    void aClassWithoutItsLockIsFound() {
        String slurm = "class QueueIT {\n  void t() { SlurmCli.run(List.of(\"squeue\")); }\n}\n";
        assertThat(broken("QueueIT.java", slurm)).singleElement().asString().contains("ItLocks.SLURM");
        assertThat(broken("QueueIT.java", "@ResourceLock(ItLocks.SLURM)\n" + slurm)).isEmpty();
        assertThat(broken("QueueIT.java", "@Isolated(\"alone\")\n" + slurm)).isEmpty();
        String demo = "class PageIT {\n  void t() { DemoRun.adaptive(); }\n}\n";
        assertThat(broken("PageIT.java", "@ResourceLock(ItLocks.SANDBOX)\n" + demo)).singleElement().asString()
                .contains("@Isolated");
    }
}
