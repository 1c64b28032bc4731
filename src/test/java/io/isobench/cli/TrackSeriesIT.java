package io.isobench.cli;

import io.isobench.Arm;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import io.isobench.store.TrackChange;
import io.isobench.store.TrackCommit;
import io.isobench.store.TrackRecord;
import io.isobench.SharedData;
import io.isobench.track.SyntheticHistory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 30, items 1–2: the real CLI ({@code isobench track}) on a real git history of 12 commits of the synthetic C
 * engine ({@link SyntheticHistory}: commit 6 does 15 % less work, every other commit touches docs or comments), 3 runs
 * per commit, no bisect. The first attempt is interrupted after 20 of its 45 runs (the thread's interrupt, the way a
 * cancelled session stops between jobs); the same command continues it: no run is measured twice, the series is
 * complete, every commit is {@code measured}, and the change point at commit 6 is found (faster). Then
 * {@code --fail-on} maps a confirmed change to exit 1.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class TrackSeriesIT {

    private static final int COMMITS = 12;
    private static final int CHANGED = 6;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aTrackIsMeasuredResumedAfterAnInterruptAndFindsTheChangedCommit() throws Exception {
        SharedData.requireService(Llama2cExampleIT.onPath("gcc") && Llama2cExampleIT.onPath("make")
                && Llama2cExampleIT.onPath("git") && Llama2cExampleIT.onPath("setsid"),
                "gcc, make, git and setsid (util-linux) for the synthetic engine");
        // about 0.2 s of CPU a run (SyntheticHistory's default): on a cgroup-v1 host command_cpu_s comes in 10 ms clock
        // ticks, and at 0.05 s a run (5 ticks, one 19 %) CI once saw the change placed at commit 5 and rejected
        SyntheticHistory.History h = SyntheticHistory.build(dir.resolve("engine"), new SyntheticHistory.Spec(COMMITS,
                List.of(new SyntheticHistory.Change(CHANGED, 0.85)), SyntheticHistory.Spec.DEFAULT_PASSES));
        Path suite = dir.resolve("suite.yaml");
        Files.writeString(suite, """
                name: synthetic-track
                engine: {name: generic, repo: ./engine, build: [make]}
                tasks:
                  - id: kernel
                    offline:
                      command: [./engine]
                      metrics:
                        - {name: command_cpu_s, primary: true}
                    correctness:
                      output: {from: stdout}
                      tolerance: 0.0
                run: {timeouts: {run_s: 60, build_s: 60}}
                """);
        Path db = dir.resolve("track.duckdb");
        String range = h.commit(1).sha().substring(0, 10) + "..main";
        List<String> args = List.of("--db", db.toString(), "track", suite.toString(), "--range", range, "--runs", "3",
                "--no-bisect", "--workdir", dir.resolve("work").toString(), "--progress", "plain");

        // a track task is not a session's task: run names the task and the command to use
        Cli plainRun = cli(null, "--db", db.toString(), "run", suite.toString(), "--workdir",
                dir.resolve("work").toString());
        assertThat(plainRun.code).isEqualTo(2);
        assertThat(plainRun.err).contains("task kernel names no human_commit: it is a track task (fix: isobench"
                + " track SUITE --range REV1..REV2");
        Cli bad = cli(null, "--db", db.toString(), "track", suite.toString(), "--range", "main.." + h.commit(1).sha(),
                "--workdir", dir.resolve("work").toString());
        assertThat(bad.code).isEqualTo(2);
        assertThat(bad.err).contains("is not an ancestor of");

        long t0 = System.nanoTime();
        Cli first = cli("kernel: 20/45 runs", args.toArray(String[]::new));
        double firstS = (System.nanoTime() - t0) / 1e9;
        assertThat(first.code).as(first.err).isEqualTo(TrackCommand.INTERRUPTED);
        assertThat(first.err).contains("track interrupted").doesNotContain("kernel: 21/45 runs");
        List<RunRecord> afterKill = runs(db);
        assertThat(afterKill).hasSize(20);

        t0 = System.nanoTime();
        Cli second = cli(null, args.toArray(String[]::new));
        double secondS = (System.nanoTime() - t0) / 1e9;
        assertThat(second.code).as(second.err).isZero();
        assertThat(second.err).contains("track kernel: 21/45 runs").contains("track kernel: 45/45 runs")
                .doesNotContain("track kernel: 20/45 runs");

        List<RunRecord> all = runs(db);
        assertThat(all).hasSize(45);
        assertThat(new HashSet<>(all.stream().map(RunRecord::runId).toList())).hasSize(45);
        // the runs of the first attempt are kept as they were
        Map<String, Double> before = new HashMap<>();
        afterKill.forEach(r -> before.put(r.runId(), r.primaryValue()));
        all.stream().filter(r -> before.containsKey(r.runId()))
                .forEach(r -> assertThat(r.primaryValue()).isEqualTo(before.get(r.runId())));
        Map<String, Integer> perCommit = new HashMap<>();
        for (RunRecord r : all) {
            assertThat(r.arm()).isEqualTo(Arm.other("track"));
            assertThat(r.status()).isEqualTo(RunRecord.RunStatus.SUCCESS);
            assertThat(r.primaryMetric()).isEqualTo("command_cpu_s");
            assertThat(r.round()).isBetween(0, 2);
            assertThat(r.commit()).hasSize(40);
            perCommit.merge(r.commit(), 1, Integer::sum);
        }
        assertThat(perCommit).hasSize(COMMITS);
        assertThat(perCommit.get(h.commit(1).sha())).isEqualTo(3 * 4); // the anchor: 3 blocks + 1, per pass
        assertThat(perCommit.get(h.commit(CHANGED).sha())).isEqualTo(3);

        try (Store store = Stores.open(db.toString())) {
            List<TrackRecord> tracks = store.tracks();
            assertThat(tracks).hasSize(1);
            TrackRecord t = tracks.get(0);
            assertThat(t.taskId()).isEqualTo("kernel");
            assertThat(t.range()).isEqualTo(h.commit(1).sha() + ".." + h.commit(COMMITS).sha());
            assertThat(t.anchorCommit()).isEqualTo(h.commit(1).sha());
            assertThat(t.metric()).isEqualTo("command_cpu_s");
            assertThat(t.better()).isEqualTo("lower");
            assertThat(t.status()).isEqualTo("done");
            assertThat(all).allMatch(r -> r.sessionId().equals(t.sessionId()));
            assertThat(store.session(t.sessionId())).isPresent();
            List<TrackCommit> commits = store.trackCommits(t.trackId());
            assertThat(commits).hasSize(COMMITS);
            for (TrackCommit c : commits) {
                assertThat(c.commitId()).isEqualTo(h.commit(c.position() + 1).sha());
                assertThat(c.subject()).isEqualTo(h.commit(c.position() + 1).subject());
                assertThat(c.selected()).isTrue();
                assertThat(c.state()).as(c.detail()).isEqualTo("measured");
            }
            List<TrackChange> changes = store.trackChanges("kernel");
            System.out.printf(Locale.ROOT, "TrackSeriesIT: first attempt %.1f s (interrupted at 20/45), second %.1f s;"
                    + " changes: %s%n", firstS, secondS, changes.stream().map(c -> c.position() + " " + c.status()
                    + " " + c.direction() + String.format(Locale.ROOT, " %+.1f %%", c.changePct())).toList());
            TrackChange at = changes.stream().filter(c -> c.commitId().equals(h.commit(CHANGED).sha())).findFirst()
                    .orElseThrow(() -> new AssertionError("no change at commit " + CHANGED + ": " + changes));
            assertThat(at.parentCommit()).isEqualTo(h.commit(CHANGED - 1).sha());
            assertThat(at.direction()).isEqualTo("faster");
            assertThat(at.changePct()).isBetween(-25.0, -8.0);
            assertThat(at.candidatePValue()).isNotNull().isLessThan(0.01);
            assertThat(changes.stream().filter(c -> !c.commitId().equals(h.commit(CHANGED).sha()))
                    .filter(c -> c.status().equals("confirmed"))).isEmpty();
        }

        // CI: a confirmed faster change is in the range; no slower one; nothing is measured again
        Cli failFaster = cli(null, concat(args, "--fail-on", "faster"));
        assertThat(failFaster.code).as(failFaster.err).isEqualTo(1);
        assertThat(failFaster.out).contains("confirmed faster");
        Cli failSlower = cli(null, concat(args, "--fail-on", "slower"));
        assertThat(failSlower.code).as(failSlower.err).isZero();
        assertThat(runs(db)).hasSize(45);
    }

    private static String[] concat(List<String> args, String... more) {
        List<String> out = new ArrayList<>(args);
        out.addAll(List.of(more));
        return out.toArray(String[]::new);
    }

    private static List<RunRecord> runs(Path db) {
        List<RunRecord> out = new ArrayList<>();
        try (Store store = Stores.open(db.toString())) {
            store.forEachRun(new RunFilter(null, null, null, false), r -> {
                if (r.arm().equals(Arm.other("track"))) {
                    out.add(r);
                }
            });
        }
        return out;
    }

    /** A CLI call's exit code and output. */
    private record Cli(int code, String out, String err) {
    }

    /**
     * The CLI in a thread of its own; {@code interruptAt}: when stderr shows this text, that thread is interrupted (the
     * progress line is written by the thread that runs the track, right after the run it counts).
     */
    private static Cli cli(String interruptAt, String... args) throws InterruptedException {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Writer watch = new Writer() {
            @Override
            public void write(char[] buf, int off, int len) {
                err.write(buf, off, len);
                if (interruptAt != null && err.toString().contains(interruptAt)) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        int[] code = {-1};
        Thread t = new Thread(() -> code[0] = Main.run(new PrintWriter(out, true), new PrintWriter(watch, true),
                args));
        t.start();
        t.join();
        return new Cli(code[0], out.toString(), err.toString());
    }
}
