package io.isobench.legacy;

import com.fasterxml.jackson.databind.JsonNode;
import io.isobench.Arm;
import io.isobench.SharedData;
import io.isobench.store.RunDetailsCodec;
import io.isobench.store.RunFilter;
import io.isobench.store.RunRecord;
import io.isobench.store.RunRecord.RunStatus;
import io.isobench.store.Store;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness events and successes without a primary metric of {@code ../shared/isobench-data-wide} (its README:
 * progress logs, separate_agent results) read as docs/parsing.md says: "Whose failure is it: arm or harness" and
 * "Success without a primary metric". The sample is imported once (read-only).
 */
class LegacyHarnessEventsTest {

    private static final String LOGS = "omniperf_results_3way_claude_code/logs/modal/";
    private static final String SEPARATE = "omniperf_results_3way_claude_code/results/separate_agent/";

    @TempDir
    static Path dir;
    private static Store store;
    private static final List<RunRecord> runs = new ArrayList<>();

    @BeforeAll
    static void importSample() {
        Path wide = SharedData.require("isobench-data-wide");
        store = TestStores.open(dir);
        new LegacyImporter(store, null, null).importTree(wide);
        store.forEachRun(RunFilter.all(), runs::add);
    }

    @AfterAll
    static void close() {
        if (store != null) {
            store.close();
        }
    }

