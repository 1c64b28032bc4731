package io.isobench.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.parse.Metric;
import io.isobench.parse.MetricDictionary;
import io.isobench.parse.OutputParser;
import io.isobench.parse.ParsedOutput;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The arithmetic of schedule fidelity and the client self-check, on hand-made requests (no timing): lag against the
 * intended time or a later free slot, late share, configured vs delivered rate, mean concurrency, the thresholds and
 * their reasons; and the forms the numbers take (console rows read back by {@link OutputParser}, the store's metric
 * names, the {@code --save-result} keys). The console section and the JSON keys are golden
 * ({@code loadgen-fidelity/}; rewrite with {@code -Disobench.golden.rewrite=true}).
 */
class FidelityCheckTest {

    static final Path DIR = Path.of("src/test/resources/loadgen-fidelity");
    private static final long MS = 1_000_000L;

    /** A successful request due at {@code schedMs}, ready at {@code readyMs}, sent at {@code sendMs}, ending at endMs. */
    static RequestResult req(int i, double schedMs, double readyMs, double sendMs, double endMs) {
        long send = (long) (sendMs * MS);
        long end = (long) (endMs * MS);
        long[] ch = {end - send};
        return new RequestResult(i, true, null, null, (long) (schedMs * MS), send, end, ch[0], ch[0], ch, 10, 10, 1,
                true, 1, "", (long) (readyMs * MS));
    }

    @Test
    void lagIsSendMinusIntendedWithoutACap() {
        List<RequestResult> rs = new ArrayList<>();
        // 100 requests every 10 ms, sent 0.1 ms late, except three sent 5, 20 and 40 ms late
        for (int i = 0; i < 100; i++) {
            double late = i == 10 ? 5 : i == 50 ? 20 : i == 90 ? 40 : 0.1;
            rs.add(req(i, 10 + 10 * i, 10 + 10 * i, 10 + 10 * i + late, 10 + 10 * i + late + 30));
        }
        LoadFidelity.Schedule s = FidelityCheck.schedule(rs, rs, null, 1.1, 1.0);
        assertThat(s.requests()).isEqualTo(100);
        assertThat(s.lagMsP50()).isCloseTo(0.1, within(1e-6));
        assertThat(s.lagMsMax()).isCloseTo(40, within(1e-6));
        // np.percentile over 100 sorted values: rank 98.01 between 20 (index 98) and 40 (index 99)
        assertThat(s.lagMsP99()).isCloseTo(20 + 0.01 * 20, within(1e-6));
        assertThat(s.latePct()).isCloseTo(3.0, within(1e-9));
        assertThat(s.lateThresholdMs()).isEqualTo(1.0);
        // 100 arrivals, the last intended at 1000 ms: 100 req/s; the last sent at 1000.1 ms
        assertThat(s.configuredRateRps()).isCloseTo(100.0, within(1e-9));
        assertThat(s.deliveredRateRps()).isCloseTo(100 / 1.0001, within(1e-9));
        assertThat(s.configuredMaxConcurrency()).isNull();
        // every request 30 ms in flight over 1.1 s: 100 × 30 / 1100
        assertThat(s.deliveredConcurrencyMean()).isCloseTo(100 * 30 / 1100.0, within(1e-9));
    }

    @Test
    void waitingForAConcurrencySlotIsTheConfiguredLoadNotLag() {
        // cap 1: all three due at 1 ms; the second's slot frees at 50 ms (sent 50.2), the third's at 100 (sent 100.3)
        List<RequestResult> rs = List.of(
                req(0, 1, 1, 1.05, 50),
                req(1, 1, 50, 50.2, 100),
                req(2, 1, 100, 100.3, 150));
        LoadFidelity.Schedule s = FidelityCheck.schedule(rs, rs, 1, 0.15, 1.0);
        assertThat(s.lagMsMax()).isCloseTo(0.3, within(1e-6));
        assertThat(s.latePct()).isZero();
        assertThat(s.configuredMaxConcurrency()).isEqualTo(1);
        assertThat(s.deliveredConcurrencyMean()).isCloseTo((48.95 + 49.8 + 49.7) / 150, within(1e-6));
        // the client queue time still holds the whole wait
        assertThat(rs.get(2).clientQueueNs() / 1e6).isCloseTo(99.3, within(1e-6));
        assertThat(rs.get(2).scheduleLagNs() / 1e6).isCloseTo(0.3, within(1e-6));
    }

