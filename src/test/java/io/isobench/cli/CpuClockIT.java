package io.isobench.cli;

import io.isobench.Arm;
import io.isobench.SharedData;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.Verdict;
import io.isobench.parse.MetricResolution;
import io.isobench.proc.CpuCgroups;
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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, item 7: a real session ({@code isobench run}) of a generic offline task judged on {@code command_cpu_s}
 * of a ~0.15 s CPU-bound command, 10 rounds with the A/A arm, whose human commit changes only a comment. With the
 * per-run cgroup's µs clock the A/A noise band is under 2 %, the verdicts' margin (with {@code times}'s 10 ms ticks it
 * was 4.9 % for such a command), every measured run records its primary metric's resolution (1e-6 s,
 * {@code cgroup_v2_cpu_stat}), and the comments-only commit is not called {@code worse}. The band is printed so that
 * it can be quoted.
 *
 * <p>The command is a compiled C loop that stops after 0.15 s of its own CPU time ({@code CLOCK_PROCESS_CPUTIME_ID},
 * the clock the cgroup sums too), built by the suite's build step in each arm's worktree (the comment-only commit
 * gives a byte-identical binary). The CPU time is counted from the command's exec (the sandbox's start left out,
 * docs/suite-format.md "How CPU time is measured"), so what it holds beyond the loop is the dynamic loader, the exit,
 * the sandbox's tear-down and the wrapper's end, about 3 ms: the band is then what the claim is about, the clock's
 * resolution and the accounting's spread. It was a Python loop with the whole usage counted until 2026-11-30:
 * Python's start-up (~10 ms) and the sandbox's start (~6 ms) are CPU that a host disturbance inflates (cache and TLB
 * misses under a noisy neighbour, not the clock), and its band read 2.13 % at 5 rounds and 3.55 % at 10 rounds in two
 * CI runs during such disturbances, against 0.2 % on a quiet machine.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class CpuClockIT {

    /** A CPU-bound "engine": a loop until 0.15 s of the process's CPU time; the human commit only edits its comment. */
    private static final String ENGINE = """
            /* burns 0.15 s of CPU%s */
            #include <stdio.h>
            #include <time.h>

            static double cpu_s(void) {
                struct timespec t;
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
                return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
            }

            int main(void) {
                double start = cpu_s();
                volatile unsigned long spins = 0;
                while (cpu_s() - start < 0.15) {
                    spins++;
                }
                puts("done");
                return 0;
            }
            """;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theAaBandOfACpuBoundCommandIsUnderTheMargin() throws Exception {
        CpuCgroups host = CpuCgroups.host();
        SharedData.requireService(host.available(), "a writable cgroup v2 for the µs CPU clock (root, or a delegated"
                + " subtree): " + host.unavailableReason());
        SharedData.requireService(Llama2cExampleIT.onPath("git") && Llama2cExampleIT.onPath("gcc")
                && Llama2cExampleIT.onPath("setsid"), "git, gcc (scripts/provision) and setsid (util-linux)");
        Path repo = Files.createDirectories(dir.resolve("engine"));
        Files.writeString(repo.resolve("burn.c"), ENGINE.formatted(""));
        TestGit.git(repo, "init", "-q");
        TestGit.commit(repo, "burn.c", "a busy loop");
        TestGit.git(repo, "tag", "parent");
        Files.writeString(repo.resolve("burn.c"), ENGINE.formatted(" (a comment, nothing else)"));
        TestGit.commit(repo, "burn.c", "comments only");
        TestGit.git(repo, "tag", "human");
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                name: cpu-clock
                engine: {name: generic, repo: ./engine, build: [gcc, -O1, -o, burn, burn.c]}
                tasks:
                  - id: burn
                    human_commit: human
                    parent_commit: parent
                    offline:
                      command: [./burn]
                      metrics:
                        - {name: command_cpu_s, primary: true}
                run: {rounds: 10, aa: true, seed: 7}
                """);
        Path db = dir.resolve("cpu.duckdb");
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db",
                db.toString(), "run", suite.toString(), "--workdir", dir.resolve("work").toString());
        assertThat(code).as(err.toString()).isZero();

        try (Store store = Stores.open(db.toString())) {
            String session = store.sessions().get(0).sessionId();
            SessionAnalysis.TaskResult burn = SessionAnalysis.of(store, session, StatsConfig.defaults()).tasks()
                    .get(0);
            assertThat(burn.analysis().metric()).isEqualTo("command_cpu_s");
            assertThat(burn.analysis().summaries().get(Arm.BASELINE).n()).isEqualTo(10);
            assertThat(burn.analysis().summaries().get(Arm.BASELINE_AA).n()).isEqualTo(10);
            Double band = burn.analysis().noiseBand().bandPct();
            Verdict human = burn.analysis().humanVsBaseline().verdict();
            System.out.printf(Locale.ROOT, "CpuClockIT: A/A noise band of command_cpu_s (0.15 s compiled busy loop,"
                    + " 10 rounds): %.3f %%; baseline median %.6f s; comments-only commit: %s (%s)%n", band,
                    burn.analysis().summaries().get(Arm.BASELINE).median(), human,
                    burn.analysis().humanVsBaseline().reason());
            assertThat(band).as("the A/A band with a µs CPU clock").isNotNull().isLessThan(2.0);
            assertThat(burn.resolution()).isNotNull();
            assertThat(burn.resolution().source()).isEqualTo("cgroup_v2_cpu_stat");
            assertThat(burn.resolution().coarse()).as(burn.resolution().describe(StatsConfig.defaults())).isFalse();
            assertThat(human).as(burn.analysis().humanVsBaseline().reason()).isNotEqualTo(Verdict.WORSE)
                    .isNotEqualTo(Verdict.BETTER);

            List<RunRecord> runs = new ArrayList<>();
            store.forEachRun(new RunFilter(null, null, session, true), runs::add);
            List<RunRecord> measured = runs.stream().filter(r -> r.kind() == RunRecord.RunKind.MEASURED
                    && r.details().job() != null && r.details().job().matches(".*/r\\d+")).toList();
            assertThat(measured).hasSize(30);
            for (RunRecord r : measured) {
                assertThat(r.primaryResolution()).as(r.runId()).isEqualTo(MetricResolution.CGROUP_CPU_STAT);
                assertThat(r.details().metricResolution("command_wall_s")).isEqualTo(MetricResolution.MONOTONIC_CLOCK);
            }
        }
    }
}