    private static JsonNode extra(RunRecord r) {
        try {
            return LenientJson.MAPPER.readTree(RunDetailsCodec.encode(r.details()));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String path(RunRecord r) {
        return extra(r).path("path").asText("");
    }

    private static String arm(RunRecord r) {
        return r.arm().label().split(":")[0];
    }

    /** The runs of each invocation (file and commit) whose path contains {@code part}, in import order. */
    private static Map<String, List<RunRecord>> invocations(String part) {
        Map<String, List<RunRecord>> out = new LinkedHashMap<>();
        for (RunRecord r : runs) {
            if (path(r).contains(part)) {
                out.computeIfAbsent(path(r) + "#" + r.commit(), k -> new ArrayList<>()).add(r);
            }
        }
        return out;
    }

    /** Invocations of one progress log whose error says {@code errorPart}: each one failed attempt, three arms not run. */
    private static int attemptsOnly(String log, String errorPart, String category) {
        int n = 0;
        for (List<RunRecord> inv : invocations(LOGS + log).values()) {
            if (inv.stream().noneMatch(r -> extra(r).path("source_error").asText("").contains(errorPart))) {
                continue;
            }
            n++;
            List<RunRecord> failed = inv.stream().filter(r -> r.status() == RunStatus.FAILED).toList();
            assertThat(failed).as(log).hasSize(1);
            RunRecord attempt = failed.get(0);
            assertThat(attempt.arm()).isEqualTo(Arm.other("attempt"));
            assertThat(attempt.failure().category()).as(attempt.failure().detail()).isEqualTo(category);
            assertThat(attempt.failure().evidence()).contains(errorPart);
            for (RunRecord r : inv) {
                if (r != attempt) {
                    assertThat(r.status()).as(log + " " + r.arm()).isEqualTo(RunStatus.NOT_RUN);
                    assertThat(r.notes()).contains("not run: the harness failed before this arm started (" + category
                            + ": ").contains(errorPart);
                }
            }
        }
        assertThat(n).as(log + ": invocations with " + errorPart).isPositive();
        return n;
    }

    @Test
    void theHarnessOwnBugIsOneAttemptFailure() {
        attemptsOnly("hero_3way_20251231_023448_progress.json", "name 'port' is not defined", "HARNESS_ERROR");
    }

    @Test
    void aModalLookupFailureIsOneAttemptFailure() {
        attemptsOnly("hero_3way_20260101_055459_progress.json", "Lookup failed for Function", "HARNESS_ERROR");
    }

    @Test
    void aUserCancelIsOneCancelledAttempt() {
        attemptsOnly("hero_3way_20260102_101116_progress.json", "Function call was cancelled by user.", "CANCELLED");
    }

    @Test
    void aVersionRefusalIsTheHarnessNotAPortConflict() {
        attemptsOnly("hero_3way_20251231_092911_progress.json", "has known port binding bug", "HARNESS_ERROR");
    }

    @Test
    void aMissingEngineBeforeAnyArmIsTheAttemptEnvMissing() {
        attemptsOnly("hero_3way_20251231_133756_progress.json", "Could not find vLLM installation", "ENV_MISSING");
    }

    @Test
    void anInvalidModelIdIsTheRunningArmBadPerfCommand() {
        List<RunRecord> hits = runs.stream().filter(r -> path(r).contains("hero_3way_20251231_014129")
                && r.failure() != null && r.failure().evidence().contains("is not a valid model identifier")).toList();
        assertThat(hits).hasSize(1);
        assertThat(arm(hits.get(0))).isEqualTo("baseline");
        assertThat(hits.get(0).failure().category()).isEqualTo("BAD_PERF_COMMAND");
    }

    @Test
    void theProgressLineOfTheHarnessNamesTheRunningArm() {
        // "No JSON results in output. Stdout: … [1/3] Running BASELINE benchmark…" with no arm record
        List<RunRecord> hits = runs.stream().filter(r -> r.failure() != null
                && r.failure().evidence().startsWith("No JSON results in output")).toList();
        assertThat(hits).hasSize(1);
        assertThat(arm(hits.get(0))).isEqualTo("baseline");
        assertThat(hits.get(0).failure().category()).isEqualTo("NO_METRICS");
    }

    @Test
    void noEventIsChargedToMoreThanOneArmAndUnknownStaysRare() {
        int failed = 0;
        int unknown = 0;
        for (List<RunRecord> inv : invocations("").values()) {
            Set<String> evidence = new HashSet<>();
            for (RunRecord r : inv) {
                if (r.status() == RunStatus.FAILED) {
                    failed++;
                    unknown += r.failure().category().equals("UNKNOWN") ? 1 : 0;
                    assertThat(evidence.add(r.failure().evidence())).as("one event charged twice: " + r.failure()
                            .evidence()).isTrue();
                }
            }
            // the harness stops at the first failure: one failed run per invocation
            assertThat(inv.stream().filter(r -> r.status() == RunStatus.FAILED)).hasSizeLessThanOrEqualTo(1);
        }
        assertThat(failed).isGreaterThan(20);
        assertThat(unknown * 100.0 / failed).isLessThanOrEqualTo(5.0);
    }

    @Test
    void aSuccessWithAServingBlockWithoutTpotIsASuccess() {
        for (String[] f : new String[][] {{"9badee53_human_result.json", "human"}, {"ca7a2d5f_agent_result.json", "agent"}}) {
            RunRecord r = runs.stream().filter(x -> path(x).endsWith(SEPARATE + f[0])).findFirst().orElseThrow();
            assertThat(arm(r)).isEqualTo(f[1]);
            assertThat(r.status()).as(f[0]).isEqualTo(RunStatus.SUCCESS);
            assertThat(r.failure()).isNull();
            assertThat(r.notes()).contains("no primary metric: the serving block of this benchmark version has no TPOT");
            ThreeWayRow row = ThreeWayTable.row(r.commitShort(), List.of(r)).orElseThrow();
            assertThat(row.issues()).contains(f[1] + ": no primary metric (the serving block of this benchmark version"
                    + " has no TPOT)");
        }
    }

    @Test
    void aModalSuccessWithOnlyAnAmbiguousThroughputKeyIsASuccess() {
        List<RunRecord> ce = runs.stream().filter(r -> path(r).contains("hero_3way_20251231_133756")
                && r.commitShort().equals("ce6bf3a2")).toList();
        for (String a : new String[] {"baseline", "human"}) {
            RunRecord r = ce.stream().filter(x -> arm(x).equals(a)).findFirst().orElseThrow();
            assertThat(r.status()).as(a).isEqualTo(RunStatus.SUCCESS);
            assertThat(r.notes()).contains("no primary metric: the output holds no").contains("(it has throughput)");
        }
        // the agent arm's own error ("Agent benchmark produced no metrics") is its own failure
        RunRecord agent = ce.stream().filter(x -> arm(x).equals("agent")).findFirst().orElseThrow();
        assertThat(agent.failure().category()).isEqualTo("NO_METRICS");
    }
}
