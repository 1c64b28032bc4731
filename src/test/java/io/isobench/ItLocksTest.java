package io.isobench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The integration tests and the unit tests run two classes at a time (ItLocks); this keeps a class that uses a shared
 * resource from running beside another that uses it: by what its source names, it must hold that resource's lock or be
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

    /**
     * What a unit test's source names that makes it {@code @Isolated}: JVM-wide state it sets (a system property, and
     * through it user.home or the load generator's transport) or reads as a whole (this JVM's open descriptors, every
     * process of the machine, this JVM's thread or memory figures), or timing it asserts under {@code
     * -Disobench.timing=true}.
     */
    private static final Pattern UNIT_ALONE = Pattern.compile("System\\.setProperty|System\\.clearProperty"
            + "|ProcessHandle\\.allProcesses|/proc/self/fd|getThreadMXBean|getMemoryMXBean"
            + "|isobench\\.timing|\\.TIMING\\b");

    /** The rules this class's source breaks, one line each; empty when it keeps them. */
    static List<String> broken(String name, String source) {
        List<String> out = new ArrayList<>();
        boolean isolated = isolated(source);
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

    /** The rule this unit test's source breaks (one line), or none. */
    static List<String> brokenUnit(String name, String source) {
        Matcher m = UNIT_ALONE.matcher(source);
        if (!m.find() || isolated(source)) {
            return List.of();
        }
        return List.of(name + " uses " + m.group() + " (JVM-wide state, or timing) without @Isolated");
    }

    private static boolean isolated(String source) {
        return Pattern.compile("(?m)^@Isolated\\b").matcher(source).find();
    }

    @Test
    void everyUnitTestThatTouchesJvmWideStateRunsAlone() throws IOException {
        Map<String, String> units = sources("Test.java");
        units.remove("ItLocksTest.java"); // its patterns name what they look for
        assertThat(units).hasSizeGreaterThan(200);
        assertThat(units.entrySet()).flatExtracting(e -> brokenUnit(e.getKey(), e.getValue())).isEmpty();
    }

    @Test
    void aUnitTestThatSetsAPropertyWithoutRunningAloneIsFound() {
        String home = "class HomeTest {\n  void t() { System.setProperty(\"user.home\", \"/tmp/x\"); }\n}\n";
        assertThat(brokenUnit("HomeTest.java", home)).singleElement().asString()
                .contains("System.setProperty").contains("@Isolated");
        assertThat(brokenUnit("HomeTest.java", "@Isolated(\"user.home\")\n" + home)).isEmpty();
        assertThat(brokenUnit("PlainTest.java", "class PlainTest {\n  void t() { }\n}\n")).isEmpty();
    }

    @Test
    void everyIntegrationTestHoldsTheLocksOfWhatItUses() throws IOException {
        Map<String, String> its = sources("IT.java");
        assertThat(its).hasSizeGreaterThan(30);
        assertThat(its.entrySet()).flatExtracting(e -> broken(e.getKey(), e.getValue())).isEmpty();
    }

    /** Every test source under src/test/java whose file name ends with {@code suffix}: file name → text. */
    private static Map<String, String> sources(String suffix) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(suffix)).toList()) {
                out.put(f.getFileName().toString(), Files.readString(f));
            }
        }
        return out;
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
