package io.isobench.agent;

import io.isobench.AtifStores;
import io.isobench.ToyRepo;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.task.Suite;
import io.isobench.task.SuiteLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An honest agent's patch survives {@code isobench agents run} byte for byte (issue 27, item 1): code the generic
 * secret redactor would rewrite ({@code token = tokenizer.decode(ids)}, {@code self.api_key = api_key}), a form
 * feed, a tab and a byte that is not UTF-8 reach the store's artifact, the planned patch file and the exported one
 * beside the suite unchanged, the patch applies to the parent commit and gives the agent's exact bytes, the export
 * names it in the suite, and a resumed run plans it again.
 */
class AgentPatchBytesTest {

    /** What the agent writes into a new file: code the redactor matches, a tab, a form feed, a Latin-1 byte. */
    static final byte[] CODE = ("def step(self, tokenizer, ids, api_key):\n\ttoken = tokenizer.decode(ids)\n"
            + "\tself.api_key = api_key\n\f\n\treturn token  # caf").getBytes(StandardCharsets.ISO_8859_1);
    static final byte[] CODE_END = {(byte) 0xE9, '\n'};

    @TempDir
    Path dir;
    Path suiteFile;

    @BeforeEach
    void suite() throws Exception {
        assumeTrue(ToyRepo.toolsPresent(), "python3, git and setsid are needed for the toy repo");
        ToyRepo.build(dir.resolve("toyllm-repo"));
        String demo = Files.readString(Path.of("examples/toy-engine/demo-suite.yaml"));
        String head = demo.substring(0, demo.indexOf("\nagents:"));
        Files.writeString(dir.resolve("agent.py"), """
                import os, re, sys
                repo, prompt = sys.argv[1], sys.argv[2]
                task = re.search(r"Task (\\S+):", open(prompt).read()).group(1)
                for root, dirs, files in os.walk(repo):
                    dirs[:] = [d for d in dirs if d != ".git"]
                    if "model.py" in files:
                        model = os.path.join(root, "model.py")
                src = open(model, "rb").read()
                # one neutral line changed just below "token = ..." lines of the engine
                src = src.replace(b"score = (h >> 12) / float(1 << 20)",
                                  b"score = (h >> 12) / float(1 << 20)  # " + task.encode())
                open(model, "wb").write(src)
                code = bytes.fromhex(sys.argv[3])
                open(os.path.join(os.path.dirname(model), "step_" + task + ".py"), "wb").write(code)
                print('isobench-usage: {"turns":1,"tokens_in":10,"tokens_out":5}')
                """);
        byte[] all = new byte[CODE.length + CODE_END.length];
        System.arraycopy(CODE, 0, all, 0, CODE.length);
        System.arraycopy(CODE_END, 0, all, CODE.length, CODE_END.length);
        suiteFile = dir.resolve("suite.yaml");
        Files.writeString(suiteFile, head + """

                agents:
                  - name: honest
                    model: m-1
                    runner:
                      adapter: command
                      argv: [python3, "%s", "{repo}", "{prompt_file}", "%s"]
                """.formatted(dir.resolve("agent.py"), HexFormat.of().formatHex(all)));
    }

    private AgentsRun.Summary run(Store store, String resume) throws Exception {
        Suite suite = SuiteLoader.load(suiteFile);
        return new AgentsRun(store, Map.of(), s -> { }, AgentsRun.defaultSandboxes("local"))
                .run(new AgentsRun.Request(suite, "honest", List.of("tpot", "latency"), 1, "local",
                        dir.resolve("work"), resume));
    }

    @Test
    void anHonestPatchSurvivesAgentsRunByteForByteAndApplies() throws Exception {
        try (Store store = Stores.open(dir.resolve("s.duckdb").toString())) {
            AgentsRun.Summary first = run(store, null);
            assertThat(first.attempts()).extracting(AgentsRun.AttemptRow::status)
                    .containsExactly(AttemptStatus.OK, AttemptStatus.OK);
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.AGENT_ATTEMPT), first.sessionId(), false),
                    runs::add);
            assertThat(runs).hasSize(2);
            assertThat(AtifStores.assertEveryTrajectoryValid(store)).isEqualTo(2);
            StoredAttempts stored = StoredAttempts.read(store, first.sessionId(), "--attempts-of");
            Suite planned = stored.plan(SuiteLoader.load(suiteFile), dir.resolve("work/attempts"), s -> { });
            stored.exportTo(SuiteLoader.load(suiteFile), s -> { });
            for (RunRecord run : runs) {
                var d = run.details().section(AttemptRecords.SECTION);
                String task = d.path("task").asText();
                Path file = planned.agents().get(1).patches().get(task);
                byte[] onDisk = Files.readAllBytes(file);
                assertThat(Files.readAllBytes(dir.resolve("patches/honest@1/" + task + ".diff")))
                        .as("the export writes the same bytes beside the suite").isEqualTo(onDisk);
                String latin = new String(onDisk, StandardCharsets.ISO_8859_1); // one char per byte
                assertThat(latin).contains("+\ttoken = tokenizer.decode(ids)\n", "+\tself.api_key = api_key\n",
                        "+\f\n", "caf\u00e9\n", "float(1 << 20)  # " + task);
                assertThat(sha256(onDisk)).isEqualTo(d.path("patch_sha256").asText());
                assertThat(store.artifact(d.path("patch_artifact").asText())).as("the store keeps the patch whole")
                        .hasValueSatisfying(b -> assertThat(b).isEqualTo(onDisk));

                Path clone = dir.resolve("apply-" + task);
                ToyRepo.run(dir, "git", "clone", "-q", dir.resolve("toyllm-repo").toString(), clone.toString());
                ToyRepo.run(clone, "git", "checkout", "-q", d.path("parent_commit").asText());
                ToyRepo.run(clone, "git", "apply", "--check", file.toString());
                ToyRepo.run(clone, "git", "apply", file.toString());
                try (var files = Files.walk(clone)) {
                    Path step = files.filter(p -> p.getFileName().toString().equals("step_" + task + ".py"))
                            .findFirst().orElseThrow();
                    byte[] applied = Files.readAllBytes(step);
                    assertThat(applied).startsWith(CODE).endsWith(CODE_END).hasSize(CODE.length + 2);
                }
            }
            Suite after = SuiteLoader.load(suiteFile);
            assertThat(after.agents()).extracting(a -> a.name()).containsExactly("honest", "honest@1");
            assertThat(after.agents().get(1).patches()).containsOnlyKeys("tpot", "latency");

            // a resumed run keeps the stored attempts; planning them again must not fail on a stored patch
            AgentsRun.Summary resumed = run(store, first.sessionId());
            assertThat(resumed.attempts()).extracting(AgentsRun.AttemptRow::resumed).containsExactly(true, true);
            assertThat(StoredAttempts.read(store, first.sessionId(), "--attempts-of").plan(SuiteLoader.load(
                    suiteFile), dir.resolve("work/attempts"), s -> { }).agents().get(1).patches())
                    .containsOnlyKeys("tpot", "latency");
        }
    }

    static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
