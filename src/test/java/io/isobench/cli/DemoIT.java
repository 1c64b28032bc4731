package io.isobench.cli;

import io.isobench.Arm;
import io.isobench.analysis.SecondaryMetrics;
import io.isobench.analysis.RoundExclusion;
import io.isobench.analysis.Stopping;
import io.isobench.analysis.TtftCrossCheck;
import io.isobench.parse.Metric;
import io.isobench.store.Pipeline;
import io.isobench.store.RunDetailsCodec;
import io.isobench.SharedData;
import io.isobench.analysis.AgentOutcome;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.Verdict;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.SessionRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.parallel.Isolated;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bundled demo end to end, as a user runs it (adaptive rounds, the default: a look after every round from 3 to 8,
 * with the A/A arm on): the verdicts come from measurement, and the designed effects (examples/toy-engine/README.md
 * "Designed outcomes") are detected; each task stops when its gating comparisons are decided and runs no later round;
 * every outcome type appears; the report shows the A/A band, the hardware fingerprint and the leaderboard. The session
 * is {@link DemoRun}'s, run once per test JVM (HtmlReportBrowserIT renders its HTML report).
 */
@Isolated("its assertions come from measured times: nothing runs beside it (ItLocks)")
class DemoIT {

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void demoDetectsTheDesignedOutcomes() throws Exception {
        SharedData.requireService(has("python3") && has("git") && has("setsid"),
                "python3, git and setsid (util-linux) for the toy engine");
        // the demo's one run in this JVM (HtmlReportBrowserIT renders the same session's HTML report)
        DemoRun.Run run = DemoRun.adaptive();
        Path dir = run.workdir();
        String out = run.out();
        String err = run.err();
        int code = run.code();
        assertThat(code).as(err).isZero();
        Path report = dir.resolve("report.md");
        assertThat(out).contains("report: " + report);
        // 21 checks (every arm but the A/A one, plus the baseline's repeat) + up to 8 rounds x 3 tasks x 7 arms, then
        // the accuracy runs of the arms whose environment is ready; a task that stops takes its later rounds off the
        // total, so the last job line says how many ran
        int accuracyRuns;
        Map<String, Set<String>> rolesByPipeline = new TreeMap<>();
        try (Store store = Stores.open(dir.resolve("isobench.duckdb").toString())) {
            List<RunRecord> acc = new ArrayList<>();
            store.forEachRun(RunFilter.all(), r -> {
                if (Pipeline.NATIVE_ACCURACY.equals(r.pipeline())) {
                    acc.add(r);
                }
                if (r.details().job() != null) {
                    // every job's run records its role; the recorder writes accuracy runs too
                    rolesByPipeline.computeIfAbsent(r.pipeline().label(), k -> new TreeSet<>())
                            .add(String.valueOf(r.details().role()));
                }
            });
            accuracyRuns = acc.size();
        }
        assertThat(rolesByPipeline).isEqualTo(Map.of("native", Set.of("measure"),
                "native-check", Set.of("check", "check-repeat"), "native-accuracy",
                Set.of("accuracy")));
        assertThat(accuracyRuns).isPositive();
        assertThat(err).contains("job 1/189 ").contains("ETA").contains(" of up to 8: ");
        Matcher last = Pattern.compile("job (\\d+)/(\\d+) ").matcher(err);
        int ranJobs = 0;
        while (last.find()) {
            ranJobs = Integer.parseInt(last.group(1));
            assertThat(Integer.parseInt(last.group(2))).isLessThanOrEqualTo(189);
        }
        int expectedJobs = 21;

        try (Store store = Stores.open(dir.resolve("isobench.duckdb").toString())) {
            List<SessionRecord> sessions = store.sessions();
            assertThat(sessions).hasSize(1);
            SessionAnalysis a = SessionAnalysis.of(store, sessions.get(0).sessionId(), StatsConfig.defaults());
            assertThat(a.tasks()).extracting(SessionAnalysis.TaskResult::taskId)
                    .containsExactly("tpot", "latency", "throughput");
            SessionAnalysis.TaskResult tpot = a.tasks().get(0);
            SessionAnalysis.TaskResult latency = a.tasks().get(1);
            SessionAnalysis.TaskResult throughput = a.tasks().get(2);
            for (SessionAnalysis.TaskResult t : a.tasks()) {
                assertThat(t.analysis().humanVsBaseline().verdict()).as(t.taskId()).isEqualTo(Verdict.BETTER);
                assertThat(t.analysis().replayValidity().label()).isEqualTo("valid");
                // adaptive: the toy's effects are large, so every task stops well before its 8th round, decided
                Stopping stop = t.analysis().stopping();
                assertThat(stop.adaptive()).isTrue();
                assertThat(stop.reason()).as(stop.describe()).isIn(Stopping.Reason.DECIDED,
                        Stopping.Reason.FUTILE);
                // only the wrong patch may do other work; any other exclusion is a run whose client stayed saturated
                // in all 3 attempts (the 2-core host's steal as the client's own check measured it: the rule is
                // ClientSaturatedRunIT's), and each round such a run lost may take the task one round further
                List<RoundExclusion> excluded = t.analysis().exclusions();
                assertThat(excluded).as(t.taskId()).allSatisfy(e -> assertThat(e.arm().equals("agent:charlie")
                        || e.cause() == RoundExclusion.Cause.CLIENT_SATURATED).as(e.oneLine()).isTrue());
                int lost = lostRounds(excluded, stop.lookRounds(), Set.of("baseline", "human", "agent:alpha",
                        "agent:bravo", "agent:delta"));
                assertThat(stop.lookRounds()).as(stop.describe() + "; " + excluded).isBetween(3, Math.min(8, 7 + lost));
                assertThat(stop.roundsRun()).as("no round after the stop ran").isEqualTo(stop.lookRounds());
                expectedJobs += 7 * stop.lookRounds();
                // the A/A arm ran in every round and gives the task's noise band; its own check is no difference
                assertThat(t.analysis().noiseBand().source().label()).isEqualTo("aa_arm");
                assertThat(t.analysis().aa().pairs()).as(excluded.toString()).isEqualTo(stop.lookRounds()
                        - lostRounds(excluded, stop.lookRounds(), Set.of("baseline", "baseline-aa")));
                assertThat(t.analysis().aa().verdict()).as(t.taskId() + " A/A: " + t.analysis().aa().reason())
                        .isIn(Verdict.EQUIVALENT, Verdict.INCONCLUSIVE);
                assertThat(t.hardware()).startsWith("hw-");
            }
            // tpot: alpha better than human; bravo crashes (agent failure); charlie wrong; delta does not apply
            detected(agent(tpot, "alpha").vsHuman(), Verdict.BETTER);
            assertThat(tpot.outcomes().get(Arm.ofStored("agent:bravo"))).containsKey("SERVER_CRASHED");
            assertThat(vsHuman(tpot, "bravo")).isEqualTo(Verdict.FAILED);
            assertThat(tpot.incorrect()).contains(Arm.ofStored("agent:charlie"));
            assertThat(vsBaseline(tpot, "charlie")).isEqualTo(Verdict.INCORRECT);
            assertThat(tpot.outcomes().get(Arm.ofStored("agent:delta"))).containsOnlyKeys("PATCH_FAILED");
            // latency: alpha about equal to human, bravo worse than human but better than baseline, charlie flagged,
            // delta empty
            detected(agent(latency, "alpha").vsHuman(), Verdict.EQUIVALENT);
            detected(agent(latency, "bravo").vsHuman(), Verdict.WORSE);
            detected(agent(latency, "bravo").vsBaseline(), Verdict.BETTER);
            assertThat(latency.findings().get(Arm.ofStored("agent:charlie"))).anyMatch(f -> f.contains("benchmarks/"));
            assertThat(latency.outcomes().get(Arm.ofStored("agent:delta"))).containsOnlyKeys("EMPTY_PATCH");
            // throughput: alpha better, bravo about equal, charlie wrong, delta between baseline and human
            detected(agent(throughput, "alpha").vsHuman(), Verdict.BETTER);
            detected(agent(throughput, "bravo").vsHuman(), Verdict.EQUIVALENT);
            assertThat(throughput.incorrect()).contains(Arm.ofStored("agent:charlie"));
            detected(agent(throughput, "delta").vsHuman(), Verdict.WORSE);
            detected(agent(throughput, "delta").vsBaseline(), Verdict.BETTER);
            assertThat(agent(throughput, "delta").optHuman()).isFalse();

            assertThat(ranJobs).as("jobs run: the checks and every task's rounds up to its stop")
                    .isEqualTo(expectedJobs);
            gatesFromStore(store, sessions.get(0).sessionId());
            secondaryFromStore(tpot, latency);
        }
        gatesInTable(dir.resolve("isobench.duckdb"), sessionIdOf(dir));
        String md = Files.readString(report);
        assertThat(md).contains("## Native session").contains("Method: ").contains("**better**")
                .contains("A/A band").contains("(A/A: ").contains("Hardware fingerprint `hw-")
                .contains("### Agent leaderboard (replay-valid tasks only)").contains("(of ")
                .containsPattern("\\| baseline-aa \\| [3-8] \\| [2-8] \\|")
                .contains("**incorrect**").contains("**failed**")
                .contains("`SERVER_CRASHED`").contains("`PATCH_FAILED`").contains("`EMPTY_PATCH`")
                .contains("`OUTPUT_MISMATCH`").contains("SUSPICIOUS_PATCH").contains("valid");
        // the build step and the recipe of the demo suite ran for every arm that got that far, and are recorded
        assertThat(md).contains("### Environments (build step and fix recipes)")
                .contains("| tpot | baseline | ok in ").contains("`python3 -m compileall -q .`")
                .contains("utf8-io (env): ok — set PYTHONIOENCODING");
        assertThat(err).contains("env tpot human: at ").contains("+ recipes utf8-io, built in ");
        gatesInReport(md);
        secondaryInReport(md);

        // issue 15, point 10: resuming the finished session runs nothing, and its summary counts the accuracy runs
        // like the jobs (every run already finished); report.md is written anew and renamed into place, never
        // rewritten in place (a kill mid-write left 0 bytes)
        Object inode = Files.getAttribute(report, "unix:ino");
        StringWriter again = new StringWriter();
        code = Main.run(new PrintWriter(again, true), new PrintWriter(new StringWriter(), true), "demo", "--resume",
                "--workdir", dir.toString());
        assertThat(code).as(again.toString()).isZero();
        // the resumed session replays the same looks over the stored rounds: the same tasks stop, nothing runs
        assertThat(again.toString()).contains(": " + ranJobs + " job(s) + " + accuracyRuns + " accuracy run(s), 0 run"
                + " now, " + (ranJobs + accuracyRuns) + " already finished");
        assertThat(Files.getAttribute(report, "unix:ino")).isNotEqualTo(inode);
        assertThat(Files.readString(report)).contains("## Native session");
    }

