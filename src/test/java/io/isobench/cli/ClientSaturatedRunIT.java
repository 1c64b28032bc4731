package io.isobench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.SharedData;
import io.isobench.ToyRepo;
import io.isobench.analysis.Comparison;
import io.isobench.analysis.InconclusiveReason;
import io.isobench.analysis.RoundExclusion;
import io.isobench.analysis.SessionAnalysis;
import io.isobench.analysis.StatsConfig;
import io.isobench.analysis.TaskAnalysis;
import io.isobench.store.Pipeline;
import io.isobench.store.RunDetails;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.Store;
import io.isobench.store.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31, a client that flags its own saturation, through a real {@code isobench run}: the toy engine
 * (examples/toy-engine) serving one task, baseline vs human, 2 rounds, prompts at 20 req/s. With the load generator's
 * fault-injection knob ({@code ISOBENCH_LOADGEN_LOOP_STALL_US}, here its system property: the CLI runs in this JVM)
 * every measured run's {@code client_check} says saturated with its reasons in each of its 3 attempts (measured again
 * twice, the replaced attempts kept in {@code client_saturated_attempts}), every round is excluded as
 * {@code client_saturated} and the verdict says client saturated; the report shows CLIENT_SATURATED per run. Without
 * the knob the same session excludes nothing. The task raises the loop-lag and schedule-lag limits to 100 ms (flags of
 * its client; the 10 ms defaults are the load generator's tests'): on a shared 2-core machine other processes delay
 * an unthrottled client now and then (measured at load average 10–14: schedule lag p99 up to 54 ms, loop lag up to
 * 68 ms over 40 requests), which the check rightly reports but which is not what this test is about; the knob's
 * 200 ms stall per loop turn is twice the limits.
 * {@code @Isolated}: the knob is a JVM-wide property, and a second test's load could saturate the unthrottled client.
 */
@Isolated("the stall knob is a JVM-wide system property (ItLocks); the unthrottled run must not share the CPUs")
class ClientSaturatedRunIT {

    /** B's knob as a system property (loadgen.LoopLag: the environment variable, else this property). */
    private static final String STALL_PROPERTY = "isobench.loadgen.loopStallUs";

