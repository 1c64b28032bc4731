package io.isobench.cli;

import io.isobench.store.RunDetailsCodec;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15, point 1: {@code run --resume} never signals a stranger. An unrelated process group ({@code setsid sleep})
 * holds the PGID an interrupted run's placeholder recorded (as a recycled id would): without an identity, and with a
 * forged one (the right PGID, another start time and marker). Resume leaves both alone and clears the ids.
 */
class ResumeStrangerTest {

    @TempDir
    Path dir;

    private final List<Process> strangers = new ArrayList<>();

    @AfterEach
    void killStrangers() {
        strangers.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
        strangers.forEach(Process::destroyForcibly);
    }

    private long stranger() throws Exception {
        Process p = new ProcessBuilder("setsid", "sleep", "300").start();
        strangers.add(p);
        Thread.sleep(100); // setsid has exec'd sleep: pid = its own process group
        return p.pid();
    }

    @Test
    void aRecycledGroupIdIsLeftAloneAndForgotten() throws Exception {
        long plain = stranger();
        long forged = stranger();
        Path suite = dir.resolve("suite.yaml");
        Files.createDirectories(dir.resolve("not-a-repo"));
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./not-a-repo, name: toy}",
                "tasks:",
                "  - id: t1",
                "    human_commit: abc1234",
                "    parent_commit: abc1233",
                "    mode: latency",
                "    perf_command: python3 benchmarks/benchmark_latency.py --model toy-1m",
                "run: {rounds: 1}",
                ""));
        String db = dir.resolve("db.duckdb").toString();
        try (Store store = Stores.open(db)) {
            store.putSession(SessionRecord.builder("s1").time(Instant.now(), null).machine("h", "c", "g", "{}")
                    .suiteJson("{}").statsConfigJson("{}").seed(42L).status("running").build());
            store.putRun(placeholder("s1/t1/baseline/r0", "{\"task\":\"t1\",\"pgid\":" + plain + "}"));
            store.putRun(placeholder("s1/t1/human/r0", "{\"task\":\"t1\",\"pgid\":" + forged + ",\"group\":{\"pgid\":"
                    + forged + ",\"start_ticks\":1,\"argv\":[\"setsid\",\"sleep\",\"300\"],\"marker\":\"00ff\"}}"));
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db, "run", suite.toString(),
                "--session", "s1", "--resume", "--workdir", dir.resolve("w").toString());

        for (Process p : strangers) {
            assertThat(p.waitFor(500, TimeUnit.MILLISECONDS)).as("stranger " + p.pid() + " survives: " + err).isFalse();
        }
        assertThat(err.toString()).doesNotContain("reaped process group")
                .contains("left process group " + plain).contains("left process group " + forged);
        try (Store store = Stores.open(db)) {
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, "s1", false), runs::add);
            assertThat(runs).allSatisfy(r -> assertThat(RunDetailsCodec.encode(r.details())).doesNotContain("\"pgid\""));
        }
        // a second resume has nothing left to consider
        err = new StringWriter();
        Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "--db", db, "run", suite.toString(),
                "--session", "s1", "--resume", "--workdir", dir.resolve("w").toString());
        assertThat(err.toString()).doesNotContain("process group");
    }

    private static RunRecord placeholder(String id, String extra) {
        return RunRecord.builder(id)
                .session("s1")
                .kind(RunRecord.RunKind.MEASURED)
                .commit("abc1234", "abc1234")
                .armLabel(id.contains("human") ? "human" : "baseline")
                .status(RunRecord.RunStatus.NOT_RUN)
                .modeLabel("latency")
                .pipelineLabel("native")
                .startedAt(Instant.now())
                .argvJson("[]")
                .notes("in progress")
                .detailsJson(extra)
                .build();
    }
}