    @Test
    void theRatesAreUndefinedWithoutAnIntendedSendAfterTheStartAndCountArrivalsOnly() {
        List<RequestResult> all = List.of(req(0, 0, 0, 0.1, 10), req(1, 10, 10, 10.1, 20), req(2, 20, 20, 20.5, 30));
        assertThat(FidelityCheck.schedule(all.subList(0, 1), all.subList(0, 1), null, 1, 1).configuredRateRps())
                .isNull();
        // a multi-turn run: the first request starts a conversation, the later ones are its turns
        LoadFidelity.Schedule s = FidelityCheck.schedule(all, all.subList(0, 1), null, 0.03, 1);
        assertThat(s.configuredRateRps()).isNull();
        assertThat(s.deliveredRateRps()).isCloseTo(1 / 0.0001, within(1e-6));
        assertThat(s.requests()).isEqualTo(3);
    }

    @Test
    void eachThresholdCrossedIsAReasonWithItsNumber() {
        LoadFidelity.Limits lim = LoadFidelity.Limits.DEFAULT;
        long[] calm = new long[200];
        Arrays.fill(calm, 200_000L);
        LoadFidelity.ClientCheck ok = FidelityCheck.check(lim, 35.0, calm, null, null);
        assertThat(ok.saturated()).isFalse();
        assertThat(ok.reasons()).isEmpty();
        assertThat(ok.loopLagMsP99()).isCloseTo(0.2, within(1e-9));
        assertThat(ok.sendLagMsP99()).isNull();

        long[] slow = new long[100];
        for (int i = 0; i < slow.length; i++) {
            slow[i] = i < 95 ? 1 * MS : 40 * MS; // 5 % of ticks 40 ms late
        }
        List<RequestResult> late = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            late.add(req(i, 10 * i, 10 * i, 10 * i + 12.5, 10 * i + 20));
        }
        LoadFidelity.Schedule s = FidelityCheck.schedule(late, late, null, 0.2, 1);
        LoadFidelity.ClientCheck bad = FidelityCheck.check(lim, 97.25, slow, s, FidelityCheck.lagsMs(late));
        assertThat(bad.saturated()).isTrue();
        assertThat(bad.reasons()).containsExactly(
                "I/O thread busy 97.3 % >= 90 %",
                "event-loop lag p99 40.00 ms > 10 ms (5 of 100 ticks over)",
                "schedule lag p99 12.50 ms > 10 ms (10 of 10 requests over)");
        assertThat(bad.loopLagMsMax()).isEqualTo(40.0);
        assertThat(bad.sendLagMsP99()).isCloseTo(12.5, within(1e-9));