    private static final String SUITE = """
            name: client-saturated
            engine: {repo: ./toyllm-repo, name: toy}
            tasks:
              - id: tpot
                human_commit: task-tpot
                parent_commit: baseline
                mode: serving
                model: toy-1m
                server_command: python3 -m toyllm.entrypoints.api_server --host {host} --port {port} --model {model} --disable-log-requests
                perf_command: >-
                  vllm bench serve --model toy-1m --dataset-name random --random-input-len 16
                  --random-output-len 16 --num-prompts %d --request-rate 20 --ignore-eos --seed 0
                  --client-loop-lag-limit-ms 100 --schedule-lag-limit-ms 100
                timeout_s: 60
                correctness: {prompts: 2, max_tokens: 8, tolerance: 0.0}
            run: {rounds: 2, aa: false, warmup_requests: 1, seed: 5}
            """;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aThrottledClientIsSaturatedAndItsRoundsExcluded_anUnthrottledOneIsNot() throws Exception {
        SharedData.requireService(ToyRepo.toolsPresent(), "python3, git, setsid and bwrap");
        ToyRepo.build(dir.resolve("toyllm-repo"));
        Files.writeString(dir.resolve("suite.yaml"), SUITE.formatted(8)); // 8 prompts: every loop turn stalls

        Path throttled = dir.resolve("throttled.duckdb");
        System.setProperty(STALL_PROPERTY, "200000"); // 200 ms busy-spin in every turn of the I/O loop
        String said;
        try {
            said = run(throttled, "work-throttled");
        } finally {
            System.clearProperty(STALL_PROPERTY);
        }
        try (Store store = Stores.open(throttled.toString())) {
            List<RunRecord> runs = measured(store);
            assertThat(runs).hasSize(4); // 2 rounds x (baseline, human)
            for (RunRecord r : runs) {
                RunDetails.ClientCheck c = r.details().clientCheck();
                System.out.println("ClientSaturatedRunIT throttled " + r.runId() + ": " + c + " " + r.details().schedule());
                assertThat(c).as(r.runId() + ": " + r.details()).isNotNull();
                assertThat(c.saturated()).as(r.runId() + ": " + c).isTrue();
                assertThat(c.reasons()).as(r.runId()).isNotEmpty().anyMatch(x -> x.contains(">"));
                assertThat(r.details().schedule()).as(r.runId() + ": a finite --request-rate has a schedule")
                        .isNotNull();
                assertThat(r.status()).isEqualTo(RunRecord.RunStatus.SUCCESS); // stored as it ran, numbers kept
                assertThat(r.metrics()).anyMatch(m -> m.name().equals("client_saturated") && m.value() == 1.0);
                // measured again twice (3 attempts in all, session.RetryPolicy), each replaced attempt kept
                JsonNode replaced = r.details().section(RunDetails.SATURATED_ATTEMPTS);
                assertThat(replaced).as(r.runId()).hasSize(2);
                assertThat(replaced.get(0).path("attempt").asInt()).isEqualTo(1);
                assertThat(replaced.get(1).path("client_check").path("saturated").asBoolean()).isTrue();
                assertThat(replaced.get(1).path("metrics").has("tpot_ms_mean")).as(replaced.toString()).isTrue();
            }
            assertThat(said.lines().filter(l -> l.startsWith("re-measuring tpot/") && l.contains(": its client was"
                    + " saturated (") && l.contains("(attempt ")).count()).as(said).isEqualTo(8);
            TaskAnalysis a = analysis(store);
            assertThat(a.exclusions()).hasSize(4)
                    .allMatch(e -> e.cause() == RoundExclusion.Cause.CLIENT_SATURATED && e.detail().contains(">"));
            Comparison hb = a.humanVsBaseline();
            assertThat(hb.inconclusiveReason()).as(hb.reason()).isEqualTo(InconclusiveReason.CLIENT_SATURATED);
            assertThat(hb.verdictShown()).contains("client saturated");
            String report = report(throttled);
            assertThat(report).contains("Load fidelity per run").contains("CLIENT_SATURATED: ")
                    .contains("client_saturated (").contains("(measured again: 2 earlier attempts saturated)");
        }

        // unthrottled, 2 s of schedule per run (about 400 lag ticks): one scheduling hiccup of a busy machine is not
        // its p99
        Files.writeString(dir.resolve("suite.yaml"), SUITE.formatted(40));
        Path plain = dir.resolve("plain.duckdb");
        run(plain, "work-plain");
        try (Store store = Stores.open(plain.toString())) {
            for (RunRecord r : measured(store)) {
                RunDetails.ClientCheck c = r.details().clientCheck();
                System.out.println("ClientSaturatedRunIT plain " + r.runId() + ": " + c + " " + r.details().schedule());
                assertThat(c).as(r.runId()).isNotNull();
                assertThat(c.saturated()).as(r.runId() + ": " + c).isFalse();
            }
            TaskAnalysis a = analysis(store);
            assertThat(a.exclusions()).isEmpty();
            assertThat(a.humanVsBaseline().inconclusiveReason()).isNotEqualTo(InconclusiveReason.CLIENT_SATURATED);
            assertThat(report(plain)).contains("Load fidelity per run").doesNotContain("CLIENT_SATURATED: ");
        }
    }

    /** Runs the suite into {@code db}; returns what the session said on stderr. */
    private String run(Path db, String work) {
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "--db",
                db.toString(), "run", dir.resolve("suite.yaml").toString(), "--workdir", dir.resolve(work).toString());
        assertThat(code).as(err.toString()).isZero();
        return err.toString();
    }

    private static List<RunRecord> measured(Store store) {
        List<RunRecord> out = new ArrayList<>();
        store.forEachRun(RunFilter.runs().ofKinds(Set.of(RunRecord.RunKind.MEASURED))
                .inSession(store.sessions().get(0).sessionId()).loadingMetrics(), r -> {
            if (Pipeline.NATIVE.equals(r.pipeline()) && r.status() != RunRecord.RunStatus.NOT_RUN) {
                out.add(r);
            }
        });
        return out;
    }

    private static TaskAnalysis analysis(Store store) {
        return SessionAnalysis.of(store, store.sessions().get(0).sessionId(), StatsConfig.defaults()).tasks().get(0)
                .analysis();
    }

    private static String report(Path db) {
        StringWriter out = new StringWriter();
        assertThat(Main.run(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true), "--db",
                db.toString(), "report")).isZero();
        return out.toString();
    }
}
