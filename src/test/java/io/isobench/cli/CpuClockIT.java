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
 * <p>Why 10 rounds: the band is the A/A arm's point estimate |speedup − 1|, whose spread falls as 1/√rounds. With 5
 * rounds it measured 0.15–1.4 % over runs on the 2-core build machine, and once 2.13 % in CI (2026-11-29: the A/A
 * arm's five runs 2 % slower than the baseline's during a host disturbance, the same session's human comparison
 * spanning 0.82–1.04): the host's noise, not the clock's, at a sample size where one disturbed stretch moves the
 * estimate past the margin. 10 rounds shrink that spread by about 1/√2 and add ~5 s; the clock's own contribution
 * (1 µs in 0.15 s) is unchanged.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class CpuClockIT {

    /** A CPU-bound "engine": a 0.15 s {@code time.process_time()} loop; the human commit only edits its comment. */
    private static final String ENGINE = """
            # burns 0.15 s of CPU%s
            import time
            t = time.process_time()
            while time.process_time() - t < 0.15:
                pass
            print('done')
            """;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theAaBandOfACpuBoundCommandIsUnderTheMargin() throws Exception {
        CpuCgroups host = CpuCgroups.host();
        SharedData.requireService(host.available(), "a writable cgroup v2 for the µs CPU clock (root, or a delegated"
                + " subtree): " + host.unavailableReason());
        SharedData.requireService(Llama2cExampleIT.onPath("git") && Files.isExecutable(Path.of("/usr/bin/python3"))
                && Llama2cExampleIT.onPath("setsid"), "git, /usr/bin/python3 and setsid (util-linux)");
        Path repo = Files.createDirectories(dir.resolve("engine"));
        Files.writeString(repo.resolve("burn.py"), ENGINE.formatted(""));
        TestGit.git(repo, "init", "-q");
        TestGit.commit(repo, "burn.py", "a busy loop");
        TestGit.git(repo, "tag", "parent");
        Files.writeString(repo.resolve("burn.py"), ENGINE.formatted(" (a comment, nothing else)"));
        TestGit.commit(repo, "burn.py", "comments only");
        TestGit.git(repo, "tag", "human");
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                name: cpu-clock
                engine: {name: generic, repo: ./engine}
                tasks:
                  - id: burn
                    human_commit: human
                    parent_commit: parent
                    offline:
                      command: [/usr/bin/python3, burn.py]
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
            System.out.printf(Locale.ROOT, "CpuClockIT: A/A noise band of command_cpu_s (0.15 s busy loop, 10 rounds):"
                    + " %.3f %%; baseline median %.6f s; comments-only commit: %s (%s)%n", band,
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
