package io.isobench.cli;

import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.analysis.PilotTable;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.SweepAnalysis;
import io.isobench.store.Pipeline;
import io.isobench.store.RunDetails;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sweep: auto} run by a session against the real toy engine (the sweep demo's task, 2 rounds, baseline and
 * human, pilots capped at 3 from 2 req/s): the pilot phase runs once against the baseline's server before round 1,
 * its pilots are stored as native-pilot runs, every arm is measured at the same points they decided, capacities and a
 * verdict on capacity are reported with the pilot table, and {@code --resume} reuses the points without piloting again.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class PilotSessionIT {

    @TempDir
    Path dir;

    private static List<RunRecord> runs(Store store, String session) {
        List<RunRecord> all = new ArrayList<>();
        store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.MEASURED), session, true), all::add);
        return all;
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void thePilotPhaseDecidesThePointsOnceForEveryArm() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git and setsid (util-linux) for the toy engine");
        ToyRepo.build(dir.resolve("toyllm-repo"));
        Path suite = dir.resolve("auto-suite.yaml");
        String yaml = Files.readString(Path.of("examples/toy-engine/sweep-suite.yaml"))
                .replace("sweep: {max_concurrency: [1, 4, 8], min_good_fraction: 0.9}",
                        "sweep: {auto: true, start_rps: 2, max_pilots: 3, min_good_fraction: 0.9}")
                .replaceAll("(?m)^  rounds: .*$", "  rounds: 2");
        assertThat(yaml).contains("auto: true", "rounds: 2");
        Files.writeString(suite, yaml);
        String db = dir.resolve("s.duckdb").toString();
        String work = dir.resolve("work").toString();

        StringWriter plan = new StringWriter();
        assertThat(Main.run(new PrintWriter(plan, true), new PrintWriter(new StringWriter(), true), "run",
                suite.toString(), "--workdir", work, "--dry-run")).isZero();
        assertThat(plan.toString()).contains("sweep auto tpot-sweep: points decided by pilots against the baseline"
                + " before round 1: rule from 2 req/s").doesNotContain("SWEEP_AUTO");

        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "run",
                suite.toString(), "--workdir", work, "--db", db, "--progress", "plain", "--session", "auto1");
        assertThat(code).as(err.toString()).isZero();
        assertThat(err.toString()).contains("pilot 1 at 2 req/s", "sweep auto tpot-sweep: points ");
        List<Double> points;
        int pilots;
        try (Store store = Stores.open(db)) {
            List<RunRecord> all = runs(store, "auto1");
            List<RunRecord> pilotRuns = all.stream().filter(r -> Pipeline.NATIVE_PILOT.equals(r.pipeline())).toList();
            pilots = pilotRuns.size();
            assertThat(pilots).as(err.toString()).isBetween(1, 3);
            assertThat(pilotRuns).allMatch(r -> r.arm().label().equals("baseline"));
            PilotTable table = PilotTable.of(pilotRuns).orElseThrow();
            points = table.points();
            assertThat(points).hasSize(4);
            // every arm measured at the pilots' points, each (arm, round) at all of them
            Map<String, Set<Double>> byArmRound = new TreeMap<>();
            for (RunRecord r : all) {
                RunDetails.SweepPoint p = r.details().sweepPoint();
                if (Pipeline.NATIVE.equals(r.pipeline()) && p != null) {
                    assertThat(p.kind()).isEqualTo("request_rate");
                    byArmRound.computeIfAbsent(r.arm().label() + "/r" + r.round(), k -> new TreeSet<>())
                            .add(p.value());
                }
            }
            assertThat(byArmRound).containsOnlyKeys("baseline/r0", "baseline/r1", "human/r0", "human/r1")
                    .allSatisfy((k, v) -> assertThat(v).as(k).containsExactlyElementsOf(points));
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, "auto1", StatsConfig.defaults()).tasks().get(0);
            SweepAnalysis s = t.sweep();
            assertThat(s.axis().points()).isEqualTo(points);
            assertThat(s.pilots().points()).isEqualTo(points);
            // a round without a capacity is one whose curve lost a point (a run failed, or was excluded: its client
            // saturated on every attempt): say which, with the session's progress lines, when it fails
            String why = s.capacity() + "\n" + s.curves() + "\n" + err;
            assertThat(s.capacity().get("baseline").value()).as(why).isNotNull();
            assertThat(s.capacity().get("human").value()).as(why).isNotNull();
            assertThat(t.analysis().metric()).isEqualTo("capacity_request_rate_rps");
            assertThat(t.analysis().humanVsBaseline().verdict()).isNotNull();
        }
        StringWriter md = new StringWriter();
        assertThat(Main.run(new PrintWriter(md, true), new PrintWriter(new StringWriter(), true), "report", "--db", db))
                .isZero();
        assertThat(md.toString()).contains("The points came from `sweep: auto`'s pilot phase: " + pilots
                + " pilot run(s) of the baseline", "| pilot | offered req/s |", "Metric `capacity_request_rate_rps`");

        // --resume: the same points from the stored pilots, no pilot run again, nothing measured twice
        StringWriter again = new StringWriter();
        code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(again, true), "run",
                suite.toString(), "--workdir", work, "--db", db, "--progress", "plain", "--session", "auto1",
                "--resume");
        assertThat(code).as(again.toString()).isZero();
        assertThat(again.toString()).doesNotContain("pilot 1 at");
        try (Store store = Stores.open(db)) {
            List<RunRecord> all = runs(store, "auto1");
            assertThat(all.stream().filter(r -> Pipeline.NATIVE_PILOT.equals(r.pipeline()))).hasSize(pilots);
            assertThat(all.stream().filter(r -> Pipeline.NATIVE.equals(r.pipeline())
                    && r.details().sweepPoint() != null)).hasSize(2 * 2 * points.size());
        }
    }
}