    /** The rounds before {@code look} in which a run of one of {@code arms} was excluded as client saturated. */
    private static int lostRounds(List<RoundExclusion> excluded, int look, Set<String> arms) {
        return (int) excluded.stream().filter(e -> e.cause() == RoundExclusion.Cause.CLIENT_SATURATED
                && e.round() < look && arms.contains(e.arm())).mapToInt(RoundExclusion::round).distinct().count();
    }

    /** The correctness gates as stored: verdicts, outcomes, exact-match rates, accuracy, review evidence. */
    static void gatesFromStore(Store store, String session) throws Exception {
        SessionAnalysis a = SessionAnalysis.of(store, session, StatsConfig.defaults());
        SessionAnalysis.TaskResult tpot = a.tasks().get(0);
        SessionAnalysis.TaskResult latency = a.tasks().get(1);
        SessionAnalysis.TaskResult throughput = a.tasks().get(2);
        // correctness gates, from measurement: the wrong-but-fast patches fail the greedy-output gate and the
        // accuracy hook (tpot through the server, throughput through the offline entry point)
        for (SessionAnalysis.TaskResult t : List.of(tpot, throughput)) {
            SessionAnalysis.ArmCorrectness c = t.correctness(Arm.ofStored("agent:charlie"));
            assertThat(c.outcome()).as(t.taskId()).isEqualTo("OUTPUT_MISMATCH");
            assertThat(c.exactMatchVsBaseline()).as(t.taskId()).isLessThan(1.0);
            assertThat(c.exactMatchVsHuman()).as(t.taskId()).isLessThan(1.0);
            assertThat(c.firstDivergenceChar()).as(t.taskId()).isNotNull();
            assertThat(c.accuracyOutcome()).as(t.taskId()).isEqualTo("ACCURACY_REGRESSION");
            assertThat(vsBaseline(t, "charlie")).isEqualTo(Verdict.INCORRECT);
            assertThat(agent(t, "charlie").optBase()).isFalse();
            SessionAnalysis.ArmCorrectness alpha = t.correctness(Arm.ofStored("agent:alpha"));
            assertThat(alpha.outcome()).isEqualTo("MATCH");
            assertThat(alpha.exactMatchVsBaseline()).isEqualTo(1.0);
            assertThat(alpha.accuracyOutcome()).isEqualTo("OK");
            assertThat(t.correctness(Arm.BASELINE).accuracyScore()).isEqualTo(1.0);
        }
        // the benchmark-editing patch: identical outputs and accuracy, caught by the review, which fails the arm
        // (issue 27: the review comes first; the arm it fails is never prepared, checked or measured)
        SessionAnalysis.ArmCorrectness cl = latency.correctness(Arm.ofStored("agent:charlie"));
        assertThat(latency.outcomes().get(Arm.ofStored("agent:charlie"))).containsOnlyKeys("PATCH_REJECTED");
        assertThat(cl.outcome()).isEqualTo("CHECK_FAILED");
        assertThat(cl.accuracyOutcome()).isNull();
        assertThat(cl.reviewFailing()).anyMatch(f -> f.startsWith("BENCHMARK_EDIT benchmarks/benchmark_latency.py"));
        assertThat(latency.findings().get(Arm.ofStored("agent:charlie")))
                .anyMatch(f -> f.startsWith("WORK_SHRINKING_DEFAULT"));
        // no run measured: its comparisons have no valid run (failed); its correctness is incorrect
        assertThat(vsBaseline(latency, "charlie")).isEqualTo(Verdict.FAILED);
        assertThat(latency.incorrect()).contains(Arm.ofStored("agent:charlie"));
        // stored: probe outputs and gate metrics on the check run, review evidence hunks, accuracy runs
        // session given
        Map<String, RunRecord> runs = new HashMap<>();
        store.forEachRun(new RunFilter(null, null, session, true), r -> runs.put(r.runId(), r));
        RunRecord check = runs.get(session + "/tpot/agent:charlie/check");
        assertThat(check.pipeline().label()).isEqualTo("native-check");
        assertThat(check.metrics()).anySatisfy(m -> {
            assertThat(m.name()).isEqualTo("exact_match_rate_vs_baseline");
            assertThat(m.value()).isLessThan(1.0);
        });
        com.fasterxml.jackson.databind.JsonNode x = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(RunDetailsCodec.encode(check.details()));
        assertThat(x.path("probe").size()).isEqualTo(8);
        assertThat(x.path("probe_artifact_sha256").asText()).isNotBlank();
        com.fasterxml.jackson.databind.JsonNode lx = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(RunDetailsCodec.encode(runs.get(session + "/latency/agent:charlie/check").details()));
        assertThat(lx.path("review").path("findings").get(0).path("evidence_hunk").asText())
                .contains("benchmarks/benchmark_latency.py").contains("@@");
        // a measured serving run: the server's /metrics series as an artifact, its summaries and the TTFT cross-check
        RunRecord served = runs.values().stream()
                .filter(r -> r.runId().startsWith(session + "/tpot/") && Pipeline.NATIVE.equals(r.pipeline())
                        && r.status() == RunRecord.RunStatus.SUCCESS).findFirst().orElseThrow();
        String seriesSha = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(RunDetailsCodec.encode(served.details())).path("server_metrics_artifact_sha256").asText();
        assertThat(seriesSha).as(served.runId()).isNotBlank();
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(store.artifact(seriesSha).orElseThrow())
                .path("format").asText()).isEqualTo("isobench-server-metrics/1");
        // the demo sends 2 warm-up requests: the summaries count from the scrape taken after them
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(store.artifact(seriesSha).orElseThrow())
                .path("measured_from_ms").isNumber()).isTrue();
        assertThat(served.metrics()).extracting(Metric::name).contains("server_metrics_scrapes",
                "vllm:time_to_first_token_ms_mean", "vllm:e2e_request_latency_ms_p99", "ttft_client_minus_server_ms",
                "ttft_client_server_gap_large");
        RunRecord acc = runs.get(session + "/throughput/agent:charlie/accuracy");
        assertThat(acc.pipeline().label()).isEqualTo("native-accuracy");
        assertThat(acc.primaryMetric()).isEqualTo("accuracy_score");
        assertThat(acc.failure().detail()).startsWith("ACCURACY_REGRESSION");
    }

    /**
     * Issue 18, item 2: the serving task's server-metric changes vs baseline over the verdict's counted rounds (the
     * human's TPOT fix shortens the server's E2E latency), the TTFT cross-check per arm; the offline task has none,
     * with the reason, never 0.
     */
    static void secondaryFromStore(SessionAnalysis.TaskResult tpot, SessionAnalysis.TaskResult latency) {
        SecondaryMetrics s = tpot.secondary();
        SecondaryMetrics.Row e2e = s.rows().stream()
                .filter(r -> r.metric().equals("vllm:e2e_request_latency_ms_mean")).findFirst().orElseThrow();
        SecondaryMetrics.Delta human = e2e.deltas().stream()
                .filter(d -> d.arm().equals(Arm.HUMAN)).findFirst().orElseThrow();
        assertThat(human.pairs()).isEqualTo(tpot.analysis().humanVsBaseline().pairs());
        assertThat(human.changePct()).as("server E2E latency, human vs baseline").isNegative();
        assertThat(human.ciLowPct()).isLessThan(human.changePct());
        assertThat(s.rows()).extracting(SecondaryMetrics.Row::metric)
                .contains("vllm:time_to_first_token_ms_mean", "vllm:num_requests_running_mean");
        assertThat(s.ttft().omittedReason()).isNull();
        assertThat(s.ttft().arms()).extracting(a -> a.arm().label())
                .contains("baseline", "baseline-aa", "human", "agent:alpha");
        assertThat(latency.secondary().rows()).isEmpty();
        assertThat(latency.secondary().omitted()).first().extracting(SecondaryMetrics.Omitted::oneLine)
                .asString().startsWith("server metrics: not scraped");
    }

    /** The report shows the secondary metrics and the cross-check of the serving task next to its verdict. */
    static void secondaryInReport(String md) {
        assertThat(md).contains("Secondary metrics (server /metrics and GPU telemetry; not judged): human vs baseline:"
                        + " ").contains("vllm:e2e_request_latency_ms_mean (ms, lower is better) | server metrics |")
                .contains("Client-vs-server TTFT cross-check: Client TTFT mean − the server's")
                .contains("| arm | runs | client − server TTFT, ms: median [min, max] |")
                .contains("Runs flagged `ttft_client_server_gap_large`")
                .contains("Secondary metrics (server /metrics and GPU telemetry): none (server metrics: not scraped");
        // no GPU on the build machine: said so, not shown as 0; with one, the energy per output token is there
        assertThat(md).containsAnyOf("GPU telemetry: no GPU telemetry", "gpu_energy_per_output_token_j (J/token");
    }

    /** isobench table --session: the session's native rows carry the gates per arm. */
    static void gatesInTable(Path db, String session) {
        StringWriter tout = new StringWriter();
        int tcode = Main.run(new PrintWriter(tout, true), new PrintWriter(new StringWriter(), true), "--db",
                db.toString(), "table", "--agent", "charlie", "--session",
                session);
        assertThat(tcode).isZero();
        List<String> rows = tout.toString().lines().skip(1).toList();
        assertThat(rows).hasSize(3).allSatisfy(r -> assertThat(r).contains(",incorrect,native,")
                .contains("correctness=incorrect:"));
        assertThat(rows).anySatisfy(r -> assertThat(r).contains("exact_match_vs_baseline=0.")
                .contains("accuracy=ACCURACY_REGRESSION:0"));
        assertThat(rows).anySatisfy(r -> assertThat(r).contains("SUSPICIOUS_PATCH=").contains("BENCHMARK_EDIT"));
    }

    /** The report: correctness per arm; the agent summary counts charlie's three patches as incorrect. */
    static void gatesInReport(String md) {
        assertThat(md).contains("Correctness and integrity:").contains("ACCURACY_REGRESSION")
                .contains("| agent:charlie | **incorrect**: OUTPUT_MISMATCH, ACCURACY_REGRESSION | — | 0 % |")
                .contains("| agent:charlie | **incorrect**: CHECK_FAILED, SUSPICIOUS_PATCH (fails the arm) |")
                .contains("### Agent summary").contains("| charlie | 3 | 0 | 0 | 0 | 0 | 3 | 1 | 0 | 0 |")
                .contains("| bravo | 3 |").contains("| delta | 3 |");
        assertThat(md.lines().filter(l -> l.startsWith("| bravo | 3 |")).findFirst().orElseThrow())
                .endsWith("| 1 | 0 |"); // one crash, no non-applying patch
        assertThat(md.lines().filter(l -> l.startsWith("| delta | 3 |")).findFirst().orElseThrow())
                .endsWith("| 0 | 2 |"); // no crash, two patches that did not apply (PATCH_FAILED, EMPTY_PATCH)
    }

    /**
     * The designed effect is detected. For a designed difference: the verdict itself, or an {@code inconclusive}
     * (noisy or wide CI on this shared machine) whose point estimate still shows the effect by a wide margin
     * (|Δ| ≥ 10 % in the designed direction). For "about equal": {@code equivalent}, or any verdict whose estimate
     * is within 5 %, or an inconclusive one within 10 %. Never the opposite verdict.
     */
    private static void detected(Comparison c, Verdict designed) {
        String what = c.arm() + " vs " + c.reference() + ": " + c.verdictText() + " — " + c.reason();
        if (c.verdict() == designed) {
            return;
        }
        if (designed == Verdict.EQUIVALENT) {
            assertThat(c.verdict()).as(what).isIn(Verdict.INCONCLUSIVE, Verdict.BETTER, Verdict.WORSE);
            double limit = c.verdict() == Verdict.INCONCLUSIVE ? 10.0 : 5.0;
            assertThat(Math.abs(c.deltaPct())).as(what).isLessThanOrEqualTo(limit);
            return;
        }
        assertThat(c.verdict()).as(what).isEqualTo(Verdict.INCONCLUSIVE);
        assertThat(c.inconclusiveReason().label()).as(what).isIn("noisy", "wide CI");
        switch (designed) {
            case BETTER -> assertThat(c.deltaPct()).as(what).isGreaterThanOrEqualTo(10.0);
            case WORSE -> assertThat(c.deltaPct()).as(what).isLessThanOrEqualTo(-10.0);
            default -> throw new AssertionError(designed);
        }
    }

    private static String sessionIdOf(Path dir) {
        try (Store store = Stores.open(dir.resolve("isobench.duckdb").toString())) {
            return store.sessions().get(0).sessionId();
        }
    }

    private static AgentOutcome agent(SessionAnalysis.TaskResult t, String name) {
        return t.analysis().agent("agent:" + name).orElseThrow();
    }

    private static Verdict vsHuman(SessionAnalysis.TaskResult t, String name) {
        return agent(t, name).vsHuman().verdict();
    }

    private static Verdict vsBaseline(SessionAnalysis.TaskResult t, String name) {
        return agent(t, name).vsBaseline().verdict();
    }

    private static boolean has(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

}
