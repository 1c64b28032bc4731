package io.isobench.exec;

import io.isobench.Arm;
import io.isobench.CountedRounds;
import io.isobench.store.RunDetailsCodec;
import io.isobench.SharedData;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.proc.ProcessGroup;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Crash safety of {@code isobench run} (DESIGN §4): the real CLI is SIGKILLed mid-session (a server running),
 * then {@code run --resume} finishes the session: every job exactly once, the runs finished before the kill
 * untouched, and the process group the killed orchestrator left behind reaped.
 */
class SigkillResumeIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void killedSessionResumesWithoutRepeatsOrDoubleCounting() throws Exception {
        SharedData.requireService(Cli.has("python3") && Cli.has("git") && Cli.has("setsid"),
                "python3, git and setsid (util-linux) for the toy engine");
        Path repo = dir.resolve("repo");
        Cli.buildToyRepo(repo);
        Path patch = Path.of("examples/toy-engine/patches/agents/alpha/tpot.patch").toAbsolutePath();
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, String.join("\n",
                "engine: {repo: ./repo, name: toy}",
                "tasks:",
                "  - id: tpot",
                "    human_commit: task-tpot",
                "    parent_commit: baseline",
                "    mode: serving",
                "    model: toy-1m",
                "    server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model} {server_flags}",
                "    perf_command: vllm bench serve --model toy-1m --dataset-name random --random-input-len 32 "
                        + "--random-output-len 64 --num-prompts 8 --max-concurrency 4 --ignore-eos",
                "agents:",
                "  - name: alpha",
                "    patches: {tpot: " + patch + "}",
                "run: {rounds: 3, seed: 42, warmup_requests: 1, timeouts: {server_start_s: 20, run_s: 60, build_s: 30}}",
                ""));
        String db = dir.resolve("db.duckdb").toString();
        String work = dir.resolve("work").toString();
        int jobs = 4 + 4 * 3; // checks: baseline, its repeat, human, alpha; 3 rounds of baseline, baseline-aa, human, alpha

        Process first = Cli.builder("run", suite.toString(), "--db", db, "--session", "kill-me", "--workdir", work)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Pattern progress = Pattern.compile("^job (\\d+)/(\\d+) ");
        AtomicInteger finished = new AtomicInteger();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(first.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                Matcher m = progress.matcher(line);
                if (m.find()) {
                    assertThat(Integer.parseInt(m.group(2))).isEqualTo(jobs);
                    if (finished.incrementAndGet() == 5) {
                        Thread.sleep(400); // the next job's server is starting or running
                        first.destroyForcibly(); // SIGKILL
                        break;
                    }
                }
            }
        }
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).as("killed by SIGKILL: " + lines).isEqualTo(137);

        Map<String, RunRecord> before = new HashMap<>();
        List<Long> leftGroups = new ArrayList<>();
        try (Store store = Stores.open(db)) {
            store.forEachRun(new RunFilter(null, null, "kill-me", false), r -> before.put(r.runId(), r));
        }
        long done = before.values().stream().filter(r -> r.status() != RunRecord.RunStatus.NOT_RUN).count();
        assertThat(done).isBetween(5L, 6L);
        for (RunRecord r : before.values()) {
            if (r.status() == RunRecord.RunStatus.NOT_RUN) {
                var m = Pattern.compile("\"pgid\":(\\d+)").matcher(RunDetailsCodec.encode(r.details()));
                if (m.find()) {
                    leftGroups.add(Long.parseLong(m.group(1)));
                }
            }
        }

        Process second = Cli.builder("run", suite.toString(), "--db", db, "--session", "kill-me", "--resume",
                "--workdir", work).redirectErrorStream(true).start();
        String out = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(second.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(second.exitValue()).as(out).isZero();
        assertThat(out).contains("resuming session kill-me: " + done + " run(s) already finished");
        for (long pgid : leftGroups) {
            assertThat(ProcessGroup.members(pgid)).as("group " + pgid + " left by the killed run").isEmpty();
        }

        try (Store store = Stores.open(db)) {
            List<RunRecord> after = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, "kill-me", false), after::add);
            assertThat(after).hasSize(jobs);
            assertThat(after).allMatch(r -> r.status() == RunRecord.RunStatus.SUCCESS);
            assertThat(after.stream().map(RunRecord::runId).distinct()).hasSize(jobs);
            for (RunRecord r : after) {
                RunRecord b = before.get(r.runId());
                if (b != null && b.status() != RunRecord.RunStatus.NOT_RUN) {
                    assertThat(r.primaryValue()).as("finished before the kill: " + r.runId()).isEqualTo(b.primaryValue());
                    assertThat(r.startedAt()).isEqualTo(b.startedAt());
                }
            }
            SessionAnalysis a = SessionAnalysis.of(store, "kill-me", StatsConfig.defaults());
            var t = a.tasks().get(0);
            assertThat(t.runs()).containsEntry(Arm.BASELINE, 3).containsEntry(Arm.HUMAN, 3)
                    .containsEntry(Arm.ofStored("agent:alpha"), 3);
            // every run counted, unless the load generator's own check excluded it (docs/loadgen.md "Client self-check")
            CountedRounds.assertCounted(t.analysis(), Arm.BASELINE, 3, 1);
            CountedRounds.assertCounted(t.analysis(), Arm.ofStored("agent:alpha"), 3, 1);
        }
    }
}
