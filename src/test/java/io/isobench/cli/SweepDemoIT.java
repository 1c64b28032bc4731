package io.isobench.cli;

import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.analysis.RoundExclusion;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.SweepAnalysis;
import io.isobench.analysis.Verdict;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sweep demo end to end (examples/toy-engine/sweep-suite.yaml) against the real toy engine: every (arm, point) in
 * every round, each run's point stored, the designed capacities found (baseline 1 concurrent request, human 4 at the
 * TPOT SLO), the verdict on capacity, and the report's curves and capacity table.
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class SweepDemoIT {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void theSweepDemoFindsTheDesignedCapacities() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git and setsid (util-linux) for the toy engine");
        // as a user runs it: `isobench demo --sweep` builds the toy repo and writes the reports in its folder
        Path work = dir.resolve("work");
        String db = work.resolve("isobench.duckdb").toString();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "demo", "--sweep", "--workdir",
                work.toString(), "--progress", "plain");
        assertThat(code).as(err.toString()).isZero();
        assertThat(Files.readString(work.resolve("report.md"))).contains("#### Load sweep: max_concurrency");
        assertThat(work.resolve("report-html/index.html")).exists();
        // 3 checks (baseline, its repeat, human) + up to 8 adaptive rounds × 2 arms × 3 points; capacity is ordinal: the
        // sign test decides a gain from 6 agreeing rounds, so the task stops after round 6 (39 jobs run of 51 planned; the
        // stop is said after the 39th job's line) — one round later for each round in which a baseline or human run's
        // client stayed saturated in all 3 attempts (excluded: the 2-core host's steal as the client's own check measured
        // it; the rule is ClientSaturatedRunIT's), and with more than 2 such rounds 6 agreeing rounds cannot be had
        try (Store store = Stores.open(db)) {
            String session = store.sessions().get(0).sessionId();
            SessionAnalysis.TaskResult t = SessionAnalysis.of(store, session, StatsConfig.defaults()).tasks().get(0);
            List<RoundExclusion> excluded = t.analysis().exclusions();
            assertThat(excluded).allSatisfy(e -> assertThat(e.cause()).as(e.oneLine())
                    .isEqualTo(RoundExclusion.Cause.CLIENT_SATURATED));
            int lost = (int) excluded.stream().mapToInt(RoundExclusion::round).distinct().count();
            int rounds = 6 + lost;
            System.out.println("SweepDemoIT: rounds lost to a saturated client: " + lost + " " + excluded);
            assertThat(err.toString()).contains("job 1/51 ").contains("round 1/8 at max_concurrency=");
            if (rounds < 8) {
                assertThat(err.toString()).contains("job " + (3 + 6 * rounds) + "/51 ").contains("task tpot-sweep:"
                        + " stopped after round " + rounds + " of up to 8: every gating comparison decided (human vs"
                        + " baseline better)");
            } else if (rounds == 8) {
                assertThat(err.toString()).contains("job 51/51 "); // decided at the last look: no early stop to say
            }
            Map<String, Integer> slots = new HashMap<>();
            List<RunDetails.SweepPoint> points = new ArrayList<>();
            store.forEachRun(new RunFilter(null, Set.of(RunRecord.RunKind.MEASURED), session, false), r -> {
                RunDetails.SweepPoint p = r.details().sweepPoint();
                if (p != null) {
                    points.add(p);
                    slots.merge(r.round() + "|" + r.arm().label() + "|" + p.value(), 1, Integer::sum);
                }
            });
            int ran = t.analysis().stopping().roundsRun();
            assertThat(ran).isLessThanOrEqualTo(Math.min(8, rounds));
            assertThat(points).hasSize(6 * ran).allMatch(p -> p.kind().equals("max_concurrency"));
            assertThat(slots).hasSize(6 * ran).allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));
            SweepAnalysis s = t.sweep();
            assertThat(s.axis().points()).containsExactly(1.0, 4.0, 8.0);
            assertThat(s.capacity().get("baseline").value().median()).as(s.capacityText("baseline")).isEqualTo(1.0);
            assertThat(s.capacity().get("human").value().median()).as(s.capacityText("human")).isEqualTo(4.0);
            assertThat(t.analysis().metric()).isEqualTo("capacity_max_concurrency");
            if (rounds <= 8) {
                assertThat(ran).isEqualTo(rounds);
                assertThat(t.analysis().humanVsBaseline().verdict()).as(t.analysis().humanVsBaseline().reason())
                        .isEqualTo(Verdict.BETTER);
            } else {
                // too few valid rounds left for the sign test: never a wrong call, only no call
                assertThat(t.analysis().humanVsBaseline().verdict()).as(t.analysis().humanVsBaseline().reason())
                        .isIn(Verdict.BETTER, Verdict.INCONCLUSIVE);
            }
            // the curves: the human's achieved throughput at 4 in flight above the baseline's
            assertThat(s.curves().get("human").get(1).metrics().get("request_throughput_rps").median())
                    .isGreaterThan(s.curves().get("baseline").get(1).metrics().get("request_throughput_rps").median());
        }
        StringWriter md = new StringWriter();
        assertThat(Main.run(new PrintWriter(md, true), new PrintWriter(new StringWriter(), true), "report", "--db", db))
                .isZero();
        assertThat(md.toString()).contains("Metric `capacity_max_concurrency` (higher is better)",
                "#### Load sweep: max_concurrency", "| baseline | 1 concurrent requests |", "| human | 4 concurrent requests |");
        Path site = dir.resolve("site");
        assertThat(Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true),
                "report", "--db", db, "--format", "html", "--out", site.toString())).isZero();
        String page = Files.readString(site.resolve("task-1-1.html"));
        assertThat(page).contains("Latency–throughput curve of task tpot-sweep: tpot_ms_p99", "<polygon",
                "<h3 id=\"capacity\">");
    }
}
