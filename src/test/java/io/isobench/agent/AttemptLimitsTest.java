package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.ToyRepo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An attempt's size limits, enforced while its bytes stream (docs/agents.md, "Limits"; issue 27, item 5): each limit
 * hit is the attempt's status, never an exception, with real python3 "agents" on the toy engine's sealed tree and
 * small configured limits (sizes made cheap: sparse files, hard links). And a patch holding the attempt's own secret
 * value is flagged, not rewritten.
 */
class AttemptLimitsTest {

    @TempDir
    static Path shared;
    static Path engine;
    static final String SECRET = "sk-test-limits-0123456789abcdefKEY";

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        engine = shared.resolve("toyllm-repo");
        ToyRepo.build(engine);
    }

    private static AttemptResult attempt(Path root, String script, AttemptLimits limits) throws Exception {
        Path agent = root.resolve("agent.py");
        Files.createDirectories(root);
        Files.writeString(agent, script);
        AttemptDirs dirs = AttemptDirs.under(root.resolve("attempt"));
        SealedRepo sealed = SealedRepo.create(engine, "baseline", dirs);
        AgentConfig config = new AgentConfig("command", null, List.of("python3", agent.toString(), "{repo}",
                "{prompt_file}"), "m-1", null, List.of("MY_API_KEY"), Map.of(), new Budget(60.0, null, null, null),
                Map.of());
        AttemptRunner runner = new AttemptRunner(new CommandAdapter(), config, new LocalSandbox("python3", null),
                Map.of("MY_API_KEY", SECRET), limits);
        return AtifStores.valid(runner.run(dirs, sealed, "Task t1: make it faster.\n"));
    }

    private static AttemptLimits limits(long outputBytes, long patchBytes, int steps) {
        return new AttemptLimits(outputBytes, patchBytes, steps);
    }

    @Test
    void outputPastTheLimitIsOutputTooLargeAndTheAgentIsKilled(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys, time
                open(os.path.join(sys.argv[1], "README.md"), "a").write("x\\n")
                line = "y" * 65535
                for i in range(128):  # 8 MiB, then it would wait
                    print(line, flush=True)
                time.sleep(50)
                """, limits(1 << 20, 32 << 20, 1000));
        assertThat(r.status()).isEqualTo(AttemptStatus.OUTPUT_TOO_LARGE);
        assertThat(r.detail()).contains("stdout passed 1048576 bytes").contains("killed by isobench");
        assertThat(r.wallS()).as("killed at the limit, not at the wall time").isLessThan(40);
        Path stdout = root.resolve("attempt/agent.stdout");
        assertThat(Files.size(stdout)).isBetween(1L << 20, (1L << 20) + 4096);
        assertThat(r.rawStdout()).contains("passed its limit of 1048576 bytes");
    }

    @Test
    void aLineWithoutEndIsReadInBoundedPieces(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys
                open(os.path.join(sys.argv[1], "README.md"), "a").write("x\\n")
                sys.stdout.write("z" * (10 * 1024 * 1024))
                sys.stdout.flush()
                """, limits(64 << 20, 32 << 20, 1000));
        assertThat(r.status()).isEqualTo(AttemptStatus.OK);
        List<String> lines = Files.readAllLines(root.resolve("attempt/agent.stdout"));
        assertThat(lines).hasSizeGreaterThanOrEqualTo(3);
        assertThat(lines).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(OutputPump.LINE_BYTES));
        assertThat(lines.stream().mapToLong(String::length).sum()).as("every byte kept").isEqualTo(10L << 20);
    }

    @Test
    void aSparseFileCountsWholeAndIsPatchTooLargeBeforeGitReadsIt(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys
                with open(os.path.join(sys.argv[1], "weights.bin"), "wb") as f:
                    f.truncate(2 * 1024 * 1024 * 1024)  # 2 GiB apparent, nothing on disk
                """, limits(64 << 20, 8 << 20, 1000));
        assertThat(r.status()).isEqualTo(AttemptStatus.PATCH_TOO_LARGE);
        assertThat(r.detail()).contains("apparent size").contains("weights.bin: 2147483648 bytes");
        assertThat(r.patchBytes()).isEmpty();
        assertThat(r.wallS()).isLessThan(30);
    }

    @Test
    void eachHardLinkCounts(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys
                first = os.path.join(sys.argv[1], "blob0.bin")
                with open(first, "wb") as f:
                    f.write(os.urandom(1024 * 1024))
                for i in range(1, 24):
                    os.link(first, os.path.join(sys.argv[1], "blob%d.bin" % i))
                """, limits(64 << 20, 8 << 20, 1000));
        assertThat(r.status()).isEqualTo(AttemptStatus.PATCH_TOO_LARGE);
        assertThat(r.detail()).contains("hold 25165824 bytes");
    }

    @Test
    void aDiffPastTheLimitIsCutOffWhileGitWritesIt(@TempDir Path root) throws Exception {
        // 3 MiB of one-character lines: under the 4 MiB limit on disk, 4.5 MiB as a diff ("+a\\n" each)
        AttemptResult r = attempt(root, """
                import os, sys
                open(os.path.join(sys.argv[1], "lines.txt"), "w").write("a\\n" * (1536 * 1024))
                """, limits(64 << 20, 4 << 20, 1000));
        assertThat(r.status()).isEqualTo(AttemptStatus.PATCH_TOO_LARGE);
        assertThat(r.detail()).contains("while git wrote it");
        assertThat(root.resolve("attempt/patch.diff")).as("no cut patch is left").doesNotExist();
    }

    @Test
    void aPatchWithTheAttemptsOwnKeyIsFlaggedAndOnlyTheValueMasked(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys
                open(os.path.join(sys.argv[1], "client.py"), "w").write(
                    "token = tokenizer.decode(ids)\\nKEY = '" + os.environ["MY_API_KEY"] + "'\\n")
                """, AttemptLimits.DEFAULT);
        assertThat(r.status()).isEqualTo(AttemptStatus.PATCH_HAS_SECRET);
        assertThat(r.detail()).contains("[MY_API_KEY]").contains("not written beside the suite nor measured");
        assertThat(r.patch()).contains("+token = tokenizer.decode(ids)\n", "+KEY = '***'\n").doesNotContain(SECRET);
        assertThat(Files.readString(root.resolve("attempt/patch.diff"))).doesNotContain(SECRET);
    }

    @Test
    void theTrajectoryKeepsItsLimitOfStepsAndSaysTheRest(@TempDir Path root) throws Exception {
        AttemptResult r = attempt(root, """
                import os, sys
                open(os.path.join(sys.argv[1], "README.md"), "a").write("x\\n")
                for i in range(50):
                    print("step", i)
                """, limits(64 << 20, 32 << 20, 10));
        assertThat(r.status()).isEqualTo(AttemptStatus.OK);
        assertThat(r.trajectory().steps()).hasSize(10);
        assertThat(r.trajectory().steps().get(9).message()).contains("41 more steps left out");
        assertThat(new String(Files.readAllBytes(root.resolve("attempt/agent.stdout")), StandardCharsets.UTF_8))
                .as("the raw output is whole").contains("step 49");
    }

    @Test
    void maskValueReplacesExactlyTheValuesBytes() {
        byte[] in = "a=sk-XYZW;b=sk-XYZW\n".getBytes(StandardCharsets.UTF_8);
        assertThat(new String(AttemptRunner.maskValue(in, "sk-XYZW"), StandardCharsets.UTF_8)).isEqualTo("a=***;b=***\n");
        assertThat(AttemptRunner.maskValue(in, "absent")).isSameAs(in);
        assertThat(AttemptRunner.maskValue(in, "sk-")).as("too short to be a key").isSameAs(in);
    }
}
