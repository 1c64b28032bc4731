package io.isobench.cli;

import io.isobench.SharedData;
import io.isobench.analysis.SequentialDesign;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.Stopping;
import io.isobench.analysis.Verdict;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, adaptive rounds in a real session ({@code isobench run}, the default rounds): a synthetic CPU-bound engine
 * with two tasks — {@code fast}, whose human commit does a third of the work (a 3× speedup), and {@code same}, whose
 * human commit only edits a comment. {@code fast} stops at the first look (round 3) with {@code better} and runs no
 * later round; {@code same} never gets {@code better}/{@code worse}. The session stored its design with every look's
 * levels; {@code --dry-run} says "up to 8 rounds"; {@code --rounds 4} runs a fixed design.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class AdaptiveSessionIT {

    /**
     * A CPU-bound "engine": burns WORK × 0.05 s of CPU time. command_cpu_s comes in 10 ms clock ticks, so the fast
     * commit burns 0.2 s, not less: at 0.05 s a tick was 14 % of its value, and one tick's wobble between rounds kept a
     * 2.4× effect from its first look (CI: 0.07, 0.07, 0.08 against 0.17).
     */
    private static final String ENGINE = """
            # burns CPU%s
            import time
            WORK = %d
            t = time.process_time()
            while time.process_time() - t < 0.05 * WORK:
                pass
            print('done')
            """;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aLargeEffectStopsAtTheFirstLook_aNullTaskIsNeverBetterOrWorse() throws Exception {
        SharedData.requireService(Llama2cExampleIT.onPath("git") && Files.isExecutable(Path.of("/usr/bin/python3"))
                && Llama2cExampleIT.onPath("setsid"), "git, /usr/bin/python3 and setsid (util-linux)");
        Path repo = Files.createDirectories(dir.resolve("engine"));
        TestGit.git(repo, "init", "-q");
        Files.writeString(repo.resolve("burn.py"), ENGINE.formatted("", 12));
        TestGit.commit(repo, "burn.py", "twelve units of work");
        TestGit.git(repo, "tag", "parent");
        Files.writeString(repo.resolve("burn.py"), ENGINE.formatted("", 4));
        TestGit.commit(repo, "burn.py", "a third of the work");
        TestGit.git(repo, "tag", "fast");
        TestGit.git(repo, "checkout", "-q", "parent");
        Files.writeString(repo.resolve("burn.py"), ENGINE.formatted(" (a comment, nothing else)", 12));
        TestGit.commit(repo, "burn.py", "comments only");
        TestGit.git(repo, "tag", "same");
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                name: adaptive
                engine: {name: generic, repo: ./engine}
                tasks:
                  - id: fast
                    human_commit: fast
                    parent_commit: parent
                    offline:
                      command: [/usr/bin/python3, burn.py]
                      metrics:
                        - {name: command_cpu_s, primary: true}
                  - id: same
                    human_commit: same
                    parent_commit: parent
                    offline:
                      command: [/usr/bin/python3, burn.py]
                      metrics:
                        - {name: command_cpu_s, primary: true}
                run: {seed: 11}
                """);
        Path db = dir.resolve("adaptive.duckdb");
        StringWriter dry = new StringWriter();
        assertThat(Main.run(new PrintWriter(dry, true), new PrintWriter(new StringWriter(), true), "--db",
                db.toString(), "run", suite.toString(), "--dry-run", "--workdir", dir.resolve("work").toString()))
                .isZero();
        assertThat(dry.toString()).contains("up to 8 round(s)").contains("rounds: up to 8 rounds (adaptive: a look"
                + " after every round from round 3");

        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db",
                db.toString(), "run", suite.toString(), "--workdir", dir.resolve("work").toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(err.toString()).contains("task fast: stopped after round 3 of up to 8: every gating comparison"
                + " decided (human vs baseline better)");

        try (Store store = Stores.open(db.toString())) {
            String session = store.sessions().get(0).sessionId();
            SequentialDesign design = SequentialDesign.ofSettings(store.session(session).orElseThrow()
                    .statsConfigJson());
            assertThat(design.adaptive()).isTrue();
            assertThat(design.looks(0.95)).hasSize(6);
            com.fasterxml.jackson.databind.JsonNode stored = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(store.session(session).orElseThrow().statsConfigJson()).path("design");
            assertThat(stored.path("looks").get(0).path("efficacy_level").asDouble()).isBetween(0.0005, 0.005);
            assertThat(stored.path("stops").path("fast").path("rounds").asInt()).isEqualTo(3);
            assertThat(stored.path("stops").path("fast").path("reason").asText()).isEqualTo("decided");
            assertThat(stored.path("stops").path("same").path("rounds").asInt()).isBetween(3, 8);
            List<SessionAnalysis.TaskResult> tasks = SessionAnalysis.of(store, session, StatsConfig.defaults())
                    .tasks();
            SessionAnalysis.TaskResult fast = task(tasks, "fast");
            SessionAnalysis.TaskResult none = task(tasks, "same");
            Stopping fs = fast.analysis().stopping();
            System.out.printf(Locale.ROOT, "AdaptiveSessionIT: fast: %s; %s%nAdaptiveSessionIT: same: %s; %s%n",
                    fs.describe(), fast.analysis().humanVsBaseline().reason(), none.analysis().stopping().describe(),
                    none.analysis().humanVsBaseline().reason());
            assertThat(fast.analysis().humanVsBaseline().verdict()).isEqualTo(Verdict.BETTER);
            assertThat(fast.analysis().humanVsBaseline().speedup()).isBetween(2.0, 4.0);
            assertThat(fs.lookRounds()).isEqualTo(3);
            assertThat(fs.reason()).isEqualTo(Stopping.Reason.DECIDED);
            assertThat(fs.roundsSaved()).isEqualTo(5);
            assertThat(none.analysis().humanVsBaseline().verdict()).as(none.analysis().humanVsBaseline().reason())
                    .isNotEqualTo(Verdict.BETTER).isNotEqualTo(Verdict.WORSE);
            // what ran: fast's arms in rounds 1-3 only; same's in every round up to its own stop
            Map<String, TreeMap<Integer, Integer>> rounds = new TreeMap<>();
            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.MEASURED), session, false),
                    runs::add);
            for (RunRecord r : runs) {
                if (r.round() >= 0 && r.details().job() != null && r.details().job().matches(".*/r\\d+")) {
                    rounds.computeIfAbsent(r.details().task(), k -> new TreeMap<>()).merge(r.round(), 1,
                            Integer::sum);
                }
            }
            assertThat(rounds.get("fast").keySet()).containsExactly(0, 1, 2);
            assertThat(rounds.get("fast").values()).containsOnly(3); // baseline, baseline-aa, human
            assertThat(rounds.get("same").keySet()).hasSize(none.analysis().stopping().lookRounds());
        }

        // --rounds 4: a fixed design, every round run
        Path db2 = dir.resolve("fixed.duckdb");
        code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true), "--db",
                db2.toString(), "run", suite.toString(), "--rounds", "4", "--workdir", dir.resolve("work2").toString());
        assertThat(code).isZero();
        try (Store store = Stores.open(db2.toString())) {
            String session = store.sessions().get(0).sessionId();
            SessionAnalysis.TaskResult fast = task(SessionAnalysis.of(store, session, StatsConfig.defaults()).tasks(),
                    "fast");
            assertThat(fast.analysis().stopping().adaptive()).isFalse();
            assertThat(fast.analysis().stopping().lookRounds()).isEqualTo(4);
            assertThat(fast.analysis().humanVsBaseline().read().ciConfidence()).isEqualTo(0.95);
        }
    }

    private static SessionAnalysis.TaskResult task(List<SessionAnalysis.TaskResult> tasks, String id) {
        return tasks.stream().filter(t -> t.taskId().equals(id)).findFirst().orElseThrow();
    }
}
