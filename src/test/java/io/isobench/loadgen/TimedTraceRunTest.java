package io.isobench.loadgen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.isobench.cli.Main;
import io.isobench.task.ClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A timed trace through the flags (CLI and task) and through a real run: the load generator replays
 * {@code small.jsonl} against {@link StreamingTestServer} (loopback) and every request is scheduled at the trace's
 * offset to the nanosecond, sent no earlier, in order; the workload fingerprint is equal for equal replays and differs
 * when the offsets or the prompts do. How late a request went out is printed (and bounded only under
 * {@code -Disobench.timing=true}, as LoadgenAccuracyTest: no timed assertions in the shared build).
 */
@Isolated("with -Disobench.timing=true its assertions come from measured send times: nothing runs beside it (ItLocks)")
class TimedTraceRunTest {

    static final String SMALL = Path.of("src/test/resources/timed-trace/small.jsonl").toAbsolutePath().toString();

    private static Map<String, List<String>> cli(String... kv) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], List.of(kv[i + 1]));
        }
        return m;
    }

    @Test
    void vllmsFlagsAndIsobenchsDefaults() {
        List<String> warnings = new ArrayList<>();
        LoadgenConfig c = ServeFlags.parse(cli("model", "m", "dataset-name", "timed_trace", "dataset-path", SMALL),
                warnings::add).build();
        assertThat(c.dataset().kind()).isEqualTo(DatasetSpec.Kind.TIMED_TRACE);
        assertThat(c.dataset().trace()).isEqualTo(DatasetSpec.Trace.DEFAULT);
        assertThat(c.dataset().trace().blockTokens()).isEqualTo(512);
        assertThat(c.dataset().trace().secMultiplier()).isEqualTo(0.001);
        assertThat(c.dataset().id()).isEqualTo("timed_trace:small.jsonl,block=512,sec_multiplier=0.001,speedup=1.0,start=0.0");

        LoadgenConfig d = ServeFlags.parse(cli("model", "m", "dataset-name", "timed-trace", "dataset-path", SMALL,
                "timed-trace-chunk-hash-size", "16", "timed-trace-sec-multiplier", "1", "trace-speedup", "2.5",
                "trace-start", "10", "trace-duration", "60", "timed-trace-label-timestamp", "ts",
                "request-rate", "5", "burstiness", "0.5", "self-timed", "true"), warnings::add).build();
        assertThat(d.dataset().trace()).isEqualTo(new DatasetSpec.Trace(16, 1.0, 2.5, 10.0, 60.0,
                new DatasetSpec.Labels("ts", "input_length", "output_length", "hash_ids")));
        assertThat(d.dataset().id()).contains("duration=60.0").contains("labels=ts/input_length/output_length/hash_ids");
        // an arrival process beside a timed trace is ignored, one line each
        assertThat(d.requestRate()).isInfinite();
        assertThat(d.burstiness()).isEqualTo(1.0);
        assertThat(warnings).containsExactly(
                "--request-rate 5 is ignored: a timed trace sends each request at its own timestamp",
                "--burstiness 0.5 is ignored: a timed trace sends each request at its own timestamp");

        assertThatThrownBy(() -> ServeFlags.parse(cli("model", "m", "dataset-name", "timed-trace", "dataset-path", SMALL,
                "duration", "10"), w -> { }).build()).hasMessageContaining("--duration, --request-rate and --ramp-up-*"
                + " do not apply");
        assertThatThrownBy(() -> ServeFlags.parse(cli("model", "m", "dataset-name", "timed-trace"), w -> { }).build())
                .hasMessageContaining("needs --dataset-path FILE");
        assertThatThrownBy(() -> ServeFlags.parse(cli("model", "m", "dataset-name", "timed-trace", "dataset-path", SMALL,
                "trace-speedup", "0"), w -> { }).build()).hasMessageContaining("--trace-speedup (0.0) must be");
        assertThatThrownBy(() -> ServeFlags.parse(cli("model", "m", "dataset-name", "timed-trace", "dataset-path", SMALL,
                "timed-trace-chunk-hash-size", "0"), w -> { }).build())
                .hasMessageContaining("--timed-trace-chunk-hash-size (0) must be >= 1");
    }

    @Test
    void aTaskReadsItsTraceFromTheArmsWorktreeOrFallsBackToRandom(@TempDir Path worktree) throws Exception {
        Files.copy(Path.of(SMALL), worktree.resolve("t.jsonl"));
        Map<String, String> flags = ClientConfig.ofArgv(List.of("--dataset-name", "timed-trace", "--dataset-path",
                "t.jsonl", "--timed-trace-chunk-hash-size", "4", "--trace-speedup", "3", "--self-timed")).loadgenFlags();
        List<String> warnings = new ArrayList<>();
        Path scratch = Files.createDirectories(worktree.resolve("scratch"));
        LoadgenConfig c = ServeFlags.workload(LoadgenConfig.builder().model("m"), flags, worktree, scratch,
                warnings::add).build();
        // read through a private copy of the tree's file (TreeFile), byte for byte
        assertThat(c.dataset().path()).isEqualTo(scratch.resolve("t.jsonl"));
        assertThat(Files.mismatch(c.dataset().path(), Path.of(SMALL))).isEqualTo(-1L);
        assertThat(c.dataset().trace().blockTokens()).isEqualTo(4);
        assertThat(c.dataset().trace().speedup()).isEqualTo(3.0);
        assertThat(warnings).containsExactly("--timed-trace-sec-multiplier not given: isobench's default is 0.001"
                + " (millisecond timestamps), vLLM's 1 (seconds); write it in the command to be read alike by both");
        warnings.clear();
        LoadgenConfig none = ServeFlags.workload(LoadgenConfig.builder().model("m"), flags,
                worktree.resolve("elsewhere"), scratch, warnings::add).build();
        assertThat(none.dataset().kind()).isEqualTo(DatasetSpec.Kind.RANDOM);
        assertThat(warnings).singleElement().asString().contains("--dataset-name timed-trace file")
                .contains("does not exist; random prompts instead");
    }

    private static LoadgenConfig.Builder replay(StreamingTestServer server, double speedup) {
        return LoadgenConfig.builder().baseUrl(server.baseUrl()).model("test").seed(3).ignoreEos(true)
                .requestTimeout(Duration.ofSeconds(30)).numWarmups(1)
                .dataset(DatasetSpec.timedTrace(Path.of(SMALL), new DatasetSpec.Trace(4, 0.001, speedup, 0,
                        Double.POSITIVE_INFINITY, DatasetSpec.Labels.DEFAULT)));
    }

    @Test
    void aReplayFollowsTheTracesScheduleAndItsFingerprintPinsPromptsAndOffsets() throws Exception {
        try (StreamingTestServer server = new StreamingTestServer(0, 2, 1, 0)) {
            LoadgenResult a = LoadGenerator.run(replay(server, 10).build(), null);
            long[] expected = TimedTrace.offsetsNs(TraceFile.read(Path.of(SMALL), DatasetSpec.Trace.DEFAULT), 10);
            assertThat(expected).containsExactly(0L, 50_000_000L, 50_000_000L, 175_000_000L, 300_000_000L, 500_000_000L);
            assertThat(a.summary().completed()).isEqualTo(6);
            assertThat(a.requests()).extracting(RequestResult::index).containsExactly(0, 1, 2, 3, 4, 5);
            assertThat(a.requests()).extracting(RequestResult::scheduledNs)
                    .containsExactly(Arrays.stream(expected).boxed().toArray(Long[]::new));
            assertThat(a.requests()).extracting(RequestResult::maxTokens).containsExactly(3, 2, 5, 1, 4, 2);
            long prev = 0;
            double[] lateMs = new double[6];
            for (RequestResult r : a.requests()) {
                assertThat(r.sendNs()).as("never before its offset").isGreaterThanOrEqualTo(r.scheduledNs());
                assertThat(r.sendNs()).as("in trace order").isGreaterThanOrEqualTo(prev);
                prev = r.sendNs();
                lateMs[r.index()] = (r.sendNs() - r.scheduledNs()) / 1e6;
            }
            double maxLate = Arrays.stream(lateMs).max().orElseThrow();
            System.err.printf(Locale.ROOT, "timed trace replay: send lag per request (ms) %s, max %.3f%n",
                    Arrays.toString(lateMs), maxLate);
            if (LoadgenAccuracyTest.TIMING) {
                assertThat(maxLate).isLessThan(2.0);
            }
            ObjectNode wa = a.workloadFingerprint();
            assertThat(wa.path("requests").asInt()).isEqualTo(6);
            assertThat(wa.path("schedule_sha256").asText()).isEqualTo(TimedTrace.scheduleSha256(expected));
            assertThat(wa.path("trace_sha256").asText()).isEqualTo(TimedTrace.sha256(Path.of(SMALL)));

            // another arm, the same replay: the same fingerprint (prompts, offsets, file)
            ObjectNode wb = LoadGenerator.run(replay(server, 10).build(), null).workloadFingerprint();
            assertThat(wb).isEqualTo(wa);
            // other offsets: the schedule differs, the prompts do not
            ObjectNode fast = LoadGenerator.run(replay(server, 20).build(), null).workloadFingerprint();
            assertThat(fast.path("schedule_sha256")).isNotEqualTo(wa.path("schedule_sha256"));
            assertThat(fast.path("prompts_sha256")).isEqualTo(wa.path("prompts_sha256"));
            // other prompts (another seed): the prompts differ, the schedule does not
            ObjectNode seeded = LoadGenerator.run(replay(server, 10).seed(4).build(), null).workloadFingerprint();
            assertThat(seeded.path("prompts_sha256")).isNotEqualTo(wa.path("prompts_sha256"));
            assertThat(seeded.path("schedule_sha256")).isEqualTo(wa.path("schedule_sha256"));
            // --num-prompts takes the trace's first records
            LoadgenResult two = LoadGenerator.run(replay(server, 10).numPrompts(2).build(), null);
            assertThat(two.requests()).hasSize(2);
        }
    }

    @Test
    void theCliRefusesABadTraceWithExit2BeforeSendingAnything(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, "{\"timestamp\": 9, \"input_length\": 4, \"output_length\": 1}\n"
                + "{\"timestamp\": 3, \"input_length\": 4, \"output_length\": 1}\n");
        try (StreamingTestServer server = new StreamingTestServer(0, 2, 1, 0)) {
            StringWriter err = new StringWriter();
            int code = Main.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "loadgen",
                    "--base-url", server.baseUrl(), "--model", "m", "--dataset-name", "timed-trace", "--dataset-path",
                    bad.toString());
            assertThat(code).as(err.toString()).isEqualTo(2);
            assertThat(err.toString()).contains("trace file " + bad + " line 2 has \"timestamp\" 3, earlier than line"
                    + " 1's 9 (fix: sort the file by timestamp");
            assertThat(server.requests.get()).as("nothing sent").isZero();
        }
    }
}