        // an unknown busy share (-1) is no reason; the limits are the flags'
        LoadFidelity.Limits loose = new LoadFidelity.Limits(1, 99.5, 50, 20);
        assertThat(FidelityCheck.check(loose, -1, slow, s, FidelityCheck.lagsMs(late)).saturated()).isFalse();
        assertThat(FidelityCheck.check(new LoadFidelity.Limits(1, 90, 10, 2.5), 10, calm, s,
                FidelityCheck.lagsMs(late)).reasons())
                .containsExactly("schedule lag p99 12.50 ms > 2.5 ms (10 of 10 requests over)");
    }

    @Test
    void onePauseInAShortRunIsNotSaturationTwoAre() {
        // 50 ticks: with one 30 ms pause the p99 (interpolated) is about the maximum, yet one pause is one GC or JIT
        // stall, not a client that cannot keep up; two over the limit are a pattern
        long[] ticks = new long[50];
        Arrays.fill(ticks, 300_000L);
        ticks[20] = 30 * MS;
        LoadFidelity.ClientCheck one = FidelityCheck.check(LoadFidelity.Limits.DEFAULT, 5, ticks, null, null);
        assertThat(one.loopLagMsP99()).isGreaterThan(10.0);
        assertThat(one.saturated()).isFalse();
        ticks[30] = 12 * MS;
        assertThat(FidelityCheck.check(LoadFidelity.Limits.DEFAULT, 5, ticks, null, null).reasons())
                .containsExactly("event-loop lag p99 21.18 ms > 10 ms (2 of 50 ticks over)");
        // likewise one late request of 20
        List<RequestResult> rs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            rs.add(req(i, 10 * i + 10, 10 * i + 10, 10 * i + 10 + (i == 7 ? 25 : 0.1), 10 * i + 50));
        }
        LoadFidelity.Schedule s = FidelityCheck.schedule(rs, rs, null, 0.3, 1);
        assertThat(s.lagMsP99()).isGreaterThan(10.0);
        assertThat(FidelityCheck.check(LoadFidelity.Limits.DEFAULT, 5, new long[0], s, FidelityCheck.lagsMs(rs))
                .saturated()).isFalse();
    }

    /** A run with a schedule and a cap, saturated by its loop lag, as the forms below show it. */
    static LoadgenResult sample() {
        LoadgenConfig c = LoadgenConfig.builder().model("org/m").requestRate(100).maxConcurrency(4)
                .percentileMetrics(Set.of("ttft", "tpot", "itl")).build();
        List<RequestResult> rs = List.of(req(0, 10, 10, 10.2, 40), req(1, 20, 20, 21.5, 60),
                req(2, 30, 30, 30.1, 70));
        long[] ticks = {1 * MS, 2 * MS, 30 * MS, 25 * MS};
        LoadgenResult.Run run = new LoadgenResult.Run(Instant.parse("2026-11-29T03:00:00Z"), 0, 0.1, 0, null);
        LoadgenResult.ClientCpu cpu = new LoadgenResult.ClientCpu(0.05, 0.04, 0.01, 0.03, 0.02, "nio");
        LoadGenerator.Measured m = new LoadGenerator.Measured(run, rs, cpu, null,
                new FidelityCheck.Observed(true, rs, ticks));
        LoadFidelity f = FidelityCheck.of(c.fidelityLimits(), c.maxConcurrency(), m);
        return new LoadgenResult(c, run, rs, RunSummary.of(c, rs, 0.1), List.of(), cpu, null, f);
    }

    @Test
    void theConsoleSectionIsGoldenAndParsesBackAsTheStoredMetrics() throws IOException {
        LoadgenResult r = sample();
        String block = r.consoleBlock();
        String section = block.substring(block.indexOf("-Schedule fidelity-") - 16);
        golden("console-section.golden.txt", section);
        ParsedOutput p = OutputParser.parse("INFO start\n" + block + r.detailBlock());
        List<Metric> stored = LoadgenResult.fidelityMetrics(r.fidelity());
        assertThat(stored).extracting(Metric::name).containsExactly("schedule_lag_ms_p50", "schedule_lag_ms_p99",
                "schedule_lag_ms_max", "schedule_late_pct", "configured_request_rate_rps",
                "delivered_request_rate_rps", "configured_max_concurrency", "delivered_concurrency_mean",
                "client_cpu_busy_pct", "client_loop_lag_ms_p99", "client_loop_lag_ms_max", "client_saturated");
        for (Metric m : stored) {
            assertThat(p.value(m.name())).as(m.name()).isPresent();
            assertThat(p.value(m.name()).getAsDouble()).as(m.name()).isCloseTo(m.value(), within(0.006));
            assertThat(MetricDictionary.lookup(m.name())).as(m.name()).isNotNull();
        }
        assertThat(p.value("client_saturated").getAsDouble()).isEqualTo(1.0);
        assertThat(r.metrics()).extracting(Metric::name).containsAll(stored.stream().map(Metric::name).toList());
    }

    @Test
    void theSaveResultKeysAreGolden() throws IOException {
        LoadgenResult r = sample();
        ObjectNode o = r.resultJson(false);
        Set<String> ours = new HashSet<>(Set.of("isobench_client_check"));
        LoadgenResult.fidelityMetrics(r.fidelity()).forEach(m -> ours.add("isobench_" + m.name()));
        StringBuilder keys = new StringBuilder();
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (ours.remove(k)) {
                keys.append(k).append(' ').append(o.get(k)).append('\n');
            }
        }
        assertThat(ours).as("keys missing from the JSON").isEmpty();
        golden("result-keys.golden.txt", keys.toString());
        JsonNode check = o.get("isobench_client_check");
        assertThat(check.get("saturated").asBoolean()).isTrue();
        assertThat(check.get("reasons").get(0).asText()).startsWith("event-loop lag p99 ");
        assertThat(check.get("thresholds").get("loop_lag_ms_p99").asDouble()).isEqualTo(10.0);
        assertThat(new ObjectMapper().readTree(o.toString()).get("isobench_client_saturated").asInt()).isEqualTo(1);
    }

    @Test
    void aRunWithoutFidelityPrintsAndStoresNothingNew() {
        LoadgenResult r = LoadgenParseBackTest.sample();
        assertThat(r.consoleBlock()).doesNotContain("Schedule fidelity").doesNotContain("Client self-check");
        assertThat(r.metrics()).extracting(Metric::name).doesNotContain("client_saturated");
        assertThat(r.resultJson(false).has("isobench_client_check")).isFalse();
    }

    @Test
    void theThresholdsAreFlagsOfLoadgenAndOfATaskCommand() {
        LoadgenConfig c = ServeFlags.parse(Map.of("model", List.of("m"), "client-loop-lag-limit-ms", List.of("20"),
                "schedule-late-ms", List.of("0.5")), w -> { }).build();
        assertThat(c.fidelityLimits()).isEqualTo(new LoadFidelity.Limits(0.5, 90, 20, 10));
        LoadgenConfig t = ServeFlags.workload(LoadgenConfig.builder().model("m"),
                Map.of("schedule-lag-limit-ms", "5", "client-busy-limit-pct", "95"), w -> { }).build();
        assertThat(t.fidelityLimits()).isEqualTo(new LoadFidelity.Limits(1, 95, 10, 5));
        assertThat(LoadgenConfig.builder().model("m").build().fidelityLimits()).isEqualTo(LoadFidelity.Limits.DEFAULT);
        assertThatThrownBy(() -> ServeFlags.parse(Map.of("model", List.of("m"), "schedule-lag-limit-ms",
                List.of("0")), w -> { }).build()).hasMessage("--schedule-lag-limit-ms (0.0) must be a finite number > 0");
    }

    @Test
    void theStallKnobIsWholeMicroseconds() {
        assertThat(LoopLag.stallNs((String) null)).isZero();
        assertThat(LoopLag.stallNs(" 20000 ")).isEqualTo(20_000_000L);
        assertThatThrownBy(() -> LoopLag.stallNs("2.5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ISOBENCH_LOADGEN_LOOP_STALL_US (2.5) must be a whole number of microseconds");
    }

    @Test
    void theLoopLagSamplesOfAPhaseAreThoseSinceItsMark() {
        LoopLag lag = new LoopLag();
        lag.record(3 * MS);
        int mark = lag.mark();
        for (int i = 0; i < 3000; i++) {
            lag.record(i * 1000L);
        }
        long[] since = lag.since(mark);
        assertThat(since).hasSize(3000);
        assertThat(since[0]).isZero();
        assertThat(since[2999]).isEqualTo(2_999_000L);
    }

    private static void golden(String name, String actual) throws IOException {
        Path f = DIR.resolve(name);
        if (Boolean.getBoolean("isobench.golden.rewrite") || !Files.exists(f)) {
            Files.createDirectories(DIR);
            Files.writeString(f, actual, StandardCharsets.UTF_8);
        }
        assertThat(actual).isEqualTo(Files.readString(f, StandardCharsets.UTF_8));
    }
}
